// DeconvolutionLayer, INetworkDefinition::addDeconvolutionNd and deconvolution inference (shared with convolution
// in convolutionLayer.cpp).
#include "network/layers/deconvolutionLayer.h"

#include "network/layerTable.h"
#include "network/layers/convolutionLayer.h"
#include "network/networkDefinition.h"

namespace kiln
{
using nvinfer1::Dims;
using nvinfer1::PaddingMode;
using nvinfer1::Weights;

namespace
{
constexpr char const* kDECONV_API = "IDeconvolutionLayer";
}

DeconvolutionLayer::DeconvolutionLayer(NetworkDefinition& network, Tensor* input, int64_t nbOutputMaps,
    Dims const& kernelSize, Weights kernel, Weights bias)
    : LayerBase<nvinfer1::IDeconvolutionLayer>(network, nvinfer1::LayerType::kDECONVOLUTION, {input}, 1)
{
    setMaxInputs(3);
    attrs().setInt("nbOutputMaps", nbOutputMaps);
    attrs().setInt("nbGroups", 1);
    initWindowAttrs(attrs(), "kernelSize", kernelSize, true);
    weights() = {kernel, bias};
}

void DeconvolutionLayer::setNbOutputMaps(int64_t nbOutputMaps) noexcept
{
    convsetters::setNbOutputMaps(*this, kDECONV_API, nbOutputMaps);
}

int64_t DeconvolutionLayer::getNbOutputMaps() const noexcept
{
    return attrs().getInt("nbOutputMaps");
}

void DeconvolutionLayer::setNbGroups(int64_t nbGroups) noexcept
{
    convsetters::setNbGroups(*this, kDECONV_API, nbGroups);
}

int64_t DeconvolutionLayer::getNbGroups() const noexcept
{
    return attrs().getInt("nbGroups", 1);
}

void DeconvolutionLayer::setKernelWeights(Weights weights) noexcept
{
    convsetters::setWeights(*this, kDECONV_API, 0, weights);
}

Weights DeconvolutionLayer::getKernelWeights() const noexcept
{
    return weights()[0];
}

void DeconvolutionLayer::setBiasWeights(Weights weights) noexcept
{
    convsetters::setWeights(*this, kDECONV_API, 1, weights);
}

Weights DeconvolutionLayer::getBiasWeights() const noexcept
{
    return weights()[1];
}

void DeconvolutionLayer::setPrePadding(Dims const& padding) noexcept
{
    convsetters::setPadding(*this, kDECONV_API, "setPrePadding", padding, true, false);
}

Dims DeconvolutionLayer::getPrePadding() const noexcept
{
    return attrDims(attrs(), "prePadding");
}

void DeconvolutionLayer::setPostPadding(Dims const& padding) noexcept
{
    convsetters::setPadding(*this, kDECONV_API, "setPostPadding", padding, false, true);
}

Dims DeconvolutionLayer::getPostPadding() const noexcept
{
    return attrDims(attrs(), "postPadding");
}

void DeconvolutionLayer::setPaddingMode(PaddingMode paddingMode) noexcept
{
    convsetters::setPaddingMode(*this, kDECONV_API, paddingMode);
}

PaddingMode DeconvolutionLayer::getPaddingMode() const noexcept
{
    return static_cast<PaddingMode>(attrs().getInt("paddingMode"));
}

void DeconvolutionLayer::setKernelSizeNd(Dims const& kernelSize) noexcept
{
    convsetters::setKernelSize(*this, kDECONV_API, "kernelSize", kernelSize, true);
}

Dims DeconvolutionLayer::getKernelSizeNd() const noexcept
{
    return attrDims(attrs(), "kernelSize");
}

void DeconvolutionLayer::setStrideNd(Dims const& stride) noexcept
{
    convsetters::setPositiveDims(*this, kDECONV_API, "setStrideNd", "stride", stride);
}

Dims DeconvolutionLayer::getStrideNd() const noexcept
{
    return attrDims(attrs(), "stride");
}

void DeconvolutionLayer::setPaddingNd(Dims const& padding) noexcept
{
    convsetters::setPadding(*this, kDECONV_API, "setPaddingNd", padding, true, true);
}

Dims DeconvolutionLayer::getPaddingNd() const noexcept
{
    return attrDims(attrs(), "prePadding");
}

void DeconvolutionLayer::setDilationNd(Dims const& dilation) noexcept
{
    convsetters::setPositiveDims(*this, kDECONV_API, "setDilationNd", "dilation", dilation);
}

Dims DeconvolutionLayer::getDilationNd() const noexcept
{
    return attrDims(attrs(), "dilation");
}

nvinfer1::IDeconvolutionLayer* NetworkDefinition::addDeconvolutionNd(nvinfer1::ITensor& input, int64_t nbOutputMaps,
    Dims kernelSize, Weights kernelWeights, Weights biasWeights) noexcept
{
    try
    {
        Tensor* t = ownTensor(&input, "addDeconvolutionNd input");
        if (t == nullptr)
        {
            return nullptr;
        }
        if (!convsetters::checkAddArguments(*this, "addDeconvolutionNd", nbOutputMaps, kernelSize, kernelWeights,
                biasWeights))
        {
            return nullptr;
        }
        return adopt(
            std::make_unique<DeconvolutionLayer>(*this, t, nbOutputMaps, kernelSize, kernelWeights, biasWeights));
    }
    catch (...)
    {
        reportError(internalError("addDeconvolutionNd: unexpected exception"));
        return nullptr;
    }
}

Status inferDeconvolution(InferContext& ctx)
{
    return inferConvolutionLike(ctx, true);
}

} // namespace kiln
