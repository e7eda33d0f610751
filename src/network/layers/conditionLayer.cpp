// The if-conditional boundary layers (see conditionLayer.h) and their inference.
#include "network/layers/conditionLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/layers/ifConditional.h"

namespace kiln
{
using nvinfer1::DataType;

ConditionLayer::ConditionLayer(NetworkDefinition& network, IfConditional& conditional, Tensor* condition)
    : LayerBase<nvinfer1::IConditionLayer>(network, nvinfer1::LayerType::kCONDITION, {condition}, 0)
    , mConditional(conditional)
{
}

nvinfer1::IIfConditional* ConditionLayer::getConditional() const noexcept
{
    return &mConditional;
}

ConditionalInputLayer::ConditionalInputLayer(NetworkDefinition& network, IfConditional& conditional, Tensor* input)
    : LayerBase<nvinfer1::IIfConditionalInputLayer>(network, nvinfer1::LayerType::kCONDITIONAL_INPUT, {input}, 1)
    , mConditional(conditional)
{
}

nvinfer1::IIfConditional* ConditionalInputLayer::getConditional() const noexcept
{
    return &mConditional;
}

ConditionalOutputLayer::ConditionalOutputLayer(
    NetworkDefinition& network, IfConditional& conditional, Tensor* trueOutput, Tensor* falseOutput, Tensor* cond)
    : LayerBase<nvinfer1::IIfConditionalOutputLayer>(
        network, nvinfer1::LayerType::kCONDITIONAL_OUTPUT, {trueOutput, falseOutput, cond}, 1)
    , mConditional(conditional)
{
    setMaxInputs(2); // slot 2 (the condition) is internal
}

nvinfer1::IIfConditional* ConditionalOutputLayer::getConditional() const noexcept
{
    return &mConditional;
}

void ConditionalOutputLayer::bindCondition(Tensor* cond)
{
    inputs().resize(3, nullptr);
    inputs()[2] = cond;
    touch();
}

int32_t buildTimeCondition(TensorInfo const& condition)
{
    if (condition.rank() != 0)
    {
        return -1;
    }
    if (condition.values.has_value() && condition.values->size() == 1)
    {
        int64_t const v = (*condition.values)[0].known();
        if (v == 0 || v == 1)
        {
            return static_cast<int32_t>(v);
        }
    }
    if (condition.constantData != nullptr && condition.type == DataType::kBOOL)
    {
        return *static_cast<uint8_t const*>(condition.constantData) != 0 ? 1 : 0;
    }
    return -1;
}

Status inferCondition(InferContext& ctx)
{
    std::string const cond = "conditional '" + ctx.attrs().getString("conditional") + "': ";
    if (!ctx.hasInput(0))
    {
        return ctx.error(cond + "the condition is missing");
    }
    TensorInfo const& in = ctx.input(0);
    if (in.rank() != 0 || in.type != DataType::kBOOL)
    {
        return ctx.error(cond + "the condition '" + in.name + "' must be a 0-D BOOL tensor; it has rank "
            + std::to_string(in.rank()) + " and type " + dataTypeName(in.type));
    }
    return Status::ok();
}

Status inferConditionalInput(InferContext& ctx)
{
    if (!ctx.hasInput(0))
    {
        return ctx.error("conditional '" + ctx.attrs().getString("conditional") + "': the input is missing");
    }
    TensorInfo& out = ctx.output(0);
    out = ctx.input(0);
    out.constantData = nullptr;
    return Status::ok();
}

Status inferConditionalOutput(InferContext& ctx)
{
    std::string const cond = "conditional '" + ctx.attrs().getString("conditional") + "': ";
    if (!ctx.hasInput(0) || !ctx.hasInput(1))
    {
        return ctx.error(cond + "an output needs both the true-branch (input 0) and the false-branch (input 1) value");
    }
    if (!ctx.hasInput(2))
    {
        return ctx.error(cond + "the conditional has no condition (call IIfConditional::setCondition)");
    }
    TensorInfo const& t = ctx.input(0);
    TensorInfo const& f = ctx.input(1);
    int32_t const known = buildTimeCondition(ctx.input(2));
    TensorInfo& out = ctx.output(0);
    if (known >= 0)
    {
        // A build-time condition: only the taken branch matters (TensorRT lets the branches' shapes differ then).
        out = known == 1 ? t : f;
        out.constantData = nullptr;
        return Status::ok();
    }
    if (t.type != f.type)
    {
        return ctx.error(cond + "the branch outputs '" + t.name + "' (" + dataTypeName(t.type) + ") and '" + f.name
            + "' (" + dataTypeName(f.type) + ") have different types");
    }
    std::string const shapes = "'" + t.name + "' " + shapeToString(ctx.graph(), t.dims) + " and '" + f.name + "' "
        + shapeToString(ctx.graph(), f.dims);
    if (t.rank() != f.rank())
    {
        return ctx.error(cond + "the branch outputs " + shapes
            + " have different ranks; with a run-time condition TensorRT requires equal shapes");
    }
    for (int32_t i = 0; i < t.rank(); ++i)
    {
        DimExpr const a = t.dims[static_cast<size_t>(i)];
        DimExpr const b = f.dims[static_cast<size_t>(i)];
        if (a.id() == b.id())
        {
            continue;
        }
        if (a.known() >= 0 && b.known() >= 0)
        {
            return ctx.error(cond + "the branch outputs " + shapes
                + " have different shapes; with a run-time condition TensorRT requires equal shapes");
        }
        KILN_RETURN_IF_ERROR(ctx.require(a.eq(b), "the branch outputs " + shapes + " must have equal shapes"));
    }
    out.type = t.type;
    out.dims = t.dims;
    return Status::ok();
}

} // namespace kiln
