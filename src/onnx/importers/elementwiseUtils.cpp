// Building blocks shared by the elementwise, comparison, unary, activation and cast importers (see the header).
#include "onnx/importers/elementwiseUtils.h"

#include "core/dataType.h"
#include "onnx/importerHelpers.h"
#include "onnx/importers/compositeUtils.h"
#include "onnx/onnxAttributes.h"

#include <algorithm>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

namespace
{

bool isComparisonOp(ElementWiseOperation op)
{
    return op == ElementWiseOperation::kEQUAL || op == ElementWiseOperation::kGREATER
        || op == ElementWiseOperation::kLESS;
}

//! The element types Kiln's elementwise kernels store.
bool isValueType(DataType type)
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

bool isLogicalOp(ElementWiseOperation op)
{
    return op == ElementWiseOperation::kAND || op == ElementWiseOperation::kOR || op == ElementWiseOperation::kXOR;
}

} // namespace

std::string elementTypeName(DataType type)
{
    if (!isValidDataType(static_cast<int32_t>(type)))
    {
        return "DataType(" + std::to_string(static_cast<int32_t>(type)) + ")";
    }
    return dataTypeName(type);
}

StatusOr<ITensor*> inputTensor(ImporterContext& ctx, ::onnx::NodeProto const& node, int32_t index)
{
    return ctx.tensor(node, index);
}

StatusOr<ITensor*> legacyBroadcast(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* a, ITensor* b)
{
    if (ctx.opsetVersion() >= 7 || attrInt(node, "broadcast", 0) == 0 || !hasAttribute(node, "axis"))
    {
        return b;
    }
    int32_t const aRank = a->getDimensions().nbDims;
    int32_t const bRank = b->getDimensions().nbDims;
    KILN_ASSIGN_OR_RETURN(int32_t const axis, normalizeAxis(node, attrInt(node, "axis", 0), std::max(aRank, 1)));
    int32_t const trailing = aRank - axis - bRank;
    if (trailing < 0)
    {
        return invalidArgument(describeNode(node) + ": input B of rank " + std::to_string(bRank)
            + " does not fit into input A of rank " + std::to_string(aRank) + " at broadcast axis "
            + std::to_string(axis));
    }
    if (trailing == 0)
    {
        return b;
    }
    nvinfer1::Dims dims{};
    dims.nbDims = bRank + trailing;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        dims.d[i] = i < bRank ? 0 : 1; // 0 copies B's own extent
    }
    return reshape(ctx, node, b, dims, "_legacyBroadcast");
}

