// Importers of the unary math ops (Abs, Neg, Reciprocal, Sqrt, Exp, Log, Ceil, Floor, Round, Sign, Erf, the
// trigonometric and hyperbolic functions, IsNaN, IsInf), each an IUnaryLayer. Integer inputs of ops that the layer
// computes only on floats go through FP32 and back; UINT8 Abs/Neg/Sign go through INT32.
#include "onnx/importerHelpers.h"
#include "onnx/importers/elementwiseUtils.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

#include <limits>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;
using nvinfer1::UnaryOperation;

namespace
{

using NodeProto = ::onnx::NodeProto;

bool producesBool(UnaryOperation op)
{
    return op == UnaryOperation::kISINF || op == UnaryOperation::kISNAN;
}

//! The operations IUnaryLayer accepts on INT8/INT32/INT64 as well as floats.
bool takesSignedIntegers(UnaryOperation op)
{
    return op == UnaryOperation::kABS || op == UnaryOperation::kNEG || op == UnaryOperation::kSIGN;
}

//! op(x) for any numeric x, converting types the layer refuses.
StatusOr<ITensor*> unaryAnyType(ImporterContext& ctx, NodeProto const& node, ITensor* x, UnaryOperation op)
{
    DataType const type = x->getType();
    if (type == DataType::kBOOL)
    {
        return invalidArgument(describeNode(node) + ": " + node.op_type() + " does not take BOOL inputs");
    }
    if (isFloatType(type))
    {
        return addUnary(ctx, node, x, op);
    }
    if (takesSignedIntegers(op) && (type == DataType::kINT8 || type == DataType::kINT32 || type == DataType::kINT64))
    {
        return addUnary(ctx, node, x, op);
    }
    if (type != DataType::kINT8 && type != DataType::kUINT8 && type != DataType::kINT32 && type != DataType::kINT64)
    {
        return unsupported(describeNode(node) + ": " + node.op_type() + " on inputs of type " + elementTypeName(type)
            + " is not supported");
    }
    DataType const compute = takesSignedIntegers(op) ? DataType::kINT32 : DataType::kFLOAT;
    KILN_ASSIGN_OR_RETURN(ITensor * wide, castTo(ctx, node, x, compute, "_wide"));
    KILN_ASSIGN_OR_RETURN(ITensor * result, addUnary(ctx, node, wide, op, "_op"));
    if (producesBool(op))
    {
        return result;
    }
    return castTo(ctx, node, result, type, "_narrow");
}

template <UnaryOperation kOp>
Status importUnary(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, inputTensor(ctx, node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * result, unaryAnyType(ctx, node, x, kOp));
    outputs = {OnnxValue(result)};
    return Status::ok();
}

//! IsInf with detect_positive / detect_negative (both default 1): a one-signed test is X == +inf or X == -inf.
Status importIsInf(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, inputTensor(ctx, node, 0));
    bool const positive = attrInt(node, "detect_positive", 1) != 0;
    bool const negative = attrInt(node, "detect_negative", 1) != 0;
    if (positive && negative)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * result, unaryAnyType(ctx, node, x, UnaryOperation::kISINF));
        outputs = {OnnxValue(result)};
        return Status::ok();
    }
    if (!isFloatType(x->getType()))
    {
        return unsupported(describeNode(node) + ": IsInf on inputs of type " + elementTypeName(x->getType())
            + " is not supported");
    }
    // Neither sign requested: compare with NaN, which is never equal.
    double const target = positive ? std::numeric_limits<double>::infinity()
        : negative                 ? -std::numeric_limits<double>::infinity()
                                   : std::numeric_limits<double>::quiet_NaN();
    KILN_ASSIGN_OR_RETURN(ITensor * reference, scalarLike(ctx, node, target, x->getType(), x->getDimensions().nbDims));
    KILN_ASSIGN_OR_RETURN(ITensor * result, addElementWise(ctx, node, x, reference, ElementWiseOperation::kEQUAL));
    outputs = {OnnxValue(result)};
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> unaryImporters()
{
    return {
        {"Abs", importUnary<UnaryOperation::kABS>},
        {"Neg", importUnary<UnaryOperation::kNEG>},
        {"Reciprocal", importUnary<UnaryOperation::kRECIP>},
        {"Sqrt", importUnary<UnaryOperation::kSQRT>},
        {"Exp", importUnary<UnaryOperation::kEXP>},
        {"Log", importUnary<UnaryOperation::kLOG>},
        {"Ceil", importUnary<UnaryOperation::kCEIL>},
        {"Floor", importUnary<UnaryOperation::kFLOOR>},
        {"Round", importUnary<UnaryOperation::kROUND>},
        {"Sign", importUnary<UnaryOperation::kSIGN>},
        {"Erf", importUnary<UnaryOperation::kERF>},
        {"Sin", importUnary<UnaryOperation::kSIN>},
        {"Cos", importUnary<UnaryOperation::kCOS>},
        {"Tan", importUnary<UnaryOperation::kTAN>},
        {"Asin", importUnary<UnaryOperation::kASIN>},
        {"Acos", importUnary<UnaryOperation::kACOS>},
        {"Atan", importUnary<UnaryOperation::kATAN>},
        {"Sinh", importUnary<UnaryOperation::kSINH>},
        {"Cosh", importUnary<UnaryOperation::kCOSH>},
        {"Asinh", importUnary<UnaryOperation::kASINH>},
        {"Acosh", importUnary<UnaryOperation::kACOSH>},
        {"Atanh", importUnary<UnaryOperation::kATANH>},
        {"IsNaN", importUnary<UnaryOperation::kISNAN>},
        {"IsInf", importIsInf},
    };
}

} // namespace kiln
