// Importers of the reduction op family: ReduceSum/Mean/Max/Min/Prod onto IReduceLayer, ReduceL1/L2/LogSum/
// LogSumExp/SumSquare composed around it (run-time 'axes' inputs through reduceRuntimeAxes.h), ArgMax/ArgMin (TopK
// k=1 with INT64 indices; select_last_index by reversing the axis with a stride -1 slice) and TopK.
#include "onnx/importerHelpers.h"
#include "onnx/importers/nnUtils.h"
#include "onnx/importers/reduceRuntimeAxes.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

namespace kiln
{
namespace
{

using namespace kiln::nn;

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;
using nvinfer1::ReduceOperation;
using nvinfer1::UnaryOperation;

enum class ReduceKind
{
    kSUM,
    kMEAN,
    kMAX,
    kMIN,
    kPROD,
    kL1,
    kL2,
    kLOG_SUM,
    kLOG_SUM_EXP,
    kSUM_SQUARE
};

//! The axes of a Reduce* node: the 'axes' attribute before the opset where they became input 1 (13 for ReduceSum,
//! 18 for the others). `all` is set when the node reduces every axis; `noop` when it must copy its input.
struct ReduceAxes
{
    uint32_t mask{0};
    bool noop{false};
    nvinfer1::ITensor* runtimeAxes{nullptr}; //!< non-constant, non-empty 'axes' input

};

StatusOr<ReduceAxes> readReduceAxes(ImporterContext& ctx, ::onnx::NodeProto const& node, ReduceKind kind, int32_t rank)
{
    int64_t const inputSince = kind == ReduceKind::kSUM ? 13 : 18;
    std::vector<int64_t> axes;
    if (ctx.opsetVersion() >= inputSince)
    {
        if (ctx.hasInput(node, 1))
        {
            bool emptyAtRunTime = false;
            if (ctx.constant(node, 1) == nullptr)
            {
                // A run-time axes tensor declared with zero elements is "no axes" whatever its values.
                KILN_ASSIGN_OR_RETURN(ITensor * t, ctx.tensor(node, 1));
                Dims const d = t->getDimensions();
                emptyAtRunTime = d.nbDims == 1 && d.d[0] == 0;
                if (!emptyAtRunTime)
                {
                    ReduceAxes r;
                    r.runtimeAxes = t;
                    return r;
                }
            }
            if (!emptyAtRunTime)
            {
                KILN_ASSIGN_OR_RETURN(axes, constantInts(ctx, node, 1, "axes"));
            }
        }
    }
    else
    {
        axes = attrInts(node, "axes");
    }
    ReduceAxes r;
    if (axes.empty())
    {
        r.noop = attrInt(node, "noop_with_empty_axes", 0) != 0;
        r.mask = allAxesMask(rank);
        return r;
    }
    KILN_ASSIGN_OR_RETURN(std::vector<int32_t> normalized, normalizeAxes(node, axes, rank));
    r.mask = axesMask(normalized);
    return r;
}

//! Reduce* with a run-time 'axes' input: one reduction per axis chosen by shape arithmetic on the axes tensor.
Status reduceRuntime(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs,
    ReduceKind kind, ITensor* pre, ITensor* axes, bool keep)
{
    ReduceOperation op = ReduceOperation::kSUM;
    switch (kind)
    {
    case ReduceKind::kMEAN: op = ReduceOperation::kAVG; break;
    case ReduceKind::kMAX: op = ReduceOperation::kMAX; break;
    case ReduceKind::kMIN: op = ReduceOperation::kMIN; break;
    case ReduceKind::kPROD: op = ReduceOperation::kPROD; break;
    case ReduceKind::kLOG_SUM_EXP:
        return unsupported(describeNode(node) + ": ReduceLogSumExp with a run-time 'axes' input is not supported");
    default: break;
    }
    KILN_ASSIGN_OR_RETURN(ITensor * y, reduceOverRuntimeAxes(ctx, node, pre, axes, op, keep));
    if (kind == ReduceKind::kL2 || kind == ReduceKind::kLOG_SUM)
    {
        KILN_ASSIGN_OR_RETURN(
            y, addUnary(ctx, node, y, kind == ReduceKind::kL2 ? UnaryOperation::kSQRT : UnaryOperation::kLOG));
    }
    outputs.emplace_back(y);
    return Status::ok();
}

Status importReduce(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs,
    ReduceKind kind)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    int32_t const rank = rankOf(x);
    KILN_ASSIGN_OR_RETURN(ReduceAxes axes, readReduceAxes(ctx, node, kind, rank));
    bool const keep = attrInt(node, "keepdims", 1) != 0;
    bool const isFloat = isFloatType(x->getType());
    bool const needsFloat = kind == ReduceKind::kL2 || kind == ReduceKind::kLOG_SUM || kind == ReduceKind::kLOG_SUM_EXP;
    if (needsFloat && !isFloat)
    {
        return unsupported(describeNode(node) + ": input 'data' must be floating-point for this reduction");
    }
    // The element-wise prologue (applied also in the no-op case, as the ONNX reference does).
    ITensor* pre = x;
    if (kind == ReduceKind::kL1)
    {
        KILN_ASSIGN_OR_RETURN(pre, addUnary(ctx, node, x, UnaryOperation::kABS, "abs"));
    }
    else if (kind == ReduceKind::kL2 || kind == ReduceKind::kSUM_SQUARE)
    {
        KILN_ASSIGN_OR_RETURN(pre, addElementWise(ctx, node, x, x, ElementWiseOperation::kPROD, "square"));
    }
    if (axes.runtimeAxes != nullptr)
    {
        return reduceRuntime(ctx, node, outputs, kind, pre, axes.runtimeAxes, keep);
    }
    if (axes.noop)
    {
        auto* id = ctx.network().addIdentity(*pre);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, id, "addIdentity"));
        outputs.emplace_back(id->getOutput(0));
        return Status::ok();
    }
    if (kind == ReduceKind::kLOG_SUM_EXP)
    {
        // max + log(sum(exp(x - max))), stable for large inputs.
        KILN_ASSIGN_OR_RETURN(ITensor * m, addReduce(ctx, node, x, ReduceOperation::kMAX, axes.mask, true, "max"));
        KILN_ASSIGN_OR_RETURN(ITensor * d, addElementWise(ctx, node, x, m, ElementWiseOperation::kSUB, "shifted"));
        KILN_ASSIGN_OR_RETURN(ITensor * e, addUnary(ctx, node, d, UnaryOperation::kEXP, "exp"));
        KILN_ASSIGN_OR_RETURN(ITensor * s, addReduce(ctx, node, e, ReduceOperation::kSUM, axes.mask, keep, "sum"));
        KILN_ASSIGN_OR_RETURN(ITensor * l, addUnary(ctx, node, s, UnaryOperation::kLOG, "log"));
        if (!keep)
        {
            KILN_ASSIGN_OR_RETURN(m, addReduce(ctx, node, m, ReduceOperation::kMAX, axes.mask, false, "max_squeezed"));
        }
        KILN_ASSIGN_OR_RETURN(ITensor * y, addElementWise(ctx, node, l, m, ElementWiseOperation::kSUM));
        outputs.emplace_back(y);
        return Status::ok();
    }
    ReduceOperation op = ReduceOperation::kSUM;
    switch (kind)
    {
    case ReduceKind::kMEAN: op = ReduceOperation::kAVG; break;
    case ReduceKind::kMAX: op = ReduceOperation::kMAX; break;
    case ReduceKind::kMIN: op = ReduceOperation::kMIN; break;
    case ReduceKind::kPROD: op = ReduceOperation::kPROD; break;
    default: break;
    }
    bool const epilogue = kind == ReduceKind::kL2 || kind == ReduceKind::kLOG_SUM;
    KILN_ASSIGN_OR_RETURN(ITensor * y, addReduce(ctx, node, pre, op, axes.mask, keep, epilogue ? "reduce" : ""));
    if (epilogue)
    {
        KILN_ASSIGN_OR_RETURN(
            y, addUnary(ctx, node, y, kind == ReduceKind::kL2 ? UnaryOperation::kSQRT : UnaryOperation::kLOG));
    }
    outputs.emplace_back(y);
    return Status::ok();
}

