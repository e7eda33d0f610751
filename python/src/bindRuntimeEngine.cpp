// Runtime, ICudaEngine, IEngineInspector, IRuntimeConfig, ISerializationConfig and Refitter for Python.
// Lifetimes: a Runtime keeps its logger alive, an engine keeps its Runtime alive, and contexts/inspectors keep their
// engine alive; callback objects set on these objects live in each object's reference table (bindRuntimeCommon.h).
// Deserialization releases the GIL.
#include "bindRuntimeCommon.h"

#include <pybind11/stl.h>

#include <string>
#include <vector>

namespace kiln::python
{

namespace
{

using namespace nvinfer1;

//! A contiguous byte view of a Python object (IHostMemory, bytes, bytearray, memoryview, numpy array...).
class ByteView
{
public:
    ByteView(py::handle object, char const* what)
    {
        if (isBound<IHostMemory>() && py::isinstance<IHostMemory>(object))
        {
            IHostMemory& memory = object.cast<IHostMemory&>();
            mData = memory.data();
            mSize = memory.size();
            return;
        }
        if (PyObject_GetBuffer(object.ptr(), &mView, PyBUF_SIMPLE) != 0)
        {
            PyErr_Clear();
            throwTypeError(std::string(what) + ": expected a contiguous buffer (bytes, bytearray, memoryview, "
                + "numpy array or IHostMemory), got " + std::string(py::str(py::type::of(object).attr("__name__"))));
        }
        mHasView = true;
        mData = mView.buf;
        mSize = static_cast<size_t>(mView.len);
    }

    ~ByteView()
    {
        if (mHasView)
        {
            PyBuffer_Release(&mView);
        }
    }

    ByteView(ByteView const&) = delete;
    ByteView& operator=(ByteView const&) = delete;

    void const* data() const
    {
        return mData;
    }

