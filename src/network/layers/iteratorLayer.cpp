// IteratorLayer and its inference: the output is the input without the iterated axis.
#include "network/layers/iteratorLayer.h"

#include "network/layerTable.h"
#include "network/layers/loop.h"

namespace kiln
{

IteratorLayer::IteratorLayer(NetworkDefinition& network, Loop& loop, Tensor* input, int32_t axis, bool reverse)
    : LayerBase<nvinfer1::IIteratorLayer>(network, nvinfer1::LayerType::kITERATOR, {input}, 1)
    , mLoop(loop)
{
    attrs().setInt("axis", axis);
    attrs().setInt("reverse", reverse ? 1 : 0);
}

nvinfer1::ILoop* IteratorLayer::getLoop() const noexcept
{
    return &mLoop;
}

void IteratorLayer::setAxis(int32_t axis) noexcept
{
    attrs().setInt("axis", axis);
    touch();
}

int32_t IteratorLayer::getAxis() const noexcept
{
    return static_cast<int32_t>(attrs().getInt("axis"));
}

void IteratorLayer::setReverse(bool reverse) noexcept
{
    attrs().setInt("reverse", reverse ? 1 : 0);
    touch();
}

bool IteratorLayer::getReverse() const noexcept
{
    return attrs().getInt("reverse") != 0;
}

Status inferIterator(InferContext& ctx)
{
    std::string const loop = "loop '" + ctx.attrs().getString("loop") + "': ";
    if (!ctx.hasInput(0))
    {
        return ctx.error(loop + "the iterated tensor is missing");
    }
    TensorInfo const& in = ctx.input(0);
    int64_t const axis = ctx.attrs().getInt("axis");
    if (axis < 0 || axis >= in.rank())
    {
        return ctx.error(loop + "iterator axis " + std::to_string(axis) + " is out of range for '" + in.name
            + "' of rank " + std::to_string(in.rank()));
    }
    TensorInfo& out = ctx.output(0);
    out.type = in.type;
    for (int32_t i = 0; i < in.rank(); ++i)
    {
        if (i != axis)
        {
            out.dims.push_back(in.dims[static_cast<size_t>(i)]);
        }
    }
    return Status::ok();
}

} // namespace kiln
