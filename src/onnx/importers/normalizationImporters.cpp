// Importers of the normalization op family: BatchNormalization (inference form), InstanceNormalization,
// LayerNormalization, GroupNormalization (INormalizationLayer where it fits), MeanVarianceNormalization and
// LpNormalization (composed from reductions and elementwise layers).
#include "onnx/importerHelpers.h"
#include "onnx/importers/nnUtils.h"
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

bool wantsOutput(::onnx::NodeProto const& node, int32_t index)
{
    return node.output_size() > index && !node.output(index).empty();
}

//! Input `index` as a tensor of `type`, shaped for broadcasting along the channel axis 1 of a rank-`rank` tensor:
//! a 1-D [C] becomes [1, C, 1, ...]; a higher-rank value gets a leading 1 (BatchNormalization spatial=0).
StatusOr<ITensor*> channelParam(ImporterContext& ctx, ::onnx::NodeProto const& node, int32_t index, int32_t rank,
    DataType type, char const* what)
{
    KILN_ASSIGN_OR_RETURN(ITensor * t, ctx.tensor(node, index));
    KILN_ASSIGN_OR_RETURN(t, castTo(ctx, node, t, type, std::string(what) + "_cast"));
    int32_t const r = rankOf(t);
    if (r == 1)
    {
        std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
        shape[1] = -1;
        KILN_ASSIGN_OR_RETURN(Dims d, nnDims(node, shape));
        return reshape(ctx, node, t, d, std::string(what) + "_shape");
    }
    if (r == rank - 1)
    {
        return unsqueeze(ctx, node, t, {0}, std::string(what) + "_shape");
    }
    return invalidArgument(describeNode(node) + ": input '" + std::string(what) + "' has rank " + std::to_string(r)
        + "; expected [C] for an input of rank " + std::to_string(rank));
}

StatusOr<ITensor*> floatInput(ImporterContext& ctx, ::onnx::NodeProto const& node)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    if (!isFloatType(x->getType()))
    {
        return unsupported(describeNode(node) + ": input 'X' must be a floating-point tensor");
    }
    return x;
}

//! (x - mean) and 1 / sqrt(var + eps) over `mask` (keepdims), for the composed normalizations.
struct Moments
{
    ITensor* mean;
    ITensor* centered;
    ITensor* variance;
    ITensor* invStd;
};

StatusOr<Moments> moments(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* x, uint32_t mask, double eps)
{
    Moments m{};
    KILN_ASSIGN_OR_RETURN(m.mean, addReduce(ctx, node, x, ReduceOperation::kAVG, mask, true, "mean"));
    KILN_ASSIGN_OR_RETURN(m.centered, addElementWise(ctx, node, x, m.mean, ElementWiseOperation::kSUB, "centered"));
    KILN_ASSIGN_OR_RETURN(
        ITensor * sq, addElementWise(ctx, node, m.centered, m.centered, ElementWiseOperation::kPROD, "squared"));
    KILN_ASSIGN_OR_RETURN(m.variance, addReduce(ctx, node, sq, ReduceOperation::kAVG, mask, true, "variance"));
    KILN_ASSIGN_OR_RETURN(ITensor * v, withScalar(ctx, node, m.variance, eps, ElementWiseOperation::kSUM, "var_eps"));
    KILN_ASSIGN_OR_RETURN(ITensor * sd, addUnary(ctx, node, v, nvinfer1::UnaryOperation::kSQRT, "std"));
    KILN_ASSIGN_OR_RETURN(m.invStd, addUnary(ctx, node, sd, nvinfer1::UnaryOperation::kRECIP, "inv_std"));
    return m;
}

