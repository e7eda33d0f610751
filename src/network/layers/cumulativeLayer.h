// CumulativeLayer: nvinfer1::ICumulativeLayer (running sum along one axis; the output has the input's shape).
// Attributes: "operation" (int, nvinfer1::CumulativeOperation), "exclusive" (int 0/1), "reverse" (int 0/1).
// Inputs: 0 data; 1 axis (0-D INT32/INT64, in [-rank, rank - 1]).
#pragma once

#include "network/layer.h"

namespace kiln
{

class CumulativeLayer final : public LayerBase<nvinfer1::ICumulativeLayer>
{
public:
    CumulativeLayer(NetworkDefinition& network, Tensor* input, Tensor* axis, nvinfer1::CumulativeOperation op,
        bool exclusive, bool reverse);

    bool setOperation(nvinfer1::CumulativeOperation op) noexcept override;
    nvinfer1::CumulativeOperation getOperation() const noexcept override;
    void setExclusive(bool exclusive) noexcept override;
    bool getExclusive() const noexcept override;
    void setReverse(bool reverse) noexcept override;
    bool getReverse() const noexcept override;
};

} // namespace kiln
