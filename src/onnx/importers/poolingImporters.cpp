// Importers of the pooling op family: MaxPool, AveragePool, LpPool (1-D, 2-D, 3-D windows on IPoolingLayer; 1-D
// windows run as 2-D windows of width 1) and GlobalAveragePool, GlobalMaxPool, GlobalLpPool (reductions over the
// spatial axes), and MaxUnpool (a scatter into zeros). LpPool composes |x|^p → padded average · window volume
// → ^(1/p).
#include "onnx/importerHelpers.h"
#include "onnx/importers/nnUtils.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

#include <algorithm>
#include <limits>

namespace kiln
{
namespace
{

using namespace kiln::nn;

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;
using nvinfer1::PoolingType;

enum class PoolKind
{
    kMAX,
    kAVERAGE,
    kLP
};

//! |x|^p with p read from the node (p = 1 and 2 avoid pow).
StatusOr<ITensor*> absPow(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* x, float p)
{
    KILN_ASSIGN_OR_RETURN(ITensor * a, addUnary(ctx, node, x, nvinfer1::UnaryOperation::kABS, "abs"));
    if (p == 1.0F)
    {
        return a;
    }
    if (p == 2.0F)
    {
        return addElementWise(ctx, node, a, a, ElementWiseOperation::kPROD, "square");
    }
    return withScalar(ctx, node, a, p, ElementWiseOperation::kPOW, "pow_p");
}

//! y^(1/p) (p = 1 and 2 avoid pow).
StatusOr<ITensor*> rootP(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* y, float p)
{
    if (p == 1.0F)
    {
        return y;
    }
    if (p == 2.0F)
    {
        return addUnary(ctx, node, y, nvinfer1::UnaryOperation::kSQRT, "sqrt");
    }
    return withScalar(ctx, node, y, 1.0 / p, ElementWiseOperation::kPOW, "root_p");
}

StatusOr<float> readP(::onnx::NodeProto const& node)
{
    // Opset 1 stored p as a float; later opsets as an int. The default is 2.
    auto const* attr = findAttribute(node, "p");
    float value = 2.0F;
    if (attr != nullptr)
    {
        value = attr->type() == ::onnx::AttributeProto::FLOAT ? attr->f() : static_cast<float>(attr->i());
    }
    if (!(value > 0.0F))
    {
        return invalidArgument(describeNode(node) + ": attribute 'p' must be positive");
    }
    return value;
}

//! Flattened input index (ONNX MaxPool 'Indices' without the batch/channel offset) of each output position of one
//! window tap, as a [1, 1, out...] INT64 constant. storage_order 1 flattens column-major.
StatusOr<ITensor*> tapIndices(ImporterContext& ctx, ::onnx::NodeProto const& node, Dims const& in,
    WindowAttributes const& w, std::vector<int64_t> const& outExtent, std::vector<int64_t> const& offset,
    bool columnMajor, int32_t tap)
{
    size_t const n = outExtent.size();
    std::vector<int64_t> inStride(n, 1);
    for (size_t i = 0; i < n; ++i)
    {
        for (size_t j = 0; j < n; ++j)
        {
            if (columnMajor ? j < i : j > i)
            {
                inStride[i] *= in.d[2 + j];
            }
        }
    }
    int64_t count = 1;
    for (int64_t e : outExtent)
    {
        if (e < 0 || __builtin_mul_overflow(count, e, &count))
        {
            return invalidArgument(describeNode(node) + ": the output positions of the 'Indices' output "
                "overflow int64");
        }
    }
    std::vector<int64_t> values(static_cast<size_t>(count));
    std::vector<int64_t> pos(n, 0);
    for (int64_t flat = 0; flat < count; ++flat)
    {
        int64_t index = 0;
        for (size_t i = 0; i < n; ++i)
        {
            int64_t const coord = pos[i] * w.strides[i] + offset[i] * w.dilations[i] - w.padBegin[i];
            index += std::clamp<int64_t>(coord, 0, in.d[2 + i] - 1) * inStride[i];
        }
        values[static_cast<size_t>(flat)] = index;
        for (size_t i = n; i > 0 && ++pos[i - 1] == outExtent[i - 1]; --i)
        {
            pos[i - 1] = 0;
        }
    }
    std::vector<int64_t> shape{1, 1};
    shape.insert(shape.end(), outExtent.begin(), outExtent.end());
    return ctx.constantTensor(OnnxConstant::fromInt64(values, shape), node.output(1) + "_tap" + std::to_string(tap));
}

//! MaxPool composed from slices, for build-time extents: with dilations (IPoolingLayer has none) or with the
//! 'Indices' output. Pad with -inf through a kFILL slice, then take the maximum of one strided slice per kernel
//! offset; the indices follow the first tap that holds the maximum.
StatusOr<ITensor*> dilatedMaxPool(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* x,
    WindowAttributes const& w, bool ceilMode, ITensor** indices = nullptr, bool columnMajor = false)
{
    Dims const in = x->getDimensions();
    int32_t const rank = in.nbDims;
    size_t const n = w.kernel.size();
    for (int32_t i = 0; i < rank; ++i)
    {
        if (in.d[i] < 0)
        {
            return unsupported(describeNode(node)
                + ": 'dilations' other than 1 and the 'Indices' output need build-time input extents");
        }
    }
    if (w.autoPad == "SAME_UPPER" || w.autoPad == "SAME_LOWER")
    {
        return unsupported(
            describeNode(node) + ": 'dilations' other than 1 and the 'Indices' output are not supported with SAME "
            "auto_pad");
    }
    std::vector<int64_t> outExtent(n);
    Dims padStart = filledDims(rank, 0);
    Dims padSize = in;
    for (size_t i = 0; i < n; ++i)
    {
        int64_t span = 0;
        int64_t room = 0;
        bool const fits = w.kernel[i] >= 1 && w.dilations[i] >= 1 && w.strides[i] >= 1
            && !__builtin_mul_overflow(w.kernel[i] - 1, w.dilations[i], &span)
            && !__builtin_add_overflow(span, 1, &span) && !__builtin_add_overflow(in.d[2 + i], w.padBegin[i], &room)
            && !__builtin_add_overflow(room, w.padEnd[i], &room) && !__builtin_sub_overflow(room, span, &room);
        if (!fits)
        {
            return invalidArgument(describeNode(node) + ": kernel_shape, dilations, strides and pads of axis "
                + std::to_string(i) + " must be positive and their window must fit int64");
        }
        if (room < 0)
        {
            return invalidArgument(describeNode(node) + ": the dilated window is larger than the padded input");
        }
        outExtent[i] = (ceilMode ? (room + w.strides[i] - 1) / w.strides[i] : room / w.strides[i]) + 1;
        padStart.d[2 + i] = -w.padBegin[i];
        padSize.d[2 + i] = (outExtent[i] - 1) * w.strides[i] + span;
    }
    // One slice and one max per kernel tap: a window of more taps than any real network's (a 100000 x 100000 kernel
    // would be 10^10 layers) is refused instead of built.
    constexpr int64_t kMAX_TAPS = 4096;
    int64_t taps = 1;
    for (size_t i = 0; i < n; ++i)
    {
        if (__builtin_mul_overflow(taps, w.kernel[i], &taps) || taps > kMAX_TAPS)
        {
            return unsupported(describeNode(node) + ": a dilated MaxPool (or one with 'Indices') is built tap by tap, "
                "and its kernel has more than " + std::to_string(kMAX_TAPS) + " taps");
        }
    }
    auto* pad = ctx.network().addSlice(*x, padStart, padSize, filledDims(rank, 1));
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, pad, "addSlice", "pad"));
    pad->setMode(nvinfer1::SampleMode::kFILL);
    KILN_ASSIGN_OR_RETURN(ITensor * lowest,
        ctx.constantTensor(OnnxConstant::fromFloat({-std::numeric_limits<float>::infinity()}, {}), "lowest"));
    KILN_ASSIGN_OR_RETURN(lowest, castTo(ctx, node, lowest, x->getType(), "lowest_cast"));
    pad->setInput(4, *lowest);
    ITensor* padded = pad->getOutput(0);
    Dims size = in;
    Dims stride = filledDims(rank, 1);
    for (size_t i = 0; i < n; ++i)
    {
        size.d[2 + i] = outExtent[i];
        stride.d[2 + i] = w.strides[i];
    }
    ITensor* y = nullptr;
    ITensor* idx = nullptr;
    std::vector<int64_t> offset(n, 0);
    for (int32_t tap = 0;; ++tap)
    {
        Dims start = filledDims(rank, 0);
        for (size_t i = 0; i < n; ++i)
        {
            start.d[2 + i] = offset[i] * w.dilations[i];
        }
        auto* slice = ctx.network().addSlice(*padded, start, size, stride);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, slice, "addSlice", "tap" + std::to_string(tap)));
        ITensor* tapIdx = nullptr;
        if (indices != nullptr)
        {
            KILN_ASSIGN_OR_RETURN(tapIdx, tapIndices(ctx, node, in, w, outExtent, offset, columnMajor, tap));
        }
        if (y == nullptr)
        {
            y = slice->getOutput(0);
            idx = tapIdx;
        }
        else
        {
            if (indices != nullptr)
            {
                KILN_ASSIGN_OR_RETURN(ITensor * better, addElementWise(ctx, node, slice->getOutput(0), y,
                    ElementWiseOperation::kGREATER, "better" + std::to_string(tap)));
                auto* sel = ctx.network().addSelect(*better, *tapIdx, *idx);
                KILN_RETURN_IF_ERROR(checkLayer(ctx, node, sel, "addSelect", "argmax" + std::to_string(tap)));
                idx = sel->getOutput(0);
            }
            KILN_ASSIGN_OR_RETURN(y, addElementWise(ctx, node, y, slice->getOutput(0), ElementWiseOperation::kMAX,
                "max" + std::to_string(tap)));
        }
        size_t i = n;
        while (i > 0 && ++offset[i - 1] == w.kernel[i - 1])
        {
            offset[i - 1] = 0;
            --i;
        }
        if (i == 0)
        {
            break;
        }
    }
    if (indices != nullptr)
    {
        // Add the batch/channel offset (n * C + c) * spatial volume.
        int64_t volume = 1;
        for (size_t i = 0; i < n; ++i)
        {
            volume *= in.d[2 + i];
        }
        std::vector<int64_t> base(static_cast<size_t>(in.d[0] * in.d[1]));
        for (size_t i = 0; i < base.size(); ++i)
        {
            base[i] = static_cast<int64_t>(i) * volume;
        }
        std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
        shape[0] = in.d[0];
        shape[1] = in.d[1];
        KILN_ASSIGN_OR_RETURN(ITensor * offsets,
            ctx.constantTensor(OnnxConstant::fromInt64(base, shape), node.output(1) + "_base"));
        KILN_ASSIGN_OR_RETURN(*indices, addElementWise(ctx, node, idx, offsets, ElementWiseOperation::kSUM, "indices"));
    }
    return y;
}

