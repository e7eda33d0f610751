// SelectLayer, INetworkDefinition::addSelect and the select shape/type/value inference.
#include "network/layers/selectLayer.h"

#include "network/layerTable.h"
#include "network/layers/elementWiseLayer.h"
#include "network/networkDefinition.h"

namespace kiln
{
using nvinfer1::DataType;

SelectLayer::SelectLayer(NetworkDefinition& network, Tensor* condition, Tensor* thenInput, Tensor* elseInput)
    : LayerBase<nvinfer1::ISelectLayer>(network, nvinfer1::LayerType::kSELECT, {condition, thenInput, elseInput}, 1)
{
}

nvinfer1::ISelectLayer* NetworkDefinition::addSelect(
    nvinfer1::ITensor& condition, nvinfer1::ITensor& thenInput, nvinfer1::ITensor& elseInput) noexcept
{
    try
    {
        Tensor* c = ownTensor(&condition, "addSelect condition");
        if (c == nullptr)
        {
            return nullptr;
        }
        Tensor* t = ownTensor(&thenInput, "addSelect thenInput");
        if (t == nullptr)
        {
            return nullptr;
        }
        Tensor* e = ownTensor(&elseInput, "addSelect elseInput");
        if (e == nullptr)
        {
            return nullptr;
        }
        return adopt(std::make_unique<SelectLayer>(*this, c, t, e));
    }
    catch (...)
    {
        reportError(internalError("addSelect: unexpected exception"));
        return nullptr;
    }
}

Status inferSelect(InferContext& ctx)
{
    if (ctx.nbInputs() != 3)
    {
        return ctx.error("needs exactly 3 inputs (condition, then, else), has " + std::to_string(ctx.nbInputs()));
    }
    for (int32_t i = 0; i < 3; ++i)
    {
        KILN_RETURN_IF_ERROR(ctx.requireInput(i));
    }
    TensorInfo const& c = ctx.input(0);
    TensorInfo const& t = ctx.input(1);
    TensorInfo const& e = ctx.input(2);
    if (c.type != DataType::kBOOL)
    {
        return ctx.error("condition '" + c.name + "' has type " + typeName(c.type) + "; it must be BOOL");
    }
    if (!isStorableType(t.type))
    {
        return ctx.error("then input '" + t.name + "' has unsupported type " + typeName(t.type));
    }
    if (t.type != e.type)
    {
        return ctx.error("then input '" + t.name + "' has type " + typeName(t.type) + " but else input '" + e.name
            + "' has type " + typeName(e.type) + "; the types must match");
    }
    if (c.rank() != t.rank() || c.rank() != e.rank())
    {
        return ctx.error("inputs must have the same rank: condition '" + c.name + "' has rank "
            + std::to_string(c.rank()) + ", then '" + t.name + "' " + std::to_string(t.rank()) + ", else '" + e.name
            + "' " + std::to_string(e.rank()));
    }
    KILN_ASSIGN_OR_RETURN(ShapeExpr ct, broadcastShapes(ctx, c.dims, t.dims, "condition and then input"));
    KILN_ASSIGN_OR_RETURN(ShapeExpr dims, broadcastShapes(ctx, ct, e.dims, "condition/then and else input"));

    TensorInfo& out = ctx.output(0);
    out.type = t.type;
    out.dims = dims;

    if (isShapeIntType(out.type) || out.type == DataType::kBOOL)
    {
        auto vc = broadcastValues(c, dims);
        auto vt = broadcastValues(t, dims);
        auto ve = broadcastValues(e, dims);
        if (vc.has_value() && vt.has_value() && ve.has_value())
        {
            std::vector<DimExpr> values;
            for (size_t i = 0; i < vc->size(); ++i)
            {
                values.push_back((*vc)[i].select((*vt)[i], (*ve)[i]));
            }
            out.values = std::move(values);
        }
    }
    return Status::ok();
}

} // namespace kiln
