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

std::optional<std::vector<DimExpr>> castValues(std::vector<DimExpr> const& values, DataType from, DataType to)
{
    auto const intLike = [](DataType t) { return isShapeIntType(t) || t == DataType::kBOOL; };
    std::vector<DimExpr> out;
    out.reserve(values.size());
    for (DimExpr const& v : values)
    {
        if (intLike(from) && intLike(to))
        {
            out.push_back(to == DataType::kBOOL && from != DataType::kBOOL ? v.eq(0).logicalNot() : v);
        }
        else if (intLike(from) && to == DataType::kFLOAT)
        {
            out.push_back(v.toFloat());
        }
        else if (from == DataType::kFLOAT && to == DataType::kFLOAT)
        {
            out.push_back(v);
        }
        else if (from == DataType::kFLOAT && isShapeIntType(to))
        {
            out.push_back(v.toInt(ExprRounding::kTRUNC));
        }
        else
        {
            return std::nullopt;
        }
    }
    return out;
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

    // Shape tensors: the values follow the conversion where it has an exact symbolic form.
    if (in.values.has_value())
    {
        out.values = castValues(*in.values, in.type, toType);
    }
    return Status::ok();
}

} // namespace kiln
