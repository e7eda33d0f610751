// ConvolutionLayer, INetworkDefinition::addConvolutionNd and convolution inference. The window geometry shared
// with deconvolution and pooling is in windowGeometry.cpp.
#include "network/layers/convolutionLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

#include <limits>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::PaddingMode;
using nvinfer1::Weights;

namespace
{

bool isFloatWeightsType(DataType t)
{
    return t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
}

Status checkWeightsArg(Weights const& w, char const* what)
{
    if (w.count < 0)
    {
        return invalidArgument(std::string(what) + " have a negative count " + std::to_string(w.count));
    }
    if (w.count > 0 && w.values == nullptr)
    {
        return invalidArgument(std::string(what) + " have count " + std::to_string(w.count) + " but no values");
    }
    if (w.count > 0 && !isFloatWeightsType(w.type))
    {
        return invalidArgument(std::string(what) + " have type " + dataTypeName(w.type)
            + "; only FP32, FP16 and BF16 weights are supported");
    }
    return Status::ok();
}

std::string layerApi(Layer const& layer, char const* api, char const* method)
{
    return std::string(api) + "::" + method + " on layer '" + layer.name() + "': ";
}

} // namespace

// ------------------------------------------------------------------------------------------------------------
// Setters shared by convolution and deconvolution
// ------------------------------------------------------------------------------------------------------------

namespace convsetters
{

void setNbOutputMaps(Layer& layer, char const* api, int64_t value)
{
    if (value < 1 || value > std::numeric_limits<int32_t>::max())
    {
        layer.network().reportError(invalidArgument(layerApi(layer, api, "setNbOutputMaps") + "nbOutputMaps "
            + std::to_string(value) + " is outside [1, " + std::to_string(std::numeric_limits<int32_t>::max()) + "]"));
        return;
    }
    layer.attrs().setInt("nbOutputMaps", value);
    layer.touch();
}

void setNbGroups(Layer& layer, char const* api, int64_t value)
{
    if (value < 1 || value > std::numeric_limits<int32_t>::max())
    {
        layer.network().reportError(invalidArgument(layerApi(layer, api, "setNbGroups") + "nbGroups "
            + std::to_string(value) + " must be at least 1"));
        return;
    }
    layer.attrs().setInt("nbGroups", value);
    layer.touch();
}

void setWeights(Layer& layer, char const* api, int32_t slot, Weights weights)
{
    char const* method = slot == 0 ? "setKernelWeights" : "setBiasWeights";
    Status st = checkWeightsArg(weights, slot == 0 ? "kernel weights" : "bias weights");
    if (!st.isOk())
    {
        layer.network().reportError(invalidArgument(layerApi(layer, api, method) + st.message()));
        return;
    }
    layer.weights()[static_cast<size_t>(slot)] = weights;
    layer.touch();
}

void setPadding(Layer& layer, char const* api, char const* method, Dims const& padding, bool pre, bool post)
{
    Status st = checkWindowDims(padding, 0, "padding");
    if (!st.isOk())
    {
        layer.network().reportError(invalidArgument(layerApi(layer, api, method) + st.message()));
        return;
    }
    if (pre)
    {
        layer.attrs().setDims("prePadding", padding);
    }
    if (post)
    {
        layer.attrs().setDims("postPadding", padding);
    }
    layer.touch();
}

void setPaddingMode(Layer& layer, char const* api, PaddingMode mode)
{
    int32_t const v = static_cast<int32_t>(mode);
    if (v < 0 || v >= nvinfer1::EnumMax<PaddingMode>())
    {
        layer.network().reportError(invalidArgument(layerApi(layer, api, "setPaddingMode") + "invalid PaddingMode value "
            + std::to_string(v)));
        return;
    }
    layer.attrs().setInt("paddingMode", v);
    layer.touch();
}

void setKernelSize(Layer& layer, char const* api, char const* key, Dims const& size, bool withDilation)
{
    char const* method = withDilation ? "setKernelSizeNd" : "setWindowSizeNd";
    Status st = checkWindowDims(size, 1, withDilation ? "kernel size" : "window size");
    int64_t volume = 1;
    for (int32_t i = 0; st.isOk() && i < size.nbDims; ++i)
    {
        volume *= size.d[i];
    }
    if (st.isOk() && volume > kMAX_WINDOW_VOLUME)
    {
        st = invalidArgument("volume " + std::to_string(volume) + " is above the limit "
            + std::to_string(kMAX_WINDOW_VOLUME));
    }
    if (!st.isOk())
    {
        layer.network().reportError(invalidArgument(layerApi(layer, api, method) + st.message()));
        return;
    }
    layer.attrs().setDims(key, size);
    resizeWindowDefaults(layer.attrs(), size.nbDims, withDilation);
    layer.touch();
}

void setPositiveDims(Layer& layer, char const* api, char const* method, char const* key, Dims const& d)
{
    Status st = checkWindowDims(d, 1, key);
    if (!st.isOk())
    {
        layer.network().reportError(invalidArgument(layerApi(layer, api, method) + st.message()));
        return;
    }
    layer.attrs().setDims(key, d);
    layer.touch();
}

bool checkAddArguments(NetworkDefinition& network, char const* api, int64_t nbOutputMaps, Dims const& kernelSize,
    Weights const& kernel, Weights const& bias)
{
    std::string const prefix = std::string(api) + ": ";
    if (nbOutputMaps < 1 || nbOutputMaps > std::numeric_limits<int32_t>::max())
    {
        network.reportError(invalidArgument(prefix + "nbOutputMaps " + std::to_string(nbOutputMaps) + " is outside [1, "
            + std::to_string(std::numeric_limits<int32_t>::max()) + "]"));
        return false;
    }
    Status st = checkWindowDims(kernelSize, 1, "kernelSize");
    if (st.isOk())
    {
        int64_t volume = 1;
        for (int32_t i = 0; i < kernelSize.nbDims; ++i)
        {
            volume *= kernelSize.d[i];
        }
        if (volume > kMAX_WINDOW_VOLUME)
        {
            st = invalidArgument("kernelSize volume " + std::to_string(volume) + " is above the limit "
                + std::to_string(kMAX_WINDOW_VOLUME));
        }
    }
    if (st.isOk())
    {
        st = checkWeightsArg(kernel, "kernel weights");
    }
    if (st.isOk())
    {
        st = checkWeightsArg(bias, "bias weights");
    }
    if (!st.isOk())
    {
        network.reportError(invalidArgument(prefix + st.message()));
        return false;
    }
    return true;
}

} // namespace convsetters

