// ScaleLayer: Kiln's IScaleLayer, output = (input * scale + shift) ^ power.
//
// Attributes: "mode" (int, nvinfer1::ScaleMode), "channelAxis" (int). Weights slots: 0 shift, 1 scale, 2 power;
// an empty slot means shift 0, scale 1, power 1. Counts: kUNIFORM 1; kCHANNEL the extent of the channel axis;
// kELEMENTWISE the product of the extents from the channel axis to the last dimension.
#pragma once

#include "network/layer.h"

namespace kiln
{

class ScaleLayer final : public LayerBase<nvinfer1::IScaleLayer>
{
public:
    ScaleLayer(NetworkDefinition& network, Tensor* input, nvinfer1::ScaleMode mode, nvinfer1::Weights shift,
        nvinfer1::Weights scale, nvinfer1::Weights power, int32_t channelAxis);

    void setMode(nvinfer1::ScaleMode mode) noexcept override;
    nvinfer1::ScaleMode getMode() const noexcept override;
    void setShift(nvinfer1::Weights shift) noexcept override;
    nvinfer1::Weights getShift() const noexcept override;
    void setScale(nvinfer1::Weights scale) noexcept override;
    nvinfer1::Weights getScale() const noexcept override;
    void setPower(nvinfer1::Weights power) noexcept override;
    nvinfer1::Weights getPower() const noexcept override;
    int32_t getChannelAxis() const noexcept override;
    void setChannelAxis(int32_t channelAxis) noexcept override;

private:
    void setSlot(size_t slot, nvinfer1::Weights w, char const* method);
};

} // namespace kiln
