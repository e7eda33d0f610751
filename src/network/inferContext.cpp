// InferContext helpers and broadcasting.
#include "network/inferContext.h"

#include "core/dataType.h"

namespace kiln
{

Status InferContext::error(std::string const& message) const
{
    return invalidArgument("layer '" + mLayerName + "' (" + layerKindName(mKind) + "): " + message);
}

Status InferContext::require(DimExpr condition, std::string const& message)
{
    return mGraph.require(condition.id(), "layer '" + mLayerName + "' (" + layerKindName(mKind) + "): " + message);
}

Status InferContext::requireInput(int32_t i, int32_t minRank, int32_t maxRank) const
{
    if (!hasInput(i))
    {
        return error("input " + std::to_string(i) + " is missing");
    }
    int32_t const r = input(i).rank();
    if (r < minRank || r > maxRank)
    {
        std::string range = minRank == maxRank ? std::to_string(minRank)
                                               : std::to_string(minRank) + ".." + std::to_string(maxRank);
        return error("input " + std::to_string(i) + " '" + input(i).name + "' has rank " + std::to_string(r)
            + "; expected rank " + range);
    }
    return Status::ok();
}

Status InferContext::requireValues(int32_t i) const
{
    if (!hasInput(i))
    {
        return error("shape input " + std::to_string(i) + " is missing");
    }
    if (!input(i).values.has_value())
    {
        return error("input " + std::to_string(i) + " '" + input(i).name
            + "' must be a shape tensor (an INT32/INT64 tensor whose values are known before execution: "
              "computed from IShapeLayer, constants or shape-tensor inputs)");
    }
    if (input(i).type == nvinfer1::DataType::kFLOAT)
    {
        return error("input " + std::to_string(i) + " '" + input(i).name
            + "' is a FLOAT shape tensor; this input needs INT32/INT64 values (cast it)");
    }
    return Status::ok();
}

StatusOr<ShapeExpr> broadcastShapes(InferContext& ctx, ShapeExpr const& a, ShapeExpr const& b, std::string const& what)
{
    if (a.size() != b.size())
    {
        return ctx.error(what + ": ranks differ (" + std::to_string(a.size()) + " vs " + std::to_string(b.size())
            + "); TensorRT-style broadcasting needs equal ranks");
    }
    ShapeExpr out;
    for (size_t i = 0; i < a.size(); ++i)
    {
        DimExpr const x = a[i];
        DimExpr const y = b[i];
        if (x.isConstant() && y.isConstant())
        {
            int64_t const xv = x.constant();
            int64_t const yv = y.constant();
            if (xv != yv && xv != 1 && yv != 1)
            {
                return ctx.error(what + ": dimension " + std::to_string(i) + " cannot be broadcast (" + std::to_string(xv)
                    + " vs " + std::to_string(yv) + ")");
            }
            out.push_back(xv == 1 ? y : x);
            continue;
        }
        if (x.is(1))
        {
            out.push_back(y);
            continue;
        }
        if (y.is(1))
        {
            out.push_back(x);
            continue;
        }
        KILN_RETURN_IF_ERROR(ctx.require(x.eq(y).logicalOr(x.eq(1)).logicalOr(y.eq(1)),
            what + ": dimension " + std::to_string(i) + " cannot be broadcast at run time"));
        out.push_back(x.eq(1).select(y, x));
    }
    return out;
}

std::string shapeToString(ShapeGraph const& g, ShapeExpr const& s)
{
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i)
    {
        out += (i ? ", " : "") + g.toString(s[i].id());
    }
    return out + "]";
}

} // namespace kiln