// ------------------------------------------------------------------------------------------------------------
// ConvolutionLayer
// ------------------------------------------------------------------------------------------------------------

namespace
{
constexpr char const* kCONV_API = "IConvolutionLayer";
}

ConvolutionLayer::ConvolutionLayer(NetworkDefinition& network, Tensor* input, int64_t nbOutputMaps,
    Dims const& kernelSize, Weights kernel, Weights bias)
    : LayerBase<nvinfer1::IConvolutionLayer>(network, nvinfer1::LayerType::kCONVOLUTION, {input}, 1)
{
    setMaxInputs(3);
    attrs().setInt("nbOutputMaps", nbOutputMaps);
    attrs().setInt("nbGroups", 1);
    initWindowAttrs(attrs(), "kernelSize", kernelSize, true);
    weights() = {kernel, bias};
}

void ConvolutionLayer::setNbOutputMaps(int64_t nbOutputMaps) noexcept
{
    convsetters::setNbOutputMaps(*this, kCONV_API, nbOutputMaps);
}

int64_t ConvolutionLayer::getNbOutputMaps() const noexcept
{
    return attrs().getInt("nbOutputMaps");
}

void ConvolutionLayer::setNbGroups(int64_t nbGroups) noexcept
{
    convsetters::setNbGroups(*this, kCONV_API, nbGroups);
}

int64_t ConvolutionLayer::getNbGroups() const noexcept
{
    return attrs().getInt("nbGroups", 1);
}

