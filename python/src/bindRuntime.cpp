// The runtime area of kiln._kiln: bindRuntime() binds the runtime enums, then the callbacks (IOutputAllocator,
// IProfiler, IErrorRecorder, IGpuAllocator...), then Runtime/ICudaEngine/IEngineInspector and IExecutionContext.
// Enums that other areas may have bound first (TensorIOMode, ProfilingVerbosity, ...) are bound here only when
// they are still missing, so the module never registers a type twice.
#include "bindRuntimeCommon.h"

namespace kiln::python
{

namespace
{

using namespace nvinfer1;

void bindSharedEnums(py::module_& m)
{
    if (!isBound<TensorIOMode>())
    {
        py::enum_<TensorIOMode>(m, "TensorIOMode", "Whether an engine tensor is an input, an output, or neither.")
            .value("NONE", TensorIOMode::kNONE)
            .value("INPUT", TensorIOMode::kINPUT)
            .value("OUTPUT", TensorIOMode::kOUTPUT);
    }
    if (!isBound<ProfilingVerbosity>())
    {
        py::enum_<ProfilingVerbosity>(m, "ProfilingVerbosity", "How much layer information an engine keeps.")
            .value("LAYER_NAMES_ONLY", ProfilingVerbosity::kLAYER_NAMES_ONLY)
            .value("NONE", ProfilingVerbosity::kNONE)
            .value("DETAILED", ProfilingVerbosity::kDETAILED);
    }
    if (!isBound<EngineCapability>())
    {
        py::enum_<EngineCapability>(m, "EngineCapability", "Which runtime an engine targets.")
            .value("STANDARD", EngineCapability::kSTANDARD)
            .value("SAFETY", EngineCapability::kSAFETY)
            .value("DLA_STANDALONE", EngineCapability::kDLA_STANDALONE);
    }
    if (!isBound<HardwareCompatibilityLevel>())
    {
        py::enum_<HardwareCompatibilityLevel>(
            m, "HardwareCompatibilityLevel", "Which GPUs an engine may run on (no effect on Kiln's CPU backend).")
            .value("NONE", HardwareCompatibilityLevel::kNONE)
            .value("AMPERE_PLUS", HardwareCompatibilityLevel::kAMPERE_PLUS)
            .value("SAME_COMPUTE_CAPABILITY", HardwareCompatibilityLevel::kSAME_COMPUTE_CAPABILITY);
    }
    if (!isBound<ErrorCode>())
    {
        py::enum_<ErrorCode>(m, "ErrorCodeTRT", "Category of an error reported through IErrorRecorder.")
            .value("SUCCESS", ErrorCode::kSUCCESS)
            .value("UNSPECIFIED_ERROR", ErrorCode::kUNSPECIFIED_ERROR)
            .value("INTERNAL_ERROR", ErrorCode::kINTERNAL_ERROR)
            .value("INVALID_ARGUMENT", ErrorCode::kINVALID_ARGUMENT)
            .value("INVALID_CONFIG", ErrorCode::kINVALID_CONFIG)
            .value("FAILED_ALLOCATION", ErrorCode::kFAILED_ALLOCATION)
            .value("FAILED_INITIALIZATION", ErrorCode::kFAILED_INITIALIZATION)
            .value("FAILED_EXECUTION", ErrorCode::kFAILED_EXECUTION)
            .value("FAILED_COMPUTATION", ErrorCode::kFAILED_COMPUTATION)
            .value("INVALID_STATE", ErrorCode::kINVALID_STATE)
            .value("UNSUPPORTED_STATE", ErrorCode::kUNSUPPORTED_STATE);
    }
}

} // namespace

void bindRuntimeEnums(py::module_& m)
{
    bindSharedEnums(m);

    if (!isBound<ExecutionContextAllocationStrategy>())
    {
        py::enum_<ExecutionContextAllocationStrategy>(
            m, "ExecutionContextAllocationStrategy", "How an execution context obtains its activation memory.")
            .value("STATIC", ExecutionContextAllocationStrategy::kSTATIC)
            .value("ON_PROFILE_CHANGE", ExecutionContextAllocationStrategy::kON_PROFILE_CHANGE)
            .value("USER_MANAGED", ExecutionContextAllocationStrategy::kUSER_MANAGED);
    }

    if (!isBound<LayerInformationFormat>())
    {
        py::enum_<LayerInformationFormat>(m, "LayerInformationFormat", "Output format of IEngineInspector.")
            .value("ONELINE", LayerInformationFormat::kONELINE)
            .value("JSON", LayerInformationFormat::kJSON);
    }

    if (!isBound<TempfileControlFlag>())
    {
        py::enum_<TempfileControlFlag>(m, "TempfileControlFlag",
            "Permissions for the runtime to create temporary files; Runtime.tempfile_control_flags is a bit set "
            "(1 << int(flag)).")
            .value("ALLOW_IN_MEMORY_FILES", TempfileControlFlag::kALLOW_IN_MEMORY_FILES)
            .value("ALLOW_TEMPORARY_FILES", TempfileControlFlag::kALLOW_TEMPORARY_FILES);
    }

    if (!isBound<SerializationFlag>())
    {
        py::enum_<SerializationFlag>(m, "SerializationFlag", "Options of ICudaEngine.serialize_with_config().")
            .value("EXCLUDE_WEIGHTS", SerializationFlag::kEXCLUDE_WEIGHTS)
            .value("EXCLUDE_LEAN_RUNTIME", SerializationFlag::kEXCLUDE_LEAN_RUNTIME)
            .value("INCLUDE_REFIT", SerializationFlag::kINCLUDE_REFIT);
    }

    if (!isBound<EngineStat>())
    {
        py::enum_<EngineStat>(m, "EngineStat", "Statistics reported by ICudaEngine.get_engine_stat().")
            .value("TOTAL_WEIGHTS_SIZE", EngineStat::kTOTAL_WEIGHTS_SIZE)
            .value("STRIPPED_WEIGHTS_SIZE", EngineStat::kSTRIPPED_WEIGHTS_SIZE);
    }

    if (!isBound<AllocatorFlag>())
    {
        py::enum_<AllocatorFlag>(m, "AllocatorFlag", "Properties requested for an allocation (IGpuAllocator flags).")
            .value("RESIZABLE", AllocatorFlag::kRESIZABLE);
    }
}

void bindRuntime(py::module_& m)
{
    bindRuntimeEnums(m);
    bindRuntimeCallbacks(m);
    bindRuntimeEngine(m);
    bindRuntimeContext(m);
}

} // namespace kiln::python
