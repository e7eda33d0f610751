// UnaryLayer, INetworkDefinition::addUnary and the unary shape/type/value inference.
#include "network/layers/unaryLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/layers/elementWiseLayer.h"
#include "network/networkDefinition.h"

#include <optional>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::UnaryOperation;

namespace
{
bool validOperation(UnaryOperation op)
{
    int32_t const v = static_cast<int32_t>(op);
    return v >= 0 && v < nvinfer1::EnumMax<UnaryOperation>();
}

char const* operationName(UnaryOperation op)
{
    switch (op)
    {
    case UnaryOperation::kEXP: return "kEXP";
    case UnaryOperation::kLOG: return "kLOG";
    case UnaryOperation::kSQRT: return "kSQRT";
    case UnaryOperation::kRECIP: return "kRECIP";
    case UnaryOperation::kABS: return "kABS";
    case UnaryOperation::kNEG: return "kNEG";
    case UnaryOperation::kSIN: return "kSIN";
    case UnaryOperation::kCOS: return "kCOS";
    case UnaryOperation::kTAN: return "kTAN";
    case UnaryOperation::kSINH: return "kSINH";
    case UnaryOperation::kCOSH: return "kCOSH";
    case UnaryOperation::kASIN: return "kASIN";
    case UnaryOperation::kACOS: return "kACOS";
    case UnaryOperation::kATAN: return "kATAN";
    case UnaryOperation::kASINH: return "kASINH";
    case UnaryOperation::kACOSH: return "kACOSH";
    case UnaryOperation::kATANH: return "kATANH";
    case UnaryOperation::kCEIL: return "kCEIL";
    case UnaryOperation::kFLOOR: return "kFLOOR";
    case UnaryOperation::kERF: return "kERF";
    case UnaryOperation::kNOT: return "kNOT";
    case UnaryOperation::kSIGN: return "kSIGN";
    case UnaryOperation::kROUND: return "kROUND";
    case UnaryOperation::kISINF: return "kISINF";
    case UnaryOperation::kISNAN: return "kISNAN";
    }
    return "?";
}

//! TensorRT's input types: kNOT takes BOOL; kABS, kNEG and kSIGN also take INT8/INT32/INT64; the rest floats.
bool operationAcceptsType(UnaryOperation op, DataType t)
{
    switch (op)
    {
    case UnaryOperation::kNOT: return t == DataType::kBOOL;
    case UnaryOperation::kABS:
    case UnaryOperation::kNEG:
    case UnaryOperation::kSIGN:
        return isFloatStorageType(t) || t == DataType::kINT8 || t == DataType::kINT32 || t == DataType::kINT64;
    default: return isFloatStorageType(t);
    }
}

char const* allowedTypes(UnaryOperation op)
{
    switch (op)
    {
    case UnaryOperation::kNOT: return "BOOL";
    case UnaryOperation::kABS:
    case UnaryOperation::kNEG:
    case UnaryOperation::kSIGN: return "FP32, FP16, BF16, INT8, INT32 or INT64";
    default: return "FP32, FP16 or BF16";
    }
}
std::optional<std::vector<DimExpr>> floatUnaryValues(
    InferContext& ctx, UnaryOperation op, std::vector<DimExpr> const& in)
{
    std::vector<DimExpr> values;
    DimExpr const zero(&ctx.graph(), ctx.graph().floatConstant(0.0));
    for (DimExpr const& v : in)
    {
        switch (op)
        {
        case UnaryOperation::kFLOOR: values.push_back(v.floatRound(ExprRounding::kFLOOR)); break;
        case UnaryOperation::kCEIL: values.push_back(v.floatRound(ExprRounding::kCEIL)); break;
        case UnaryOperation::kROUND: values.push_back(v.floatRound(ExprRounding::kROUND_HALF_EVEN)); break;
        case UnaryOperation::kNEG: values.push_back(zero.floatOp(ExprOp::kF_SUB, v)); break;
        case UnaryOperation::kABS: values.push_back(v.floatOp(ExprOp::kF_MAX, zero.floatOp(ExprOp::kF_SUB, v))); break;
        default: return std::nullopt;
        }
    }
    return values;
}
} // namespace