//! Training-mode BatchNormalization (opset 14+): batch statistics normalise, and the running statistics are
//! input * momentum + batch * (1 - momentum), with the biased batch variance as the ONNX reference computes it.
Status batchNormTraining(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs,
    ITensor* x, ITensor* scale, ITensor* bias, ITensor* mean, ITensor* var, float epsilon)
{
    int32_t const rank = rankOf(x);
    float const momentum = attrFloat(node, "momentum", 0.9F);
    KILN_ASSIGN_OR_RETURN(Moments m, moments(ctx, node, x, allAxesMask(rank) & ~2U, epsilon));
    KILN_ASSIGN_OR_RETURN(ITensor * y, addElementWise(ctx, node, m.centered, m.invStd, ElementWiseOperation::kPROD,
        "normalized"));
    KILN_ASSIGN_OR_RETURN(y, addElementWise(ctx, node, y, scale, ElementWiseOperation::kPROD, "scaled"));
    KILN_ASSIGN_OR_RETURN(y, addElementWise(ctx, node, y, bias, ElementWiseOperation::kSUM, "biased"));
    outputs.emplace_back(y);
    std::pair<ITensor*, ITensor*> const stats[2] = {{mean, m.mean}, {var, m.variance}};
    for (int32_t i = 0; i < 2; ++i)
    {
        std::string const tag = i == 0 ? "running_mean" : "running_var";
        KILN_ASSIGN_OR_RETURN(ITensor * old,
            withScalar(ctx, node, stats[i].first, momentum, ElementWiseOperation::kPROD, tag + "_old"));
        KILN_ASSIGN_OR_RETURN(ITensor * now,
            withScalar(ctx, node, stats[i].second, 1.0 - momentum, ElementWiseOperation::kPROD, tag + "_batch"));
        KILN_ASSIGN_OR_RETURN(ITensor * r, addElementWise(ctx, node, old, now, ElementWiseOperation::kSUM, tag));
        KILN_ASSIGN_OR_RETURN(r, reshape(ctx, node, r, nnDims(node, {-1}).value(), tag + "_shape"));
        outputs.emplace_back(r);
    }
    return Status::ok();
}

Status importBatchNormalization(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    bool const training = attrInt(node, "training_mode", 0) != 0;
    if (!training && (wantsOutput(node, 1) || wantsOutput(node, 2)))
    {
        return unsupported(describeNode(node) + ": outputs 'running_mean' / 'running_var' need training_mode = 1 "
            "(opset 14+); older training-mode outputs are not supported");
    }
    KILN_ASSIGN_OR_RETURN(ITensor * x, floatInput(ctx, node));
    int32_t const rank = rankOf(x);
    if (rank < 2)
    {
        return invalidArgument(describeNode(node) + ": input 'X' needs rank >= 2 ([N, C, ...])");
    }
    DataType const type = x->getType();
    float const epsilon = attrFloat(node, "epsilon", 1e-5F);
    KILN_ASSIGN_OR_RETURN(ITensor * scale, channelParam(ctx, node, 1, rank, type, "scale"));
    KILN_ASSIGN_OR_RETURN(ITensor * bias, channelParam(ctx, node, 2, rank, type, "B"));
    KILN_ASSIGN_OR_RETURN(ITensor * mean, channelParam(ctx, node, 3, rank, type, "input_mean"));
    KILN_ASSIGN_OR_RETURN(ITensor * var, channelParam(ctx, node, 4, rank, type, "input_var"));
    if (training)
    {
        return batchNormTraining(ctx, node, outputs, x, scale, bias, mean, var, epsilon);
    }
    // y = (x - mean) * (scale / sqrt(var + eps)) + B
    KILN_ASSIGN_OR_RETURN(ITensor * v, withScalar(ctx, node, var, epsilon, ElementWiseOperation::kSUM, "var_eps"));
    KILN_ASSIGN_OR_RETURN(v, addUnary(ctx, node, v, nvinfer1::UnaryOperation::kSQRT, "std"));
    KILN_ASSIGN_OR_RETURN(ITensor * k, addElementWise(ctx, node, scale, v, ElementWiseOperation::kDIV, "factor"));
    KILN_ASSIGN_OR_RETURN(ITensor * d, addElementWise(ctx, node, x, mean, ElementWiseOperation::kSUB, "centered"));
    KILN_ASSIGN_OR_RETURN(ITensor * y, addElementWise(ctx, node, d, k, ElementWiseOperation::kPROD, "scaled"));
    KILN_ASSIGN_OR_RETURN(y, addElementWise(ctx, node, y, bias, ElementWiseOperation::kSUM));
    outputs.emplace_back(y);
    return Status::ok();
}

StatusOr<ITensor*> addNorm(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* x, ITensor* scale,
    ITensor* bias, uint32_t mask, float epsilon, int64_t groups)
{
    auto* layer = ctx.network().addNormalizationV2(*x, *scale, *bias, mask);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addNormalizationV2"));
    layer->setEpsilon(epsilon);
    if (groups > 1)
    {
        layer->setNbGroups(groups);
    }
    return layer->getOutput(0);
}

