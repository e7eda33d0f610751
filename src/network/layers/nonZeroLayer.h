// NonZeroLayer: nvinfer1::INonZeroLayer (the indices of the non-zero elements of a tensor, as a [rank, count] tensor
// whose count is only known after the layer ran: a data-dependent shape, see dataDependentOutput.h).
// Attribute: "indicesType" (int, nvinfer1::DataType kINT32 or kINT64).
// Inputs: 0 data (FP32, FP16, BF16, INT8, INT32, INT64 or BOOL).
// Outputs: 0 indices [rank, count]; 1 (internal, not visible through ILayer) the count, a 0-D INT64 size tensor.
#pragma once

#include "network/layer.h"

namespace kiln
{

class NonZeroLayer final : public LayerBase<nvinfer1::INonZeroLayer>
{
public:
    NonZeroLayer(NetworkDefinition& network, Tensor* input, nvinfer1::DataType indicesType);

    bool setIndicesType(nvinfer1::DataType type) noexcept override;
    nvinfer1::DataType getIndicesType() const noexcept override;

    // The count output is internal: ILayer shows the indices only, as in TensorRT.
    int32_t getNbOutputs() const noexcept override { return 1; }
    nvinfer1::ITensor* getOutput(int32_t index) const noexcept override
    {
        return index == 0 ? outputImpl(0) : nullptr;
    }
};

} // namespace kiln
