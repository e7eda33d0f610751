// ScatterLayer: nvinfer1::IScatterLayer (kELEMENT like ONNX ScatterElements, kND like ONNX ScatterND).
// Attributes: "mode" (int, nvinfer1::ScatterMode), "axis" (int, the scatter axis of kELEMENT).
// Inputs: 0 data; 1 indices (INT32 or INT64); 2 updates (same type as data).
#pragma once

#include "network/layer.h"

namespace kiln
{

class ScatterLayer final : public LayerBase<nvinfer1::IScatterLayer>
{
public:
    ScatterLayer(NetworkDefinition& network, Tensor* data, Tensor* indices, Tensor* updates, nvinfer1::ScatterMode mode);

    void setMode(nvinfer1::ScatterMode mode) noexcept override;
    nvinfer1::ScatterMode getMode() const noexcept override;
    void setAxis(int32_t axis) noexcept override;
    int32_t getAxis() const noexcept override;
};

} // namespace kiln
