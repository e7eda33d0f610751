// Importers of the ops that map onto one dedicated network layer: LRN (ILRNLayer), CumSum (ICumulativeLayer),
// OneHot (IOneHotLayer) and ReverseSequence (IReverseSequenceLayer).
#include "onnx/importerHelpers.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

#include <cmath>

namespace kiln
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::ITensor;

int32_t tensorRank(ITensor* t)
{
    return t->getDimensions().nbDims;
}

//! A 0-D or one-element 1-D integer tensor reshaped to 0-D (what ICumulativeLayer/IOneHotLayer take).
StatusOr<ITensor*> toScalar(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t, std::string const& what)
{
    if (tensorRank(t) == 0)
    {
        return t;
    }
    Dims const d = t->getDimensions();
    if (d.nbDims != 1 || d.d[0] > 1)
    {
        return invalidArgument(describeNode(node) + ": " + what + " must be a scalar or a one-element 1-D tensor");
    }
    return reshape(ctx, node, t, Dims{0, {}}, what);
}

// LRN: y = x / (bias + alpha / size * sum of x^2 over the channel window) ^ beta. TensorRT's ILRNLayer uses the same
// definition (alpha is divided by the window size inside the layer), so alpha passes through unchanged. ILRNLayer
// normalises across axis rank - 3, which is ONNX's channel axis 1 for 4-D inputs; other ranks are reshaped to 4-D.
Status importLRN(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(int64_t const size, requireAttrInt(node, "size"));
    float const alpha = attrFloat(node, "alpha", 1e-4F);
    float const beta = attrFloat(node, "beta", 0.75F);
    float const bias = attrFloat(node, "bias", 1.0F);
    if (size < 1 || size % 2 == 0)
    {
        return unsupported(describeNode(node) + ": attribute 'size' = " + std::to_string(size)
            + " is not supported; ILRNLayer needs an odd window in [1, 15]");
    }
    if (!isFloatType(x->getType()))
    {
        return unsupported(describeNode(node) + ": input 'X' must be a floating-point tensor");
    }
    int32_t const rank = tensorRank(x);
    if (rank < 3)
    {
        return invalidArgument(describeNode(node) + ": input 'X' must have rank >= 3 (N x C x D1 ...); it has rank "
            + std::to_string(rank));
    }
    ITensor* in = x;
    if (rank != 4)
    {
        // [N, C, D1 * ... * Dk, 1]: the channel axis becomes axis 1 of a 4-D tensor.
        Dims d{4, {0, 0, -1, 1}};
        KILN_ASSIGN_OR_RETURN(in, reshape(ctx, node, x, d, "to4d"));
    }
    auto* layer = ctx.network().addLRN(*in, size, alpha, beta, bias);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addLRN"));
    ITensor* y = layer->getOutput(0);
    if (rank != 4)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * shape, shapeOf(ctx, node, x));
        KILN_ASSIGN_OR_RETURN(y, reshapeTo(ctx, node, y, shape, "restore"));
    }
    outputs.emplace_back(y);
    return Status::ok();
}

// CumSum(x, axis; exclusive, reverse). The axis is usually an initializer; a runtime axis tensor works too.
Status importCumSum(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    DataType const t = x->getType();
    if (t != DataType::kFLOAT && t != DataType::kHALF && t != DataType::kBF16 && t != DataType::kINT32
        && t != DataType::kINT64)
    {
        return unsupported(describeNode(node) + ": input 'x' has a type ICumulativeLayer does not support (it takes "
            "float, float16, bfloat16, int32 and int64)");
    }
    if (tensorRank(x) < 1)
    {
        return invalidArgument(describeNode(node) + ": input 'x' must have rank >= 1");
    }
    ITensor* axis = nullptr;
    if (OnnxConstant const* c = ctx.constant(node, 1))
    {
        auto values = c->toInt64();
        if (!values.isOk() || values->size() != 1)
        {
            return invalidArgument(describeNode(node) + ": input 'axis' must hold exactly one integer");
        }
        int32_t const rank = tensorRank(x);
        int64_t const a = values->front();
        if (a < -rank || a >= rank)
        {
            return invalidArgument(describeNode(node) + ": input 'axis' = " + std::to_string(a)
                + " is out of range [" + std::to_string(-rank) + ", " + std::to_string(rank - 1) + "]");
        }
        KILN_ASSIGN_OR_RETURN(
            axis, ctx.constantTensor(OnnxConstant::fromInt32({static_cast<int32_t>(a)}, {}), node.output(0) + "_axis"));
    }
    else
    {
        KILN_ASSIGN_OR_RETURN(axis, ctx.tensor(node, 1));
        if (axis->getType() != DataType::kINT32 && axis->getType() != DataType::kINT64)
        {
            return invalidArgument(describeNode(node) + ": input 'axis' must be int32 or int64");
        }
        KILN_ASSIGN_OR_RETURN(axis, toScalar(ctx, node, axis, "input 'axis'"));
    }
    auto* layer = ctx.network().addCumulative(*x, *axis, nvinfer1::CumulativeOperation::kSUM,
        attrInt(node, "exclusive", 0) != 0, attrInt(node, "reverse", 0) != 0);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addCumulative"));
    outputs.emplace_back(layer->getOutput(0));
    return Status::ok();
}

