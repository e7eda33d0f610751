// ElementWiseLayer, INetworkDefinition::addElementWise, the elementwise shape/type/value inference, and the
// helpers shared by the other inference functions of the elementwise family.
#include "network/layers/elementWiseLayer.h"

#include "core/dataType.h"
#include "core/intArithmetic.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

#include <cmath>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;

// ---------------------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------------------

bool isStorableType(DataType type)
{
    switch (type)
    {
    case DataType::kFLOAT:
    case DataType::kHALF:
    case DataType::kBF16:
    case DataType::kINT8:
    case DataType::kUINT8:
    case DataType::kINT32:
    case DataType::kINT64:
    case DataType::kBOOL: return true;
    default: return false;
    }
}

bool isShapeIntType(DataType type)
{
    return type == DataType::kINT32 || type == DataType::kINT64;
}

std::string typeName(DataType type)
{
    if (!isValidDataType(static_cast<int32_t>(type)))
    {
        return "DataType(" + std::to_string(static_cast<int32_t>(type)) + ")";
    }
    return dataTypeName(type);
}

std::optional<std::vector<DimExpr>> broadcastValues(TensorInfo const& info, ShapeExpr const& outDims)
{
    if (!info.values.has_value() || info.dims.size() != outDims.size())
    {
        return std::nullopt;
    }
    size_t const rank = outDims.size();
    std::vector<int64_t> outExtent(rank);
    std::vector<int64_t> inExtent(rank);
    int64_t outVolume = 1;
    int64_t inVolume = 1;
    for (size_t i = 0; i < rank; ++i)
    {
        if (!outDims[i].isConstant() || !info.dims[i].isConstant())
        {
            return std::nullopt;
        }
        outExtent[i] = outDims[i].constant();
        inExtent[i] = info.dims[i].constant();
        if (outExtent[i] < 0 || inExtent[i] < 0 || (inExtent[i] != outExtent[i] && inExtent[i] != 1))
        {
            return std::nullopt;
        }
        // Checked: an empty output (an extent of 0) keeps outVolume small while the other extents may be huge.
        if (__builtin_mul_overflow(outVolume, outExtent[i], &outVolume)
            || __builtin_mul_overflow(inVolume, inExtent[i], &inVolume) || outVolume > kMAX_SHAPE_VALUES)
        {
            return std::nullopt;
        }
    }
    std::vector<DimExpr> const& in = *info.values;
    if (static_cast<int64_t>(in.size()) != inVolume)
    {
        return std::nullopt;
    }
    // Row-major strides of the input, zero along broadcast dimensions.
    std::vector<int64_t> inStride(rank, 0);
    int64_t s = 1;
    for (size_t i = rank; i-- > 0;)
    {
        inStride[i] = inExtent[i] == 1 ? 0 : s;
        if (__builtin_mul_overflow(s, inExtent[i], &s))
        {
            return std::nullopt; // only an empty input gets here (its volume did not overflow): nothing to propagate
        }
    }
    std::vector<DimExpr> out;
    out.reserve(static_cast<size_t>(outVolume));
    std::vector<int64_t> index(rank, 0);
    for (int64_t n = 0; n < outVolume; ++n)
    {
        int64_t offset = 0;
        for (size_t i = 0; i < rank; ++i)
        {
            offset += index[i] * inStride[i];
        }
        out.push_back(in[static_cast<size_t>(offset)]);
        for (size_t i = rank; i-- > 0;)
        {
            if (++index[i] < outExtent[i])
            {
                break;
            }
            index[i] = 0;
        }
    }
    return out;
}

Status checkWeightsArgument(nvinfer1::Weights const& w, std::string const& what)
{
    if (w.count < 0)
    {
        return invalidArgument(what + ": weights count " + std::to_string(w.count) + " is negative");
    }
    if (w.count > 0 && w.values == nullptr)
    {
        return invalidArgument(what + ": weights have count " + std::to_string(w.count) + " but no values");
    }
    if (w.count > 0 && !isStorableType(w.type))
    {
        return invalidArgument(what + ": weights of type " + typeName(w.type) + " are not supported");
    }
    return Status::ok();
}

// ---------------------------------------------------------------------------------------------------------
// ElementWiseLayer
// ---------------------------------------------------------------------------------------------------------