    size_t size() const
    {
        return mSize;
    }

private:
    Py_buffer mView{};
    bool mHasView{false};
    void const* mData{nullptr};
    size_t mSize{0};
};

//! "name" of a tensor name argument, checked to be an engine I/O tensor for the calls that need one.
char const* ioName(ICudaEngine const& engine, int32_t index)
{
    if (index < 0 || index >= engine.getNbIOTensors())
    {
        throwIndexError("I/O tensor index " + std::to_string(index) + " is out of range [0, "
            + std::to_string(engine.getNbIOTensors()) + ")");
    }
    return engine.getIOTensorName(index);
}

py::object optionalString(char const* text)
{
    return text == nullptr ? py::object(py::none()) : py::object(py::str(text));
}

std::vector<int64_t> profileValues(ICudaEngine const& engine, char const* name, int32_t profile, OptProfileSelector s)
{
    int64_t const* values = engine.getProfileTensorValuesV2(name, profile, s);
    if (values == nullptr)
    {
        return {};
    }
    Dims const shape = engine.getTensorShape(name);
    int64_t count = 1;
    for (int32_t i = 0; i < shape.nbDims; ++i)
    {
        count *= shape.d[i] < 0 ? 0 : shape.d[i];
    }
    return std::vector<int64_t>(values, values + (shape.nbDims < 0 ? 0 : count));
}

void bindEngine(py::module_& m)
{
    py::class_<IRuntimeConfig>(m, "IRuntimeConfig", "Options used to create an execution context.")
        .def("set_execution_context_allocation_strategy", &IRuntimeConfig::setExecutionContextAllocationStrategy,
            py::arg("strategy") = ExecutionContextAllocationStrategy::kSTATIC)
        .def("get_execution_context_allocation_strategy", &IRuntimeConfig::getExecutionContextAllocationStrategy);

    py::class_<ISerializationConfig>(m, "ISerializationConfig", "Options of ICudaEngine.serialize_with_config().")
        .def_property("flags", &ISerializationConfig::getFlags, &ISerializationConfig::setFlags)
        .def("set_flag", &ISerializationConfig::setFlag, py::arg("flag"))
        .def("clear_flag", &ISerializationConfig::clearFlag, py::arg("flag"))
        .def("get_flag", &ISerializationConfig::getFlag, py::arg("flag"));

    py::class_<ICudaEngine> engine(m, "ICudaEngine", py::dynamic_attr(),
        "An engine for executing inference on a built network. Indexing with an int gives the I/O tensor name, "
        "with a str the I/O tensor index (-1 when unknown).");
    engine
        .def_property_readonly(
            "backend", [](ICudaEngine const& self) { return kiln::getEngineBackend(&self); },
            "Kiln extension: the backend the engine was built for (kiln.BackendKind.CPU or CUDA).")
        .def_property_readonly("num_io_tensors", &ICudaEngine::getNbIOTensors)
        .def_property_readonly("num_layers", &ICudaEngine::getNbLayers)
        .def_property_readonly("name", &ICudaEngine::getName)
        .def_property_readonly("num_optimization_profiles", &ICudaEngine::getNbOptimizationProfiles)
        .def_property_readonly("refittable", &ICudaEngine::isRefittable)
        .def_property_readonly("engine_capability", &ICudaEngine::getEngineCapability)
        .def_property_readonly("tactic_sources", &ICudaEngine::getTacticSources)
        .def_property_readonly("profiling_verbosity", &ICudaEngine::getProfilingVerbosity)
        .def_property_readonly("hardware_compatibility_level", &ICudaEngine::getHardwareCompatibilityLevel)
        .def_property_readonly("num_aux_streams", &ICudaEngine::getNbAuxStreams)
        .def_property_readonly("device_memory_size_v2", &ICudaEngine::getDeviceMemorySizeV2)
        .def_property_readonly("streamable_weights_size", &ICudaEngine::getStreamableWeightsSize)
        .def_property_readonly("weight_streaming_automatic_budget", &ICudaEngine::getWeightStreamingAutomaticBudget)
        .def_property_readonly(
            "weight_streaming_scratch_memory_size", &ICudaEngine::getWeightStreamingScratchMemorySize)
        .def_property(
            "weight_streaming_budget_v2", &ICudaEngine::getWeightStreamingBudgetV2,
            [](ICudaEngine& self, int64_t budget) {
                checkOrThrow(self.setWeightStreamingBudgetV2(budget), "Setting weight_streaming_budget_v2");
            })
        .def_property(
            "error_recorder", &ICudaEngine::getErrorRecorder,
            [](ICudaEngine& self, py::object recorder) {
                self.setErrorRecorder(recorder.is_none() ? nullptr : recorder.cast<IErrorRecorder*>());
                keepRef(selfObject(&self), "error_recorder", recorder);
            },
            py::return_value_policy::reference);
    KILN_IGNORE_DEPRECATED_BEGIN
    engine.def_property_readonly("device_memory_size", &ICudaEngine::getDeviceMemorySize)
        .def_property_readonly("has_implicit_batch_dimension", &ICudaEngine::hasImplicitBatchDimension)
        .def_property(
            "weight_streaming_budget", &ICudaEngine::getWeightStreamingBudget,
            [](ICudaEngine& self, int64_t budget) {
                checkOrThrow(self.setWeightStreamingBudget(budget), "Setting weight_streaming_budget");
            })
        .def_property_readonly("minimum_weight_streaming_budget", &ICudaEngine::getMinimumWeightStreamingBudget)
        .def("get_device_memory_size_for_profile", &ICudaEngine::getDeviceMemorySizeForProfile,
            py::arg("profile_index"))
        .def(
            "create_execution_context_without_device_memory",
            [](ICudaEngine& self) { return self.createExecutionContextWithoutDeviceMemory(); },
            py::return_value_policy::take_ownership, py::keep_alive<0, 1>(),
            "[DEPRECATED] Same as create_execution_context(ExecutionContextAllocationStrategy.USER_MANAGED).");
    KILN_IGNORE_DEPRECATED_END
    engine.def("get_device_memory_size_for_profile_v2", &ICudaEngine::getDeviceMemorySizeForProfileV2,
              py::arg("profile_index"))
        .def("get_tensor_name", [](ICudaEngine& self, int32_t index) { return ioName(self, index); },
            py::arg("index"))
        .def("get_tensor_mode", &ICudaEngine::getTensorIOMode, py::arg("name"))
        .def("get_tensor_shape", &ICudaEngine::getTensorShape, py::arg("name"))
        .def("get_tensor_dtype", &ICudaEngine::getTensorDataType, py::arg("name"))
        .def("get_tensor_location", &ICudaEngine::getTensorLocation, py::arg("name"))
        .def("is_shape_inference_io", &ICudaEngine::isShapeInferenceIO, py::arg("name"))
        .def("is_debug_tensor", &ICudaEngine::isDebugTensor, py::arg("name"))
        .def(
            "get_aliased_input_tensor",
            [](ICudaEngine& self, std::string const& name) {
                return optionalString(self.getAliasedInputTensor(name.c_str()));
            },
            py::arg("name"))
        .def(
            "get_tensor_format",
            [](ICudaEngine& self, std::string const& name, std::optional<int32_t> profile) {
                return profile ? self.getTensorFormat(name.c_str(), *profile) : self.getTensorFormat(name.c_str());
            },
            py::arg("name"), py::arg("profile_index") = py::none())
        .def(
            "get_tensor_format_desc",
            [](ICudaEngine& self, std::string const& name, std::optional<int32_t> profile) {
                return optionalString(profile ? self.getTensorFormatDesc(name.c_str(), *profile)
                                              : self.getTensorFormatDesc(name.c_str()));
            },
            py::arg("name"), py::arg("profile_index") = py::none())
        .def(
            "get_tensor_bytes_per_component",
            [](ICudaEngine& self, std::string const& name, std::optional<int32_t> profile) {
                return profile ? self.getTensorBytesPerComponent(name.c_str(), *profile)
                               : self.getTensorBytesPerComponent(name.c_str());
            },
            py::arg("name"), py::arg("profile_index") = py::none())
        .def(
            "get_tensor_components_per_element",
            [](ICudaEngine& self, std::string const& name, std::optional<int32_t> profile) {
                return profile ? self.getTensorComponentsPerElement(name.c_str(), *profile)
                               : self.getTensorComponentsPerElement(name.c_str());
            },
            py::arg("name"), py::arg("profile_index") = py::none())
        .def(
            "get_tensor_vectorized_dim",
            [](ICudaEngine& self, std::string const& name, std::optional<int32_t> profile) {
                return profile ? self.getTensorVectorizedDim(name.c_str(), *profile)
                               : self.getTensorVectorizedDim(name.c_str());
            },
            py::arg("name"), py::arg("profile_index") = py::none())
        .def(
            "get_tensor_profile_shape",
            [](ICudaEngine& self, std::string const& name, int32_t profile) {
                std::vector<Dims> shapes;
                for (auto s : {OptProfileSelector::kMIN, OptProfileSelector::kOPT, OptProfileSelector::kMAX})
                {
                    shapes.push_back(self.getProfileShape(name.c_str(), profile, s));
                }
                return shapes;
            },
            py::arg("name"), py::arg("profile_index"),
            "[min, opt, max] shapes of an input in an optimization profile.")
        .def(
            "get_tensor_profile_values",
            [](ICudaEngine& self, std::string const& name, int32_t profile) {
                std::vector<std::vector<int64_t>> values;
                for (auto s : {OptProfileSelector::kMIN, OptProfileSelector::kOPT, OptProfileSelector::kMAX})
                {
                    values.push_back(profileValues(self, name.c_str(), profile, s));
                }
                return values;
            },
            py::arg("name"), py::arg("profile_index"),
            "[min, opt, max] values of a shape-tensor input in an optimization profile (empty lists otherwise).")
        .def("get_engine_stat", &ICudaEngine::getEngineStat, py::arg("stat"))
        .def(
            "create_execution_context",
            [](ICudaEngine& self, py::object how) {
                if (isBound<IRuntimeConfig>() && py::isinstance<IRuntimeConfig>(how))
                {
                    IRuntimeConfig* config = how.cast<IRuntimeConfig*>();
                    py::gil_scoped_release release;
                    return self.createExecutionContext(config);
                }
                auto const strategy = how.is_none() ? ExecutionContextAllocationStrategy::kSTATIC
                                                    : how.cast<ExecutionContextAllocationStrategy>();
                py::gil_scoped_release release;
                return self.createExecutionContext(strategy);
            },
            py::arg("strategy") = py::none(), py::return_value_policy::take_ownership, py::keep_alive<0, 1>(),
            "Create an execution context from an ExecutionContextAllocationStrategy (default STATIC) or an "
            "IRuntimeConfig; None on failure (the log says why).")
        .def("create_runtime_config", &ICudaEngine::createRuntimeConfig, py::return_value_policy::take_ownership)
        .def("create_engine_inspector", &ICudaEngine::createEngineInspector, py::return_value_policy::take_ownership,
            py::keep_alive<0, 1>())
        .def("create_serialization_config", &ICudaEngine::createSerializationConfig,
            py::return_value_policy::take_ownership)
        .def(
            "serialize",
            [](ICudaEngine& self) {
                py::gil_scoped_release release;
                return self.serialize();
            },
            py::return_value_policy::take_ownership, "The serialized engine as IHostMemory (a buffer).")
        .def(
            "serialize_with_config",
            [](ICudaEngine& self, ISerializationConfig& config) {
                py::gil_scoped_release release;
                return self.serializeWithConfig(config);
            },
            py::arg("config"), py::return_value_policy::take_ownership)
        .def("__getitem__", [](ICudaEngine& self, int32_t index) { return ioName(self, index); })
        .def("__getitem__",
            [](ICudaEngine& self, std::string const& name) {
                for (int32_t i = 0; i < self.getNbIOTensors(); ++i)
                {
                    if (name == self.getIOTensorName(i))
                    {
                        return i;
                    }
                }
                return -1;
            })
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](py::object, py::args) {}, "Context managers have no effect (as in TensorRT).");

