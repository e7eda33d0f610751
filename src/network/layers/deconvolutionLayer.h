// DeconvolutionLayer: nvinfer1::IDeconvolutionLayer (2-D/3-D transposed convolution with groups, dilation and
// optional bias). Same attributes as ConvolutionLayer: "nbOutputMaps", "nbGroups", "kernelSize", "stride",
// "dilation", "prePadding", "postPadding" (here: outputs trimmed at the start/end), "paddingMode".
// Weights slots: 0 = kernel [C, K/G, k...] (TensorRT's CKRS order), 1 = bias [K] (count 0 = none).
// Inputs: 0 = data [N, C, spatial...]; 1 = kernel tensor (kernel weights empty); 2 = bias tensor [K].
#pragma once

#include "network/layer.h"

namespace kiln
{

class DeconvolutionLayer final : public LayerBase<nvinfer1::IDeconvolutionLayer>
{
public:
    DeconvolutionLayer(NetworkDefinition& network, Tensor* input, int64_t nbOutputMaps,
        nvinfer1::Dims const& kernelSize, nvinfer1::Weights kernel, nvinfer1::Weights bias);

    void setNbOutputMaps(int64_t nbOutputMaps) noexcept override;
    int64_t getNbOutputMaps() const noexcept override;
    void setNbGroups(int64_t nbGroups) noexcept override;
    int64_t getNbGroups() const noexcept override;
    void setKernelWeights(nvinfer1::Weights weights) noexcept override;
    nvinfer1::Weights getKernelWeights() const noexcept override;
    void setBiasWeights(nvinfer1::Weights weights) noexcept override;
    nvinfer1::Weights getBiasWeights() const noexcept override;
    void setPrePadding(nvinfer1::Dims const& padding) noexcept override;
    nvinfer1::Dims getPrePadding() const noexcept override;
    void setPostPadding(nvinfer1::Dims const& padding) noexcept override;
    nvinfer1::Dims getPostPadding() const noexcept override;
    void setPaddingMode(nvinfer1::PaddingMode paddingMode) noexcept override;
    nvinfer1::PaddingMode getPaddingMode() const noexcept override;
    void setKernelSizeNd(nvinfer1::Dims const& kernelSize) noexcept override;
    nvinfer1::Dims getKernelSizeNd() const noexcept override;
    void setStrideNd(nvinfer1::Dims const& stride) noexcept override;
    nvinfer1::Dims getStrideNd() const noexcept override;
    void setPaddingNd(nvinfer1::Dims const& padding) noexcept override;
    nvinfer1::Dims getPaddingNd() const noexcept override;
    void setDilationNd(nvinfer1::Dims const& dilation) noexcept override;
    nvinfer1::Dims getDilationNd() const noexcept override;
};

} // namespace kiln
