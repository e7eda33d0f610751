// SoftMaxLayer: nvinfer1::ISoftMaxLayer (softmax along one axis).
// Attributes: "axes" (int, one-bit mask 1 << axis; absent = TensorRT's default, axis rank - 3 or 0 for rank < 3).
#pragma once

#include "network/layer.h"

namespace kiln
{

class SoftMaxLayer final : public LayerBase<nvinfer1::ISoftMaxLayer>
{
public:
    SoftMaxLayer(NetworkDefinition& network, Tensor* input);

    void setAxes(uint32_t axes) noexcept override;
    uint32_t getAxes() const noexcept override;
};

//! TensorRT's default softmax/concatenation axis for a tensor of `rank`: rank - 3, or 0 when rank < 3.
inline int32_t defaultChannelAxis(int32_t rank)
{
    return rank >= 3 ? rank - 3 : 0;
}

} // namespace kiln
