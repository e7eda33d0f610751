// Importers of the misc op family: Constant (its output is a parse-time constant; a layer is only added when a
// consumer needs a network tensor) and If with a condition known at parse time (the chosen branch is imported
// inline; run-time conditions need conditional layers Kiln does not have yet).
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

//! Import the nodes of `graph` (a branch of `node`) into the current network; outer-scope values stay visible.
Status importInlineGraph(ImporterContextImpl& ctx, ::onnx::NodeProto const& node, ::onnx::GraphProto const& graph,
    std::string const& branch, std::vector<OnnxValue>& outputs)
{
    std::string const where = describeNode(node) + ": " + branch;
    for (auto const& init : graph.initializer())
    {
        auto value = convertTensorProto(init, nullptr, where + " initializer '" + init.name() + "'");
        if (!value.isOk())
        {
            return value.status();
        }
        OnnxValue v;
        v.constant = ctx.keep(std::move(value).value());
        ctx.bind(init.name(), v);
    }
    for (auto const& sub : graph.node())
    {
        for (int32_t j = 0; j < sub.input_size(); ++j)
        {
            if (!sub.input(j).empty() && !ctx.isDefined(sub.input(j)))
            {
                return invalidArgument(where + ": " + describeNode(sub) + ": input '" + sub.input(j)
                    + "' is not defined in the branch or an enclosing graph");
            }
        }
        OpImporter importer = findOpImporter(sub.op_type(), sub.domain());
        if (importer == nullptr)
        {
            return unsupported(where + ": " + describeNode(sub) + ": no importer for op '" + sub.op_type()
                + "' (plugins are not looked up inside If branches)");
        }
        std::vector<OnnxValue> subOutputs;
        Status const st = importer(ctx, sub, subOutputs);
        if (!st.isOk())
        {
            return Status(st.code(), where + ": " + st.message());
        }
        for (int32_t j = 0; j < sub.output_size() && static_cast<size_t>(j) < subOutputs.size(); ++j)
        {
            OnnxValue const& value = subOutputs[static_cast<size_t>(j)];
            if (sub.output(j).empty() || !value.defined())
            {
                continue;
            }
            if (value.tensor != nullptr && ctx.nameOf(value.tensor) == nullptr && !value.tensor->isNetworkInput())
            {
                value.tensor->setName(sub.output(j).c_str());
            }
            ctx.bind(sub.output(j), value);
        }
    }
    if (graph.output_size() != node.output_size())
    {
        return invalidArgument(where + " has " + std::to_string(graph.output_size()) + " outputs but the node has "
            + std::to_string(node.output_size()));
    }
    for (auto const& out : graph.output())
    {
        auto value = ctx.lookup(out.name());
        if (!value.isOk())
        {
            return invalidArgument(where + ": output '" + out.name() + "' is not produced by the branch");
        }
        outputs.push_back(*value);
    }
    return Status::ok();
}

Status importIf(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    auto* impl = dynamic_cast<ImporterContextImpl*>(&ctx);
    if (impl == nullptr)
    {
        return internalError(describeNode(node) + ": If needs the parser's importer context");
    }
    OnnxConstant const* cond = ctx.constant(node, 0);
    if (cond == nullptr)
    {
        return unsupported(describeNode(node) + ": If with a condition known only at run time is not supported (Kiln "
            "has no conditional layers yet); the condition must be a constant, possibly after constant folding");
    }
    if (cond->count() != 1)
    {
        return invalidArgument(describeNode(node) + ": the condition must hold one element, it holds "
            + std::to_string(cond->count()));
    }
    KILN_ASSIGN_OR_RETURN(std::vector<double> value, cond->toDouble());
    char const* const branch = value[0] != 0.0 ? "then_branch" : "else_branch";
    auto const* attr = findAttribute(node, branch);
    if (attr == nullptr || !attr->has_g())
    {
        return invalidArgument(describeNode(node) + ": graph attribute '" + branch + "' is missing");
    }
    return importInlineGraph(*impl, node, attr->g(), branch, outputs);
}

} // namespace

std::vector<OpImporterEntry> miscImporters()
{
    return {{"Constant", importConstant}, {"If", importIf}};
}

} // namespace kiln