Status importPool(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs, PoolKind kind)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    int32_t const rank = rankOf(x);
    if (rank < 3 || rank > 5)
    {
        return unsupported(describeNode(node) + ": input 'X' has rank " + std::to_string(rank)
            + "; only 1-D, 2-D and 3-D windows (rank 3 to 5) are supported");
    }
    bool const wantsIndices = node.output_size() > 1 && !node.output(1).empty();
    int32_t const nbSpatial = rank - 2;
    KILN_ASSIGN_OR_RETURN(WindowAttributes w, readWindowAttributes(node, nbSpatial));
    bool const ceilMode = attrInt(node, "ceil_mode", 0) != 0;
    bool const dilated = std::any_of(w.dilations.begin(), w.dilations.end(), [](int64_t d) { return d != 1; });
    if (dilated && kind != PoolKind::kMAX)
    {
        return unsupported(describeNode(node) + ": attribute 'dilations' other than 1 is supported only for MaxPool "
            "(IPoolingLayer has no dilation)");
    }
    DataType const inType = x->getType();
    bool const viaFloat = kind == PoolKind::kMAX && (inType == DataType::kUINT8 || inType == DataType::kINT32);
    if (viaFloat)
    {
        // Max is exact in FP32 for 8-bit values; pool in FP32 and cast back.
        KILN_ASSIGN_OR_RETURN(x, castTo(ctx, node, x, DataType::kFLOAT, "to_float"));
    }
    else if (!isFloatType(inType) && !(kind == PoolKind::kMAX && inType == DataType::kINT8))
    {
        return unsupported(describeNode(node) + ": input 'X' must be a floating-point tensor");
    }
    if (dilated || wantsIndices)
    {
        ITensor* indices = nullptr;
        bool const columnMajor = attrInt(node, "storage_order", 0) != 0;
        KILN_ASSIGN_OR_RETURN(ITensor * y,
            dilatedMaxPool(ctx, node, x, w, ceilMode, wantsIndices ? &indices : nullptr, columnMajor));
        if (viaFloat)
        {
            KILN_ASSIGN_OR_RETURN(y, castTo(ctx, node, y, inType, "from_float"));
        }
        outputs.emplace_back(y);
        if (wantsIndices)
        {
            outputs.emplace_back(indices);
        }
        return Status::ok();
    }
    float p = 2.0F;
    if (kind == PoolKind::kLP)
    {
        KILN_ASSIGN_OR_RETURN(p, readP(node));
        KILN_ASSIGN_OR_RETURN(x, absPow(ctx, node, x, p));
    }
    bool const lift = nbSpatial == 1;
    if (lift)
    {
        KILN_ASSIGN_OR_RETURN(x, liftSpatial1D(ctx, node, x, "input_2d"));
        w.kernel = appendOne(w.kernel, 1);
        w.strides = appendOne(w.strides, 1);
        w.padBegin = appendOne(w.padBegin, 0);
        w.padEnd = appendOne(w.padEnd, 0);
    }
    bool roundUp = ceilMode;
    bool const paddingIsNeutral
        = kind == PoolKind::kMAX || (kind == PoolKind::kAVERAGE && attrInt(node, "count_include_pad", 0) == 0);
    if (ceilMode && paddingIsNeutral && (w.autoPad == "NOTSET" || w.autoPad == "VALID"))
    {
        // ONNX drops a last ceil-mode window that would start in the end padding; IPoolingLayer's round-up keeps it.
        // With static extents, express the ONNX size as round-down with a trimmed end padding.
        Dims const in = x->getDimensions();
        std::vector<int64_t> post = w.padEnd;
        bool ok = true;
        for (size_t i = 0; i < w.kernel.size() && ok; ++i)
        {
            int64_t const extent = in.d[2 + i];
            int64_t const room = extent + w.padBegin[i] + w.padEnd[i] - w.kernel[i];
            ok = extent >= 0 && room >= 0;
            if (!ok)
            {
                break;
            }
            int64_t out = (room + w.strides[i] - 1) / w.strides[i] + 1;
            if ((out - 1) * w.strides[i] >= extent + w.padBegin[i])
            {
                --out;
            }
            post[i] = (out - 1) * w.strides[i] + w.kernel[i] - extent - w.padBegin[i];
            ok = post[i] >= 0;
        }
        if (ok)
        {
            w.padEnd = post;
            roundUp = false;
        }
    }
    KILN_ASSIGN_OR_RETURN(Dims window, nnDims(node, w.kernel));
    auto* layer = ctx.network().addPoolingNd(*x, kind == PoolKind::kMAX ? PoolingType::kMAX : PoolingType::kAVERAGE,
        window);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addPoolingNd"));
    KILN_ASSIGN_OR_RETURN(Dims strides, nnDims(node, w.strides));
    KILN_ASSIGN_OR_RETURN(Dims pre, nnDims(node, w.padBegin));
    KILN_ASSIGN_OR_RETURN(Dims post, nnDims(node, w.padEnd));
    layer->setStrideNd(strides);
    layer->setPrePadding(pre);
    layer->setPostPadding(post);
    KILN_RETURN_IF_ERROR(checkApplied(node, "strides", layer->getStrideNd(), strides));
    KILN_RETURN_IF_ERROR(checkApplied(node, "pads", layer->getPrePadding(), pre));
    KILN_RETURN_IF_ERROR(checkApplied(node, "pads", layer->getPostPadding(), post));
    if (w.autoPad == "SAME_UPPER")
    {
        layer->setPaddingMode(nvinfer1::PaddingMode::kSAME_UPPER);
    }
    else if (w.autoPad == "SAME_LOWER")
    {
        layer->setPaddingMode(nvinfer1::PaddingMode::kSAME_LOWER);
    }
    else
    {
        layer->setPaddingMode(
            roundUp ? nvinfer1::PaddingMode::kEXPLICIT_ROUND_UP : nvinfer1::PaddingMode::kEXPLICIT_ROUND_DOWN);
    }
    if (kind == PoolKind::kAVERAGE)
    {
        layer->setAverageCountExcludesPadding(attrInt(node, "count_include_pad", 0) == 0);
    }
    else if (kind == PoolKind::kLP)
    {
        layer->setAverageCountExcludesPadding(false);
    }
    ITensor* y = layer->getOutput(0);
    if (kind == PoolKind::kLP)
    {
        double volume = 1.0;
        for (int64_t k : w.kernel)
        {
            volume *= static_cast<double>(k);
        }
        KILN_ASSIGN_OR_RETURN(y, withScalar(ctx, node, y, volume, ElementWiseOperation::kPROD, "window_sum"));
        KILN_ASSIGN_OR_RETURN(y, rootP(ctx, node, y, p));
    }
    if (lift)
    {
        KILN_ASSIGN_OR_RETURN(y, dropSpatial1D(ctx, node, y, "output_1d"));
    }
    if (viaFloat)
    {
        KILN_ASSIGN_OR_RETURN(y, castTo(ctx, node, y, inType, "from_float"));
    }
    outputs.emplace_back(y);
    return Status::ok();
}

