// Importers of the comparison and logical ops: Equal, Greater, GreaterOrEqual, Less, LessOrEqual, And, Or, Xor, Not
// and Where. Results are BOOL; X >= Y is (X > Y) OR (X == Y), so NaN compares false as in ONNX.
#include "onnx/importerHelpers.h"
#include "onnx/importers/elementwiseUtils.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

namespace
{

using NodeProto = ::onnx::NodeProto;

//! Equal, Greater, Less, And, Or, Xor.
template <ElementWiseOperation kOp>
Status importCompare(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(auto ab, binaryInputs(ctx, node));
    KILN_ASSIGN_OR_RETURN(ITensor * result, addComparison(ctx, node, ab.first, ab.second, kOp));
    outputs = {OnnxValue(result)};
    return Status::ok();
}

//! GreaterOrEqual and LessOrEqual: (A op B) OR (A == B).
template <ElementWiseOperation kOp>
Status importCompareOrEqual(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(auto ab, binaryInputs(ctx, node));
    KILN_ASSIGN_OR_RETURN(ITensor * strict, addComparison(ctx, node, ab.first, ab.second, kOp, "_strict"));
    KILN_ASSIGN_OR_RETURN(ITensor * equal, addComparison(ctx, node, ab.first, ab.second,
        ElementWiseOperation::kEQUAL, "_equal"));
    KILN_ASSIGN_OR_RETURN(ITensor * result, addElementWise(ctx, node, strict, equal, ElementWiseOperation::kOR));
    outputs = {OnnxValue(result)};
    return Status::ok();
}

Status importNot(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, inputTensor(ctx, node, 0));
    if (x->getType() != DataType::kBOOL)
    {
        return invalidArgument(describeNode(node) + ": Not takes a BOOL input, got " + elementTypeName(x->getType()));
    }
    KILN_ASSIGN_OR_RETURN(ITensor * result, addUnary(ctx, node, x, nvinfer1::UnaryOperation::kNOT));
    outputs = {OnnxValue(result)};
    return Status::ok();
}

Status importWhere(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * condition, inputTensor(ctx, node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * x, inputTensor(ctx, node, 1));
    KILN_ASSIGN_OR_RETURN(ITensor * y, inputTensor(ctx, node, 2));
    KILN_ASSIGN_OR_RETURN(ITensor * result, addWhere(ctx, node, condition, x, y));
    outputs = {OnnxValue(result)};
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> comparisonImporters()
{
    return {
        {"Equal", importCompare<ElementWiseOperation::kEQUAL>},
        {"Greater", importCompare<ElementWiseOperation::kGREATER>},
        {"Less", importCompare<ElementWiseOperation::kLESS>},
        {"GreaterOrEqual", importCompareOrEqual<ElementWiseOperation::kGREATER>},
        {"LessOrEqual", importCompareOrEqual<ElementWiseOperation::kLESS>},
        {"And", importCompare<ElementWiseOperation::kAND>},
        {"Or", importCompare<ElementWiseOperation::kOR>},
        {"Xor", importCompare<ElementWiseOperation::kXOR>},
        {"Not", importNot},
        {"Where", importWhere},
    };
}

} // namespace kiln