Status importInstanceNormalization(
    ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, floatInput(ctx, node));
    int32_t const rank = rankOf(x);
    if (rank < 3)
    {
        return invalidArgument(describeNode(node) + ": input 'input' needs rank >= 3 ([N, C, spatial...])");
    }
    KILN_ASSIGN_OR_RETURN(ITensor * scale, channelParam(ctx, node, 1, rank, x->getType(), "scale"));
    KILN_ASSIGN_OR_RETURN(ITensor * bias, channelParam(ctx, node, 2, rank, x->getType(), "B"));
    KILN_ASSIGN_OR_RETURN(ITensor * y,
        addNorm(ctx, node, x, scale, bias, allAxesMask(rank) & ~3U, attrFloat(node, "epsilon", 1e-5F), 1));
    outputs.emplace_back(y);
    return Status::ok();
}

Status importGroupNormalization(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, floatInput(ctx, node));
    int32_t const rank = rankOf(x);
    KILN_ASSIGN_OR_RETURN(int64_t groups, requireAttrInt(node, "num_groups"));
    int64_t const channels = rank >= 2 ? x->getDimensions().d[1] : -1;
    if (rank < 3 || groups < 1 || (channels >= 0 && channels % groups != 0))
    {
        return invalidArgument(describeNode(node) + ": needs an input of rank >= 3 and 'num_groups' dividing the "
            "channel count");
    }
    ITensor* scale = nullptr;
    ITensor* bias = nullptr;
    if (ctx.opsetVersion() < 21)
    {
        // Opset 18: one scale/bias per group; repeat each over its channels with a constant gather.
        if (channels < 0)
        {
            return unsupported(describeNode(node) + ": opset-18 per-group scale needs a build-time channel count");
        }
        std::vector<int64_t> idx(static_cast<size_t>(channels));
        for (int64_t c = 0; c < channels; ++c)
        {
            idx[static_cast<size_t>(c)] = c / (channels / groups);
        }
        KILN_ASSIGN_OR_RETURN(ITensor * indices, int64Vector(ctx, node, idx));
        ITensor* params[2] = {nullptr, nullptr};
        for (int32_t i = 0; i < 2; ++i)
        {
            KILN_ASSIGN_OR_RETURN(ITensor * t, ctx.tensor(node, 1 + i));
            auto* gather = ctx.network().addGather(*t, *indices, 0);
            KILN_RETURN_IF_ERROR(
                checkLayer(ctx, node, gather, "addGather", i == 0 ? "scale_per_channel" : "bias_per_channel"));
            params[i] = gather->getOutput(0);
        }
        std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
        shape[1] = channels;
        KILN_ASSIGN_OR_RETURN(Dims d, nnDims(node, shape));
        KILN_ASSIGN_OR_RETURN(scale, reshape(ctx, node, params[0], d, "scale_shape"));
        KILN_ASSIGN_OR_RETURN(bias, reshape(ctx, node, params[1], d, "bias_shape"));
        KILN_ASSIGN_OR_RETURN(scale, castTo(ctx, node, scale, x->getType(), "scale_cast"));
        KILN_ASSIGN_OR_RETURN(bias, castTo(ctx, node, bias, x->getType(), "bias_cast"));
    }
    else
    {
        KILN_ASSIGN_OR_RETURN(scale, channelParam(ctx, node, 1, rank, x->getType(), "scale"));
        KILN_ASSIGN_OR_RETURN(bias, channelParam(ctx, node, 2, rank, x->getType(), "bias"));
    }
    KILN_ASSIGN_OR_RETURN(ITensor * y,
        addNorm(ctx, node, x, scale, bias, allAxesMask(rank) & ~3U, attrFloat(node, "epsilon", 1e-5F), groups));
    outputs.emplace_back(y);
    return Status::ok();
}

