// Python bindings of the compute layer classes: convolution, deconvolution, pooling, activation, LRN, scale,
// softmax, elementwise, unary, matrix multiply, reduce, top-k, cumulative, normalization, einsum, parametric ReLU,
// grid sample, ragged softmax, quantize/dequantize and the plugin layers. Properties use TensorRT's Python names.
#include "bindNetworkCommon.h"

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::python
{

using namespace nvinfer1;

namespace
{

template <typename L>
void bindConvolutionLike(LayerClass<L, ILayer>& cls)
{
    cls.def_property("num_output_maps", &L::getNbOutputMaps, &L::setNbOutputMaps)
        .def_property("num_groups", &L::getNbGroups, &L::setNbGroups)
        .def_property("padding_mode", &L::getPaddingMode, &L::setPaddingMode);
    defDims(cls, "pre_padding", &L::getPrePadding, &L::setPrePadding);
    defDims(cls, "post_padding", &L::getPostPadding, &L::setPostPadding);
    defDims(cls, "kernel_size_nd", &L::getKernelSizeNd, &L::setKernelSizeNd);
    defDims(cls, "stride_nd", &L::getStrideNd, &L::setStrideNd);
    defDims(cls, "padding_nd", &L::getPaddingNd, &L::setPaddingNd);
    defDims(cls, "dilation_nd", &L::getDilationNd, &L::setDilationNd);
    defWeights(cls, "kernel", &L::getKernelWeights, &L::setKernelWeights);
    defWeights(cls, "bias", &L::getBiasWeights, &L::setBiasWeights);
}

template <typename L>
void defIndicesType(LayerClass<L, ILayer>& cls)
{
    defChecked(cls, "indices_type", &L::getIndicesType, &L::setIndicesType);
}

template <typename L>
void defBlockShape(LayerClass<L, ILayer>& cls)
{
    cls.def_property(
        "block_shape", [](L const& l) { return l.getBlockShape(); },
        [](L& l, py::object const& value) {
            if (!l.setBlockShape(toDims(value)))
            {
                throwValueError("Setting block_shape of layer '" + std::string(l.getName()) + "' failed");
            }
        });
}

void bindConvolutions(py::module_& m)
{
    LayerClass<IConvolutionLayer, ILayer> conv(m, "IConvolutionLayer", "N-dimensional convolution with optional bias.");
    bindConvolutionLike(conv);
    LayerClass<IDeconvolutionLayer, ILayer> deconv(m, "IDeconvolutionLayer", "N-dimensional transposed convolution.");
    bindConvolutionLike(deconv);

    LayerClass<IPoolingLayer, ILayer> pool(m, "IPoolingLayer", "N-dimensional windowed pooling.");
    pool.def_property("type", &IPoolingLayer::getPoolingType, &IPoolingLayer::setPoolingType)
        .def_property("blend_factor", &IPoolingLayer::getBlendFactor, &IPoolingLayer::setBlendFactor)
        .def_property("average_count_excludes_padding", &IPoolingLayer::getAverageCountExcludesPadding,
            &IPoolingLayer::setAverageCountExcludesPadding)
        .def_property("padding_mode", &IPoolingLayer::getPaddingMode, &IPoolingLayer::setPaddingMode);
    defDims(pool, "pre_padding", &IPoolingLayer::getPrePadding, &IPoolingLayer::setPrePadding);
    defDims(pool, "post_padding", &IPoolingLayer::getPostPadding, &IPoolingLayer::setPostPadding);
    defDims(pool, "window_size_nd", &IPoolingLayer::getWindowSizeNd, &IPoolingLayer::setWindowSizeNd);
    defDims(pool, "stride_nd", &IPoolingLayer::getStrideNd, &IPoolingLayer::setStrideNd);
    defDims(pool, "padding_nd", &IPoolingLayer::getPaddingNd, &IPoolingLayer::setPaddingNd);
}

void bindPointwise(py::module_& m)
{
    LayerClass<IActivationLayer, ILayer>(m, "IActivationLayer", "Elementwise activation function.")
        .def_property("type", &IActivationLayer::getActivationType, &IActivationLayer::setActivationType)
        .def_property("alpha", &IActivationLayer::getAlpha, &IActivationLayer::setAlpha)
        .def_property("beta", &IActivationLayer::getBeta, &IActivationLayer::setBeta);

    LayerClass<ILRNLayer, ILayer>(m, "ILRNLayer", "Local response normalization across channels.")
        .def_property("window_size", &ILRNLayer::getWindowSize, &ILRNLayer::setWindowSize)
        .def_property("alpha", &ILRNLayer::getAlpha, &ILRNLayer::setAlpha)
        .def_property("beta", &ILRNLayer::getBeta, &ILRNLayer::setBeta)
        .def_property("k", &ILRNLayer::getK, &ILRNLayer::setK);

    LayerClass<IScaleLayer, ILayer> scale(m, "IScaleLayer", "(input * scale + shift) ^ power.");
    scale.def_property("mode", &IScaleLayer::getMode, &IScaleLayer::setMode)
        .def_property("channel_axis", &IScaleLayer::getChannelAxis, &IScaleLayer::setChannelAxis);
    defWeights(scale, "shift", &IScaleLayer::getShift, &IScaleLayer::setShift);
    defWeights(scale, "scale", &IScaleLayer::getScale, &IScaleLayer::setScale);
    defWeights(scale, "power", &IScaleLayer::getPower, &IScaleLayer::setPower);

    LayerClass<ISoftMaxLayer, ILayer>(m, "ISoftMaxLayer", "Softmax along one axis (a one-bit mask).")
        .def_property("axes", &ISoftMaxLayer::getAxes, &ISoftMaxLayer::setAxes);

    LayerClass<IElementWiseLayer, ILayer>(m, "IElementWiseLayer", "Binary elementwise operation with broadcasting.")
        .def_property("op", &IElementWiseLayer::getOperation, &IElementWiseLayer::setOperation);

    LayerClass<IUnaryLayer, ILayer>(m, "IUnaryLayer", "Elementwise unary operation.")
        .def_property("op", &IUnaryLayer::getOperation, &IUnaryLayer::setOperation);

    LayerClass<IParametricReLULayer, ILayer>(m, "IParametricReLULayer", "x >= 0 ? x : slope * x.");
}

void bindReductions(py::module_& m)
{
    LayerClass<IMatrixMultiplyLayer, ILayer>(m, "IMatrixMultiplyLayer", "Batched matrix/vector product.")
        .def_property(
            "op0", [](IMatrixMultiplyLayer const& l) { return l.getOperation(0); },
            [](IMatrixMultiplyLayer& l, MatrixOperation op) { l.setOperation(0, op); })
        .def_property(
            "op1", [](IMatrixMultiplyLayer const& l) { return l.getOperation(1); },
            [](IMatrixMultiplyLayer& l, MatrixOperation op) { l.setOperation(1, op); });

    LayerClass<IReduceLayer, ILayer>(m, "IReduceLayer", "Reduction over a bitmask of axes.")
        .def_property("op", &IReduceLayer::getOperation, &IReduceLayer::setOperation)
        .def_property("axes", &IReduceLayer::getReduceAxes, &IReduceLayer::setReduceAxes)
        .def_property("keep_dims", &IReduceLayer::getKeepDimensions, &IReduceLayer::setKeepDimensions);

    LayerClass<ITopKLayer, ILayer> topk(m, "ITopKLayer", "Top-k values and indices along one axis.");
    topk.def_property("op", &ITopKLayer::getOperation, &ITopKLayer::setOperation)
        .def_property("k", &ITopKLayer::getK, &ITopKLayer::setK)
        .def_property("axes", &ITopKLayer::getReduceAxes, &ITopKLayer::setReduceAxes);
    defIndicesType(topk);

    LayerClass<ICumulativeLayer, ILayer> cumulative(m, "ICumulativeLayer", "Running reduction along an axis.");
    defChecked(cumulative, "op", &ICumulativeLayer::getOperation, &ICumulativeLayer::setOperation);
    cumulative.def_property("exclusive", &ICumulativeLayer::getExclusive, &ICumulativeLayer::setExclusive)
        .def_property("reverse", &ICumulativeLayer::getReverse, &ICumulativeLayer::setReverse);

    LayerClass<INormalizationLayer, ILayer>(m, "INormalizationLayer", "Layer, instance or group normalization.")
        .def_property("epsilon", &INormalizationLayer::getEpsilon, &INormalizationLayer::setEpsilon)
        .def_property("axes", &INormalizationLayer::getAxes, &INormalizationLayer::setAxes)
        .def_property("num_groups", &INormalizationLayer::getNbGroups, &INormalizationLayer::setNbGroups)
        .def_property("compute_precision", &INormalizationLayer::getComputePrecision,
            &INormalizationLayer::setComputePrecision)
        .def_property_readonly("is_v2", &INormalizationLayer::isV2);

    LayerClass<IEinsumLayer, ILayer>(m, "IEinsumLayer", "Einstein summation.")
        .def_property(
            "equation", [](IEinsumLayer const& l) { return std::string(l.getEquation()); },
            [](IEinsumLayer& l, std::string const& equation) {
                if (!l.setEquation(equation.c_str()))
                {
                    throwValueError("Invalid einsum equation '" + equation + "' for layer '" + l.getName() + "'");
                }
            });

    LayerClass<IRaggedSoftMaxLayer, ILayer>(m, "IRaggedSoftMaxLayer", "Softmax over ragged sequences.");

    LayerClass<IGridSampleLayer, ILayer> grid(m, "IGridSampleLayer", "Samples an input at the coordinates of a grid.");
    grid.def_property("interpolation_mode", &IGridSampleLayer::getInterpolationMode,
            &IGridSampleLayer::setInterpolationMode)
        .def_property("align_corners", &IGridSampleLayer::getAlignCorners, &IGridSampleLayer::setAlignCorners);
    defChecked(grid, "sample_mode", &IGridSampleLayer::getSampleMode, &IGridSampleLayer::setSampleMode);
}

void bindQuantizeAndPlugins(py::module_& m)
{
    LayerClass<IQuantizeLayer, ILayer> quantize(m, "IQuantizeLayer", "Quantization (INT8, per-tensor or per-axis scales).");
    quantize.def_property("axis", &IQuantizeLayer::getAxis, &IQuantizeLayer::setAxis)
        .def_property("to_type", &IQuantizeLayer::getToType, &IQuantizeLayer::setToType);
    defBlockShape(quantize);
    LayerClass<IDequantizeLayer, ILayer> dequantize(
        m, "IDequantizeLayer", "Dequantization (INT8, per-tensor or per-axis scales).");
    dequantize.def_property("axis", &IDequantizeLayer::getAxis, &IDequantizeLayer::setAxis)
        .def_property("to_type", &IDequantizeLayer::getToType, &IDequantizeLayer::setToType);
    defBlockShape(dequantize);

    LayerClass<IPluginV2Layer, ILayer>(m, "IPluginV2Layer", "Layer wrapping an IPluginV2 (deprecated).")
        .def_property_readonly("plugin", &IPluginV2Layer::getPlugin, py::return_value_policy::reference_internal);
    LayerClass<IPluginV3Layer, ILayer>(m, "IPluginV3Layer", "Layer wrapping an IPluginV3.")
        .def_property_readonly("plugin", &IPluginV3Layer::getPlugin, py::return_value_policy::reference_internal);
}

} // namespace

void bindLayersNn(py::module_& m)
{
    bindConvolutions(m);
    bindPointwise(m);
    bindReductions(m);
    bindQuantizeAndPlugins(m);
}

} // namespace kiln::python

KILN_IGNORE_DEPRECATED_END
