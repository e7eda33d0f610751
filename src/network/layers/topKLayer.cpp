// TopKLayer, INetworkDefinition::addTopK (both overloads) and the TopK shape/type inference.
#include "network/layers/topKLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

#include <bit>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::TopKOperation;

namespace
{

bool validTopKOp(TopKOperation op)
{
    return op == TopKOperation::kMAX || op == TopKOperation::kMIN;
}

bool validTopKAxes(uint32_t axes)
{
    return std::popcount(axes) == 1 && (axes >> nvinfer1::Dims::MAX_DIMS) == 0;
}

bool validK(int32_t k)
{
    return k >= 1 && k <= TopKLayer::kMAX_K;
}

} // namespace

TopKLayer::TopKLayer(NetworkDefinition& network, Tensor* input, TopKOperation op, int32_t k, uint32_t axes,
    DataType indicesType)
    : LayerBase<nvinfer1::ITopKLayer>(network, nvinfer1::LayerType::kTOPK, {input}, 2)
{
    setMaxInputs(2);
    attrs().setInt("operation", static_cast<int64_t>(op));
    attrs().setInt("k", k);
    attrs().setInt("axes", static_cast<int64_t>(axes));
    attrs().setInt("indicesType", static_cast<int64_t>(indicesType));
}

void TopKLayer::setOperation(TopKOperation op) noexcept
{
    if (!validTopKOp(op))
    {
        network().reportError(invalidArgument("ITopKLayer::setOperation on layer '" + name() + "': operation "
            + std::to_string(static_cast<int32_t>(op)) + " is not kMAX or kMIN"));
        return;
    }
    attrs().setInt("operation", static_cast<int64_t>(op));
    touch();
}

TopKOperation TopKLayer::getOperation() const noexcept
{
    return static_cast<TopKOperation>(attrs().getInt("operation"));
}

void TopKLayer::setK(int32_t k) noexcept
{
    if (!validK(k))
    {
        network().reportError(invalidArgument("ITopKLayer::setK on layer '" + name() + "': k = " + std::to_string(k)
            + " is out of range [1, " + std::to_string(kMAX_K) + "]"));
        return;
    }
    attrs().setInt("k", k);
    // As in TensorRT, a static k replaces a k tensor given as input 1.
    if (inputs().size() > 1)
    {
        inputs().resize(1);
    }
    touch();
}

int32_t TopKLayer::getK() const noexcept
{
    if (inputs().size() > 1 && inputs()[1] != nullptr)
    {
        return -1;
    }
    return static_cast<int32_t>(attrs().getInt("k"));
}

void TopKLayer::setReduceAxes(uint32_t reduceAxes) noexcept
{
    if (!validTopKAxes(reduceAxes))
    {
        network().reportError(invalidArgument("ITopKLayer::setReduceAxes on layer '" + name() + "': axes mask "
            + std::to_string(reduceAxes) + " must have exactly one bit set"));
        return;
    }
    attrs().setInt("axes", static_cast<int64_t>(reduceAxes));
    touch();
}

uint32_t TopKLayer::getReduceAxes() const noexcept
{
    return static_cast<uint32_t>(attrs().getInt("axes"));
}

bool TopKLayer::setIndicesType(DataType type) noexcept
{
    if (type != DataType::kINT32 && type != DataType::kINT64)
    {
        network().reportError(invalidArgument("ITopKLayer::setIndicesType on layer '" + name() + "': type "
            + dataTypeName(type) + " is not kINT32 or kINT64"));
        return false;
    }
    attrs().setInt("indicesType", static_cast<int64_t>(type));
    touch();
    return true;
}

DataType TopKLayer::getIndicesType() const noexcept
{
    return static_cast<DataType>(attrs().getInt("indicesType", static_cast<int64_t>(DataType::kINT32)));
}

nvinfer1::ITopKLayer* NetworkDefinition::addTopK(
    nvinfer1::ITensor& input, TopKOperation op, int32_t k, uint32_t reduceAxes, DataType indicesType) noexcept
{
    try
    {
        Tensor* in = ownTensor(&input, "addTopK input");
        if (in == nullptr)
        {
            return nullptr;
        }
        if (!validTopKOp(op))
        {
            reportError(invalidArgument(
                "addTopK: operation " + std::to_string(static_cast<int32_t>(op)) + " is not kMAX or kMIN"));
            return nullptr;
        }
        if (!validK(k))
        {
            reportError(invalidArgument("addTopK: k = " + std::to_string(k) + " is out of range [1, "
                + std::to_string(TopKLayer::kMAX_K) + "] (for a k known only at run time, pass any valid k and "
                + "set the k tensor with setInput(1, k))"));
            return nullptr;
        }
        if (!validTopKAxes(reduceAxes))
        {
            reportError(invalidArgument(
                "addTopK: reduceAxes mask " + std::to_string(reduceAxes) + " must have exactly one bit set"));
            return nullptr;
        }
        if (indicesType != DataType::kINT32 && indicesType != DataType::kINT64)
        {
            reportError(invalidArgument(
                std::string("addTopK: indicesType ") + dataTypeName(indicesType) + " is not kINT32 or kINT64"));
            return nullptr;
        }
        return adopt(std::make_unique<TopKLayer>(*this, in, op, k, reduceAxes, indicesType));
    }
    catch (...)
    {
        reportError(internalError("addTopK: unexpected exception"));
        return nullptr;
    }
}

