// OneHotLayer, INetworkDefinition::addOneHot and the OneHot shape/type inference.
#include "network/layers/oneHotLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

namespace kiln
{
using nvinfer1::DataType;

namespace
{

//! TensorRT's axis range for indices of rank `rank`: [-rank - 1, rank].
bool validOneHotAxis(int64_t axis, int32_t rank)
{
    return axis >= -static_cast<int64_t>(rank) - 1 && axis <= rank;
}

std::string axisRange(int32_t rank)
{
    return "[" + std::to_string(-rank - 1) + ", " + std::to_string(rank) + "]";
}

bool validValuesType(DataType t)
{
    return t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16 || t == DataType::kINT32
        || t == DataType::kINT64 || t == DataType::kINT8 || t == DataType::kBOOL;
}

} // namespace

OneHotLayer::OneHotLayer(NetworkDefinition& network, Tensor* indices, Tensor* values, Tensor* depth, int32_t axis)
    : LayerBase<nvinfer1::IOneHotLayer>(network, nvinfer1::LayerType::kONE_HOT, {indices, values, depth}, 1)
{
    attrs().setInt("axis", axis);
}

void OneHotLayer::setAxis(int32_t axis) noexcept
{
    int32_t const rank = inputs()[0] != nullptr ? inputs()[0]->getDimensions().nbDims : 0;
    if (rank >= 0 && !validOneHotAxis(axis, rank))
    {
        network().reportError(invalidArgument("IOneHotLayer::setAxis on layer '" + name() + "': axis "
            + std::to_string(axis) + " is out of range " + axisRange(rank) + " for indices of rank "
            + std::to_string(rank)));
        return;
    }
    attrs().setInt("axis", axis);
    touch();
}

int32_t OneHotLayer::getAxis() const noexcept
{
    return static_cast<int32_t>(attrs().getInt("axis"));
}

nvinfer1::IOneHotLayer* NetworkDefinition::addOneHot(
    nvinfer1::ITensor& indices, nvinfer1::ITensor& values, nvinfer1::ITensor& depth, int32_t axis) noexcept
{
    try
    {
        Tensor* i = ownTensor(&indices, "addOneHot indices");
        Tensor* v = i != nullptr ? ownTensor(&values, "addOneHot values") : nullptr;
        Tensor* d = v != nullptr ? ownTensor(&depth, "addOneHot depth") : nullptr;
        if (d == nullptr)
        {
            return nullptr;
        }
        int32_t const rank = indices.getDimensions().nbDims;
        if (rank >= 0 && !validOneHotAxis(axis, rank))
        {
            reportError(invalidArgument("addOneHot: axis " + std::to_string(axis) + " is out of range "
                + axisRange(rank) + " for indices of rank " + std::to_string(rank)));
            return nullptr;
        }
        return adopt(std::make_unique<OneHotLayer>(*this, i, v, d, axis));
    }
    catch (...)
    {
        reportError(internalError("addOneHot: unexpected exception"));
        return nullptr;
    }
}

Status inferOneHot(InferContext& ctx)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0, 0, nvinfer1::Dims::MAX_DIMS - 1));
    KILN_RETURN_IF_ERROR(ctx.requireInput(1, 1, 1));
    KILN_RETURN_IF_ERROR(ctx.requireInput(2, 0, 1));
    TensorInfo const& indices = ctx.input(0);
    TensorInfo const& values = ctx.input(1);
    TensorInfo const& depth = ctx.input(2);
    if (indices.type != DataType::kINT32 && indices.type != DataType::kINT64)
    {
        return ctx.error("indices (input 0) '" + indices.name + "' has type " + dataTypeName(indices.type)
            + "; it must be INT32 or INT64");
    }
    if (!validValuesType(values.type))
    {
        return ctx.error("values (input 1) '" + values.name + "' has type " + dataTypeName(values.type)
            + "; OneHot supports FP32, FP16, BF16, INT32, INT64, INT8 and BOOL values");
    }
    DimExpr const nbValues = values.dims[0];
    if (nbValues.isConstant() && nbValues.constant() != 2)
    {
        return ctx.error("values (input 1) '" + values.name + "' must hold exactly 2 elements [off, on]; it has shape "
            + shapeToString(ctx.graph(), values.dims));
    }
    if (!nbValues.isConstant())
    {
        KILN_RETURN_IF_ERROR(ctx.require(nbValues.eq(ctx.constant(2)),
            "values (input 1) '" + values.name + "' must hold exactly 2 elements [off, on]"));
    }
    if (depth.type != DataType::kINT32 && depth.type != DataType::kINT64)
    {
        return ctx.error("depth (input 2) '" + depth.name + "' has type " + dataTypeName(depth.type)
            + "; it must be INT32 or INT64");
    }
    bool const scalar = depth.rank() == 0 || (depth.rank() == 1 && depth.dims[0].is(1));
    if (!scalar)
    {
        return ctx.error("depth (input 2) '" + depth.name + "' must be a scalar (0-D) tensor; it has shape "
            + shapeToString(ctx.graph(), depth.dims));
    }
    KILN_RETURN_IF_ERROR(ctx.requireValues(2));
    if (depth.values->size() != 1)
    {
        return ctx.error("depth (input 2) '" + depth.name + "' must hold exactly one value");
    }
    DimExpr const d = (*depth.values)[0];
    if (d.isConstant())
    {
        if (d.constant() < 1)
        {
            return ctx.error("depth = " + std::to_string(d.constant()) + " (input 2) must be positive");
        }
    }
    else
    {
        KILN_RETURN_IF_ERROR(ctx.require(ctx.constant(0).lt(d), "depth (input 2 '" + depth.name + "') must be positive"));
    }
    int32_t const rank = indices.rank();
    int64_t axis = ctx.attrs().getInt("axis", -1);
    if (!validOneHotAxis(axis, rank))
    {
        return ctx.error("axis " + std::to_string(axis) + " is out of range " + axisRange(rank)
            + " for indices of rank " + std::to_string(rank));
    }
    if (axis < 0)
    {
        axis += rank + 1;
    }
    ShapeExpr dims = indices.dims;
    dims.insert(dims.begin() + axis, d);
    TensorInfo& out = ctx.output(0);
    out.type = values.type;
    out.dims = dims;
    return Status::ok();
}

} // namespace kiln
