// PaddingLayer: IPaddingLayer (zero padding of the innermost dimensions; negative padding crops). Attributes:
//   "pre_padding"  ints  padding before the data, one entry per padded dimension (innermost dims, in order)
//   "post_padding" ints  padding after the data (same count as "pre_padding")
// Input 0: data. No weights.
#pragma once

#include "network/layer.h"

namespace kiln
{

class PaddingLayer final : public LayerBase<nvinfer1::IPaddingLayer>
{
public:
    PaddingLayer(NetworkDefinition& network, Tensor* input, nvinfer1::Dims const& pre, nvinfer1::Dims const& post);

    void setPrePaddingNd(nvinfer1::Dims const& padding) noexcept override;
    nvinfer1::Dims getPrePaddingNd() const noexcept override;
    void setPostPaddingNd(nvinfer1::Dims const& padding) noexcept override;
    nvinfer1::Dims getPostPaddingNd() const noexcept override;

private:
    void setPadding(char const* key, nvinfer1::Dims const& padding, char const* api);
};

} // namespace kiln