    py::class_<IEngineInspector>(m, "EngineInspector", py::dynamic_attr(),
        "Describes the layers of an engine, optionally for the shapes of an execution context.")
        .def_property(
            "execution_context", &IEngineInspector::getExecutionContext,
            [](IEngineInspector& self, py::object context) {
                IExecutionContext const* pointer
                    = context.is_none() ? nullptr : context.cast<IExecutionContext const*>();
                checkOrThrow(self.setExecutionContext(pointer), "Setting EngineInspector.execution_context");
                keepRef(selfObject(&self), "execution_context", context);
            },
            py::return_value_policy::reference)
        .def_property(
            "error_recorder", &IEngineInspector::getErrorRecorder,
            [](IEngineInspector& self, py::object recorder) {
                self.setErrorRecorder(recorder.is_none() ? nullptr : recorder.cast<IErrorRecorder*>());
                keepRef(selfObject(&self), "error_recorder", recorder);
            },
            py::return_value_policy::reference)
        .def(
            "get_layer_information",
            [](IEngineInspector& self, int32_t index, LayerInformationFormat format) {
                return optionalString(self.getLayerInformation(index, format));
            },
            py::arg("layer_index"), py::arg("format"))
        .def(
            "get_engine_information",
            [](IEngineInspector& self, LayerInformationFormat format) {
                return optionalString(self.getEngineInformation(format));
            },
            py::arg("format"));
    m.attr("IEngineInspector") = m.attr("EngineInspector");
}