Status importGlobalPool(
    ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs, PoolKind kind)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    int32_t const rank = rankOf(x);
    if (rank < 3)
    {
        return invalidArgument(describeNode(node) + ": input 'X' has rank " + std::to_string(rank)
            + "; expected [N, C, spatial...] (rank >= 3)");
    }
    uint32_t const mask = allAxesMask(rank) & ~3U;
    if (kind == PoolKind::kMAX)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * y, addReduce(ctx, node, x, nvinfer1::ReduceOperation::kMAX, mask, true));
        outputs.emplace_back(y);
        return Status::ok();
    }
    if (kind == PoolKind::kAVERAGE)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * y, addReduce(ctx, node, x, nvinfer1::ReduceOperation::kAVG, mask, true));
        outputs.emplace_back(y);
        return Status::ok();
    }
    KILN_ASSIGN_OR_RETURN(float p, readP(node));
    KILN_ASSIGN_OR_RETURN(ITensor * powered, absPow(ctx, node, x, p));
    KILN_ASSIGN_OR_RETURN(ITensor * sum, addReduce(ctx, node, powered, nvinfer1::ReduceOperation::kSUM, mask, true));
    KILN_ASSIGN_OR_RETURN(ITensor * y, rootP(ctx, node, sum, p));
    outputs.emplace_back(y);
    return Status::ok();
}