Status importLayerNormalization(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, floatInput(ctx, node));
    int32_t const rank = rankOf(x);
    KILN_ASSIGN_OR_RETURN(int32_t axis, normalizeAxis(node, attrInt(node, "axis", -1), rank));
    float const epsilon = attrFloat(node, "epsilon", 1e-5F);
    uint32_t const mask = allAxesMask(rank) & ~allAxesMask(axis);
    DataType const type = x->getType();
    KILN_ASSIGN_OR_RETURN(ITensor * scale, ctx.tensor(node, 1));
    KILN_ASSIGN_OR_RETURN(scale, castTo(ctx, node, scale, type, "scale_cast"));
    KILN_ASSIGN_OR_RETURN(scale, unsqueezeToRank(ctx, node, scale, rank));
    ITensor* bias = nullptr;
    if (ctx.hasInput(node, 2))
    {
        KILN_ASSIGN_OR_RETURN(bias, ctx.tensor(node, 2));
        KILN_ASSIGN_OR_RETURN(bias, castTo(ctx, node, bias, type, "bias_cast"));
        KILN_ASSIGN_OR_RETURN(bias, unsqueezeToRank(ctx, node, bias, rank));
    }
    if (!wantsOutput(node, 1) && !wantsOutput(node, 2))
    {
        if (bias == nullptr)
        {
            KILN_ASSIGN_OR_RETURN(bias, scalarLike(ctx, node, 0.0, type, rank));
        }
        KILN_ASSIGN_OR_RETURN(ITensor * y, addNorm(ctx, node, x, scale, bias, mask, epsilon, 1));
        outputs.emplace_back(y);
        return Status::ok();
    }
    // Mean and InvStdDev are wanted: compose so that all three outputs exist.
    KILN_ASSIGN_OR_RETURN(Moments m, moments(ctx, node, x, mask, epsilon));
    KILN_ASSIGN_OR_RETURN(ITensor * y, addElementWise(ctx, node, m.centered, m.invStd, ElementWiseOperation::kPROD,
        "normalized"));
    KILN_ASSIGN_OR_RETURN(y, addElementWise(ctx, node, y, scale, ElementWiseOperation::kPROD, "scaled"));
    if (bias != nullptr)
    {
        KILN_ASSIGN_OR_RETURN(y, addElementWise(ctx, node, y, bias, ElementWiseOperation::kSUM, "biased"));
    }
    outputs.emplace_back(y);
    outputs.emplace_back(m.mean);
    outputs.emplace_back(m.invStd);
    return Status::ok();
}

Status importMeanVarianceNormalization(
    ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, floatInput(ctx, node));
    int32_t const rank = rankOf(x);
    KILN_ASSIGN_OR_RETURN(std::vector<int32_t> axes, normalizeAxes(node, attrInts(node, "axes", {0, 2, 3}), rank));
    KILN_ASSIGN_OR_RETURN(Moments m, moments(ctx, node, x, axesMask(axes), 1e-9));
    KILN_ASSIGN_OR_RETURN(ITensor * y, addElementWise(ctx, node, m.centered, m.invStd, ElementWiseOperation::kPROD));
    outputs.emplace_back(y);
    return Status::ok();
}

Status importLpNormalization(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, floatInput(ctx, node));
    int32_t const rank = rankOf(x);
    KILN_ASSIGN_OR_RETURN(int32_t axis, normalizeAxis(node, attrInt(node, "axis", -1), rank));
    int64_t const p = attrInt(node, "p", 2);
    if (p != 1 && p != 2)
    {
        return invalidArgument(describeNode(node) + ": attribute 'p' must be 1 or 2, got " + std::to_string(p));
    }
    ITensor* norm = nullptr;
    if (p == 1)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * a, addUnary(ctx, node, x, nvinfer1::UnaryOperation::kABS, "abs"));
        KILN_ASSIGN_OR_RETURN(norm, addReduce(ctx, node, a, ReduceOperation::kSUM, 1U << axis, true, "l1"));
    }
    else
    {
        KILN_ASSIGN_OR_RETURN(ITensor * sq, addElementWise(ctx, node, x, x, ElementWiseOperation::kPROD, "square"));
        KILN_ASSIGN_OR_RETURN(ITensor * s, addReduce(ctx, node, sq, ReduceOperation::kSUM, 1U << axis, true, "sumsq"));
        KILN_ASSIGN_OR_RETURN(norm, addUnary(ctx, node, s, nvinfer1::UnaryOperation::kSQRT, "l2"));
    }
    KILN_ASSIGN_OR_RETURN(ITensor * y, addElementWise(ctx, node, x, norm, ElementWiseOperation::kDIV));
    outputs.emplace_back(y);
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> normalizationImporters()
{
    return {
        {"BatchNormalization", &importBatchNormalization},
        {"InstanceNormalization", &importInstanceNormalization},
        {"LayerNormalization", &importLayerNormalization},
        {"GroupNormalization", &importGroupNormalization},
        {"MeanVarianceNormalization", &importMeanVarianceNormalization},
        {"LpNormalization", &importLpNormalization},
    };
}

} // namespace kiln