void ConvolutionLayer::setKernelWeights(Weights weights) noexcept
{
    convsetters::setWeights(*this, kCONV_API, 0, weights);
}

Weights ConvolutionLayer::getKernelWeights() const noexcept
{
    return weights()[0];
}

void ConvolutionLayer::setBiasWeights(Weights weights) noexcept
{
    convsetters::setWeights(*this, kCONV_API, 1, weights);
}

Weights ConvolutionLayer::getBiasWeights() const noexcept
{
    return weights()[1];
}

void ConvolutionLayer::setPrePadding(Dims const& padding) noexcept
{
    convsetters::setPadding(*this, kCONV_API, "setPrePadding", padding, true, false);
}

Dims ConvolutionLayer::getPrePadding() const noexcept
{
    return attrDims(attrs(), "prePadding");
}

void ConvolutionLayer::setPostPadding(Dims const& padding) noexcept
{
    convsetters::setPadding(*this, kCONV_API, "setPostPadding", padding, false, true);
}

Dims ConvolutionLayer::getPostPadding() const noexcept
{
    return attrDims(attrs(), "postPadding");
}

void ConvolutionLayer::setPaddingMode(PaddingMode paddingMode) noexcept
{
    convsetters::setPaddingMode(*this, kCONV_API, paddingMode);
}

PaddingMode ConvolutionLayer::getPaddingMode() const noexcept
{
    return static_cast<PaddingMode>(attrs().getInt("paddingMode"));
}

void ConvolutionLayer::setKernelSizeNd(Dims const& kernelSize) noexcept
{
    convsetters::setKernelSize(*this, kCONV_API, "kernelSize", kernelSize, true);
}

Dims ConvolutionLayer::getKernelSizeNd() const noexcept
{
    return attrDims(attrs(), "kernelSize");
}

void ConvolutionLayer::setStrideNd(Dims const& stride) noexcept
{
    convsetters::setPositiveDims(*this, kCONV_API, "setStrideNd", "stride", stride);
}

Dims ConvolutionLayer::getStrideNd() const noexcept
{
    return attrDims(attrs(), "stride");
}

void ConvolutionLayer::setPaddingNd(Dims const& padding) noexcept
{
    convsetters::setPadding(*this, kCONV_API, "setPaddingNd", padding, true, true);
}

Dims ConvolutionLayer::getPaddingNd() const noexcept
{
    return attrDims(attrs(), "prePadding");
}

void ConvolutionLayer::setDilationNd(Dims const& dilation) noexcept
{
    convsetters::setPositiveDims(*this, kCONV_API, "setDilationNd", "dilation", dilation);
}

Dims ConvolutionLayer::getDilationNd() const noexcept
{
    return attrDims(attrs(), "dilation");
}

nvinfer1::IConvolutionLayer* NetworkDefinition::addConvolutionNd(nvinfer1::ITensor& input, int64_t nbOutputMaps,
    Dims const& kernelSize, Weights kernelWeights, Weights biasWeights) noexcept
{
    try
    {
        Tensor* t = ownTensor(&input, "addConvolutionNd input");
        if (t == nullptr)
        {
            return nullptr;
        }
        if (!convsetters::checkAddArguments(*this, "addConvolutionNd", nbOutputMaps, kernelSize, kernelWeights,
                biasWeights))
        {
            return nullptr;
        }
        return adopt(std::make_unique<ConvolutionLayer>(*this, t, nbOutputMaps, kernelSize, kernelWeights, biasWeights));
    }
    catch (...)
    {
        reportError(internalError("addConvolutionNd: unexpected exception"));
        return nullptr;
    }
}

// ------------------------------------------------------------------------------------------------------------
// Inference
// ------------------------------------------------------------------------------------------------------------

