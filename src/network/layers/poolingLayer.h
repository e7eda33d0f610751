// PoolingLayer: nvinfer1::IPoolingLayer (2-D/3-D max, average and max-average blend pooling).
// Attributes: "poolingType" (int, nvinfer1::PoolingType), "windowSize", "stride", "prePadding", "postPadding"
// (int lists, one value per spatial dimension), "paddingMode" (int, nvinfer1::PaddingMode), "blendFactor" (float,
// kMAX_AVERAGE_BLEND only), "averageCountExcludesPadding" (int 0/1, default 1).
// Input 0: data [N, C, spatial...]. No weights.
#pragma once

#include "network/layer.h"

namespace kiln
{

class PoolingLayer final : public LayerBase<nvinfer1::IPoolingLayer>
{
public:
    PoolingLayer(NetworkDefinition& network, Tensor* input, nvinfer1::PoolingType type, nvinfer1::Dims const& windowSize);

    void setPoolingType(nvinfer1::PoolingType type) noexcept override;
    nvinfer1::PoolingType getPoolingType() const noexcept override;
    void setBlendFactor(float blendFactor) noexcept override;
    float getBlendFactor() const noexcept override;
    void setAverageCountExcludesPadding(bool exclusive) noexcept override;
    bool getAverageCountExcludesPadding() const noexcept override;
    void setPrePadding(nvinfer1::Dims const& padding) noexcept override;
    nvinfer1::Dims getPrePadding() const noexcept override;
    void setPostPadding(nvinfer1::Dims const& padding) noexcept override;
    nvinfer1::Dims getPostPadding() const noexcept override;
    void setPaddingMode(nvinfer1::PaddingMode paddingMode) noexcept override;
    nvinfer1::PaddingMode getPaddingMode() const noexcept override;
    void setWindowSizeNd(nvinfer1::Dims const& windowSize) noexcept override;
    nvinfer1::Dims getWindowSizeNd() const noexcept override;
    void setStrideNd(nvinfer1::Dims const& stride) noexcept override;
    nvinfer1::Dims getStrideNd() const noexcept override;
    void setPaddingNd(nvinfer1::Dims const& padding) noexcept override;
    nvinfer1::Dims getPaddingNd() const noexcept override;
};

} // namespace kiln
