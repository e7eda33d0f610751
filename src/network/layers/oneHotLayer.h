// OneHotLayer: nvinfer1::IOneHotLayer (one-hot encoding of integer indices along a new axis).
// Attributes: "axis" (int, position of the new axis in the output, in [-rank(indices) - 1, rank(indices)]).
// Inputs: 0 indices (INT32/INT64); 1 values [off, on] (1-D, 2 elements; its type is the output type);
// 2 depth (0-D INT32/INT64 shape tensor).
#pragma once

#include "network/layer.h"

namespace kiln
{

class OneHotLayer final : public LayerBase<nvinfer1::IOneHotLayer>
{
public:
    OneHotLayer(NetworkDefinition& network, Tensor* indices, Tensor* values, Tensor* depth, int32_t axis);

    void setAxis(int32_t axis) noexcept override;
    int32_t getAxis() const noexcept override;
};

} // namespace kiln
