// ConcatenationLayer: nvinfer1::IConcatenationLayer (joins its inputs along one axis).
// Attributes: "axis" (int; absent = TensorRT's default, rank - 3 or 0 for rank < 3).
#pragma once

#include "network/layer.h"

namespace kiln
{

class ConcatenationLayer final : public LayerBase<nvinfer1::IConcatenationLayer>
{
public:
    ConcatenationLayer(NetworkDefinition& network, std::vector<Tensor*> inputs);

    void setAxis(int32_t axis) noexcept override;
    int32_t getAxis() const noexcept override;
};

} // namespace kiln
