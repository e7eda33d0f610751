// Reductions over run-time axes (see reduceRuntimeAxes.h). Per input axis i, hit_i (0 or 1, a 1-element shape
// tensor) says whether i is listed. The data path concatenates [reduce_i(t), t] along i and slices either the
// reduced row (hit) or the original rows (miss), so no shape ever depends on execution values. Without keepdims,
// the kept extents are compacted with integer arithmetic (indicator(a == b) = 1 - min(1, (a - b)^2)).
#include "onnx/importers/reduceRuntimeAxes.h"

#include "onnx/importerHelpers.h"
#include "onnx/importers/nnUtils.h"
#include "onnx/onnxAttributes.h"

#include <string>
#include <vector>

namespace kiln::nn
{
namespace
{

using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

//! Integer shape arithmetic on 1-D INT64 tensors, every layer named after the node.
class ShapeArith
{
public:
    ShapeArith(ImporterContext& ctx, ::onnx::NodeProto const& node)
        : mCtx(ctx)
        , mNode(node)
    {
    }

    StatusOr<ITensor*> constant(int64_t v) { return int64Vector(mCtx, mNode, {v}); }

    StatusOr<ITensor*> op(ITensor* a, ITensor* b, ElementWiseOperation o)
    {
        return addElementWise(mCtx, mNode, a, b, o, "axes_math" + std::to_string(mCount++));
    }

    StatusOr<ITensor*> opConst(ITensor* a, int64_t v, ElementWiseOperation o, bool constFirst = false)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * c, constant(v));
        return constFirst ? op(c, a, o) : op(a, c, o);
    }

    //! 1 where a == v, else 0 (elementwise).
    StatusOr<ITensor*> equalsConst(ITensor* a, int64_t v)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * d, opConst(a, v, ElementWiseOperation::kSUB));
        return indicatorZero(d);
    }

    //! 1 where d == 0, else 0, for integer d.
    StatusOr<ITensor*> indicatorZero(ITensor* d)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * sq, op(d, d, ElementWiseOperation::kPROD));
        KILN_ASSIGN_OR_RETURN(ITensor * m, opConst(sq, 1, ElementWiseOperation::kMIN));
        return opConst(m, 1, ElementWiseOperation::kSUB, true);
    }

    //! Maximum over a 1-D tensor, as a 1-element tensor.
    StatusOr<ITensor*> maxOf(ITensor* a)
    {
        return addReduce(
            mCtx, mNode, a, nvinfer1::ReduceOperation::kMAX, 1U, true, "axes_math" + std::to_string(mCount++));
    }

private:
    ImporterContext& mCtx;
    ::onnx::NodeProto const& mNode;
    int32_t mCount{0};
};

} // namespace

