// RecurrenceLayer and its inference: the current value has the initial value's type and shape (the next value
// is checked against it once the whole network is analysed, see loopRegions.cpp).
#include "network/layers/recurrenceLayer.h"

#include "network/layerTable.h"
#include "network/layers/loop.h"

namespace kiln
{

RecurrenceLayer::RecurrenceLayer(NetworkDefinition& network, Loop& loop, Tensor* initialValue)
    : LayerBase<nvinfer1::IRecurrenceLayer>(network, nvinfer1::LayerType::kRECURRENCE, {initialValue}, 1)
    , mLoop(loop)
{
    setMaxInputs(2);
}

nvinfer1::ILoop* RecurrenceLayer::getLoop() const noexcept
{
    return &mLoop;
}

Status inferRecurrence(InferContext& ctx)
{
    if (!ctx.hasInput(0))
    {
        return ctx.error("loop '" + ctx.attrs().getString("loop") + "': the initial value (input 0) is missing");
    }
    TensorInfo const& init = ctx.input(0);
    TensorInfo& out = ctx.output(0);
    out.type = init.type;
    out.dims = init.dims; // shapes are loop-invariant; the values change per iteration, so none are known
    return Status::ok();
}

} // namespace kiln
