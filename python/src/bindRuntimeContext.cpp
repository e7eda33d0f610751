// IExecutionContext for Python: every method and property of tensorrt's IExecutionContext (seed 003), including the
// deprecated binding-index methods, which map to the name-based calls (binding index = I/O tensor index).
// Addresses come from ints or from memory objects (numpy arrays and __array_interface__ for engines on the CPU
// backend, __cuda_array_interface__ and CUDA DLPack tensors for engines on the CUDA backend); objects that own
// memory, callbacks and allocators stay referenced by the context while they are set. Execution releases the GIL
// and tells Python plugins where their buffers live (PlacementScope).
#include "bindRuntimeCommon.h"

#include <pybind11/stl.h>

#include <cstring>
#include <string>
#include <vector>

namespace kiln::python
{

namespace
{

using namespace nvinfer1;

std::string const kADDRESS_KEY = "address:";

//! Name of I/O tensor `index`, or nullptr when out of range.
char const* bindingName(IExecutionContext const& context, int32_t index)
{
    ICudaEngine const& engine = context.getEngine();
    if (index < 0 || index >= engine.getNbIOTensors())
    {
        return nullptr;
    }
    return engine.getIOTensorName(index);
}

char const* requireBinding(IExecutionContext const& context, int32_t index)
{
    char const* name = bindingName(context, index);
    if (name == nullptr)
    {
        throwIndexError("binding index " + std::to_string(index) + " is out of range [0, "
            + std::to_string(context.getEngine().getNbIOTensors()) + ")");
    }
    return name;
}

bool isOutput(IExecutionContext const& context, char const* name)
{
    return context.getEngine().getTensorIOMode(name) == TensorIOMode::kOUTPUT;
}

//! The address of `memory` for tensor `name`; the object is kept by the context when it owns memory.
void* bindAddress(IExecutionContext& self, std::string const& name, py::handle memory, char const* what)
{
    std::string const label = std::string(what) + ": tensor '" + name + "'";
    void* address = reinterpret_cast<void*>(toAddress(
        memory, label.c_str(), isOutput(self, name.c_str()), nullptr, enginePlacement(self.getEngine())));
    keepRef(selfObject(&self), kADDRESS_KEY + name, isRawAddress(memory) ? py::none() : memory);
    return address;
}

//! The bindings of execute_v2/execute_async_v2 as pointers, one per I/O tensor.
std::vector<void*> bindingPointers(IExecutionContext& self, py::sequence const& bindings, char const* what)
{
    int32_t const count = self.getEngine().getNbIOTensors();
    if (static_cast<int32_t>(py::len(bindings)) != count)
    {
        throwValueError(std::string(what) + ": expected " + std::to_string(count)
            + " bindings (one per I/O tensor), got " + std::to_string(py::len(bindings)));
    }
    std::vector<void*> pointers(count);
    Placement const placement = enginePlacement(self.getEngine());
    for (int32_t i = 0; i < count; ++i)
    {
        char const* name = self.getEngine().getIOTensorName(i);
        std::string const label = std::string(what) + ": binding " + std::to_string(i) + " (tensor '" + name + "')";
        pointers[i] = reinterpret_cast<void*>(toAddress(bindings[i], label.c_str(), isOutput(self, name), nullptr,
            placement));
    }
    return pointers;
}

bool executeAsyncV2(IExecutionContext& self, py::sequence const& bindings, py::handle stream, py::handle consumed)
{
    std::vector<void*> pointers = bindingPointers(self, bindings, "execute_async_v2");
    cudaStream_t streamHandle = static_cast<cudaStream_t>(toHandle(stream, "stream_handle"));
    if (!consumed.is_none()
        && !self.setInputConsumedEvent(static_cast<cudaEvent_t>(toHandle(consumed, "input_consumed"))))
    {
        return false;
    }
    PlacementScope scope(enginePlacement(self.getEngine()));
    py::gil_scoped_release release;
    for (size_t i = 0; i < pointers.size(); ++i)
    {
        if (!self.setTensorAddress(self.getEngine().getIOTensorName(static_cast<int32_t>(i)), pointers[i]))
        {
            return false;
        }
    }
    return self.enqueueV3(streamHandle);
}

bool executeV2(IExecutionContext& self, py::sequence const& bindings)
{
    std::vector<void*> pointers = bindingPointers(self, bindings, "execute_v2");
    PlacementScope scope(enginePlacement(self.getEngine()));
    py::gil_scoped_release release;
    return self.executeV2(pointers.data());
}

//! set_shape_input: the values go to a context-owned host array bound as the tensor's address.
bool setShapeInput(IExecutionContext& self, int32_t binding, std::vector<int64_t> const& values)
{
    char const* name = bindingName(self, binding);
    if (name == nullptr)
    {
        return false;
    }
    ICudaEngine const& engine = self.getEngine();
    if (engine.getTensorIOMode(name) != TensorIOMode::kINPUT || !engine.isShapeInferenceIO(name))
    {
        throwValueError(std::string("set_shape_input: '") + name + "' is not a shape-tensor input");
    }
    DataType const type = engine.getTensorDataType(name);
    py::array array = type == DataType::kINT64 ? py::array(py::array_t<int64_t>(values.size(), values.data()))
                                               : py::array(py::array_t<int32_t>(values.size()));
    if (type != DataType::kINT64)
    {
        auto* data = static_cast<int32_t*>(array.mutable_data());
        for (size_t i = 0; i < values.size(); ++i)
        {
            data[i] = static_cast<int32_t>(values[i]);
        }
    }
    bool const ok = self.setTensorAddress(name, array.mutable_data());
    keepRef(selfObject(&self), kADDRESS_KEY + name, ok ? py::object(array) : py::object(py::none()));
    return ok;
}

//! get_shape: the values of a shape tensor read from its bound host memory.
std::vector<int64_t> getShapeValues(IExecutionContext& self, int32_t binding)
{
    char const* name = requireBinding(self, binding);
    ICudaEngine const& engine = self.getEngine();
    if (!engine.isShapeInferenceIO(name))
    {
        throwValueError(std::string("get_shape: '") + name + "' is not a shape tensor");
    }
    void const* address = self.getTensorAddress(name);
    if (address == nullptr)
    {
        throwRuntimeError(std::string("get_shape: no memory is bound to '") + name + "'");
    }
    Dims const shape = self.getTensorShape(name);
    int64_t count = 1;
    for (int32_t i = 0; i < shape.nbDims; ++i)
    {
        if (shape.d[i] < 0)
        {
            throwRuntimeError(std::string("get_shape: the shape of '") + name + "' is not known yet");
        }
        count *= shape.d[i];
    }
    std::vector<int64_t> values(static_cast<size_t>(shape.nbDims < 0 ? 0 : count));
    DataType const type = engine.getTensorDataType(name);
    for (size_t i = 0; i < values.size(); ++i)
    {
        values[i] = type == DataType::kINT64 ? static_cast<int64_t const*>(address)[i]
                                             : static_cast<int32_t const*>(address)[i];
    }
    return values;
}

void bindDeprecated(py::class_<IExecutionContext>& cls)
{
    KILN_IGNORE_DEPRECATED_BEGIN
    cls.def("execute_async_v2", &executeAsyncV2, py::arg("bindings"), py::arg("stream_handle"),
           py::arg("input_consumed") = py::none(),
           "[DEPRECATED] Bind one address per I/O tensor (by index) and run execute_async_v3.")
        .def(
            "execute_async",
            [](IExecutionContext& self, int32_t, py::sequence const& bindings, py::handle stream, py::handle consumed) {
                return executeAsyncV2(self, bindings, stream, consumed);
            },
            py::arg("batch_size"), py::arg("bindings"), py::arg("stream_handle"),
            py::arg("input_consumed") = py::none(), "[DEPRECATED] execute_async_v2; batch_size has no effect.")
        .def(
            "execute", [](IExecutionContext& self, int32_t, py::sequence const& bindings) {
                return executeV2(self, bindings);
            },
            py::arg("batch_size"), py::arg("bindings"), "[DEPRECATED] execute_v2; batch_size has no effect.")
        .def("execute", &executeV2, py::arg("bindings"))
        .def(
            "get_binding_shape",
            [](IExecutionContext& self, int32_t binding) {
                char const* name = bindingName(self, binding);
                return name == nullptr ? Dims{-1, {}} : self.getTensorShape(name);
            },
            py::arg("binding"), "[DEPRECATED] get_tensor_shape by I/O tensor index (nbDims -1 when out of range).")
        .def(
            "set_binding_shape",
            [](IExecutionContext& self, int32_t binding, py::handle shape) {
                char const* name = bindingName(self, binding);
                return name != nullptr && self.setInputShape(name, toDims(shape));
            },
            py::arg("binding"), py::arg("shape"), "[DEPRECATED] set_input_shape by I/O tensor index.")
        .def(
            "get_strides",
            [](IExecutionContext& self, int32_t binding) {
                return self.getTensorStrides(requireBinding(self, binding));
            },
            py::arg("binding"), "[DEPRECATED] get_tensor_strides by I/O tensor index.")
        .def("get_shape", &getShapeValues, py::arg("binding"),
            "[DEPRECATED] Values of a shape tensor (read from the memory bound to it).")
        .def("set_shape_input", &setShapeInput, py::arg("binding"), py::arg("shape"),
            "[DEPRECATED] Values of a shape-tensor input (stored by the context and bound as its address).")
        .def_property_readonly("all_binding_shapes_specified", &IExecutionContext::allInputDimensionsSpecified)
        .def_property_readonly("all_shape_inputs_specified", &IExecutionContext::allInputShapesSpecified)
        .def_property_readonly("all_input_shapes_specified", &IExecutionContext::allInputShapesSpecified);
    KILN_IGNORE_DEPRECATED_END
}

//! A setter that hands a Python callback object to C++ and keeps it referenced while it is set.
template <typename Interface, typename Setter>
auto callbackSetter(char const* key, Setter setter)
{
    return [key, setter](IExecutionContext& self, py::object value) {
        Interface* pointer = value.is_none() ? nullptr : value.cast<Interface*>();
        setter(self, pointer);
        keepRef(selfObject(&self), key, value);
    };
}

void bindTensorMethods(py::class_<IExecutionContext>& cls)
{
    cls.def("set_input_shape",
           [](IExecutionContext& self, std::string const& name, py::handle shape) {
               return self.setInputShape(name.c_str(), toDims(shape));
           },
           py::arg("name"), py::arg("shape"))
        .def("get_tensor_shape", &IExecutionContext::getTensorShape, py::arg("name"))
        .def("get_tensor_strides", &IExecutionContext::getTensorStrides, py::arg("name"))
        .def(
            "set_tensor_address",
            [](IExecutionContext& self, std::string const& name, py::handle memory) {
                void* address = bindAddress(self, name, memory, "set_tensor_address");
                return self.setTensorAddress(name.c_str(), address);
            },
            py::arg("name"), py::arg("memory"),
            "Bind memory (an int address, or an object owning host memory such as a numpy array) to a tensor.")
        .def(
            "set_input_tensor_address",
            [](IExecutionContext& self, std::string const& name, py::handle memory) {
                void* address = bindAddress(self, name, memory, "set_input_tensor_address");
                return self.setInputTensorAddress(name.c_str(), address);
            },
            py::arg("name"), py::arg("memory"))
        .def(
            "set_output_tensor_address",
            [](IExecutionContext& self, std::string const& name, py::handle memory) {
                void* address = bindAddress(self, name, memory, "set_output_tensor_address");
                return self.setOutputTensorAddress(name.c_str(), address);
            },
            py::arg("name"), py::arg("memory"))
        .def(
            "get_tensor_address",
            [](IExecutionContext& self, std::string const& name) {
                return addressObject(self.getTensorAddress(name.c_str()));
            },
            py::arg("name"))
        .def(
            "get_output_tensor_address",
            [](IExecutionContext& self, std::string const& name) {
                return addressObject(self.getOutputTensorAddress(name.c_str()));
            },
            py::arg("name"))
        .def(
            "infer_shapes",
            [](IExecutionContext& self) {
                int32_t const capacity = self.getEngine().getNbIOTensors();
                std::vector<char const*> names(static_cast<size_t>(capacity) + 1, nullptr);
                int32_t result = 0;
                {
                    py::gil_scoped_release release;
                    result = self.inferShapes(capacity, names.data());
                }
                if (result < 0)
                {
                    throwRuntimeError("infer_shapes failed: shape inference found an error (see the logger's "
                                      "messages)");
                }
                std::vector<std::string> missing;
                for (int32_t i = 0; i < result && i < capacity; ++i)
                {
                    missing.emplace_back(names[i] != nullptr ? names[i] : "");
                }
                return missing;
            },
            "Names of the inputs not specified well enough yet (empty on success); raises on other errors.")
        .def_property_readonly("all_input_dimensions_specified", &IExecutionContext::allInputDimensionsSpecified)
        .def(
            "set_output_allocator",
            [](IExecutionContext& self, std::string const& name, py::object allocator) {
                IOutputAllocator* pointer = allocator.is_none() ? nullptr : allocator.cast<IOutputAllocator*>();
                bool const ok = self.setOutputAllocator(name.c_str(), pointer);
                if (ok)
                {
                    keepRef(selfObject(&self), "output_allocator:" + name, allocator);
                }
                return ok;
            },
            py::arg("name"), py::arg("output_allocator"), "Set (None: unset) the output allocator of an output.")
        .def(
            "get_output_allocator",
            [](IExecutionContext& self, std::string const& name) -> py::object {
                IOutputAllocator* pointer = self.getOutputAllocator(name.c_str());
                if (pointer == nullptr)
                {
                    return py::none();
                }
                return py::cast(pointer, py::return_value_policy::reference);
            },
            py::arg("name"))
        .def("get_max_output_size", &IExecutionContext::getMaxOutputSize, py::arg("name"))
        .def("set_tensor_debug_state", &IExecutionContext::setTensorDebugState, py::arg("name"), py::arg("flag"))
        .def("get_debug_state", &IExecutionContext::getDebugState, py::arg("name"))
        .def("set_all_tensors_debug_state", &IExecutionContext::setAllTensorsDebugState, py::arg("flag"))
        .def("set_unfused_tensors_debug_state", &IExecutionContext::setUnfusedTensorsDebugState, py::arg("flag"))
        .def("get_unfused_tensors_debug_state", &IExecutionContext::getUnfusedTensorsDebugState);
}

void bindExecution(py::class_<IExecutionContext>& cls)
{
    cls.def("execute_v2", &executeV2, py::arg("bindings"),
           "Run synchronously with one address (or memory object) per I/O tensor, in I/O tensor order.")
        .def(
            "execute_async_v3",
            [](IExecutionContext& self, py::handle stream) {
                cudaStream_t handle = static_cast<cudaStream_t>(toHandle(stream, "stream_handle"));
                PlacementScope scope(enginePlacement(self.getEngine()));
                py::gil_scoped_release release;
                return self.enqueueV3(handle);
            },
            py::arg("stream_handle"),
            "Run with the bound addresses: on the CPU backend synchronously, on the CUDA backend asynchronously on "
            "the stream (an int cudaStream_t, 0 for the default stream).")
        .def(
            "set_optimization_profile_async",
            [](IExecutionContext& self, int32_t profile, py::handle stream) {
                cudaStream_t handle = static_cast<cudaStream_t>(toHandle(stream, "stream_handle"));
                py::gil_scoped_release release;
                return self.setOptimizationProfileAsync(profile, handle);
            },
            py::arg("profile_index"), py::arg("stream_handle"))
        .def_property(
            "active_optimization_profile", &IExecutionContext::getOptimizationProfile,
            [](IExecutionContext& self, int32_t profile) {
                checkOrThrow(self.setOptimizationProfileAsync(profile, nullptr), "Setting active_optimization_profile");
            })
        .def("report_to_profiler", &IExecutionContext::reportToProfiler, py::call_guard<py::gil_scoped_release>())
        .def_property("enqueue_emits_profile", &IExecutionContext::getEnqueueEmitsProfile,
            &IExecutionContext::setEnqueueEmitsProfile)
        .def(
            "set_input_consumed_event",
            [](IExecutionContext& self, py::handle event) {
                return self.setInputConsumedEvent(static_cast<cudaEvent_t>(toHandle(event, "event")));
            },
            py::arg("event"))
        .def("get_input_consumed_event",
            [](IExecutionContext& self) { return addressObject(self.getInputConsumedEvent()); })
        .def_property(
            "input_consumed_event",
            [](IExecutionContext& self) { return addressObject(self.getInputConsumedEvent()); },
            [](IExecutionContext& self, py::handle event) {
                checkOrThrow(self.setInputConsumedEvent(static_cast<cudaEvent_t>(toHandle(event, "event"))),
                    "Setting input_consumed_event");
            })
        .def(
            "set_aux_streams",
            [](IExecutionContext& self, std::vector<uintptr_t> const& streams) {
                std::vector<cudaStream_t> handles;
                for (uintptr_t stream : streams)
                {
                    handles.push_back(reinterpret_cast<cudaStream_t>(stream));
                }
                self.setAuxStreams(handles.data(), static_cast<int32_t>(handles.size()));
            },
            py::arg("aux_streams"))
        .def(
            "set_device_memory",
            [](IExecutionContext& self, py::handle memory, int64_t size) {
                void* address = reinterpret_cast<void*>(toAddress(memory, "set_device_memory", true, nullptr,
                    enginePlacement(self.getEngine())));
                self.setDeviceMemoryV2(address, size);
                keepRef(selfObject(&self), "device_memory", isRawAddress(memory) ? py::none() : memory);
            },
            py::arg("memory"), py::arg("size"), "Activation memory for USER_MANAGED contexts.")
        .def_property(
            "device_memory", nullptr,
            [](IExecutionContext& self, py::handle memory) {
                void* address = reinterpret_cast<void*>(toAddress(memory, "device_memory", true, nullptr,
                    enginePlacement(self.getEngine())));
                self.setDeviceMemory(address);
                keepRef(selfObject(&self), "device_memory", isRawAddress(memory) ? py::none() : memory);
            })
        .def("update_device_memory_size_for_shapes", &IExecutionContext::updateDeviceMemorySizeForShapes,
            py::call_guard<py::gil_scoped_release>())
        .def("get_runtime_config", &IExecutionContext::getRuntimeConfig, py::return_value_policy::reference_internal)
        .def("set_communicator",
            [](IExecutionContext& self, py::handle communicator) {
                return self.setCommunicator(toHandle(communicator, "communicator"));
            },
            py::arg("communicator"));
}

void bindSettings(py::class_<IExecutionContext>& cls)
{
    cls.def_property("name", &IExecutionContext::getName,
           [](IExecutionContext& self, std::string const& name) { self.setName(name.c_str()); })
        .def_property("debug_sync", &IExecutionContext::getDebugSync, &IExecutionContext::setDebugSync)
        .def_property_readonly("engine", &IExecutionContext::getEngine, py::return_value_policy::reference)
        .def_property("persistent_cache_limit", &IExecutionContext::getPersistentCacheLimit,
            &IExecutionContext::setPersistentCacheLimit)
        .def_property("nvtx_verbosity", &IExecutionContext::getNvtxVerbosity,
            [](IExecutionContext& self, ProfilingVerbosity verbosity) {
                checkOrThrow(self.setNvtxVerbosity(verbosity), "Setting nvtx_verbosity");
            })
        .def_property("profiler", &IExecutionContext::getProfiler,
            callbackSetter<IProfiler>("profiler", [](IExecutionContext& c, IProfiler* p) { c.setProfiler(p); }),
            py::return_value_policy::reference)
        .def_property("error_recorder", &IExecutionContext::getErrorRecorder,
            callbackSetter<IErrorRecorder>(
                "error_recorder", [](IExecutionContext& c, IErrorRecorder* r) { c.setErrorRecorder(r); }),
            py::return_value_policy::reference)
        .def_property("temporary_allocator", &IExecutionContext::getTemporaryStorageAllocator,
            callbackSetter<IGpuAllocator>("temporary_allocator",
                [](IExecutionContext& c, IGpuAllocator* a) {
                    checkOrThrow(c.setTemporaryStorageAllocator(a), "Setting temporary_allocator");
                }),
            py::return_value_policy::reference)
        .def_property("debug_listener", &IExecutionContext::getDebugListener,
            callbackSetter<IDebugListener>("debug_listener",
                [](IExecutionContext& c, IDebugListener* l) {
                    checkOrThrow(c.setDebugListener(l), "Setting debug_listener");
                }),
            py::return_value_policy::reference)
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](py::object, py::args) {}, "Context managers have no effect (as in TensorRT).");
}

} // namespace

void bindRuntimeContext(py::module_& m)
{
    py::class_<IExecutionContext> cls(m, "IExecutionContext", py::dynamic_attr(),
        "Per-run state of an engine: shapes, tensor addresses, profile and activation memory. Several contexts of "
        "one engine may run concurrently on different threads.");
    bindTensorMethods(cls);
    bindExecution(cls);
    bindSettings(cls);
    bindDeprecated(cls);
}

} // namespace kiln::python
