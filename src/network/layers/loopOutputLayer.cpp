// LoopOutputLayer and its inference: kLAST_VALUE keeps the value's shape; kCONCATENATE / kREVERSE insert the
// length (input 1, a 0-D INT32/INT64 shape tensor) at the axis.
#include "network/layers/loopOutputLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/layers/loop.h"

namespace kiln
{

LoopOutputLayer::LoopOutputLayer(
    NetworkDefinition& network, Loop& loop, Tensor* value, nvinfer1::LoopOutput kind, int32_t axis)
    : LayerBase<nvinfer1::ILoopOutputLayer>(network, nvinfer1::LayerType::kLOOP_OUTPUT, {value}, 1)
    , mLoop(loop)
{
    setMaxInputs(2);
    attrs().setInt("kind", static_cast<int64_t>(kind));
    attrs().setInt("axis", axis);
}

nvinfer1::ILoop* LoopOutputLayer::getLoop() const noexcept
{
    return &mLoop;
}

nvinfer1::LoopOutput LoopOutputLayer::getLoopOutput() const noexcept
{
    return static_cast<nvinfer1::LoopOutput>(attrs().getInt("kind"));
}

void LoopOutputLayer::setAxis(int32_t axis) noexcept
{
    attrs().setInt("axis", axis);
    touch();
}

int32_t LoopOutputLayer::getAxis() const noexcept
{
    return static_cast<int32_t>(attrs().getInt("axis"));
}

Status inferLoopOutput(InferContext& ctx)
{
    std::string const loop = "loop '" + ctx.attrs().getString("loop") + "': ";
    if (!ctx.hasInput(0))
    {
        return ctx.error(loop + "the loop output's value (input 0) is missing");
    }
    TensorInfo const& in = ctx.input(0);
    TensorInfo& out = ctx.output(0);
    out.type = in.type;
    auto const kind = static_cast<nvinfer1::LoopOutput>(ctx.attrs().getInt("kind"));
    if (kind == nvinfer1::LoopOutput::kLAST_VALUE)
    {
        out.dims = in.dims;
        return Status::ok();
    }
    if (!ctx.hasInput(1))
    {
        return ctx.error(loop + "a kCONCATENATE/kREVERSE loop output needs input 1, a 0-D INT32/INT64 shape tensor "
                                "giving the concatenated length (ILayer::setInput(1, length))");
    }
    TensorInfo const& len = ctx.input(1);
    if (len.rank() != 0 || (len.type != nvinfer1::DataType::kINT32 && len.type != nvinfer1::DataType::kINT64)
        || !len.values.has_value() || len.values->size() != 1)
    {
        return ctx.error(loop + "the concatenation length '" + len.name
            + "' must be a 0-D INT32/INT64 shape tensor (a constant, a value computed from shapes, or a shape-tensor "
              "input); it has rank " + std::to_string(len.rank()) + " and type " + dataTypeName(len.type)
            + (len.values.has_value() ? "" : " and no values known before execution"));
    }
    int64_t const axis = ctx.attrs().getInt("axis");
    if (axis < 0 || axis > in.rank())
    {
        return ctx.error(loop + "loop output axis " + std::to_string(axis) + " is out of range [0, "
            + std::to_string(in.rank()) + "] for '" + in.name + "'");
    }
    out.dims = in.dims;
    out.dims.insert(out.dims.begin() + axis, (*len.values)[0]);
    return Status::ok();
}

} // namespace kiln
