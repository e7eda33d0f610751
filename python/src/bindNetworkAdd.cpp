// INetworkDefinition.add_* methods for the compute layers (convolution, pooling, activation, elementwise, matrix
// multiply, reductions, normalization, ...). Each returns the new layer (owned by the network) or None when Kiln
// refused it (the reason went to the logger). Weights passed in stay alive as long as the network.
#include "bindNetworkCommon.h"

#include <vector>

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::python
{

using namespace nvinfer1;

namespace
{

constexpr auto kOwned = py::return_value_policy::reference_internal;

//! Weights for an add_* call, kept alive by the network.
Weights networkWeights(INetworkDefinition& net, py::handle value)
{
    py::object keep;
    Weights const weights = toWeights(value, keep);
    keepAliveForNetwork(&net, std::move(keep));
    return weights;
}

//! A list of tensors for the C++ API; ValueError when an entry is None.
std::vector<ITensor*> tensorList(std::vector<ITensor*> const& tensors, char const* what)
{
    for (size_t i = 0; i < tensors.size(); ++i)
    {
        if (tensors[i] == nullptr)
        {
            throwValueError(std::string(what) + ": entry " + std::to_string(i) + " is None, expected an ITensor");
        }
    }
    return tensors;
}

} // namespace

void bindNetworkAddMethods(NetworkClass& cls)
{
    cls.def(
           "add_convolution_nd",
           [](INetworkDefinition& n, ITensor& input, int64_t numOutputMaps, py::object const& kernelShape,
               py::object const& kernel, py::object const& bias) {
               Weights const k = networkWeights(n, kernel);
               Weights const b = networkWeights(n, bias);
               return n.addConvolutionNd(input, numOutputMaps, toDims(kernelShape), k, b);
           },
           py::arg("input"), py::arg("num_output_maps"), py::arg("kernel_shape"), py::arg("kernel"),
           py::arg("bias") = py::none(), kOwned)
        .def(
            "add_deconvolution_nd",
            [](INetworkDefinition& n, ITensor& input, int64_t numOutputMaps, py::object const& kernelShape,
                py::object const& kernel, py::object const& bias) {
                Weights const k = networkWeights(n, kernel);
                Weights const b = networkWeights(n, bias);
                return n.addDeconvolutionNd(input, numOutputMaps, toDims(kernelShape), k, b);
            },
            py::arg("input"), py::arg("num_output_maps"), py::arg("kernel_shape"), py::arg("kernel"),
            py::arg("bias") = py::none(), kOwned)
        .def(
            "add_pooling_nd",
            [](INetworkDefinition& n, ITensor& input, PoolingType type, py::object const& windowSize) {
                return n.addPoolingNd(input, type, toDims(windowSize));
            },
            py::arg("input"), py::arg("type"), py::arg("window_size"), kOwned)
        .def("add_activation", &INetworkDefinition::addActivation, py::arg("input"), py::arg("type"), kOwned)
        .def("add_lrn", &INetworkDefinition::addLRN, py::arg("input"), py::arg("window"), py::arg("alpha"),
            py::arg("beta"), py::arg("k"), kOwned)
        .def(
            "add_scale",
            [](INetworkDefinition& n, ITensor& input, ScaleMode mode, py::object const& shift, py::object const& scale,
                py::object const& power) {
                Weights const sh = networkWeights(n, shift);
                Weights const sc = networkWeights(n, scale);
                Weights const pw = networkWeights(n, power);
                return n.addScale(input, mode, sh, sc, pw);
            },
            py::arg("input"), py::arg("mode"), py::arg("shift") = py::none(), py::arg("scale") = py::none(),
            py::arg("power") = py::none(), kOwned)
        .def(
            "add_scale_nd",
            [](INetworkDefinition& n, ITensor& input, ScaleMode mode, py::object const& shift, py::object const& scale,
                py::object const& power, int32_t channelAxis) {
                Weights const sh = networkWeights(n, shift);
                Weights const sc = networkWeights(n, scale);
                Weights const pw = networkWeights(n, power);
                return n.addScaleNd(input, mode, sh, sc, pw, channelAxis);
            },
            py::arg("input"), py::arg("mode"), py::arg("shift") = py::none(), py::arg("scale") = py::none(),
            py::arg("power") = py::none(), py::arg("channel_axis") = 1, kOwned)
        .def("add_softmax", &INetworkDefinition::addSoftMax, py::arg("input"), kOwned)
        .def("add_elementwise", &INetworkDefinition::addElementWise, py::arg("input1"), py::arg("input2"),
            py::arg("op"), kOwned)
        .def("add_unary", &INetworkDefinition::addUnary, py::arg("input"), py::arg("op"), kOwned)
        .def("add_parametric_relu", &INetworkDefinition::addParametricReLU, py::arg("input"), py::arg("slopes"), kOwned)
        .def("add_matrix_multiply", &INetworkDefinition::addMatrixMultiply, py::arg("input0"), py::arg("op0"),
            py::arg("input1"), py::arg("op1"), kOwned)
        .def("add_reduce", &INetworkDefinition::addReduce, py::arg("input"), py::arg("op"), py::arg("axes"),
            py::arg("keep_dims"), kOwned)
        .def(
            "add_topk",
            [](INetworkDefinition& n, ITensor& input, TopKOperation op, int32_t k, uint32_t axes, DataType indicesType) {
                return n.addTopK(input, op, k, axes, indicesType);
            },
            py::arg("input"), py::arg("op"), py::arg("k"), py::arg("axes"), py::arg("indices_type") = DataType::kINT32,
            kOwned)
        .def("add_cumulative", &INetworkDefinition::addCumulative, py::arg("input"), py::arg("axis"), py::arg("op"),
            py::arg("exclusive"), py::arg("reverse"), kOwned)
        .def("add_normalization", &INetworkDefinition::addNormalization, py::arg("input"), py::arg("scale"),
            py::arg("bias"), py::arg("axesMask"), kOwned)
        .def("add_normalization_v2", &INetworkDefinition::addNormalizationV2, py::arg("input"), py::arg("scale"),
            py::arg("bias"), py::arg("axesMask"), kOwned)
        .def(
            "add_einsum",
            [](INetworkDefinition& n, std::vector<ITensor*> const& inputs, std::string const& equation) {
                auto const list = tensorList(inputs, "add_einsum");
                return n.addEinsum(list.data(), static_cast<int32_t>(list.size()), equation.c_str());
            },
            py::arg("inputs"), py::arg("equation"), kOwned)
        .def("add_grid_sample", &INetworkDefinition::addGridSample, py::arg("input"), py::arg("grid"), kOwned)
        .def("add_ragged_softmax", &INetworkDefinition::addRaggedSoftMax, py::arg("input"), py::arg("bounds"), kOwned)
        .def(
            "add_quantize",
            [](INetworkDefinition& n, ITensor& input, ITensor& scale, std::optional<DataType> outputType) {
                return outputType ? n.addQuantize(input, scale, *outputType) : n.addQuantize(input, scale);
            },
            py::arg("input"), py::arg("scale"), py::arg("output_type") = py::none(), kOwned)
        .def(
            "add_dequantize",
            [](INetworkDefinition& n, ITensor& input, ITensor& scale, std::optional<DataType> outputType) {
                return outputType ? n.addDequantize(input, scale, *outputType) : n.addDequantize(input, scale);
            },
            py::arg("input"), py::arg("scale"), py::arg("output_type") = py::none(), kOwned)
        .def(
            "add_plugin_v2",
            [](py::object self, std::vector<ITensor*> const& inputs, py::object const& plugin) -> ILayer* {
                auto& n = self.cast<INetworkDefinition&>();
                IPluginV2* cpp = nullptr;
                try
                {
                    cpp = plugin.cast<IPluginV2*>();
                }
                catch (py::cast_error const&)
                {
                    throwTypeError("add_plugin_v2 expects an IPluginV2, got "
                        + py::str(py::type::handle_of(plugin).attr("__name__")).cast<std::string>());
                }
                if (cpp == nullptr)
                {
                    throwTypeError("add_plugin_v2 expects an IPluginV2, got None");
                }
                auto const list = tensorList(inputs, "add_plugin_v2");
                keepAliveForNetwork(&n, plugin);
                return n.addPluginV2(list.data(), static_cast<int32_t>(list.size()), *cpp);
            },
            py::arg("inputs"), py::arg("plugin"), kOwned)
        .def(
            "add_plugin_v3",
            [](py::object self, std::vector<ITensor*> const& inputs, std::vector<ITensor*> const& shapeInputs,
                py::object const& plugin) -> ILayer* {
                auto& n = self.cast<INetworkDefinition&>();
                IPluginV3* cpp = nullptr;
                try
                {
                    cpp = plugin.cast<IPluginV3*>();
                }
                catch (py::cast_error const&)
                {
                    throwTypeError("add_plugin_v3 expects an IPluginV3, got "
                        + py::str(py::type::handle_of(plugin).attr("__name__")).cast<std::string>());
                }
                if (cpp == nullptr)
                {
                    throwTypeError("add_plugin_v3 expects an IPluginV3, got None");
                }
                auto const list = tensorList(inputs, "add_plugin_v3");
                auto const shapeList = tensorList(shapeInputs, "add_plugin_v3 (shape_inputs)");
                keepAliveForNetwork(&n, plugin);
                return n.addPluginV3(list.data(), static_cast<int32_t>(list.size()), shapeList.data(),
                    static_cast<int32_t>(shapeList.size()), *cpp);
            },
            py::arg("inputs"), py::arg("shape_inputs"), py::arg("plugin"), kOwned);
}

} // namespace kiln::python

KILN_IGNORE_DEPRECATED_END
