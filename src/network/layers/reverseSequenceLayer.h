// ReverseSequenceLayer: nvinfer1::IReverseSequenceLayer (per batch slice, reverse the first sequenceLens[i] elements
// along the sequence axis; the rest is copied).
// Attributes: "batchAxis" (int, default 1), "sequenceAxis" (int, default 0).
// Inputs: 0 data (rank >= 2); 1 sequenceLens (1-D INT32/INT64 of the batch axis' extent).
#pragma once

#include "network/layer.h"

namespace kiln
{

class ReverseSequenceLayer final : public LayerBase<nvinfer1::IReverseSequenceLayer>
{
public:
    ReverseSequenceLayer(NetworkDefinition& network, Tensor* input, Tensor* sequenceLens);

    void setBatchAxis(int32_t batchAxis) noexcept override;
    int32_t getBatchAxis() const noexcept override;
    void setSequenceAxis(int32_t sequenceAxis) noexcept override;
    int32_t getSequenceAxis() const noexcept override;

private:
    bool checkAxis(char const* method, int32_t axis);
};

} // namespace kiln