//! `t` reversed along `axis` (a stride -1 slice); needs a build-time extent.
StatusOr<ITensor*> reverseAxis(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t, int32_t axis,
    int64_t extent)
{
    Dims const d = t->getDimensions();
    Dims start = filledDims(d.nbDims, 0);
    Dims stride = filledDims(d.nbDims, 1);
    start.d[axis] = extent - 1;
    stride.d[axis] = -1;
    auto* slice = ctx.network().addSlice(*t, start, d, stride);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, slice, "addSlice", "reverse"));
    return slice->getOutput(0);
}

Status importArg(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs, bool isMax)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    int32_t const rank = rankOf(x);
    KILN_ASSIGN_OR_RETURN(int32_t axis, normalizeAxis(node, attrInt(node, "axis", 0), rank));
    bool const keep = attrInt(node, "keepdims", 1) != 0;
    bool const last = attrInt(node, "select_last_index", 0) != 0;
    int64_t const extent = x->getDimensions().d[axis];
    if (last)
    {
        Dims const d = x->getDimensions();
        for (int32_t i = 0; i < d.nbDims; ++i)
        {
            if (d.d[i] < 0)
            {
                return unsupported(describeNode(node)
                    + ": 'select_last_index' = 1 needs build-time input extents (the axis is reversed with a slice)");
            }
        }
        KILN_ASSIGN_OR_RETURN(x, reverseAxis(ctx, node, x, axis, extent));
    }
    auto* topk = ctx.network().addTopK(*x, isMax ? nvinfer1::TopKOperation::kMAX : nvinfer1::TopKOperation::kMIN, 1,
        1U << axis, DataType::kINT64);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, topk, "addTopK"));
    ITensor* idx = topk->getOutput(1);
    if (last)
    {
        // index in the original order = extent - 1 - index in the reversed order
        KILN_ASSIGN_OR_RETURN(ITensor * top, scalarLike(ctx, node, static_cast<double>(extent - 1), DataType::kINT64,
            rank));
        KILN_ASSIGN_OR_RETURN(idx, addElementWise(ctx, node, top, idx, ElementWiseOperation::kSUB, "unreverse"));
    }
    if (!keep)
    {
        KILN_ASSIGN_OR_RETURN(idx, squeeze(ctx, node, idx, {axis}, "squeeze"));
    }
    outputs.emplace_back(idx);
    return Status::ok();
}

