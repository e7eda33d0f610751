// TopKLayer: nvinfer1::ITopKLayer (the k largest or smallest elements along one axis and their indices).
// Attributes: "operation" (int, nvinfer1::TopKOperation), "k" (int, the static k; ignored when input 1 is set),
// "axes" (int, one-bit mask of the reduced axis), "indicesType" (int, nvinfer1::DataType kINT32 or kINT64).
// Inputs: 0 data; 1 (optional) k as a 0-D (or one-element 1-D) INT32/INT64 shape tensor.
#pragma once

#include "network/layer.h"

namespace kiln
{

class TopKLayer final : public LayerBase<nvinfer1::ITopKLayer>
{
public:
    TopKLayer(NetworkDefinition& network, Tensor* input, nvinfer1::TopKOperation op, int32_t k, uint32_t axes,
        nvinfer1::DataType indicesType);

    void setOperation(nvinfer1::TopKOperation op) noexcept override;
    nvinfer1::TopKOperation getOperation() const noexcept override;
    void setK(int32_t k) noexcept override;
    int32_t getK() const noexcept override;
    void setReduceAxes(uint32_t reduceAxes) noexcept override;
    uint32_t getReduceAxes() const noexcept override;
    bool setIndicesType(nvinfer1::DataType type) noexcept override;
    nvinfer1::DataType getIndicesType() const noexcept override;

    //! Largest k TensorRT accepts (static or dynamic).
    static constexpr int32_t kMAX_K = 3840;
};

} // namespace kiln
