// The builder side of the tensorrt Python API: the builder enums (BuilderFlag, MemoryPoolType, ...), IHostMemory
// (buffer protocol), ITimingCache and Builder. BuilderConfig, IOptimizationProfile and IProgressMonitor are bound
// in bindBuilderConfig.cpp.
#include "bindings.h"
#include "deviceMemory.h"
#include "pyCommon.h"

#include <pybind11/stl.h>

#include <memory>
#include <string>

namespace kiln::python
{

void bindBuilderConfig(py::module_& m); // bindBuilderConfig.cpp

namespace
{

using namespace nvinfer1;

KILN_IGNORE_DEPRECATED_BEGIN

void bindBuilderEnums(py::module_& m)
{
    py::enum_<NetworkDefinitionCreationFlag>(m, "NetworkDefinitionCreationFlag",
        "Network properties fixed at creation; pass 1 << int(flag) to Builder.create_network.")
        .value("EXPLICIT_BATCH", NetworkDefinitionCreationFlag::kEXPLICIT_BATCH)
        .value("STRONGLY_TYPED", NetworkDefinitionCreationFlag::kSTRONGLY_TYPED)
        .value("PREFER_JIT_PYTHON_PLUGINS", NetworkDefinitionCreationFlag::kPREFER_JIT_PYTHON_PLUGINS)
        .value("PREFER_AOT_PYTHON_PLUGINS", NetworkDefinitionCreationFlag::kPREFER_AOT_PYTHON_PLUGINS);

    py::enum_<BuilderFlag>(m, "BuilderFlag", "Builder options (BuilderConfig.set_flag).")
        .value("FP16", BuilderFlag::kFP16)
        .value("INT8", BuilderFlag::kINT8)
        .value("DEBUG", BuilderFlag::kDEBUG)
        .value("GPU_FALLBACK", BuilderFlag::kGPU_FALLBACK)
        .value("REFIT", BuilderFlag::kREFIT)
        .value("DISABLE_TIMING_CACHE", BuilderFlag::kDISABLE_TIMING_CACHE)
        .value("TF32", BuilderFlag::kTF32)
        .value("SPARSE_WEIGHTS", BuilderFlag::kSPARSE_WEIGHTS)
        .value("SAFETY_SCOPE", BuilderFlag::kSAFETY_SCOPE)
        .value("OBEY_PRECISION_CONSTRAINTS", BuilderFlag::kOBEY_PRECISION_CONSTRAINTS)
        .value("PREFER_PRECISION_CONSTRAINTS", BuilderFlag::kPREFER_PRECISION_CONSTRAINTS)
        .value("DIRECT_IO", BuilderFlag::kDIRECT_IO)
        .value("REJECT_EMPTY_ALGORITHMS", BuilderFlag::kREJECT_EMPTY_ALGORITHMS)
        .value("VERSION_COMPATIBLE", BuilderFlag::kVERSION_COMPATIBLE)
        .value("EXCLUDE_LEAN_RUNTIME", BuilderFlag::kEXCLUDE_LEAN_RUNTIME)
        .value("FP8", BuilderFlag::kFP8)
        .value("ERROR_ON_TIMING_CACHE_MISS", BuilderFlag::kERROR_ON_TIMING_CACHE_MISS)
        .value("BF16", BuilderFlag::kBF16)
        .value("DISABLE_COMPILATION_CACHE", BuilderFlag::kDISABLE_COMPILATION_CACHE)
        .value("STRIP_PLAN", BuilderFlag::kSTRIP_PLAN)
        .value("WEIGHTLESS", BuilderFlag::kWEIGHTLESS)
        .value("REFIT_IDENTICAL", BuilderFlag::kREFIT_IDENTICAL)
        .value("WEIGHT_STREAMING", BuilderFlag::kWEIGHT_STREAMING)
        .value("INT4", BuilderFlag::kINT4)
        .value("REFIT_INDIVIDUAL", BuilderFlag::kREFIT_INDIVIDUAL)
        .value("STRICT_NANS", BuilderFlag::kSTRICT_NANS)
        .value("MONITOR_MEMORY", BuilderFlag::kMONITOR_MEMORY)
        .value("FP4", BuilderFlag::kFP4)
        .value("EDITABLE_TIMING_CACHE", BuilderFlag::kEDITABLE_TIMING_CACHE)
        .value("DISTRIBUTIVE_INDEPENDENCE", BuilderFlag::kDISTRIBUTIVE_INDEPENDENCE);

    py::enum_<MemoryPoolType>(m, "MemoryPoolType", "Memory pools whose limits BuilderConfig controls.")
        .value("WORKSPACE", MemoryPoolType::kWORKSPACE)
        .value("DLA_MANAGED_SRAM", MemoryPoolType::kDLA_MANAGED_SRAM)
        .value("DLA_LOCAL_DRAM", MemoryPoolType::kDLA_LOCAL_DRAM)
        .value("DLA_GLOBAL_DRAM", MemoryPoolType::kDLA_GLOBAL_DRAM)
        .value("TACTIC_DRAM", MemoryPoolType::kTACTIC_DRAM)
        .value("TACTIC_SHARED_MEMORY", MemoryPoolType::kTACTIC_SHARED_MEMORY);

    py::enum_<ProfilingVerbosity>(m, "ProfilingVerbosity", "Layer detail kept for profiling and the inspector.")
        .value("LAYER_NAMES_ONLY", ProfilingVerbosity::kLAYER_NAMES_ONLY)
        .value("NONE", ProfilingVerbosity::kNONE)
        .value("DETAILED", ProfilingVerbosity::kDETAILED);

    py::enum_<PreviewFeature>(m, "PreviewFeature", "Opt-in preview features.")
        .value("PROFILE_SHARING_0806", PreviewFeature::kPROFILE_SHARING_0806)
        .value("ALIASED_PLUGIN_IO_10_03", PreviewFeature::kALIASED_PLUGIN_IO_10_03)
        .value("RUNTIME_ACTIVATION_RESIZE_10_10", PreviewFeature::kRUNTIME_ACTIVATION_RESIZE_10_10)
        .value("MULTIDEVICE_RUNTIME_10_16", PreviewFeature::kMULTIDEVICE_RUNTIME_10_16);

    py::enum_<HardwareCompatibilityLevel>(m, "HardwareCompatibilityLevel", "GPU architectures an engine targets.")
        .value("NONE", HardwareCompatibilityLevel::kNONE)
        .value("AMPERE_PLUS", HardwareCompatibilityLevel::kAMPERE_PLUS)
        .value("SAME_COMPUTE_CAPABILITY", HardwareCompatibilityLevel::kSAME_COMPUTE_CAPABILITY);

    py::enum_<EngineCapability>(m, "EngineCapability", "Runtime an engine targets.")
        .value("STANDARD", EngineCapability::kSTANDARD)
        .value("SAFETY", EngineCapability::kSAFETY)
        .value("DLA_STANDALONE", EngineCapability::kDLA_STANDALONE);

    py::enum_<DeviceType>(m, "DeviceType", "Device a layer runs on.")
        .value("GPU", DeviceType::kGPU)
        .value("DLA", DeviceType::kDLA);

    py::enum_<TacticSource>(m, "TacticSource", "Tactic sources (bit i of BuilderConfig.set_tactic_sources).")
        .value("CUBLAS", TacticSource::kCUBLAS)
        .value("CUBLAS_LT", TacticSource::kCUBLAS_LT)
        .value("CUDNN", TacticSource::kCUDNN)
        .value("EDGE_MASK_CONVOLUTIONS", TacticSource::kEDGE_MASK_CONVOLUTIONS)
        .value("JIT_CONVOLUTIONS", TacticSource::kJIT_CONVOLUTIONS);

    py::enum_<RuntimePlatform>(m, "RuntimePlatform", "Platform an engine is built to run on.")
        .value("SAME_AS_BUILD", RuntimePlatform::kSAME_AS_BUILD)
        .value("WINDOWS_AMD64", RuntimePlatform::kWINDOWS_AMD64);

    py::enum_<TilingOptimizationLevel>(m, "TilingOptimizationLevel", "Effort spent on tiling optimization.")
        .value("NONE", TilingOptimizationLevel::kNONE)
        .value("FAST", TilingOptimizationLevel::kFAST)
        .value("MODERATE", TilingOptimizationLevel::kMODERATE)
        .value("FULL", TilingOptimizationLevel::kFULL);

    py::enum_<OptProfileSelector>(m, "OptProfileSelector", "Bound of an optimization profile.")
        .value("MIN", OptProfileSelector::kMIN)
        .value("OPT", OptProfileSelector::kOPT)
        .value("MAX", OptProfileSelector::kMAX);
}

//! Buffer-protocol format character and item size of a host memory's type (unknown types as raw bytes).
std::pair<std::string, py::ssize_t> bufferFormat(DataType type)
{
    switch (type)
    {
    case DataType::kFLOAT: return {py::format_descriptor<float>::format(), 4};
    case DataType::kHALF: return {"e", 2};
    case DataType::kINT8: return {py::format_descriptor<int8_t>::format(), 1};
    case DataType::kINT32: return {py::format_descriptor<int32_t>::format(), 4};
    case DataType::kINT64: return {py::format_descriptor<int64_t>::format(), 8};
    case DataType::kBOOL: return {"?", 1};
    default: return {py::format_descriptor<uint8_t>::format(), 1};
    }
}

void bindHostMemory(py::module_& m)
{
    py::class_<IHostMemory, std::unique_ptr<IHostMemory>>(m, "IHostMemory", py::buffer_protocol(),
        "Library-owned host memory (e.g. a serialized engine); supports the buffer protocol: bytes(mem), "
        "numpy.frombuffer(mem, numpy.uint8), file.write(mem).")
        .def_buffer([](IHostMemory& self) {
            auto [format, itemSize] = bufferFormat(self.type());
            py::ssize_t const count = static_cast<py::ssize_t>(self.size()) / itemSize;
            return py::buffer_info(self.data(), itemSize, format, 1, {count}, {itemSize});
        })
        .def_property_readonly("dtype", &IHostMemory::type)
        .def_property_readonly("nbytes", &IHostMemory::size)
        .def("__len__", &IHostMemory::size)
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](py::object, py::args) {});
}

