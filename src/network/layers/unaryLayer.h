// UnaryLayer: Kiln's IUnaryLayer (one elementwise function of one tensor).
//
// Attributes: "operation" (int, nvinfer1::UnaryOperation). No weights. Input 0: the operand.
#pragma once

#include "network/layer.h"

namespace kiln
{

class UnaryLayer final : public LayerBase<nvinfer1::IUnaryLayer>
{
public:
    UnaryLayer(NetworkDefinition& network, Tensor* input, nvinfer1::UnaryOperation op);

    void setOperation(nvinfer1::UnaryOperation op) noexcept override;
    nvinfer1::UnaryOperation getOperation() const noexcept override;
};

} // namespace kiln
