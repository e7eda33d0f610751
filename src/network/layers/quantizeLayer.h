// QuantizeLayer / DequantizeLayer: nvinfer1::IQuantizeLayer and nvinfer1::IDequantizeLayer (explicit quantization).
// Attributes: "axis" (int, -1 = per-tensor), "toType" (int, nvinfer1::DataType), "blockShape" (ints, empty unless
// block quantization was asked for). Inputs: 0 data; 1 scale (0-D or 1-element: per-tensor; 1-D of the axis'
// extent: per-axis; the data's rank: block); 2 optional zero point (the scale's shape, the quantized type).
#pragma once

#include "network/layer.h"

namespace kiln
{

//! The shared implementation of both interfaces (I is IQuantizeLayer or IDequantizeLayer).
template <typename I>
class QuantizeLayerBase final : public LayerBase<I>
{
public:
    QuantizeLayerBase(NetworkDefinition& network, Tensor* input, Tensor* scale, nvinfer1::DataType toType);

    int32_t getAxis() const noexcept override;
    void setAxis(int32_t axis) noexcept override;
    bool setBlockShape(nvinfer1::Dims const& blockShape) noexcept override;
    nvinfer1::Dims getBlockShape() const noexcept override;
    void setToType(nvinfer1::DataType toType) noexcept override;
    nvinfer1::DataType getToType() const noexcept override;
};

using QuantizeLayer = QuantizeLayerBase<nvinfer1::IQuantizeLayer>;
using DequantizeLayer = QuantizeLayerBase<nvinfer1::IDequantizeLayer>;

//! Whether `type` is a type IQuantizeLayer may produce (kINT8, kFP8, kINT4, kFP4).
bool isQuantizedType(nvinfer1::DataType type);

} // namespace kiln
