// TripLimitLayer: Kiln's ITripLimitLayer. kCOUNT: input 0 is a 0-D INT32/INT64 shape tensor, the number of
// iterations. kWHILE: input 0 is a 0-D BOOL tensor computed in the body from the recurrences, checked before each
// iteration. No outputs. Attributes: "kind" (TripLimit), "loop" (the loop's name).
#pragma once

#include "network/layer.h"

namespace kiln
{
class Loop;

class TripLimitLayer final : public LayerBase<nvinfer1::ITripLimitLayer>
{
public:
    TripLimitLayer(NetworkDefinition& network, Loop& loop, Tensor* input, nvinfer1::TripLimit limit);
    nvinfer1::ILoop* getLoop() const noexcept override;
    nvinfer1::TripLimit getTripLimit() const noexcept override;

private:
    Loop& mLoop;
};

} // namespace kiln