nvinfer1::ITopKLayer* NetworkDefinition::addTopK(
    nvinfer1::ITensor& input, TopKOperation op, int32_t k, uint32_t reduceAxes) noexcept
{
    return addTopK(input, op, k, reduceAxes, DataType::kINT32);
}

Status inferTopK(InferContext& ctx)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0, 1, nvinfer1::Dims::MAX_DIMS));
    TensorInfo const& in = ctx.input(0);
    DataType const t = in.type;
    if (t != DataType::kFLOAT && t != DataType::kHALF && t != DataType::kBF16 && t != DataType::kINT32
        && t != DataType::kINT64)
    {
        return ctx.error("input '" + in.name + "' has type " + dataTypeName(t)
            + "; TopK supports FP32, FP16, BF16, INT32 and INT64");
    }
    auto const op = static_cast<TopKOperation>(ctx.attrs().getInt("operation", -1));
    if (!validTopKOp(op))
    {
        return ctx.error("invalid TopK operation " + std::to_string(static_cast<int32_t>(op)));
    }
    auto const indicesType = static_cast<DataType>(ctx.attrs().getInt("indicesType", -1));
    if (indicesType != DataType::kINT32 && indicesType != DataType::kINT64)
    {
        return ctx.error("indices type must be kINT32 or kINT64");
    }
    int64_t const mask = ctx.attrs().getInt("axes", 0);
    int32_t const rank = in.rank();
    if (mask <= 0 || std::popcount(static_cast<uint64_t>(mask)) != 1 || (mask >> rank) != 0)
    {
        return ctx.error("reduce axes mask " + std::to_string(mask) + " must name exactly one axis of input '"
            + in.name + "' (rank " + std::to_string(rank) + ")");
    }
    int32_t const axis = std::countr_zero(static_cast<uint64_t>(mask));
    DimExpr const extent = in.dims[static_cast<size_t>(axis)];

    DimExpr k;
    if (ctx.hasInput(1))
    {
        TensorInfo const& kt = ctx.input(1);
        if (kt.type != DataType::kINT32 && kt.type != DataType::kINT64)
        {
            return ctx.error("k tensor (input 1) '" + kt.name + "' has type " + dataTypeName(kt.type)
                + "; it must be INT32 or INT64");
        }
        bool const scalar = kt.rank() == 0 || (kt.rank() == 1 && kt.dims[0].is(1));
        if (!scalar)
        {
            return ctx.error("k tensor (input 1) '" + kt.name + "' must be a scalar (0-D) tensor; it has shape "
                + shapeToString(ctx.graph(), kt.dims));
        }
        KILN_RETURN_IF_ERROR(ctx.requireValues(1));
        if (kt.values->size() != 1)
        {
            return ctx.error("k tensor (input 1) '" + kt.name + "' must hold exactly one value");
        }
        k = (*kt.values)[0];
        if (k.isConstant() && (k.constant() < 1 || k.constant() > TopKLayer::kMAX_K))
        {
            return ctx.error("k = " + std::to_string(k.constant()) + " (input 1) is out of range [1, "
                + std::to_string(TopKLayer::kMAX_K) + "]");
        }
        KILN_RETURN_IF_ERROR(ctx.require(ctx.constant(0).lt(k).logicalAnd(k.le(ctx.constant(TopKLayer::kMAX_K))),
            "k (input 1 '" + kt.name + "') must be in [1, " + std::to_string(TopKLayer::kMAX_K) + "]"));
    }
    else
    {
        int64_t const kv = ctx.attrs().getInt("k", 0);
        if (kv < 1 || kv > TopKLayer::kMAX_K)
        {
            return ctx.error("k = " + std::to_string(kv) + " is out of range [1, " + std::to_string(TopKLayer::kMAX_K)
                + "]");
        }
        k = ctx.constant(kv);
    }
    if (k.isConstant() && extent.isConstant())
    {
        if (k.constant() > extent.constant())
        {
            return ctx.error("k = " + std::to_string(k.constant()) + " exceeds the extent "
                + std::to_string(extent.constant()) + " of axis " + std::to_string(axis) + " of input '" + in.name
                + "'");
        }
    }
    else
    {
        KILN_RETURN_IF_ERROR(ctx.require(k.le(extent),
            "k must not exceed the extent of axis " + std::to_string(axis) + " of input '" + in.name + "'"));
    }
    ShapeExpr dims = in.dims;
    dims[static_cast<size_t>(axis)] = k;
    TensorInfo& values = ctx.output(0);
    values.type = t;
    values.dims = dims;
    TensorInfo& indices = ctx.output(1);
    indices.type = indicesType;
    indices.dims = dims;
    return Status::ok();
}

} // namespace kiln