UnaryLayer::UnaryLayer(NetworkDefinition& network, Tensor* input, UnaryOperation op)
    : LayerBase<nvinfer1::IUnaryLayer>(network, nvinfer1::LayerType::kUNARY, {input}, 1)
{
    attrs().setInt("operation", static_cast<int64_t>(op));
}

void UnaryLayer::setOperation(UnaryOperation op) noexcept
{
    if (!validOperation(op))
    {
        network().reportError(invalidArgument("IUnaryLayer::setOperation on layer '" + name()
            + "': invalid UnaryOperation " + std::to_string(static_cast<int32_t>(op))));
        return;
    }
    attrs().setInt("operation", static_cast<int64_t>(op));
    touch();
}

UnaryOperation UnaryLayer::getOperation() const noexcept
{
    return static_cast<UnaryOperation>(attrs().getInt("operation"));
}

nvinfer1::IUnaryLayer* NetworkDefinition::addUnary(nvinfer1::ITensor& input, UnaryOperation operation) noexcept
{
    try
    {
        Tensor* in = ownTensor(&input, "addUnary input");
        if (in == nullptr)
        {
            return nullptr;
        }
        if (!validOperation(operation))
        {
            reportError(invalidArgument(
                "addUnary: invalid UnaryOperation " + std::to_string(static_cast<int32_t>(operation))));
            return nullptr;
        }
        return adopt(std::make_unique<UnaryLayer>(*this, in, operation));
    }
    catch (...)
    {
        reportError(internalError("addUnary: unexpected exception"));
        return nullptr;
    }
}

Status inferUnary(InferContext& ctx)
{
    if (ctx.nbInputs() != 1)
    {
        return ctx.error("needs exactly 1 input, has " + std::to_string(ctx.nbInputs()));
    }
    KILN_RETURN_IF_ERROR(ctx.requireInput(0));
    auto const op = static_cast<UnaryOperation>(ctx.attrs().getInt("operation", -1));
    if (!validOperation(op))
    {
        return ctx.error("invalid operation " + std::to_string(ctx.attrs().getInt("operation", -1)));
    }
    TensorInfo const& in = ctx.input(0);
    if (!operationAcceptsType(op, in.type))
    {
        return ctx.error(std::string("operation ") + operationName(op) + " does not accept input '" + in.name
            + "' of type " + typeName(in.type) + " (expected " + allowedTypes(op) + ")");
    }
    TensorInfo& out = ctx.output(0);
    out.type = (op == UnaryOperation::kISINF || op == UnaryOperation::kISNAN) ? DataType::kBOOL : in.type;
    out.dims = in.dims;

    // FLOAT shape tensors (e.g. computed resize sizes): rounding, negation and absolute value.
    if (in.values.has_value() && in.type == DataType::kFLOAT && out.type == DataType::kFLOAT)
    {
        out.values = floatUnaryValues(ctx, op, *in.values);
        return Status::ok();
    }
    // Shape tensors: the integer operations have exact symbolic forms.
    if (in.values.has_value() && (isShapeIntType(out.type) || out.type == DataType::kBOOL))
    {
        std::vector<DimExpr> values;
        bool ok = true;
        for (DimExpr const& v : *in.values)
        {
            DimExpr const zero = ctx.constant(0);
            switch (op)
            {
            case UnaryOperation::kNEG: values.push_back(zero - v); break;
            case UnaryOperation::kABS: values.push_back(v.max(zero - v)); break;
            case UnaryOperation::kSIGN: values.push_back(zero.lt(v) - v.lt(0)); break;
            case UnaryOperation::kNOT: values.push_back(v.logicalNot()); break;
            default: ok = false; break;
            }
            if (!ok)
            {
                break;
            }
        }
        if (ok)
        {
            out.values = std::move(values);
        }
    }
    return Status::ok();
}

} // namespace kiln
