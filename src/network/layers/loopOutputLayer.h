// LoopOutputLayer: Kiln's ILoopOutputLayer, the only way out of a loop. Input 0 is a value of the body (for
// kLAST_VALUE usually a recurrence output: then the output is the value after the last iteration); input 1, for
// kCONCATENATE / kREVERSE, is a 0-D INT32/INT64 shape tensor giving the length inserted at "axis".
// Attributes: "kind" (LoopOutput), "axis", "loop".
#pragma once

#include "network/layer.h"

namespace kiln
{
class Loop;

class LoopOutputLayer final : public LayerBase<nvinfer1::ILoopOutputLayer>
{
public:
    LoopOutputLayer(NetworkDefinition& network, Loop& loop, Tensor* value, nvinfer1::LoopOutput kind, int32_t axis);
    nvinfer1::ILoop* getLoop() const noexcept override;
    nvinfer1::LoopOutput getLoopOutput() const noexcept override;
    void setAxis(int32_t axis) noexcept override;
    int32_t getAxis() const noexcept override;

private:
    Loop& mLoop;
};

} // namespace kiln
