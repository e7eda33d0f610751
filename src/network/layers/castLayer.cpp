// CastLayer, INetworkDefinition::addCast and the cast shape/type/value inference.
#include "network/layers/castLayer.h"

#include "network/layerTable.h"
#include "network/layers/elementWiseLayer.h"
#include "network/networkDefinition.h"

namespace kiln
{
using nvinfer1::DataType;

namespace
{
constexpr char const* kSUPPORTED = "FP32, FP16, BF16, INT8, UINT8, INT32, INT64 or BOOL";
} // namespace

CastLayer::CastLayer(NetworkDefinition& network, Tensor* input, DataType toType)
    : LayerBase<nvinfer1::ICastLayer>(network, nvinfer1::LayerType::kCAST, {input}, 1)
{
    attrs().setInt("toType", static_cast<int64_t>(toType));
}

void CastLayer::setToType(DataType toType) noexcept
{
    if (!isStorableType(toType))
    {
        network().reportError(invalidArgument("ICastLayer::setToType on layer '" + name() + "': cannot cast to "
            + typeName(toType) + " (supported: " + kSUPPORTED + ")"));
        return;
    }
    attrs().setInt("toType", static_cast<int64_t>(toType));
    touch();
}

DataType CastLayer::getToType() const noexcept
{
    return static_cast<DataType>(attrs().getInt("toType"));
}

nvinfer1::ICastLayer* NetworkDefinition::addCast(nvinfer1::ITensor& input, DataType toType) noexcept
{
    try
    {
        Tensor* in = ownTensor(&input, "addCast input");
        if (in == nullptr)
        {
            return nullptr;
        }
        if (!isStorableType(toType))
        {
            reportError(invalidArgument("addCast: cannot cast to " + typeName(toType) + " (supported: "
                + kSUPPORTED + ")"));
            return nullptr;
        }
        return adopt(std::make_unique<CastLayer>(*this, in, toType));
    }
    catch (...)
    {
        reportError(internalError("addCast: unexpected exception"));
        return nullptr;
    }
}

Status inferCast(InferContext& ctx)
{
    if (ctx.nbInputs() != 1)
    {
        return ctx.error("needs exactly 1 input, has " + std::to_string(ctx.nbInputs()));
    }
    KILN_RETURN_IF_ERROR(ctx.requireInput(0));
    TensorInfo const& in = ctx.input(0);
    auto const toType = static_cast<DataType>(ctx.attrs().getInt("toType", -1));
    if (!isStorableType(toType))
    {
        return ctx.error("cannot cast to " + typeName(toType) + " (supported: " + kSUPPORTED + ")");
    }
    if (!isStorableType(in.type))
    {
        return ctx.error("cannot cast input '" + in.name + "' of type " + typeName(in.type) + " (supported: "
            + kSUPPORTED + ")");
    }
    TensorInfo& out = ctx.output(0);
    out.type = toType;
    out.dims = in.dims;

    // Shape tensors: integer and boolean conversions keep their values (assumed in range); BOOL becomes v != 0.
    bool const intLike = [](DataType t) { return isShapeIntType(t) || t == DataType::kBOOL; }(in.type);
    if (in.values.has_value() && intLike && (isShapeIntType(toType) || toType == DataType::kBOOL))
    {
        if (toType == DataType::kBOOL && in.type != DataType::kBOOL)
        {
            std::vector<DimExpr> values;
            for (DimExpr const& v : *in.values)
            {
                values.push_back(v.eq(0).logicalNot());
            }
            out.values = std::move(values);
        }
        else
        {
            out.values = in.values;
        }
    }
    return Status::ok();
}

} // namespace kiln
