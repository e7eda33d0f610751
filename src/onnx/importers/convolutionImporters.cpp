// Importers of the convolution op family: Conv and ConvTranspose (1-D, 2-D and 3-D) onto IConvolutionLayer and
// IDeconvolutionLayer. Constant weights and biases become layer weights; run-time ones become layer inputs 1 and 2.
// 1-D windows run as 2-D windows of width 1.
#include "onnx/importerHelpers.h"
#include "onnx/importers/nnUtils.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

#include <algorithm>

namespace kiln
{
namespace
{

using namespace kiln::nn;

using nvinfer1::Dims;
using nvinfer1::ITensor;
using nvinfer1::Weights;

//! The kernel and bias of a Conv / ConvTranspose node: layer weights when constant, tensors otherwise.
struct ConvParams
{
    std::vector<int64_t> weightShape;
    Weights kernel{nvinfer1::DataType::kFLOAT, nullptr, 0};
    Weights bias{nvinfer1::DataType::kFLOAT, nullptr, 0};
    ITensor* kernelTensor{nullptr};
    ITensor* biasTensor{nullptr};
};

StatusOr<ConvParams> readConvParams(ImporterContext& ctx, ::onnx::NodeProto const& node, int32_t rank, bool lift)
{
    ConvParams p;
    OnnxConstant const* w = ctx.constant(node, 1);
    if (w != nullptr)
    {
        p.weightShape = w->shape;
    }
    else
    {
        KILN_ASSIGN_OR_RETURN(ITensor * wt, ctx.tensor(node, 1));
        Dims const d = wt->getDimensions();
        p.weightShape.assign(d.d, d.d + std::max(d.nbDims, 0));
    }
    if (static_cast<int32_t>(p.weightShape.size()) != rank)
    {
        return invalidArgument(describeNode(node) + ": input 'W' has rank " + std::to_string(p.weightShape.size())
            + ", expected rank " + std::to_string(rank) + " (the rank of input 'X')");
    }
    for (int64_t e : p.weightShape)
    {
        if (e < 0)
        {
            return unsupported(describeNode(node) + ": input 'W' needs build-time extents");
        }
    }
    OnnxConstant const* b = ctx.hasInput(node, 2) ? ctx.constant(node, 2) : nullptr;
    bool const biasIsTensor = ctx.hasInput(node, 2) && (b == nullptr || !isFloatType(b->type));
    if (w != nullptr && isFloatType(w->type) && !biasIsTensor)
    {
        // Layer weights must outlive the parse: constants computed during the import (an Identity of an
        // initializer, folded subgraphs) are copied into the parser's store.
        p.kernel = ctx.layerWeights(*w);
        if (b != nullptr)
        {
            p.bias = ctx.layerWeights(*b);
        }
        return p;
    }
    // Run-time kernel (or bias): the layer takes tensors through setInput(1) / setInput(2).
    KILN_ASSIGN_OR_RETURN(p.kernelTensor, ctx.tensor(node, 1));
    if (lift)
    {
        KILN_ASSIGN_OR_RETURN(p.kernelTensor, liftSpatial1D(ctx, node, p.kernelTensor, "kernel_2d"));
    }
    if (ctx.hasInput(node, 2))
    {
        KILN_ASSIGN_OR_RETURN(p.biasTensor, ctx.tensor(node, 2));
    }
    return p;
}

StatusOr<ITensor*> convInput(ImporterContext& ctx, ::onnx::NodeProto const& node, int32_t& rank)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    rank = rankOf(x);
    if (rank < 3 || rank > 5)
    {
        return unsupported(describeNode(node) + ": input 'X' has rank " + std::to_string(rank)
            + "; only 1-D, 2-D and 3-D windows (rank 3 to 5) are supported");
    }
    if (!isFloatType(x->getType()))
    {
        return unsupported(describeNode(node) + ": input 'X' must be a floating-point tensor");
    }
    return x;
}

nvinfer1::PaddingMode paddingModeOf(std::string const& autoPad)
{
    if (autoPad == "SAME_UPPER")
    {
        return nvinfer1::PaddingMode::kSAME_UPPER;
    }
    if (autoPad == "SAME_LOWER")
    {
        return nvinfer1::PaddingMode::kSAME_LOWER;
    }
    return nvinfer1::PaddingMode::kEXPLICIT_ROUND_DOWN;
}

//! The 1-D lift of the window attributes: a trailing unit kernel, stride and dilation, and no padding.
void liftWindow(WindowAttributes& w)
{
    for (auto* v : {&w.kernel, &w.strides, &w.dilations})
    {
        *v = appendOne(*v, 1);
    }
    w.padBegin = appendOne(w.padBegin, 0);
    w.padEnd = appendOne(w.padEnd, 0);
}

//! Strides, dilations, group, paddings and auto_pad of `w` onto a convolution or deconvolution layer.
template <typename Layer>
Status setWindow(::onnx::NodeProto const& node, Layer* layer, WindowAttributes const& w, int64_t group)
{
    KILN_ASSIGN_OR_RETURN(Dims strides, nnDims(node, w.strides));
    KILN_ASSIGN_OR_RETURN(Dims dilations, nnDims(node, w.dilations));
    KILN_ASSIGN_OR_RETURN(Dims pre, nnDims(node, w.padBegin));
    KILN_ASSIGN_OR_RETURN(Dims post, nnDims(node, w.padEnd));
    layer->setStrideNd(strides);
    layer->setDilationNd(dilations);
    layer->setNbGroups(group);
    layer->setPrePadding(pre);
    layer->setPostPadding(post);
    layer->setPaddingMode(paddingModeOf(w.autoPad));
    KILN_RETURN_IF_ERROR(checkApplied(node, "strides", layer->getStrideNd(), strides));
    KILN_RETURN_IF_ERROR(checkApplied(node, "dilations", layer->getDilationNd(), dilations));
    KILN_RETURN_IF_ERROR(checkApplied(node, "pads", layer->getPrePadding(), pre));
    KILN_RETURN_IF_ERROR(checkApplied(node, "pads", layer->getPostPadding(), post));
    if (layer->getNbGroups() != group)
    {
        return invalidArgument(describeNode(node) + ": attribute 'group' " + std::to_string(group)
            + " is outside what the layer accepts");
    }
    return Status::ok();
}

Status importConv(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    int32_t rank = 0;
    KILN_ASSIGN_OR_RETURN(ITensor * x, convInput(ctx, node, rank));
    int32_t const nbSpatial = rank - 2;
    bool const lift = nbSpatial == 1;
    KILN_ASSIGN_OR_RETURN(ConvParams p, readConvParams(ctx, node, rank, lift));
    std::vector<int64_t> const kernelFromW(p.weightShape.begin() + 2, p.weightShape.end());
    KILN_ASSIGN_OR_RETURN(WindowAttributes w, readWindowAttributes(node, nbSpatial, kernelFromW));
    if (hasAttribute(node, "kernel_shape") && attrInts(node, "kernel_shape") != kernelFromW)
    {
        return invalidArgument(describeNode(node) + ": attribute 'kernel_shape' does not match the shape of input 'W'");
    }
    int64_t const group = attrInt(node, "group", 1);
    int64_t const channels = x->getDimensions().d[1];
    if (group < 1 || (channels >= 0 && channels != p.weightShape[1] * group))
    {
        return invalidArgument(describeNode(node) + ": input 'X' has " + std::to_string(channels)
            + " channels but 'W' has " + std::to_string(p.weightShape[1]) + " per group with group="
            + std::to_string(group));
    }
    if (lift)
    {
        KILN_ASSIGN_OR_RETURN(x, liftSpatial1D(ctx, node, x, "input_2d"));
        liftWindow(w);
    }
    KILN_ASSIGN_OR_RETURN(Dims kernelDims, nnDims(node, w.kernel));
    auto* layer = ctx.network().addConvolutionNd(*x, p.weightShape[0], kernelDims, p.kernel, p.bias);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addConvolutionNd"));
    if (p.kernelTensor != nullptr)
    {
        layer->setInput(1, *p.kernelTensor);
    }
    if (p.biasTensor != nullptr)
    {
        layer->setInput(2, *p.biasTensor);
    }
    KILN_RETURN_IF_ERROR(setWindow(node, layer, w, group));
    ITensor* y = layer->getOutput(0);
    if (lift)
    {
        KILN_ASSIGN_OR_RETURN(y, dropSpatial1D(ctx, node, y, "output_1d"));
    }
    outputs.emplace_back(y);
    return Status::ok();
}

//! Explicit ConvTranspose padding from output_shape / SAME auto_pad (ONNX's formula), which needs static extents.
Status resolveTransposePads(::onnx::NodeProto const& node, Dims const& in, WindowAttributes& w,
    std::vector<int64_t> const& outputPadding)
{
    size_t const n = w.kernel.size();
    std::vector<int64_t> outShape = attrInts(node, "output_shape");
    if (outShape.size() == n + 2)
    {
        outShape.erase(outShape.begin(), outShape.begin() + 2);
    }
    bool const same = w.autoPad == "SAME_UPPER" || w.autoPad == "SAME_LOWER";
    if (outShape.empty() && !same)
    {
        return Status::ok();
    }
    if (!outShape.empty() && outShape.size() != n)
    {
        return invalidArgument(describeNode(node) + ": attribute 'output_shape' has " + std::to_string(outShape.size())
            + " entries, expected " + std::to_string(n));
    }
    for (size_t i = 0; i < n; ++i)
    {
        int64_t const extent = in.d[2 + i];
        if (extent < 0)
        {
            return unsupported(describeNode(node)
                + ": 'output_shape' or SAME auto_pad needs build-time spatial extents of input 'X'");
        }
        int64_t const target = outShape.empty() ? extent * w.strides[i] : outShape[i];
        int64_t const dk = 1 + w.dilations[i] * (w.kernel[i] - 1);
        int64_t const total = w.strides[i] * (extent - 1) + outputPadding[i] + dk - target;
        // A negative total (a larger requested output) becomes negative padding, i.e. extra trailing zeros.
        bool const upper = w.autoPad == "SAME_UPPER";
        int64_t const half = total >= 0 ? total / 2 : -((1 - total) / 2); // floor(total / 2), as ONNX computes it
        w.padBegin[i] = upper ? half : total - half;
        w.padEnd[i] = upper ? total - half : half;
    }
    w.autoPad = "NOTSET";
    return Status::ok();
}

Status importConvTranspose(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    int32_t rank = 0;
    KILN_ASSIGN_OR_RETURN(ITensor * x, convInput(ctx, node, rank));
    int32_t const nbSpatial = rank - 2;
    bool const lift = nbSpatial == 1;
    KILN_ASSIGN_OR_RETURN(ConvParams p, readConvParams(ctx, node, rank, lift));
    std::vector<int64_t> const kernelFromW(p.weightShape.begin() + 2, p.weightShape.end());
    KILN_ASSIGN_OR_RETURN(WindowAttributes w, readWindowAttributes(node, nbSpatial, kernelFromW));
    int64_t const group = attrInt(node, "group", 1);
    std::vector<int64_t> outputPadding
        = attrInts(node, "output_padding", std::vector<int64_t>(static_cast<size_t>(nbSpatial), 0));
    if (outputPadding.size() != static_cast<size_t>(nbSpatial) || group < 1)
    {
        return invalidArgument(describeNode(node) + ": attribute 'output_padding' needs one entry per spatial "
            "dimension and 'group' must be >= 1");
    }
    Dims const inDims = x->getDimensions();
    if (inDims.d[1] >= 0 && inDims.d[1] != p.weightShape[0])
    {
        return invalidArgument(describeNode(node) + ": input 'X' has " + std::to_string(inDims.d[1])
            + " channels but 'W' has " + std::to_string(p.weightShape[0]));
    }
    KILN_RETURN_IF_ERROR(resolveTransposePads(node, inDims, w, outputPadding));
    // output_padding extends the output at the end: less trailing trim, or trailing zeros (plus bias) beyond it.
    // Negative padding (from output_shape) likewise means zeros before or after the full output.
    std::vector<int64_t> extra(static_cast<size_t>(nbSpatial), 0);
    std::vector<int64_t> extraPre(static_cast<size_t>(nbSpatial), 0);
    bool needExtra = false;
    for (int32_t i = 0; i < nbSpatial; ++i)
    {
        w.padEnd[i] -= outputPadding[i];
        if (w.padEnd[i] < 0)
        {
            extra[i] = -w.padEnd[i];
            w.padEnd[i] = 0;
            needExtra = true;
        }
        if (w.padBegin[i] < 0)
        {
            extraPre[i] = -w.padBegin[i];
            w.padBegin[i] = 0;
            needExtra = true;
        }
    }
    if (needExtra && w.autoPad != "NOTSET" && w.autoPad != "VALID")
    {
        return unsupported(describeNode(node) + ": 'output_padding' with SAME auto_pad needs static extents");
    }
    int64_t const outChannels = p.weightShape[1] * group;
    ITensor* biasTensor = p.biasTensor;
    Weights bias = p.bias;
    if (needExtra && bias.count > 0)
    {
        // The bias applies to the zero-extended border too: add it after the padding.
        OnnxConstant const* b = ctx.constant(node, 2);
        KILN_ASSIGN_OR_RETURN(biasTensor, ctx.constantTensor(*b, node.input(2)));
        bias = Weights{nvinfer1::DataType::kFLOAT, nullptr, 0};
    }
    if (lift)
    {
        KILN_ASSIGN_OR_RETURN(x, liftSpatial1D(ctx, node, x, "input_2d"));
        liftWindow(w);
        extra = appendOne(extra, 0);
        extraPre = appendOne(extraPre, 0);
    }
    KILN_ASSIGN_OR_RETURN(Dims kernelDims, nnDims(node, w.kernel));
    auto* layer = ctx.network().addDeconvolutionNd(*x, outChannels, kernelDims, p.kernel, bias);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addDeconvolutionNd"));
    if (p.kernelTensor != nullptr)
    {
        layer->setInput(1, *p.kernelTensor);
        if (biasTensor != nullptr && !needExtra)
        {
            layer->setInput(2, *biasTensor);
        }
    }
    KILN_RETURN_IF_ERROR(setWindow(node, layer, w, group));
    ITensor* y = layer->getOutput(0);
    bool const biasAfter = biasTensor != nullptr && (needExtra || p.kernelTensor == nullptr);
    if (needExtra)
    {
        KILN_ASSIGN_OR_RETURN(Dims head, nnDims(node, extraPre));
        KILN_ASSIGN_OR_RETURN(Dims tail, nnDims(node, extra));
        auto* pad = ctx.network().addPaddingNd(*y, head, tail);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, pad, "addPaddingNd", "output_padding"));
        y = pad->getOutput(0);
    }
    if (biasAfter)
    {
        std::vector<int64_t> shape(static_cast<size_t>(rankOf(y)), 1);
        shape[1] = outChannels;
        KILN_ASSIGN_OR_RETURN(Dims biasDims, nnDims(node, shape));
        KILN_ASSIGN_OR_RETURN(ITensor * b, reshape(ctx, node, biasTensor, biasDims, "bias_shape"));
        KILN_ASSIGN_OR_RETURN(
            y, addElementWise(ctx, node, y, b, nvinfer1::ElementWiseOperation::kSUM, "bias"));
    }
    if (lift)
    {
        KILN_ASSIGN_OR_RETURN(y, dropSpatial1D(ctx, node, y, "output_1d"));
    }
    outputs.emplace_back(y);
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> convolutionImporters()
{
    return {
        {"Conv", &importConv},
        {"ConvTranspose", &importConvTranspose},
    };
}

} // namespace kiln