void bindRuntimeClass(py::module_& m)
{
    py::class_<IRuntime>(m, "Runtime", py::dynamic_attr(), "Deserializes engines. Runtime(logger).")
        .def(py::init([](ILogger& logger) {
            return checkNotNull(createInferRuntime(logger), "Runtime creation", "See the logger's messages.");
        }),
            py::arg("logger"), py::keep_alive<1, 2>())
        .def(
            "deserialize_cuda_engine",
            [](IRuntime& self, py::handle serialized) -> ICudaEngine* {
                if (py::isinstance<IStreamReaderV2>(serialized))
                {
                    IStreamReaderV2& reader = serialized.cast<IStreamReaderV2&>();
                    py::gil_scoped_release release;
                    return self.deserializeCudaEngine(reader);
                }
                KILN_IGNORE_DEPRECATED_BEGIN
                if (py::isinstance<IStreamReader>(serialized))
                {
                    IStreamReader& reader = serialized.cast<IStreamReader&>();
                    py::gil_scoped_release release;
                    return self.deserializeCudaEngine(reader);
                }
                KILN_IGNORE_DEPRECATED_END
                ByteView bytes(serialized, "Runtime.deserialize_cuda_engine");
                py::gil_scoped_release release;
                return self.deserializeCudaEngine(bytes.data(), bytes.size());
            },
            py::arg("serialized_engine"), py::return_value_policy::take_ownership, py::keep_alive<0, 1>(),
            "Deserialize an engine from a buffer (bytes, IHostMemory, numpy...) or an IStreamReader(V2); None on "
            "failure.")
        .def_property("DLA_core", &IRuntime::getDLACore, &IRuntime::setDLACore)
        .def_property_readonly("num_DLA_cores", &IRuntime::getNbDLACores)
        .def_property_readonly("logger", &IRuntime::getLogger, py::return_value_policy::reference)
        .def_property(
            "max_threads", &IRuntime::getMaxThreads,
            [](IRuntime& self, int32_t threads) { checkOrThrow(self.setMaxThreads(threads), "Setting max_threads"); })
        .def_property(
            "temporary_directory",
            [](IRuntime& self) { return optionalString(self.getTemporaryDirectory()); },
            [](IRuntime& self, std::optional<std::string> const& path) {
                self.setTemporaryDirectory(path ? path->c_str() : nullptr);
            })
        .def_property("tempfile_control_flags", &IRuntime::getTempfileControlFlags, &IRuntime::setTempfileControlFlags)
        .def_property("engine_host_code_allowed", &IRuntime::getEngineHostCodeAllowed,
            &IRuntime::setEngineHostCodeAllowed)
        .def_property(
            "error_recorder", &IRuntime::getErrorRecorder,
            [](IRuntime& self, py::object recorder) {
                self.setErrorRecorder(recorder.is_none() ? nullptr : recorder.cast<IErrorRecorder*>());
                keepRef(selfObject(&self), "error_recorder", recorder);
            },
            py::return_value_policy::reference)
        .def_property(
            "gpu_allocator", [](IRuntime& self) { return getRef(selfObject(&self), "gpu_allocator"); },
            [](IRuntime& self, py::object allocator) {
                self.setGpuAllocator(allocator.is_none() ? nullptr : allocator.cast<IGpuAllocator*>());
                keepRef(selfObject(&self), "gpu_allocator", allocator);
            })
        .def("get_plugin_registry", &IRuntime::getPluginRegistry, py::return_value_policy::reference_internal)
        .def(
            "load_runtime",
            [](IRuntime& self, std::string const& path) { return self.loadRuntime(path.c_str()); },
            py::arg("path"), py::return_value_policy::take_ownership, py::keep_alive<0, 1>(),
            "Load a lean runtime (not supported by Kiln: returns None and logs why).")
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](py::object, py::args) {}, "Context managers have no effect (as in TensorRT).");
}

void bindRefitter(py::module_& m)
{
    py::class_<IRefitter>(m, "Refitter", py::dynamic_attr(),
        "Refits the weights of a refittable engine. Kiln builds no refittable engines yet: construction raises.")
        .def(py::init([](ICudaEngine& engine, ILogger& logger) {
            return checkNotNull(createInferRefitter(engine, logger), "Refitter creation",
                "Kiln does not support refitting yet (see the logger's message).");
        }),
            py::arg("engine"), py::arg("logger"), py::keep_alive<1, 2>(), py::keep_alive<1, 3>())
        .def("refit_cuda_engine", &IRefitter::refitCudaEngine, py::call_guard<py::gil_scoped_release>());
}

} // namespace

void bindRuntimeEngine(py::module_& m)
{
    bindEngine(m);
    bindRuntimeClass(m);
    bindRefitter(m);
}

} // namespace kiln::python
