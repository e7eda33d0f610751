// The runtime area of kiln._kiln: bindRuntime() binds the runtime enums, then the callbacks (IOutputAllocator,
// IProfiler, IErrorRecorder, IGpuAllocator...), then Runtime/ICudaEngine/IEngineInspector and IExecutionContext.
// The enums the runtime shares with other areas (ErrorCodeTRT, ProfilingVerbosity, EngineCapability,
// HardwareCompatibilityLevel) are bound by bindCore/bindBuilder, which module.cpp calls first.
#include "bindRuntimeCommon.h"

namespace kiln::python
{

using namespace nvinfer1;

void bindRuntimeEnums(py::module_& m)
{
    py::enum_<TensorIOMode>(m, "TensorIOMode", "Whether an engine tensor is an input, an output, or neither.")
        .value("NONE", TensorIOMode::kNONE)
        .value("INPUT", TensorIOMode::kINPUT)
        .value("OUTPUT", TensorIOMode::kOUTPUT);

    py::enum_<ExecutionContextAllocationStrategy>(
        m, "ExecutionContextAllocationStrategy", "How an execution context obtains its activation memory.")
        .value("STATIC", ExecutionContextAllocationStrategy::kSTATIC)
        .value("ON_PROFILE_CHANGE", ExecutionContextAllocationStrategy::kON_PROFILE_CHANGE)
        .value("USER_MANAGED", ExecutionContextAllocationStrategy::kUSER_MANAGED);

    py::enum_<LayerInformationFormat>(m, "LayerInformationFormat", "Output format of IEngineInspector.")
        .value("ONELINE", LayerInformationFormat::kONELINE)
        .value("JSON", LayerInformationFormat::kJSON);

    py::enum_<TempfileControlFlag>(m, "TempfileControlFlag",
        "Permissions for the runtime to create temporary files; Runtime.tempfile_control_flags is a bit set "
        "(1 << int(flag)).")
        .value("ALLOW_IN_MEMORY_FILES", TempfileControlFlag::kALLOW_IN_MEMORY_FILES)
        .value("ALLOW_TEMPORARY_FILES", TempfileControlFlag::kALLOW_TEMPORARY_FILES);

    py::enum_<SerializationFlag>(m, "SerializationFlag", "Options of ICudaEngine.serialize_with_config().")
        .value("EXCLUDE_WEIGHTS", SerializationFlag::kEXCLUDE_WEIGHTS)
        .value("EXCLUDE_LEAN_RUNTIME", SerializationFlag::kEXCLUDE_LEAN_RUNTIME)
        .value("INCLUDE_REFIT", SerializationFlag::kINCLUDE_REFIT);

    py::enum_<EngineStat>(m, "EngineStat", "Statistics reported by ICudaEngine.get_engine_stat().")
        .value("TOTAL_WEIGHTS_SIZE", EngineStat::kTOTAL_WEIGHTS_SIZE)
        .value("STRIPPED_WEIGHTS_SIZE", EngineStat::kSTRIPPED_WEIGHTS_SIZE);

    py::enum_<AllocatorFlag>(m, "AllocatorFlag", "Properties requested for an allocation (IGpuAllocator flags).")
        .value("RESIZABLE", AllocatorFlag::kRESIZABLE);
}

void bindRuntime(py::module_& m)
{
    bindRuntimeEnums(m);
    bindRuntimeCallbacks(m);
    bindRuntimeEngine(m);
    bindRuntimeContext(m);
}

} // namespace kiln::python
