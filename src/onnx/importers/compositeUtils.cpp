// Building blocks shared by the composite importer families (see compositeUtils.h).
#include "onnx/importers/compositeUtils.h"

#include "onnx/importerHelpers.h"
#include "onnx/onnxAttributes.h"

#include <algorithm>

namespace kiln::composite
{
using nvinfer1::ITensor;

StatusOr<ITensor*> reduce(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t,
    nvinfer1::ReduceOperation op, std::vector<int32_t> const& axes, bool keepDims, std::string const& suffix)
{
    uint32_t mask = 0;
    for (int32_t const axis : axes)
    {
        mask |= 1U << static_cast<uint32_t>(axis);
    }
    nvinfer1::IReduceLayer* layer = ctx.network().addReduce(*t, op, mask, keepDims);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addReduce", suffix));
    return layer->getOutput(0);
}

StatusOr<ITensor*> reduceAll(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t,
    nvinfer1::ReduceOperation op, bool keepDims, std::string const& suffix)
{
    std::vector<int32_t> axes;
    for (int32_t d = 0; d < rankOf(t); ++d)
    {
        axes.push_back(d);
    }
    return reduce(ctx, node, t, op, axes, keepDims, suffix);
}

StatusOr<ITensor*> gatherConst(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t, int32_t axis,
    std::vector<int64_t> const& indices, std::string const& suffix)
{
    KILN_ASSIGN_OR_RETURN(ITensor * idx, int64Vector(ctx, node, indices));
    nvinfer1::IGatherLayer* layer = ctx.network().addGather(*t, *idx, axis);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addGather", suffix));
    return layer->getOutput(0);
}

StatusOr<ITensor*> select(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* cond, ITensor* thenT,
    ITensor* elseT, std::string const& suffix)
{
    int32_t const rank = std::max({rankOf(cond), rankOf(thenT), rankOf(elseT)});
    KILN_ASSIGN_OR_RETURN(cond, unsqueezeToRank(ctx, node, cond, rank));
    KILN_ASSIGN_OR_RETURN(thenT, unsqueezeToRank(ctx, node, thenT, rank));
    KILN_ASSIGN_OR_RETURN(elseT, unsqueezeToRank(ctx, node, elseT, rank));
    nvinfer1::ISelectLayer* layer = ctx.network().addSelect(*cond, *thenT, *elseT);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addSelect", suffix));
    return layer->getOutput(0);
}

StatusOr<ITensor*> activation(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t,
    nvinfer1::ActivationType type, float alpha, float beta, std::string const& suffix)
{
    nvinfer1::IActivationLayer* layer = ctx.network().addActivation(*t, type);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addActivation", suffix));
    layer->setAlpha(alpha);
    layer->setBeta(beta);
    return layer->getOutput(0);
}

StatusOr<ITensor*> scalarFor(ImporterContext& ctx, ::onnx::NodeProto const& node, double value, ITensor const* like)
{
    return scalarLike(ctx, node, value, like->getType(), rankOf(like));
}

StatusOr<ITensor*> binary(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* a, ITensor* b,
    nvinfer1::ElementWiseOperation op, std::string const& suffix)
{
    return addElementWise(ctx, node, a, b, op, suffix);
}

StatusOr<ITensor*> binaryScalar(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* a, double value,
    nvinfer1::ElementWiseOperation op, std::string const& suffix)
{
    KILN_ASSIGN_OR_RETURN(ITensor * b, scalarFor(ctx, node, value, a));
    return addElementWise(ctx, node, a, b, op, suffix);
}

StatusOr<ITensor*> logSoftmax(
    ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* x, int32_t axis, std::string const& suffix)
{
    using nvinfer1::ElementWiseOperation;
    KILN_ASSIGN_OR_RETURN(ITensor * maxT, reduce(ctx, node, x, nvinfer1::ReduceOperation::kMAX, {axis}, true,
        suffix + "_max"));
    KILN_ASSIGN_OR_RETURN(ITensor * shifted, binary(ctx, node, x, maxT, ElementWiseOperation::kSUB, suffix + "_shift"));
    KILN_ASSIGN_OR_RETURN(ITensor * e, addUnary(ctx, node, shifted, nvinfer1::UnaryOperation::kEXP, suffix + "_exp"));
    KILN_ASSIGN_OR_RETURN(ITensor * sum, reduce(ctx, node, e, nvinfer1::ReduceOperation::kSUM, {axis}, true,
        suffix + "_sum"));
    KILN_ASSIGN_OR_RETURN(ITensor * logSum, addUnary(ctx, node, sum, nvinfer1::UnaryOperation::kLOG, suffix + "_log"));
    return binary(ctx, node, shifted, logSum, ElementWiseOperation::kSUB, suffix);
}

StatusOr<ITensor*> matmul(
    ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* a, ITensor* b, std::string const& suffix)
{
    using nvinfer1::MatrixOperation;
    int32_t const ra = rankOf(a);
    int32_t const rb = rankOf(b);
    MatrixOperation const opA = ra == 1 ? MatrixOperation::kVECTOR : MatrixOperation::kNONE;
    MatrixOperation const opB = rb == 1 ? MatrixOperation::kVECTOR : MatrixOperation::kNONE;
    // Align the batch dimensions: a matrix has rank - 2 of them, a vector rank - 1.
    int32_t const batchA = ra - (opA == MatrixOperation::kVECTOR ? 1 : 2);
    int32_t const batchB = rb - (opB == MatrixOperation::kVECTOR ? 1 : 2);
    if (batchA < batchB)
    {
        KILN_ASSIGN_OR_RETURN(a, unsqueezeToRank(ctx, node, a, ra + batchB - batchA));
    }
    else if (batchB < batchA)
    {
        KILN_ASSIGN_OR_RETURN(b, unsqueezeToRank(ctx, node, b, rb + batchA - batchB));
    }
    nvinfer1::IMatrixMultiplyLayer* layer = ctx.network().addMatrixMultiply(*a, opA, *b, opB);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addMatrixMultiply", suffix));
    return layer->getOutput(0);
}

StatusOr<ITensor*> alignToAxis(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* p, int32_t axis,
    int32_t rank, std::string const& suffix)
{
    nvinfer1::Dims const d = p->getDimensions();
    if (d.nbDims == 0 || (d.nbDims == 1 && d.d[0] == 1))
    {
        return p;
    }
    if (d.nbDims != 1)
    {
        return invalidArgument(describeNode(node) + ": a scale or zero point must be a scalar or 1-D, got rank "
            + std::to_string(d.nbDims));
    }
    nvinfer1::Dims shape{};
    shape.nbDims = rank;
    for (int32_t i = 0; i < rank; ++i)
    {
        shape.d[i] = i == axis ? -1 : 1;
    }
    return reshape(ctx, node, p, shape, suffix);
}

Status checkOutputCount(::onnx::NodeProto const& node, int32_t count)
{
    if (node.output_size() > count)
    {
        return invalidArgument(describeNode(node) + ": has " + std::to_string(node.output_size())
            + " outputs, at most " + std::to_string(count) + " are defined");
    }
    return Status::ok();
}

} // namespace kiln::composite