Status importMaxPool(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importPool(ctx, node, outputs, PoolKind::kMAX);
}

Status importAveragePool(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importPool(ctx, node, outputs, PoolKind::kAVERAGE);
}

Status importLpPool(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importPool(ctx, node, outputs, PoolKind::kLP);
}

Status importGlobalMaxPool(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importGlobalPool(ctx, node, outputs, PoolKind::kMAX);
}

Status importGlobalAveragePool(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importGlobalPool(ctx, node, outputs, PoolKind::kAVERAGE);
}

Status importGlobalLpPool(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importGlobalPool(ctx, node, outputs, PoolKind::kLP);
}

//! MaxUnpool: zeros of the output shape with X written at the flat positions in I (ScatterElements on the
//! flattened tensors) of shape (in - 1) * stride + kernel - pads, zero-padded at the end to input 'output_shape'
//! (constant or a run-time shape tensor) when given.
Status importMaxUnpool(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * indices, ctx.tensor(node, 1));
    int32_t const rank = rankOf(x);
    if (rank < 3)
    {
        return invalidArgument(describeNode(node) + ": input 'X' needs rank >= 3 ([N, C, spatial...])");
    }
    // Indices address the default output, (in - 1) * stride + kernel - pads; 'output_shape' then pads its end.
    KILN_ASSIGN_OR_RETURN(WindowAttributes w, readWindowAttributes(node, rank - 2));
    Dims const in = x->getDimensions();
    std::vector<int64_t> out(static_cast<size_t>(rank));
    for (int32_t i = 0; i < rank; ++i)
    {
        if (in.d[i] < 0)
        {
            return unsupported(describeNode(node) + ": MaxUnpool needs build-time extents of input 'X'");
        }
        out[static_cast<size_t>(i)] = i < 2
            ? in.d[i]
            : (in.d[i] - 1) * w.strides[i - 2] + w.kernel[i - 2] - w.padBegin[i - 2] - w.padEnd[i - 2];
    }
    KILN_ASSIGN_OR_RETURN(ITensor * shape, int64Vector(ctx, node, out));
    KILN_ASSIGN_OR_RETURN(ITensor * total, shapeProduct(ctx, node, shape));
    Dims one{};
    one.nbDims = 1;
    one.d[0] = 1;
    auto* zeros = ctx.network().addFill(one, nvinfer1::FillOperation::kLINSPACE, x->getType());
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, zeros, "addFill", "zeros"));
    zeros->setAlpha(0.0);
    zeros->setBeta(0.0);
    zeros->setInput(0, *total);
    Dims flat{};
    flat.nbDims = 1;
    flat.d[0] = -1;
    KILN_ASSIGN_OR_RETURN(ITensor * flatX, reshape(ctx, node, x, flat, "flat_x"));
    KILN_ASSIGN_OR_RETURN(ITensor * flatI, reshape(ctx, node, indices, flat, "flat_indices"));
    auto* scatter = ctx.network().addScatter(*zeros->getOutput(0), *flatI, *flatX, nvinfer1::ScatterMode::kELEMENT);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, scatter, "addScatter", "unpool"));
    scatter->setAxis(0);
    KILN_ASSIGN_OR_RETURN(ITensor * y, reshapeTo(ctx, node, scatter->getOutput(0), shape, "unflatten"));
    if (ctx.hasInput(node, 2))
    {
        KILN_ASSIGN_OR_RETURN(ITensor * target, ctx.tensor(node, 2));
        auto* pad = ctx.network().addSlice(*y, filledDims(rank, 0), filledDims(rank, 1), filledDims(rank, 1));
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, pad, "addSlice", "output_shape"));
        pad->setMode(nvinfer1::SampleMode::kFILL);
        pad->setInput(2, *target);
        y = pad->getOutput(0);
    }
    outputs.emplace_back(y);
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> poolingImporters()
{
    return {
        {"MaxPool", &importMaxPool},
        {"AveragePool", &importAveragePool},
        {"LpPool", &importLpPool},
        {"GlobalMaxPool", &importGlobalMaxPool},
        {"GlobalAveragePool", &importGlobalAveragePool},
        {"GlobalLpPool", &importGlobalLpPool},
        {"MaxUnpool", &importMaxUnpool},
    };
}

} // namespace kiln
