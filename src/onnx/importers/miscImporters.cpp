// Importers of the misc op family: Constant (its output is a parse-time constant; a layer is only added when a
// consumer needs a network tensor). If moved to controlFlowImporters.cpp.
#include "onnx/importerContextImpl.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"
#include "onnx/tensorConversion.h"

namespace kiln
{
namespace
{

Status importConstant(ImporterContext& /*ctx*/, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    if (node.attribute_size() != 1)
    {
        return invalidArgument(describeNode(node) + ": Constant needs exactly one value attribute, got "
            + std::to_string(node.attribute_size()));
    }
    std::string const& name = node.attribute(0).name();
    OnnxConstant value;
    if (name == "value")
    {
        KILN_ASSIGN_OR_RETURN(value, attrTensor(node, "value"));
    }
    else if (name == "value_float")
    {
        KILN_ASSIGN_OR_RETURN(float f, requireAttrFloat(node, "value_float"));
        value = OnnxConstant::fromFloat({f}, {});
    }
    else if (name == "value_floats")
    {
        std::vector<float> const values = attrFloats(node, "value_floats");
        value = OnnxConstant::fromFloat(values, {static_cast<int64_t>(values.size())});
    }
    else if (name == "value_int")
    {
        KILN_ASSIGN_OR_RETURN(int64_t i, requireAttrInt(node, "value_int"));
        value = OnnxConstant::fromInt64({i}, {});
    }
    else if (name == "value_ints")
    {
        std::vector<int64_t> const values = attrInts(node, "value_ints");
        value = OnnxConstant::fromInt64(values, {static_cast<int64_t>(values.size())});
    }
    else if (name == "sparse_value" || name == "value_string" || name == "value_strings")
    {
        return unsupported(describeNode(node) + ": attribute '" + name
            + "' is not supported by Kiln (sparse and string constants cannot be imported)");
    }
    else
    {
        return invalidArgument(describeNode(node) + ": unknown Constant attribute '" + name + "'");
    }
    outputs.emplace_back(std::move(value));
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> miscImporters()
{
    return {{"Constant", importConstant}};
}

} // namespace kiln
