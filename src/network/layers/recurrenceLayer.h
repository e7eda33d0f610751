// RecurrenceLayer: Kiln's IRecurrenceLayer, a loop-carried value. Input 0 is the initial value (from outside the
// loop), input 1 the value of the next iteration (from the body); the output is the current value, with the
// initial value's type and shape. Attribute "loop": the loop's name (for messages).
#pragma once

#include "network/layer.h"

namespace kiln
{
class Loop;

class RecurrenceLayer final : public LayerBase<nvinfer1::IRecurrenceLayer>
{
public:
    RecurrenceLayer(NetworkDefinition& network, Loop& loop, Tensor* initialValue);
    nvinfer1::ILoop* getLoop() const noexcept override;

private:
    Loop& mLoop;
};

} // namespace kiln