namespace
{
bool validOperation(ElementWiseOperation op)
{
    int32_t const v = static_cast<int32_t>(op);
    return v >= 0 && v < nvinfer1::EnumMax<ElementWiseOperation>();
}

char const* operationName(ElementWiseOperation op)
{
    switch (op)
    {
    case ElementWiseOperation::kSUM: return "kSUM";
    case ElementWiseOperation::kPROD: return "kPROD";
    case ElementWiseOperation::kMAX: return "kMAX";
    case ElementWiseOperation::kMIN: return "kMIN";
    case ElementWiseOperation::kSUB: return "kSUB";
    case ElementWiseOperation::kDIV: return "kDIV";
    case ElementWiseOperation::kPOW: return "kPOW";
    case ElementWiseOperation::kFLOOR_DIV: return "kFLOOR_DIV";
    case ElementWiseOperation::kAND: return "kAND";
    case ElementWiseOperation::kOR: return "kOR";
    case ElementWiseOperation::kXOR: return "kXOR";
    case ElementWiseOperation::kEQUAL: return "kEQUAL";
    case ElementWiseOperation::kGREATER: return "kGREATER";
    case ElementWiseOperation::kLESS: return "kLESS";
    }
    return "?";
}

bool isLogical(ElementWiseOperation op)
{
    return op == ElementWiseOperation::kAND || op == ElementWiseOperation::kOR || op == ElementWiseOperation::kXOR;
}

bool isComparison(ElementWiseOperation op)
{
    return op == ElementWiseOperation::kEQUAL || op == ElementWiseOperation::kGREATER
        || op == ElementWiseOperation::kLESS;
}

//! TensorRT's input types per operation (the operator reference's table).
bool operationAcceptsType(ElementWiseOperation op, DataType t)
{
    if (isLogical(op))
    {
        return t == DataType::kBOOL;
    }
    if (isComparison(op))
    {
        return isFloatStorageType(t) || t == DataType::kINT32 || t == DataType::kINT64;
    }
    return isFloatStorageType(t) || t == DataType::kINT8 || t == DataType::kINT32 || t == DataType::kINT64;
}

//! Symbolic value of `a op b` for shape tensors; nullopt when the operation has no integer expression.
std::optional<DimExpr> valueOp(InferContext& ctx, ElementWiseOperation op, DimExpr a, DimExpr b)
{
    switch (op)
    {
    case ElementWiseOperation::kSUM: return a + b;
    case ElementWiseOperation::kPROD: return a * b;
    case ElementWiseOperation::kMAX: return a.max(b);
    case ElementWiseOperation::kMIN: return a.min(b);
    case ElementWiseOperation::kSUB: return a - b;
    case ElementWiseOperation::kDIV: return a.truncDiv(b);
    case ElementWiseOperation::kFLOOR_DIV: return a.floorDiv(b);
    case ElementWiseOperation::kEQUAL: return a.eq(b);
    case ElementWiseOperation::kLESS: return a.lt(b);
    case ElementWiseOperation::kGREATER: return b.lt(a);
    case ElementWiseOperation::kAND: return a.logicalAnd(b);
    case ElementWiseOperation::kOR: return a.logicalOr(b);
    case ElementWiseOperation::kXOR: return a.eq(b).logicalNot();
    case ElementWiseOperation::kPOW:
        if (a.isConstant() && b.isConstant())
        {
            return ctx.constant(intPow(a.constant(), b.constant()));
        }
        return std::nullopt;
    }
    return std::nullopt;
}
//! Symbolic value of `a op b` for FLOAT shape tensors; nullopt when the operation is not tracked.
std::optional<DimExpr> floatValueOp(ElementWiseOperation op, DimExpr a, DimExpr b)
{
    switch (op)
    {
    case ElementWiseOperation::kSUM: return a.floatOp(ExprOp::kF_SUM, b);
    case ElementWiseOperation::kPROD: return a.floatOp(ExprOp::kF_PROD, b);
    case ElementWiseOperation::kSUB: return a.floatOp(ExprOp::kF_SUB, b);
    case ElementWiseOperation::kDIV: return a.floatOp(ExprOp::kF_DIV, b);
    case ElementWiseOperation::kMAX: return a.floatOp(ExprOp::kF_MAX, b);
    case ElementWiseOperation::kMIN: return a.floatOp(ExprOp::kF_MIN, b);
    case ElementWiseOperation::kFLOOR_DIV: return a.floatOp(ExprOp::kF_DIV, b).floatRound(ExprRounding::kFLOOR);
    default: return std::nullopt;
    }
}
} // namespace

ElementWiseLayer::ElementWiseLayer(
    NetworkDefinition& network, Tensor* input1, Tensor* input2, ElementWiseOperation op)
    : LayerBase<nvinfer1::IElementWiseLayer>(network, nvinfer1::LayerType::kELEMENTWISE, {input1, input2}, 1)
{
    attrs().setInt("operation", static_cast<int64_t>(op));
}

void ElementWiseLayer::setOperation(ElementWiseOperation op) noexcept
{
    if (!validOperation(op))
    {
        network().reportError(invalidArgument("IElementWiseLayer::setOperation on layer '" + name()
            + "': invalid ElementWiseOperation " + std::to_string(static_cast<int32_t>(op))));
        return;
    }
    attrs().setInt("operation", static_cast<int64_t>(op));
    touch();
}