Status importTopK(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    int32_t const rank = rankOf(x);
    KILN_ASSIGN_OR_RETURN(int32_t axis, normalizeAxis(node, attrInt(node, "axis", -1), rank));
    bool const largest = attrInt(node, "largest", 1) != 0;
    int64_t k = -1;
    ITensor* kTensor = nullptr;
    if (ctx.opsetVersion() < 10)
    {
        KILN_ASSIGN_OR_RETURN(k, requireAttrInt(node, "k"));
    }
    else if (OnnxConstant const* kc = ctx.constant(node, 1))
    {
        KILN_ASSIGN_OR_RETURN(std::vector<int64_t> kv, kc->toInt64());
        if (kv.size() != 1)
        {
            return invalidArgument(describeNode(node) + ": input 'K' must hold one value");
        }
        k = kv[0];
    }
    else
    {
        KILN_ASSIGN_OR_RETURN(kTensor, ctx.tensor(node, 1));
    }
    if (kTensor == nullptr && (k < 1 || k > 3840))
    {
        return unsupported(describeNode(node) + ": K = " + std::to_string(k) + " is outside [1, 3840], the range "
            "ITopKLayer supports");
    }
    auto* topk = ctx.network().addTopK(*x, largest ? nvinfer1::TopKOperation::kMAX : nvinfer1::TopKOperation::kMIN,
        kTensor != nullptr ? 1 : static_cast<int32_t>(k), 1U << axis, DataType::kINT64);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, topk, "addTopK"));
    if (kTensor != nullptr)
    {
        topk->setInput(1, *kTensor);
    }
    outputs.emplace_back(topk->getOutput(0));
    outputs.emplace_back(topk->getOutput(1));
    return Status::ok();
}

#define KILN_REDUCE_IMPORTER(name, kind)                                                                               \
    Status name(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)                 \
    {                                                                                                                  \
        return importReduce(ctx, node, outputs, kind);                                                                 \
    }

KILN_REDUCE_IMPORTER(importReduceSum, ReduceKind::kSUM)
KILN_REDUCE_IMPORTER(importReduceMean, ReduceKind::kMEAN)
KILN_REDUCE_IMPORTER(importReduceMax, ReduceKind::kMAX)
KILN_REDUCE_IMPORTER(importReduceMin, ReduceKind::kMIN)
KILN_REDUCE_IMPORTER(importReduceProd, ReduceKind::kPROD)
KILN_REDUCE_IMPORTER(importReduceL1, ReduceKind::kL1)
KILN_REDUCE_IMPORTER(importReduceL2, ReduceKind::kL2)
KILN_REDUCE_IMPORTER(importReduceLogSum, ReduceKind::kLOG_SUM)
KILN_REDUCE_IMPORTER(importReduceLogSumExp, ReduceKind::kLOG_SUM_EXP)
KILN_REDUCE_IMPORTER(importReduceSumSquare, ReduceKind::kSUM_SQUARE)
#undef KILN_REDUCE_IMPORTER

Status importArgMax(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importArg(ctx, node, outputs, true);
}

Status importArgMin(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importArg(ctx, node, outputs, false);
}

} // namespace

std::vector<OpImporterEntry> reductionImporters()
{
    return {
        {"ReduceSum", &importReduceSum},
        {"ReduceMean", &importReduceMean},
        {"ReduceMax", &importReduceMax},
        {"ReduceMin", &importReduceMin},
        {"ReduceProd", &importReduceProd},
        {"ReduceL1", &importReduceL1},
        {"ReduceL2", &importReduceL2},
        {"ReduceLogSum", &importReduceLogSum},
        {"ReduceLogSumExp", &importReduceLogSumExp},
        {"ReduceSumSquare", &importReduceSumSquare},
        {"ArgMax", &importArgMax},
        {"ArgMin", &importArgMin},
        {"TopK", &importTopK},
    };
}

} // namespace kiln