namespace
{

//! Check that tensor dimension `d` equals `expected` (now when both are known, else at run time).
Status requireExtent(InferContext& ctx, DimExpr d, int64_t expected, std::string const& what)
{
    if (d.isConstant())
    {
        if (d.constant() != expected)
        {
            return ctx.error(what + " is " + std::to_string(d.constant()) + "; expected " + std::to_string(expected));
        }
        return Status::ok();
    }
    return ctx.require(d.eq(expected), what + " must be " + std::to_string(expected));
}

} // namespace

Status inferConvolutionLike(InferContext& ctx, bool deconvolution)
{
    WindowKind const kind = deconvolution ? WindowKind::kDECONVOLUTION : WindowKind::kCONVOLUTION;
    auto params = parseWindowParams(ctx.attrs(), kind);
    if (!params.isOk())
    {
        return ctx.error(params.status().message());
    }
    WindowParams const& p = params.value();
    int32_t const rank = p.nbSpatial + 2;
    if (!ctx.hasInput(0))
    {
        return ctx.error("input 0 (data) is missing");
    }
    TensorInfo const& in = ctx.input(0);
    if (in.rank() != rank)
    {
        return ctx.error("input 0 '" + in.name + "' has rank " + std::to_string(in.rank()) + " but a "
            + std::to_string(p.nbSpatial) + "-D kernel needs rank " + std::to_string(rank) + " [N, C, "
            + (p.nbSpatial == 2 ? "H, W]" : "D, H, W]"));
    }
    if (in.type == DataType::kINT8)
    {
        return ctx.error("input 0 '" + in.name + "' has type INT8; quantized convolution needs explicit quantization "
                                                 "(dequantize to a float type first), which Kiln does not fuse yet");
    }
    if (!isFloatWeightsType(in.type))
    {
        return ctx.error("input 0 '" + in.name + "' has type " + dataTypeName(in.type)
            + "; supported types are FP32, FP16 and BF16");
    }
    int64_t const k = ctx.attrs().getInt("nbOutputMaps", 0);
    int64_t const groups = ctx.attrs().getInt("nbGroups", 1);
    if (k < 1)
    {
        return ctx.error("nbOutputMaps " + std::to_string(k) + " must be at least 1");
    }
    if (groups < 1)
    {
        return ctx.error("nbGroups " + std::to_string(groups) + " must be at least 1");
    }
    DimExpr const cDim = in.dims[1];
    if (!cDim.isConstant())
    {
        return ctx.error("the channel dimension (1) of input 0 '" + in.name + "' must be a build-time constant");
    }
    int64_t const c = cDim.constant();
    if (c % groups != 0)
    {
        return ctx.error("input channels " + std::to_string(c) + " are not divisible by nbGroups "
            + std::to_string(groups));
    }
    if (k % groups != 0)
    {
        return ctx.error("nbOutputMaps " + std::to_string(k) + " is not divisible by nbGroups " + std::to_string(groups));
    }
    // Kernel layout: convolution [K, C/G, k...] (GKCRS), deconvolution [C, K/G, k...] (CKRS per group).
    std::vector<int64_t> kernelShape{deconvolution ? c : k, deconvolution ? k / groups : c / groups};
    kernelShape.insert(kernelShape.end(), p.kernel.begin(), p.kernel.end());
    int64_t kernelVolume = 1;
    for (int64_t e : p.kernel)
    {
        kernelVolume *= e; // at most kMAX_WINDOW_VOLUME: the setters check it
    }
    int64_t kernelCount = 0;
    if (__builtin_mul_overflow(kernelShape[0], kernelShape[1], &kernelCount)
        || __builtin_mul_overflow(kernelCount, kernelVolume, &kernelCount))
    {
        return ctx.error("the kernel's element count (" + std::to_string(kernelShape[0]) + " * "
            + std::to_string(kernelShape[1]) + " * kernel volume " + std::to_string(kernelVolume)
            + ") overflows 64-bit integers");
    }

    bool const kernelTensor = ctx.hasInput(1);
    if (kernelTensor && ctx.hasWeights(0))
    {
        return ctx.error("the kernel is given both as weights and as input 1; kernel weights must be empty when a "
                         "kernel tensor is set");
    }
    if (!kernelTensor && !ctx.hasWeights(0))
    {
        return ctx.error("no kernel: set kernel weights or give the kernel as input 1");
    }
    if (kernelTensor)
    {
        TensorInfo const& kt = ctx.input(1);
        if (kt.type != in.type && (ctx.stronglyTyped() || !isFloatWeightsType(kt.type)))
        {
            return ctx.error("kernel input 1 '" + kt.name + "' has type " + dataTypeName(kt.type) + " but input 0 '"
                + in.name + "' has type " + dataTypeName(in.type) + "; they must match");
        }
        if (kt.rank() != rank)
        {
            return ctx.error("kernel input 1 '" + kt.name + "' has rank " + std::to_string(kt.rank()) + "; expected "
                + std::to_string(rank) + (deconvolution ? " [C, K/G, k...]" : " [K, C/G, k...]"));
        }
        for (int32_t d = 0; d < rank; ++d)
        {
            KILN_RETURN_IF_ERROR(requireExtent(ctx, kt.dims[static_cast<size_t>(d)], kernelShape[static_cast<size_t>(d)],
                "dimension " + std::to_string(d) + " of kernel input 1 '" + kt.name + "'"));
        }
    }
    else
    {
        WeightsInfo const& w = ctx.weights(0);
        if (!isFloatWeightsType(w.type))
        {
            return ctx.error(std::string("kernel weights have type ") + dataTypeName(w.type)
                + "; supported types are FP32, FP16 and BF16");
        }
        if (w.count != kernelCount)
        {
            return ctx.error("kernel weights have count " + std::to_string(w.count) + " but "
                + std::to_string(kernelCount) + " are needed (" + (deconvolution ? "C * K/G" : "K * C/G") + " * "
                + "kernel volume = " + std::to_string(kernelShape[0]) + " * " + std::to_string(kernelShape[1]) + " * "
                + std::to_string(kernelVolume) + ")");
        }
    }
    bool const biasTensor = ctx.hasInput(2);
    if (biasTensor && ctx.hasWeights(1))
    {
        return ctx.error("the bias is given both as weights and as input 2; bias weights must be empty when a bias "
                         "tensor is set");
    }
    if (biasTensor)
    {
        TensorInfo const& bt = ctx.input(2);
        if (bt.type != in.type && (ctx.stronglyTyped() || !isFloatWeightsType(bt.type)))
        {
            return ctx.error("bias input 2 '" + bt.name + "' has type " + dataTypeName(bt.type) + " but input 0 '"
                + in.name + "' has type " + dataTypeName(in.type) + "; they must match");
        }
        if (bt.rank() != 1)
        {
            return ctx.error("bias input 2 '" + bt.name + "' has rank " + std::to_string(bt.rank()) + "; expected 1 [K]");
        }
        KILN_RETURN_IF_ERROR(requireExtent(ctx, bt.dims[0], k, "the length of bias input 2 '" + bt.name + "'"));
    }
    else if (ctx.hasWeights(1))
    {
        WeightsInfo const& b = ctx.weights(1);
        if (!isFloatWeightsType(b.type))
        {
            return ctx.error(std::string("bias weights have type ") + dataTypeName(b.type)
                + "; supported types are FP32, FP16 and BF16");
        }
        if (b.count != k)
        {
            return ctx.error("bias weights have count " + std::to_string(b.count) + " but nbOutputMaps is "
                + std::to_string(k));
        }
    }

    ShapeExpr spatialIn(in.dims.begin() + 2, in.dims.end());
    KILN_ASSIGN_OR_RETURN(ShapeExpr spatialOut, inferWindowOutput(ctx, kind, p, spatialIn, in.name));
    TensorInfo& out = ctx.output(0);
    out.type = in.type;
    out.dims = {in.dims[0], ctx.constant(k)};
    out.dims.insert(out.dims.end(), spatialOut.begin(), spatialOut.end());
    return Status::ok();
}

Status inferConvolution(InferContext& ctx)
{
    return inferConvolutionLike(ctx, false);
}

} // namespace kiln