StatusOr<ITensor*> reduceOverRuntimeAxes(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t,
    ITensor* axes, nvinfer1::ReduceOperation op, bool keepDims)
{
    int32_t const rank = rankOf(t);
    nvinfer1::Dims const ad = axes->getDimensions();
    if (ad.nbDims != 1 || ad.d[0] < 1 || ad.d[0] > rank)
    {
        return unsupported(describeNode(node) + ": run-time input 'axes' needs a build-time length in [1, rank]");
    }
    int64_t const nbAxes = ad.d[0];
    KILN_ASSIGN_OR_RETURN(axes, castTo(ctx, node, axes, nvinfer1::DataType::kINT64, "axes_int64"));
    ShapeArith m(ctx, node);
    std::vector<ITensor*> hit(static_cast<size_t>(rank));
    for (int32_t i = 0; i < rank; ++i)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * pos, m.equalsConst(axes, i));
        KILN_ASSIGN_OR_RETURN(ITensor * neg, m.equalsConst(axes, i - rank));
        KILN_ASSIGN_OR_RETURN(ITensor * any, m.op(pos, neg, ElementWiseOperation::kMAX));
        KILN_ASSIGN_OR_RETURN(hit[static_cast<size_t>(i)], m.maxOf(any));
    }
    for (int32_t i = 0; i < rank; ++i)
    {
        std::string const tag = "axis" + std::to_string(i);
        KILN_ASSIGN_OR_RETURN(ITensor * reduced, addReduce(ctx, node, t, op, 1U << i, true, tag + "_reduce"));
        ITensor* parts[2] = {reduced, t};
        auto* cat = ctx.network().addConcatenation(parts, 2);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, cat, "addConcatenation", tag + "_candidates"));
        cat->setAxis(i);
        KILN_ASSIGN_OR_RETURN(ITensor * shape, shapeOf(ctx, node, t));
        KILN_ASSIGN_OR_RETURN(ITensor * extent, shapeSlice(ctx, node, shape, i, i + 1));
        ITensor* h = hit[static_cast<size_t>(i)];
        // start_i = 1 - hit; size_i = extent - (extent - 1) * hit
        KILN_ASSIGN_OR_RETURN(ITensor * startI, m.opConst(h, 1, ElementWiseOperation::kSUB, true));
        KILN_ASSIGN_OR_RETURN(ITensor * em1, m.opConst(extent, 1, ElementWiseOperation::kSUB));
        KILN_ASSIGN_OR_RETURN(ITensor * drop, m.op(em1, h, ElementWiseOperation::kPROD));
        KILN_ASSIGN_OR_RETURN(ITensor * sizeI, m.op(extent, drop, ElementWiseOperation::kSUB));
        std::vector<ITensor*> startParts;
        std::vector<ITensor*> sizeParts;
        if (i > 0)
        {
            KILN_ASSIGN_OR_RETURN(
                ITensor * zeros, int64Vector(ctx, node, std::vector<int64_t>(static_cast<size_t>(i), 0)));
            KILN_ASSIGN_OR_RETURN(ITensor * head, shapeSlice(ctx, node, shape, 0, i));
            startParts.push_back(zeros);
            sizeParts.push_back(head);
        }
        startParts.push_back(startI);
        sizeParts.push_back(sizeI);
        if (i + 1 < rank)
        {
            KILN_ASSIGN_OR_RETURN(
                ITensor * zeros, int64Vector(ctx, node, std::vector<int64_t>(static_cast<size_t>(rank - i - 1), 0)));
            KILN_ASSIGN_OR_RETURN(ITensor * tail, shapeSlice(ctx, node, shape, i + 1, rank));
            startParts.push_back(zeros);
            sizeParts.push_back(tail);
        }
        KILN_ASSIGN_OR_RETURN(ITensor * start, concatShapes(ctx, node, startParts));
        KILN_ASSIGN_OR_RETURN(ITensor * size, concatShapes(ctx, node, sizeParts));
        auto* slice = ctx.network().addSlice(*cat->getOutput(0), filledDims(rank, 0), filledDims(rank, 1),
            filledDims(rank, 1));
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, slice, "addSlice", tag + "_select"));
        slice->setInput(1, *start);
        slice->setInput(2, *size);
        t = slice->getOutput(0);
    }
    if (keepDims)
    {
        return t;
    }
    // Compact the kept extents: the j-th kept axis is k_j = #{k : cum_k <= j}, cum_k = kept axes in [0, k].
    KILN_ASSIGN_OR_RETURN(ITensor * shape, shapeOf(ctx, node, t));
    std::vector<ITensor*> cum(static_cast<size_t>(rank));
    ITensor* running = nullptr;
    for (int32_t k = 0; k < rank; ++k)
    {
        KILN_ASSIGN_OR_RETURN(
            ITensor * kept, m.opConst(hit[static_cast<size_t>(k)], 1, ElementWiseOperation::kSUB, true));
        if (running == nullptr)
        {
            running = kept;
        }
        else
        {
            KILN_ASSIGN_OR_RETURN(running, m.op(running, kept, ElementWiseOperation::kSUM));
        }
        cum[static_cast<size_t>(k)] = running;
    }
    std::vector<ITensor*> dims;
    for (int64_t j = 0; j < rank - nbAxes; ++j)
    {
        ITensor* kj = nullptr;
        for (int32_t k = 0; k < rank; ++k)
        {
            // indicator(cum_k <= j) = 1 - min(1, max(0, cum_k - j))
            KILN_ASSIGN_OR_RETURN(ITensor * d, m.opConst(cum[static_cast<size_t>(k)], j, ElementWiseOperation::kSUB));
            KILN_ASSIGN_OR_RETURN(d, m.opConst(d, 0, ElementWiseOperation::kMAX));
            KILN_ASSIGN_OR_RETURN(d, m.opConst(d, 1, ElementWiseOperation::kMIN));
            KILN_ASSIGN_OR_RETURN(d, m.opConst(d, 1, ElementWiseOperation::kSUB, true));
            if (kj == nullptr)
            {
                kj = d;
            }
            else
            {
                KILN_ASSIGN_OR_RETURN(kj, m.op(kj, d, ElementWiseOperation::kSUM));
            }
        }
        ITensor* dim = nullptr;
        for (int32_t k = 0; k < rank; ++k)
        {
            KILN_ASSIGN_OR_RETURN(ITensor * isK, m.equalsConst(kj, k));
            KILN_ASSIGN_OR_RETURN(ITensor * extent, shapeSlice(ctx, node, shape, k, k + 1));
            KILN_ASSIGN_OR_RETURN(ITensor * term, m.op(isK, extent, ElementWiseOperation::kPROD));
            if (dim == nullptr)
            {
                dim = term;
            }
            else
            {
                KILN_ASSIGN_OR_RETURN(dim, m.op(dim, term, ElementWiseOperation::kSUM));
            }
        }
        dims.push_back(dim);
    }
    if (dims.empty())
    {
        nvinfer1::Dims scalar{};
        scalar.nbDims = 0;
        return reshape(ctx, node, t, scalar, "squeeze_all");
    }
    KILN_ASSIGN_OR_RETURN(ITensor * squeezed, concatShapes(ctx, node, dims));
    return reshapeTo(ctx, node, t, squeezed, "squeeze");
}

} // namespace kiln::nn
