// ReduceLayer: nvinfer1::IReduceLayer (sum, product, max, min or mean over a set of axes).
// Attributes: "operation" (int, nvinfer1::ReduceOperation), "axes" (int, bitmask of reduced axes),
// "keepDims" (int 0/1: reduced axes stay as extent-1 dimensions).
#pragma once

#include "network/layer.h"

namespace kiln
{

class ReduceLayer final : public LayerBase<nvinfer1::IReduceLayer>
{
public:
    ReduceLayer(NetworkDefinition& network, Tensor* input, nvinfer1::ReduceOperation op, uint32_t axes, bool keepDims);

    void setOperation(nvinfer1::ReduceOperation op) noexcept override;
    nvinfer1::ReduceOperation getOperation() const noexcept override;
    void setReduceAxes(uint32_t reduceAxes) noexcept override;
    uint32_t getReduceAxes() const noexcept override;
    void setKeepDimensions(bool keepDimensions) noexcept override;
    bool getKeepDimensions() const noexcept override;
};

} // namespace kiln
