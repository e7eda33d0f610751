// Python bindings of ITensor, ILayer and INetworkDefinition (without its add_* methods, which live in
// bindNetworkAdd*.cpp), plus the shared helpers declared in bindNetworkCommon.h: the keep-alive store for weights
// and plugins, Weights <-> numpy conversions and the ILayer downcast hook.
#include "bindNetworkCommon.h"
#include "bindings.h"

#include <cmath>
#include <unordered_map>
#include <vector>

namespace kiln::python
{

using namespace nvinfer1;

namespace
{

//! Python objects kept alive per network or per layer. Never destroyed (its entries are dropped when their network
//! is deleted), so nothing is released after the interpreter has finalized.
std::unordered_map<void const*, std::vector<py::object>>& keepStore()
{
    static auto* store = new std::unordered_map<void const*, std::vector<py::object>>();
    return *store;
}

py::object optionalName(char const* name)
{
    return name ? py::object(py::str(name)) : py::object(py::none());
}

void bindTensor(py::module_& m)
{
    py::class_<ITensor, NoDeleteHolder<ITensor>>(m, "ITensor",
        "A tensor of a network definition, owned by the network.")
        .def_property(
            "name", [](ITensor const& t) { return std::string(t.getName()); },
            [](ITensor& t, std::string const& name) { t.setName(name.c_str()); })
        .def_property(
            "shape", [](ITensor const& t) { return t.getDimensions(); },
            [](ITensor& t, py::object const& shape) { t.setDimensions(toDims(shape)); })
        .def_property(
            "dtype", [](ITensor const& t) { return t.getType(); },
            [](ITensor& t, DataType type) {
                KILN_IGNORE_DEPRECATED_BEGIN
                t.setType(type);
                KILN_IGNORE_DEPRECATED_END
            })
        .def_property(
            "broadcast_across_batch",
            [](ITensor const& t) {
                KILN_IGNORE_DEPRECATED_BEGIN
                return t.getBroadcastAcrossBatch();
                KILN_IGNORE_DEPRECATED_END
            },
            [](ITensor& t, bool value) {
                KILN_IGNORE_DEPRECATED_BEGIN
                t.setBroadcastAcrossBatch(value);
                KILN_IGNORE_DEPRECATED_END
            })
        .def_property(
            "location", [](ITensor const& t) { return t.getLocation(); },
            [](ITensor& t, TensorLocation location) {
                KILN_IGNORE_DEPRECATED_BEGIN
                t.setLocation(location);
                KILN_IGNORE_DEPRECATED_END
            })
        .def_property_readonly("is_network_input", &ITensor::isNetworkInput)
        .def_property_readonly("is_network_output", &ITensor::isNetworkOutput)
        .def_property_readonly("is_shape_tensor", &ITensor::isShapeTensor)
        .def_property_readonly("is_execution_tensor", &ITensor::isExecutionTensor)
        .def_property(
            "dynamic_range",
            [](ITensor const& t) -> py::object {
                KILN_IGNORE_DEPRECATED_BEGIN
                if (!t.dynamicRangeIsSet())
                {
                    return py::none();
                }
                KILN_IGNORE_DEPRECATED_END
                return py::make_tuple(t.getDynamicRangeMin(), t.getDynamicRangeMax());
            },
            [](ITensor& t, py::object const& range) {
                if (range.is_none())
                {
                    t.resetDynamicRange();
                    return;
                }
                std::vector<float> values;
                try
                {
                    values = range.cast<std::vector<float>>();
                }
                catch (py::cast_error const&)
                {
                    throwTypeError("ITensor.dynamic_range takes a (min, max) pair of numbers or None");
                }
                if (values.size() != 2)
                {
                    throwValueError("ITensor.dynamic_range takes a (min, max) pair, got "
                        + std::to_string(values.size()) + " values");
                }
                if (!(values[0] <= values[1]))
                {
                    throwValueError("ITensor.dynamic_range of '" + std::string(t.getName())
                        + "': min must be <= max");
                }
                KILN_IGNORE_DEPRECATED_BEGIN
                checkOrThrow(t.setDynamicRange(values[0], values[1]), "ITensor.dynamic_range");
                KILN_IGNORE_DEPRECATED_END
            })
        .def(
            "set_dynamic_range",
            [](ITensor& t, float min, float max) {
                KILN_IGNORE_DEPRECATED_BEGIN
                return t.setDynamicRange(min, max);
                KILN_IGNORE_DEPRECATED_END
            },
            py::arg("min"), py::arg("max"))
        .def("reset_dynamic_range", &ITensor::resetDynamicRange)
        .def_property("allowed_formats", &ITensor::getAllowedFormats, &ITensor::setAllowedFormats)
        .def(
            "set_dimension_name",
            [](ITensor& t, int32_t index, py::object const& name) {
                if (name.is_none())
                {
                    t.setDimensionName(index, nullptr);
                    return;
                }
                std::string const text = name.cast<std::string>();
                t.setDimensionName(index, text.c_str());
            },
            py::arg("index"), py::arg("name"))
        .def(
            "get_dimension_name", [](ITensor const& t, int32_t index) { return optionalName(t.getDimensionName(index)); },
            py::arg("index"))
        .def("__repr__", [](ITensor const& t) {
            return "<kiln.ITensor '" + std::string(t.getName()) + "' shape=" + dimsToString(t.getDimensions()) + ">";
        });
}

void bindLayerBase(py::module_& m)
{
    py::class_<ILayer, NoDeleteHolder<ILayer>>(m, "ILayer", "Base of every layer, owned by the network.")
        .def_property_readonly("type", &ILayer::getType)
        .def_property(
            "name", [](ILayer const& l) { return std::string(l.getName()); },
            [](ILayer& l, std::string const& name) { l.setName(name.c_str()); })
        .def_property(
            "metadata", [](ILayer const& l) { return std::string(l.getMetadata()); },
            [](ILayer& l, std::string const& text) { l.setMetadata(text.c_str()); })
        .def_property_readonly("num_inputs", &ILayer::getNbInputs)
        .def_property_readonly("num_outputs", &ILayer::getNbOutputs)
        .def_property(
            "precision", &ILayer::getPrecision,
            [](ILayer& l, DataType type) {
                KILN_IGNORE_DEPRECATED_BEGIN
                l.setPrecision(type);
                KILN_IGNORE_DEPRECATED_END
            })
        .def_property_readonly("precision_is_set",
            [](ILayer const& l) {
                KILN_IGNORE_DEPRECATED_BEGIN
                return l.precisionIsSet();
                KILN_IGNORE_DEPRECATED_END
            })
        .def("reset_precision",
            [](ILayer& l) {
                KILN_IGNORE_DEPRECATED_BEGIN
                l.resetPrecision();
                KILN_IGNORE_DEPRECATED_END
            })
        .def("get_input", &ILayer::getInput, py::arg("index"), py::return_value_policy::reference_internal)
        .def("get_output", &ILayer::getOutput, py::arg("index"), py::return_value_policy::reference_internal)
        .def(
            "set_input", [](ILayer& l, int32_t index, ITensor& tensor) { l.setInput(index, tensor); }, py::arg("index"),
            py::arg("tensor"))
        .def(
            "set_output_type",
            [](ILayer& l, int32_t index, DataType type) {
                KILN_IGNORE_DEPRECATED_BEGIN
                l.setOutputType(index, type);
                KILN_IGNORE_DEPRECATED_END
            },
            py::arg("index"), py::arg("dtype"))
        .def("get_output_type", &ILayer::getOutputType, py::arg("index"))
        .def(
            "output_type_is_set",
            [](ILayer const& l, int32_t index) {
                KILN_IGNORE_DEPRECATED_BEGIN
                return l.outputTypeIsSet(index);
                KILN_IGNORE_DEPRECATED_END
            },
            py::arg("index"))
        .def(
            "reset_output_type",
            [](ILayer& l, int32_t index) {
                KILN_IGNORE_DEPRECATED_BEGIN
                l.resetOutputType(index);
                KILN_IGNORE_DEPRECATED_END
            },
            py::arg("index"))
        .def("__repr__", [](ILayer const& l) {
            std::string const cls = py::str(py::type::handle_of(py::cast(&l, py::return_value_policy::reference))
                                                .attr("__name__"))
                                        .cast<std::string>();
            return "<kiln." + cls + " '" + std::string(l.getName()) + "'>";
        });
}

//! network[i] with Python's negative indices; IndexError when out of range.
ILayer* layerAt(INetworkDefinition const& net, int64_t index)
{
    int64_t const count = net.getNbLayers();
    int64_t const i = index < 0 ? index + count : index;
    if (i < 0 || i >= count)
    {
        throwIndexError("Layer index " + std::to_string(index) + " out of range: the network has "
            + std::to_string(count) + " layers");
    }
    return net.getLayer(static_cast<int32_t>(i));
}

void bindNetworkDefinition(py::module_& m)
{
    NetworkClass cls(m, "INetworkDefinition",
        "A network under construction: tensors and layers, built into an engine by Builder. Layers and tensors "
        "belong to the network; weights and plugins given to it are kept alive until it is deleted.");
    cls.def_property(
           "name", [](INetworkDefinition const& n) { return std::string(n.getName()); },
           [](INetworkDefinition& n, std::string const& name) { n.setName(name.c_str()); })
        .def_property_readonly("num_layers", &INetworkDefinition::getNbLayers)
        .def_property_readonly("num_inputs", &INetworkDefinition::getNbInputs)
        .def_property_readonly("num_outputs", &INetworkDefinition::getNbOutputs)
        .def_property_readonly("has_implicit_batch_dimension",
            [](INetworkDefinition const& n) {
                KILN_IGNORE_DEPRECATED_BEGIN
                return n.hasImplicitBatchDimension();
                KILN_IGNORE_DEPRECATED_END
            })
        .def_property_readonly("flags", &INetworkDefinition::getFlags)
        .def("get_flag", &INetworkDefinition::getFlag, py::arg("flag"))
        .def_property_readonly("builder", &INetworkDefinition::getBuilder, py::return_value_policy::reference)
        .def_property(
            "error_recorder", &INetworkDefinition::getErrorRecorder,
            [](INetworkDefinition& n, py::object const& recorder) {
                if (recorder.is_none())
                {
                    n.setErrorRecorder(nullptr);
                    return;
                }
                auto* cpp = recorder.cast<IErrorRecorder*>();
                keepAliveForNetwork(&n, recorder);
                n.setErrorRecorder(cpp);
            },
            py::return_value_policy::reference)
        .def("get_layer", &INetworkDefinition::getLayer, py::arg("index"), py::return_value_policy::reference_internal)
        .def("get_input", &INetworkDefinition::getInput, py::arg("index"), py::return_value_policy::reference_internal)
        .def("get_output", &INetworkDefinition::getOutput, py::arg("index"),
            py::return_value_policy::reference_internal)
        .def("__len__", &INetworkDefinition::getNbLayers)
        .def("__getitem__", &layerAt, py::arg("index"), py::return_value_policy::reference_internal)
        .def(
            "__iter__",
            [](py::object self) {
                auto const& net = self.cast<INetworkDefinition const&>();
                py::list layers;
                for (int32_t i = 0; i < net.getNbLayers(); ++i)
                {
                    layers.append(self.attr("get_layer")(i));
                }
                return py::iter(layers);
            })
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](py::object const&, py::args const&) {})
        .def(
            "add_input",
            [](INetworkDefinition& n, std::string const& name, DataType dtype, py::object const& shape) {
                return n.addInput(name.c_str(), dtype, toDims(shape));
            },
            py::arg("name"), py::arg("dtype"), py::arg("shape"), py::return_value_policy::reference_internal)
        .def("mark_output", &INetworkDefinition::markOutput, py::arg("tensor"))
        .def("unmark_output", &INetworkDefinition::unmarkOutput, py::arg("tensor"))
        .def("mark_output_for_shapes", &INetworkDefinition::markOutputForShapes, py::arg("tensor"))
        .def("unmark_output_for_shapes", &INetworkDefinition::unmarkOutputForShapes, py::arg("tensor"))
        .def("mark_debug", &INetworkDefinition::markDebug, py::arg("tensor"))
        .def("unmark_debug", &INetworkDefinition::unmarkDebug, py::arg("tensor"))
        .def("is_debug_tensor", &INetworkDefinition::isDebugTensor, py::arg("tensor"))
        .def("mark_unfused_tensors_as_debug_tensors", &INetworkDefinition::markUnfusedTensorsAsDebugTensors)
        .def("unmark_unfused_tensors_as_debug_tensors", &INetworkDefinition::unmarkUnfusedTensorsAsDebugTensors)
        .def("remove_tensor", &INetworkDefinition::removeTensor, py::arg("tensor"))
        .def(
            "set_weights_name",
            [](INetworkDefinition& n, py::handle weights, py::object const& name) {
                py::object keep;
                Weights const w = toWeights(weights, keep);
                if (name.is_none())
                {
                    return n.setWeightsName(w, nullptr);
                }
                std::string const text = name.cast<std::string>();
                return n.setWeightsName(w, text.c_str());
            },
            py::arg("weights"), py::arg("name"))
        .def(
            "mark_weights_refittable",
            [](INetworkDefinition& n, std::string const& name) { return n.markWeightsRefittable(name.c_str()); },
            py::arg("name"))
        .def(
            "unmark_weights_refittable",
            [](INetworkDefinition& n, std::string const& name) { return n.unmarkWeightsRefittable(name.c_str()); },
            py::arg("name"))
        .def(
            "are_weights_marked_refittable",
            [](INetworkDefinition const& n, std::string const& name) {
                return n.areWeightsMarkedRefittable(name.c_str());
            },
            py::arg("name"));
    bindNetworkAddMethods(cls);
    bindNetworkAddMoreMethods(cls);
}

} // namespace

