// PluginExprBuilder implementation: IExprBuilder/IDimensionExpr over a ShapeGraph, with the checks TensorRT makes
// on what plugins pass back (foreign expressions, invalid operations, size-tensor declarations).
#include "plugin/exprBuilder.h"

#include <limits>

namespace kiln
{

using nvinfer1::DimensionOperation;
using nvinfer1::IDimensionExpr;

PluginDimensionExpr::PluginDimensionExpr(PluginExprBuilder const& owner, ExprId id, bool sizeTensor)
    : mOwner(owner)
    , mId(id)
    , mSizeTensor(sizeTensor)
{
    mImpl = this;
}

bool PluginDimensionExpr::isConstant() const noexcept
{
    return mOwner.graph().isConstant(mId);
}

int64_t PluginDimensionExpr::getConstantValue() const noexcept
{
    return isConstant() ? mOwner.graph().constantValue(mId) : std::numeric_limits<int64_t>::min();
}

bool PluginDimensionExpr::isSizeTensor() const noexcept
{
    return mSizeTensor;
}

PluginExprBuilder::PluginExprBuilder(ShapeGraph& graph, std::string layerName, int32_t nbOutputs, bool allowSizeTensors)
    : mGraph(graph)
    , mLayerName(std::move(layerName))
    , mNbOutputs(nbOutputs)
    , mAllowSizeTensors(allowSizeTensors)
{
    mImpl = this;
}

void PluginExprBuilder::fail(Status status) noexcept
{
    if (mError.isOk())
    {
        mError = std::move(status);
    }
}

bool PluginExprBuilder::owns(IDimensionExpr const* expr) const
{
    return expr != nullptr && mOwned.count(expr) != 0;
}

IDimensionExpr const* PluginExprBuilder::make(ExprId id, bool sizeTensor)
{
    if (!sizeTensor)
    {
        auto it = mById.find(id);
        if (it != mById.end())
        {
            return it->second;
        }
    }
    PluginDimensionExpr const& e = mArena.emplace_back(*this, id, sizeTensor);
    IDimensionExpr const* face = &e;
    mOwned.insert(face);
    if (!sizeTensor)
    {
        mById.emplace(id, &e);
    }
    return face;
}

IDimensionExpr const* PluginExprBuilder::wrap(ExprId id)
{
    return make(id, false);
}

IDimensionExpr const* PluginExprBuilder::constant(int64_t value) noexcept
{
    try
    {
        return make(mGraph.constant(value), false);
    }
    catch (std::exception const& e)
    {
        fail(internalError(std::string("IExprBuilder::constant failed: ") + e.what()));
        return nullptr;
    }
}

IDimensionExpr const* PluginExprBuilder::operation(
    DimensionOperation op, IDimensionExpr const& first, IDimensionExpr const& second) noexcept
{
    try
    {
        auto const code = static_cast<int32_t>(op);
        if (code < 0 || code > static_cast<int32_t>(DimensionOperation::kCEIL_DIV))
        {
            fail(invalidArgument("IExprBuilder::operation: invalid DimensionOperation " + std::to_string(code)));
            return nullptr;
        }
        if (!owns(&first) || !owns(&second))
        {
            fail(invalidArgument("IExprBuilder::operation: an operand was not created by this IExprBuilder (an "
                                 "expression kept from another shape call, or a foreign object)"));
            return nullptr;
        }
        auto const& a = static_cast<PluginDimensionExpr const&>(first);
        auto const& b = static_cast<PluginDimensionExpr const&>(second);
        return make(mGraph.op(static_cast<ExprOp>(code), a.id(), b.id()), false);
    }
    catch (std::exception const& e)
    {
        fail(internalError(std::string("IExprBuilder::operation failed: ") + e.what()));
        return nullptr;
    }
}

bool PluginExprBuilder::dependsOnDataDependentSymbol(ExprId root) const
{
    std::vector<ExprId> stack{root};
    std::unordered_set<ExprId> seen;
    while (!stack.empty())
    {
        ExprId id = stack.back();
        stack.pop_back();
        if (!mGraph.isValid(id) || !seen.insert(id).second)
        {
            continue;
        }
        ExprNode const& n = mGraph.node(id);
        if (n.op == ExprOp::kSYMBOL)
        {
            auto const s = static_cast<size_t>(n.value);
            if (s < mGraph.symbols().size() && mGraph.symbols()[s].kind == SymbolKind::kDATA_DEPENDENT)
            {
                return true;
            }
            continue;
        }
        if (n.op == ExprOp::kCONSTANT)
        {
            continue;
        }
        for (ExprId child : {n.a, n.b, n.c})
        {
            if (child != kNO_EXPR)
            {
                stack.push_back(child);
            }
        }
    }
    return false;
}

IDimensionExpr const* PluginExprBuilder::declareSizeTensor(
    int32_t outputIndex, IDimensionExpr const& opt, IDimensionExpr const& upper) noexcept
{
    try
    {
        std::string const call = "IExprBuilder::declareSizeTensor(" + std::to_string(outputIndex) + ")";
        if (!mAllowSizeTensors)
        {
            fail(unsupported(call + ": size tensors (data-dependent output shapes) need an IPluginV3 plugin"));
            return nullptr;
        }
        if (outputIndex < 0 || outputIndex >= mNbOutputs)
        {
            fail(invalidArgument(call + ": the plugin has " + std::to_string(mNbOutputs) + " output(s)"));
            return nullptr;
        }
        for (PluginSizeTensor const& t : mSizeTensors)
        {
            if (t.output == outputIndex)
            {
                fail(invalidArgument(call + ": output " + std::to_string(outputIndex)
                    + " was already declared a size tensor"));
                return nullptr;
            }
        }
        if (!owns(&opt) || !owns(&upper))
        {
            fail(invalidArgument(call + ": opt or upper was not created by this IExprBuilder"));
            return nullptr;
        }
        auto const& o = static_cast<PluginDimensionExpr const&>(opt);
        auto const& u = static_cast<PluginDimensionExpr const&>(upper);
        if (o.isSizeTensor() || dependsOnDataDependentSymbol(o.id()))
        {
            fail(invalidArgument(call + ": opt must not depend on a size tensor"));
            return nullptr;
        }
        if (u.isSizeTensor() || dependsOnDataDependentSymbol(u.id()))
        {
            fail(invalidArgument(call + ": upper must not depend on a size tensor (buffers are sized with it "
                                        "before any size is known)"));
            return nullptr;
        }
        ExprId const symbol = mGraph.symbol(SymbolKind::kDATA_DEPENDENT,
            mLayerName + "." + std::to_string(outputIndex) + ".size");
        mGraph.setSymbolBounds(static_cast<int32_t>(mGraph.node(symbol).value), u.id(), o.id());
        mSizeTensors.push_back(PluginSizeTensor{outputIndex, symbol, o.id(), u.id()});
        return make(symbol, true);
    }
    catch (std::exception const& e)
    {
        fail(internalError(std::string("IExprBuilder::declareSizeTensor failed: ") + e.what()));
        return nullptr;
    }
}

StatusOr<nvinfer1::DimsExprs> PluginExprBuilder::toDimsExprs(std::vector<DimExpr> const& shape, std::string const& what)
{
    if (shape.size() > static_cast<size_t>(nvinfer1::Dims::MAX_DIMS))
    {
        return invalidArgument(what + " has " + std::to_string(shape.size()) + " values; a DimsExprs holds at most "
            + std::to_string(nvinfer1::Dims::MAX_DIMS));
    }
    nvinfer1::DimsExprs out{};
    out.nbDims = static_cast<int32_t>(shape.size());
    for (size_t i = 0; i < shape.size(); ++i)
    {
        if (shape[i].graph() != &mGraph || !mGraph.isValid(shape[i].id()))
        {
            return internalError(what + ": extent " + std::to_string(i) + " belongs to another shape graph");
        }
        out.d[i] = wrap(shape[i].id());
    }
    return out;
}

StatusOr<ExprId> PluginExprBuilder::resolve(IDimensionExpr const* expr, std::string const& what) const
{
    if (expr == nullptr)
    {
        return invalidArgument(what + " is null");
    }
    if (!owns(expr))
    {
        return invalidArgument(what + " was not created by the IExprBuilder of this call (an expression kept "
                                      "from another call, or a foreign object)");
    }
    return static_cast<PluginDimensionExpr const*>(expr)->id();
}

StatusOr<ShapeExpr> PluginExprBuilder::toShape(nvinfer1::DimsExprs const& dims, std::string const& what) const
{
    if (dims.nbDims < 0 || dims.nbDims > nvinfer1::Dims::MAX_DIMS)
    {
        return invalidArgument(what + " has nbDims " + std::to_string(dims.nbDims) + " (must be 0.."
            + std::to_string(nvinfer1::Dims::MAX_DIMS) + ")");
    }
    ShapeExpr shape;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        KILN_ASSIGN_OR_RETURN(ExprId id, resolve(dims.d[i], what + " extent " + std::to_string(i)));
        if (mGraph.isConstant(id) && mGraph.constantValue(id) < 0)
        {
            return invalidArgument(what + " extent " + std::to_string(i) + " is negative ("
                + std::to_string(mGraph.constantValue(id)) + ")");
        }
        shape.emplace_back(&mGraph, id);
    }
    return shape;
}

} // namespace kiln