StatusOr<std::pair<ITensor*, ITensor*>> binaryInputs(ImporterContext& ctx, ::onnx::NodeProto const& node)
{
    KILN_ASSIGN_OR_RETURN(ITensor * a, inputTensor(ctx, node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * b, inputTensor(ctx, node, 1));
    KILN_ASSIGN_OR_RETURN(b, legacyBroadcast(ctx, node, a, b));
    return std::make_pair(a, b);
}

Status requireSameType(::onnx::NodeProto const& node, ITensor* a, ITensor* b, char const* nameA, char const* nameB)
{
    if (a->getType() != b->getType())
    {
        return invalidArgument(describeNode(node) + ": input " + nameA + " has type " + elementTypeName(a->getType())
            + " but input " + nameB + " has type " + elementTypeName(b->getType())
            + "; ONNX requires both to have the same type");
    }
    return Status::ok();
}

StatusOr<ITensor*> addArithmetic(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* a, ITensor* b,
    ElementWiseOperation op, std::string const& suffix)
{
    KILN_RETURN_IF_ERROR(requireSameType(node, a, b, "A", "B"));
    DataType const type = a->getType();
    if (type == DataType::kBOOL || !isValueType(type))
    {
        return unsupported(describeNode(node) + ": arithmetic on inputs of type " + elementTypeName(type)
            + " is not supported");
    }
    if (type != DataType::kUINT8)
    {
        return addElementWise(ctx, node, a, b, op, suffix);
    }
    KILN_ASSIGN_OR_RETURN(ITensor * wideA, castTo(ctx, node, a, DataType::kINT32, suffix + "_wideA"));
    KILN_ASSIGN_OR_RETURN(ITensor * wideB, castTo(ctx, node, b, DataType::kINT32, suffix + "_wideB"));
    KILN_ASSIGN_OR_RETURN(ITensor * wide, addElementWise(ctx, node, wideA, wideB, op, suffix));
    return castTo(ctx, node, wide, type, suffix + "_narrow");
}

StatusOr<ITensor*> addComparison(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* a, ITensor* b,
    ElementWiseOperation op, std::string const& suffix)
{
    if (!isComparisonOp(op) && !isLogicalOp(op))
    {
        return internalError(describeNode(node) + ": addComparison called with a non-comparison operation");
    }
    KILN_RETURN_IF_ERROR(requireSameType(node, a, b, "A", "B"));
    DataType const type = a->getType();
    if (isLogicalOp(op))
    {
        if (type != DataType::kBOOL)
        {
            return invalidArgument(describeNode(node) + ": logical operations take BOOL inputs, got "
                + elementTypeName(type));
        }
        return addElementWise(ctx, node, a, b, op, suffix);
    }
    if (type == DataType::kBOOL)
    {
        if (op != ElementWiseOperation::kEQUAL)
        {
            return invalidArgument(describeNode(node) + ": ordering comparisons do not take BOOL inputs");
        }
        KILN_ASSIGN_OR_RETURN(ITensor * differ, addElementWise(ctx, node, a, b, ElementWiseOperation::kXOR,
            suffix + "_xor"));
        return addUnary(ctx, node, differ, nvinfer1::UnaryOperation::kNOT, suffix);
    }
    if (type == DataType::kINT8 || type == DataType::kUINT8)
    {
        KILN_ASSIGN_OR_RETURN(a, castTo(ctx, node, a, DataType::kINT32, suffix + "_wideA"));
        KILN_ASSIGN_OR_RETURN(b, castTo(ctx, node, b, DataType::kINT32, suffix + "_wideB"));
    }
    else if (!isFloatType(type) && type != DataType::kINT32 && type != DataType::kINT64)
    {
        return unsupported(describeNode(node) + ": comparison of inputs of type " + elementTypeName(type)
            + " is not supported");
    }
    return addElementWise(ctx, node, a, b, op, suffix);
}

StatusOr<ITensor*> addWhere(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* condition, ITensor* a,
    ITensor* b, std::string const& suffix)
{
    if (condition->getType() != DataType::kBOOL)
    {
        return invalidArgument(describeNode(node) + ": condition has type " + elementTypeName(condition->getType())
            + "; it must be BOOL");
    }
    KILN_RETURN_IF_ERROR(requireSameType(node, a, b, "X", "Y"));
    return composite::select(ctx, node, condition, a, b, suffix);
}

StatusOr<ITensor*> allTrueLike(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t,
    std::string const& suffix)
{
    KILN_ASSIGN_OR_RETURN(ITensor * asBool, castTo(ctx, node, t, DataType::kBOOL, suffix + "_bool"));
    KILN_ASSIGN_OR_RETURN(ITensor * negated, addUnary(ctx, node, asBool, nvinfer1::UnaryOperation::kNOT,
        suffix + "_not"));
    return addElementWise(ctx, node, asBool, negated, ElementWiseOperation::kOR, suffix);
}

StatusOr<OnnxValue> passThrough(ImporterContext& ctx, ::onnx::NodeProto const& node, int32_t index)
{
    if (OnnxConstant const* constant = ctx.constant(node, index))
    {
        return OnnxValue(*constant);
    }
    KILN_ASSIGN_OR_RETURN(ITensor * input, ctx.tensor(node, index));
    nvinfer1::IIdentityLayer* layer = ctx.network().addIdentity(*input);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addIdentity"));
    return OnnxValue(layer->getOutput(0));
}

} // namespace kiln