// OneHot(indices, depth, values; axis). Non-integer indices are converted to int64 first (as ONNX specifies);
// negative indices count from depth inside the layer. depth must be known at build time: an initializer (any numeric
// type, truncated to an integer) or an INT32/INT64 shape tensor.
Status importOneHot(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * indices, ctx.tensor(node, 0));
    if (indices->getType() != DataType::kINT32 && indices->getType() != DataType::kINT64)
    {
        KILN_ASSIGN_OR_RETURN(indices, castTo(ctx, node, indices, DataType::kINT64, "indices"));
    }
    ITensor* depth = nullptr;
    if (OnnxConstant const* c = ctx.constant(node, 1))
    {
        auto values = c->toDouble();
        if (!values.isOk() || values->size() != 1)
        {
            return invalidArgument(describeNode(node) + ": input 'depth' must hold exactly one value");
        }
        double const d = std::trunc(values->front());
        if (!(d >= 1.0) || d > 2147483647.0)
        {
            return invalidArgument(describeNode(node) + ": input 'depth' = " + std::to_string(values->front())
                + " must be a positive integer");
        }
        KILN_ASSIGN_OR_RETURN(depth,
            ctx.constantTensor(OnnxConstant::fromInt32({static_cast<int32_t>(d)}, {}), node.output(0) + "_depth"));
    }
    else
    {
        KILN_ASSIGN_OR_RETURN(depth, ctx.tensor(node, 1));
        if (depth->getType() != DataType::kINT32 && depth->getType() != DataType::kINT64)
        {
            return unsupported(describeNode(node) + ": input 'depth' must be an initializer (or an int32/int64 shape "
                "tensor): IOneHotLayer needs the depth before execution");
        }
        KILN_ASSIGN_OR_RETURN(depth, toScalar(ctx, node, depth, "input 'depth'"));
    }
    KILN_ASSIGN_OR_RETURN(ITensor * values, ctx.tensor(node, 2));
    Dims const vd = values->getDimensions();
    if (vd.nbDims != 1 || (vd.d[0] >= 0 && vd.d[0] != 2))
    {
        return invalidArgument(describeNode(node) + ": input 'values' must be a 1-D tensor [off_value, on_value]");
    }
    int64_t const axis = attrInt(node, "axis", -1);
    int32_t const rank = tensorRank(indices);
    if (axis < -rank - 1 || axis > rank)
    {
        return invalidArgument(describeNode(node) + ": attribute 'axis' = " + std::to_string(axis)
            + " is out of range [" + std::to_string(-rank - 1) + ", " + std::to_string(rank) + "]");
    }
    auto* layer = ctx.network().addOneHot(*indices, *values, *depth, static_cast<int32_t>(axis));
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addOneHot"));
    outputs.emplace_back(layer->getOutput(0));
    return Status::ok();
}

// ReverseSequence(input, sequence_lens; batch_axis, time_axis).
Status importReverseSequence(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * lens, ctx.tensor(node, 1));
    int64_t const batchAxis = attrInt(node, "batch_axis", 1);
    int64_t const timeAxis = attrInt(node, "time_axis", 0);
    if (tensorRank(x) < 2)
    {
        return invalidArgument(describeNode(node) + ": input 'input' must have rank >= 2");
    }
    if ((batchAxis != 0 && batchAxis != 1) || (timeAxis != 0 && timeAxis != 1) || batchAxis == timeAxis)
    {
        return invalidArgument(describeNode(node) + ": attributes 'batch_axis' = " + std::to_string(batchAxis)
            + " and 'time_axis' = " + std::to_string(timeAxis) + " must be 0 and 1 in some order");
    }
    if (lens->getType() != DataType::kINT32 && lens->getType() != DataType::kINT64)
    {
        return invalidArgument(describeNode(node) + ": input 'sequence_lens' must be int64 (or int32)");
    }
    auto* layer = ctx.network().addReverseSequence(*x, *lens);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addReverseSequence"));
    layer->setBatchAxis(static_cast<int32_t>(batchAxis));
    layer->setSequenceAxis(static_cast<int32_t>(timeAxis));
    outputs.emplace_back(layer->getOutput(0));
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> layerBackedImporters()
{
    return {
        {"LRN", importLRN},
        {"CumSum", importCumSum},
        {"OneHot", importOneHot},
        {"ReverseSequence", importReverseSequence},
    };
}

} // namespace kiln