ElementWiseOperation ElementWiseLayer::getOperation() const noexcept
{
    return static_cast<ElementWiseOperation>(attrs().getInt("operation"));
}

nvinfer1::IElementWiseLayer* NetworkDefinition::addElementWise(
    nvinfer1::ITensor& input1, nvinfer1::ITensor& input2, ElementWiseOperation op) noexcept
{
    try
    {
        Tensor* a = ownTensor(&input1, "addElementWise input1");
        if (a == nullptr)
        {
            return nullptr;
        }
        Tensor* b = ownTensor(&input2, "addElementWise input2");
        if (b == nullptr)
        {
            return nullptr;
        }
        if (!validOperation(op))
        {
            reportError(invalidArgument(
                "addElementWise: invalid ElementWiseOperation " + std::to_string(static_cast<int32_t>(op))));
            return nullptr;
        }
        return adopt(std::make_unique<ElementWiseLayer>(*this, a, b, op));
    }
    catch (...)
    {
        reportError(internalError("addElementWise: unexpected exception"));
        return nullptr;
    }
}

Status inferElementWise(InferContext& ctx)
{
    if (ctx.nbInputs() != 2)
    {
        return ctx.error("needs exactly 2 inputs, has " + std::to_string(ctx.nbInputs()));
    }
    KILN_RETURN_IF_ERROR(ctx.requireInput(0));
    KILN_RETURN_IF_ERROR(ctx.requireInput(1));
    auto const op = static_cast<ElementWiseOperation>(ctx.attrs().getInt("operation", -1));
    if (!validOperation(op))
    {
        return ctx.error("invalid operation " + std::to_string(ctx.attrs().getInt("operation", -1)));
    }
    TensorInfo const& a = ctx.input(0);
    TensorInfo const& b = ctx.input(1);
    for (int32_t i = 0; i < 2; ++i)
    {
        TensorInfo const& in = ctx.input(i);
        if (!operationAcceptsType(op, in.type))
        {
            std::string allowed = isLogical(op) ? "BOOL"
                : isComparison(op)              ? "FP32, FP16, BF16, INT32 or INT64"
                                                : "FP32, FP16, BF16, INT8, INT32 or INT64";
            return ctx.error(std::string("operation ") + operationName(op) + " does not accept input "
                + std::to_string(i) + " '" + in.name + "' of type " + typeName(in.type) + " (expected " + allowed
                + ")");
        }
    }
    DataType computeType = a.type;
    if (a.type != b.type)
    {
        // Weakly typed networks accept FP32 mixed with FP16 (computed in FP32); everything else must match.
        bool const mixedFloat = (a.type == DataType::kFLOAT && b.type == DataType::kHALF)
            || (a.type == DataType::kHALF && b.type == DataType::kFLOAT);
        if (ctx.stronglyTyped() || !mixedFloat)
        {
            return ctx.error("input types differ: input 0 '" + a.name + "' is " + typeName(a.type) + ", input 1 '"
                + b.name + "' is " + typeName(b.type) + "; both inputs must have the same type");
        }
        computeType = DataType::kFLOAT;
    }
    if (a.rank() != b.rank())
    {
        return ctx.error("inputs must have the same rank: input 0 '" + a.name + "' has rank "
            + std::to_string(a.rank()) + ", input 1 '" + b.name + "' has rank " + std::to_string(b.rank()));
    }
    KILN_ASSIGN_OR_RETURN(ShapeExpr dims,
        broadcastShapes(ctx, a.dims, b.dims, "inputs '" + a.name + "' and '" + b.name + "'"));

    TensorInfo& out = ctx.output(0);
    out.type = isComparison(op) ? DataType::kBOOL : computeType;
    out.dims = dims;

    // Shape tensors: compute the output values from the inputs' values.
    bool const floatValues = out.type == DataType::kFLOAT && a.type == DataType::kFLOAT && b.type == DataType::kFLOAT;
    if (isShapeIntType(out.type) || out.type == DataType::kBOOL || floatValues)
    {
        auto va = broadcastValues(a, dims);
        auto vb = broadcastValues(b, dims);
        if (va.has_value() && vb.has_value())
        {
            std::vector<DimExpr> values;
            values.reserve(va->size());
            bool ok = true;
            for (size_t i = 0; i < va->size() && ok; ++i)
            {
                auto v = floatValues ? floatValueOp(op, (*va)[i], (*vb)[i]) : valueOp(ctx, op, (*va)[i], (*vb)[i]);
                ok = v.has_value();
                if (ok)
                {
                    values.push_back(*v);
                }
            }
            if (ok)
            {
                out.values = std::move(values);
            }
        }
    }
    return Status::ok();
}

} // namespace kiln