void bindTimingCache(py::module_& m)
{
    py::class_<ITimingCache, std::unique_ptr<ITimingCache>>(m, "ITimingCache",
        "Tactic timings shareable across builds (BuilderConfig.create_timing_cache).")
        .def(
            "serialize", [](ITimingCache const& self) { return self.serialize(); },
            py::return_value_policy::take_ownership, "The cache as IHostMemory.")
        .def("combine", &ITimingCache::combine, py::arg("input_cache"), py::arg("ignore_mismatch"))
        .def("reset", &ITimingCache::reset)
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](py::object, py::args) {});
}

IBuilder* createBuilder(ILogger& logger)
{
    IBuilder* builder = createInferBuilder(logger);
    checkOrThrow(builder != nullptr, "Builder creation", "See the logger for the reason.");
    return builder;
}

void bindBuilderClass(py::module_& m)
{
    py::class_<IBuilder, std::unique_ptr<IBuilder>>(m, "Builder",
        "Creates networks, configurations and optimization profiles and builds engines.")
        .def(py::init(&createBuilder), py::arg("logger"), py::keep_alive<1, 2>())
        .def("create_network", &IBuilder::createNetworkV2, py::arg("flags") = 0U,
            py::return_value_policy::take_ownership, py::keep_alive<0, 1>(),
            "A new network (flags: bitmask of NetworkDefinitionCreationFlag).")
        .def("create_builder_config", &IBuilder::createBuilderConfig, py::return_value_policy::take_ownership,
            py::keep_alive<0, 1>())
        .def("create_optimization_profile", &IBuilder::createOptimizationProfile,
            py::return_value_policy::reference_internal, "A new optimization profile, owned by the builder.")
        .def(
            "build_serialized_network",
            [](IBuilder& self, INetworkDefinition& network, IBuilderConfig& config) {
                IHostMemory* memory = nullptr;
                {
                    // Python plugins timed during the build learn where their buffers live.
                    PlacementScope scope(placementOf(kiln::getBuilderBackend(&config)));
                    py::gil_scoped_release release;
                    memory = self.buildSerializedNetwork(network, config);
                }
                return memory;
            },
            py::arg("network"), py::arg("config"), py::return_value_policy::take_ownership,
            "Build and serialize an engine; None on failure (the logger says why).")
        .def(
            "build_engine_with_config",
            [](IBuilder& self, INetworkDefinition& network, IBuilderConfig& config) {
                ICudaEngine* engine = nullptr;
                {
                    // Python plugins timed during the build learn where their buffers live.
                    PlacementScope scope(placementOf(kiln::getBuilderBackend(&config)));
                    py::gil_scoped_release release;
                    engine = self.buildEngineWithConfig(network, config);
                }
                return engine;
            },
            py::arg("network"), py::arg("config"), py::return_value_policy::take_ownership,
            "Build an engine directly; None on failure.")
        .def(
            "is_network_supported",
            [](IBuilder const& self, INetworkDefinition const& network, IBuilderConfig const& config) {
                py::gil_scoped_release release;
                return self.isNetworkSupported(network, config);
            },
            py::arg("network"), py::arg("config"))
        .def("reset", &IBuilder::reset)
        .def("get_plugin_registry", &IBuilder::getPluginRegistry, py::return_value_policy::reference_internal)
        .def_property_readonly("platform_has_fast_fp16", &IBuilder::platformHasFastFp16)
        .def_property_readonly("platform_has_fast_int8", &IBuilder::platformHasFastInt8)
        .def_property_readonly("platform_has_tf32", &IBuilder::platformHasTf32)
        .def_property_readonly("num_DLA_cores", &IBuilder::getNbDLACores)
        .def_property_readonly("max_DLA_batch_size", &IBuilder::getMaxDLABatchSize)
        .def_property(
            "max_threads", &IBuilder::getMaxThreads,
            [](IBuilder& self, int32_t threads) {
                checkOrThrow(self.setMaxThreads(threads), "Builder.max_threads",
                    "The number of threads must be positive.");
            })
        .def_property_readonly("logger", &IBuilder::getLogger, py::return_value_policy::reference)
        .def_property("error_recorder", &IBuilder::getErrorRecorder,
            py::cpp_function(&IBuilder::setErrorRecorder, py::keep_alive<1, 2>()),
            py::return_value_policy::reference)
        .def_property(
            "gpu_allocator", [](IBuilder const&) { return py::none(); },
            py::cpp_function(&IBuilder::setGpuAllocator, py::keep_alive<1, 2>()))
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](py::object, py::args) {});

    m.def("get_builder_plugin_registry", &getBuilderPluginRegistry, py::arg("capability"),
        py::return_value_policy::reference, "The plugin registry used when building (STANDARD only).");
}

KILN_IGNORE_DEPRECATED_END

} // namespace

void bindBuilder(py::module_& m)
{
    bindBuilderEnums(m);
    bindHostMemory(m);
    bindTimingCache(m);
    bindBuilderConfig(m);
    bindBuilderClass(m);
}

} // namespace kiln::python