void NetworkDeleter::operator()(INetworkDefinition* network) const noexcept
{
    if (network == nullptr)
    {
        return;
    }
    std::vector<void const*> keys{network};
    for (int32_t i = 0; i < network->getNbLayers(); ++i)
    {
        keys.push_back(network->getLayer(i));
    }
    delete network;
    // The kept objects (weights, plugins) are released only after the network no longer points at them.
    auto& store = keepStore();
    for (void const* key : keys)
    {
        store.erase(key);
    }
}

void keepAliveForNetwork(INetworkDefinition const* network, py::object object)
{
    if (object && !object.is_none())
    {
        keepStore()[network].push_back(std::move(object));
    }
}

void keepAliveForLayer(ILayer const* layer, py::object object)
{
    if (object && !object.is_none())
    {
        keepStore()[layer].push_back(std::move(object));
    }
}

Weights toWeights(py::handle value, py::object& keep)
{
    Weights weights{DataType::kFLOAT, nullptr, 0};
    if (value.is_none())
    {
        keep = py::none();
        return weights;
    }
    if (py::detail::get_type_info(typeid(Weights)) != nullptr && py::isinstance<Weights>(value))
    {
        keep = py::reinterpret_borrow<py::object>(value);
        return value.cast<Weights>();
    }
    py::object array;
    try
    {
        array = py::module_::import("numpy").attr("ascontiguousarray")(value);
    }
    catch (py::error_already_set& error)
    {
        throwTypeError("Expected weights (a numpy array, trt.Weights or None), got "
            + py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>() + ": " + error.what());
    }
    auto arr = py::reinterpret_borrow<py::array>(array);
    if (arr.dtype().kind() == 'O')
    {
        throwTypeError("Weights must hold numbers, got an object array");
    }
    weights.type = fromNumpyDtype(arr.dtype());
    weights.values = arr.size() > 0 ? arr.data() : nullptr;
    weights.count = static_cast<int64_t>(arr.size());
    keep = std::move(array);
    return weights;
}

py::array weightsToNumpy(Weights const& weights)
{
    if (weights.count <= 0 || weights.values == nullptr)
    {
        return py::array(py::dtype::of<float>(), std::vector<py::ssize_t>{0});
    }
    py::dtype const dtype = toNumpyDtype(weights.type);
    // The copy is owned by numpy: the network's memory may go away before the array.
    return py::array(dtype, std::vector<py::ssize_t>{static_cast<py::ssize_t>(weights.count)}, weights.values);
}

void bindNetwork(py::module_& m)
{
    bindLayerEnums(m);
    bindTensor(m);
    bindLayerBase(m);
    bindNetworkDefinition(m);
}

} // namespace kiln::python
