// IteratorLayer: Kiln's IIteratorLayer. Iteration i sees slice i (or extent-1-i when reversed) of input 0
// along "axis"; the output has the input's shape without that axis. Attributes: "axis", "reverse", "loop".
#pragma once

#include "network/layer.h"

namespace kiln
{
class Loop;

class IteratorLayer final : public LayerBase<nvinfer1::IIteratorLayer>
{
public:
    IteratorLayer(NetworkDefinition& network, Loop& loop, Tensor* input, int32_t axis, bool reverse);
    nvinfer1::ILoop* getLoop() const noexcept override;
    void setAxis(int32_t axis) noexcept override;
    int32_t getAxis() const noexcept override;
    void setReverse(bool reverse) noexcept override;
    bool getReverse() const noexcept override;

private:
    Loop& mLoop;
};

} // namespace kiln
