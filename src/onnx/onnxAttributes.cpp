// Typed access to ONNX node attributes (see onnxAttributes.h).
#include "onnx/onnxAttributes.h"

#include "onnx/tensorConversion.h"

namespace kiln
{
namespace
{

using AP = ::onnx::AttributeProto;

std::string typeName(AP::AttributeType t)
{
    return AP::AttributeType_IsValid(t) ? AP::AttributeType_Name(t) : std::to_string(static_cast<int>(t));
}

//! The attribute if present with type `want`; nullptr if absent; an error if present with another type.
StatusOr<AP const*> typed(::onnx::NodeProto const& node, std::string const& name, AP::AttributeType want)
{
    AP const* attr = findAttribute(node, name);
    if (attr == nullptr)
    {
        return static_cast<AP const*>(nullptr);
    }
    // Models from old exporters may leave `type` unset; accept them when the matching field is filled.
    if (attr->type() != want && attr->type() != AP::UNDEFINED)
    {
        return invalidArgument(describeNode(node) + ": attribute '" + name + "' has type " + typeName(attr->type())
            + ", expected " + typeName(want));
    }
    return attr;
}

Status missing(::onnx::NodeProto const& node, std::string const& name)
{
    return invalidArgument(describeNode(node) + ": required attribute '" + name + "' is missing");
}

} // namespace

AP const* findAttribute(::onnx::NodeProto const& node, std::string const& name)
{
    for (AP const& attr : node.attribute())
    {
        if (attr.name() == name)
        {
            return &attr;
        }
    }
    return nullptr;
}

bool hasAttribute(::onnx::NodeProto const& node, std::string const& name)
{
    return findAttribute(node, name) != nullptr;
}

int64_t attrInt(::onnx::NodeProto const& node, std::string const& name, int64_t defaultValue)
{
    AP const* attr = findAttribute(node, name);
    return attr != nullptr && (attr->type() == AP::INT || attr->has_i()) ? attr->i() : defaultValue;
}

float attrFloat(::onnx::NodeProto const& node, std::string const& name, float defaultValue)
{
    AP const* attr = findAttribute(node, name);
    return attr != nullptr && (attr->type() == AP::FLOAT || attr->has_f()) ? attr->f() : defaultValue;
}

std::string attrString(::onnx::NodeProto const& node, std::string const& name, std::string const& defaultValue)
{
    AP const* attr = findAttribute(node, name);
    return attr != nullptr && (attr->type() == AP::STRING || attr->has_s()) ? attr->s() : defaultValue;
}

std::vector<int64_t> attrInts(
    ::onnx::NodeProto const& node, std::string const& name, std::vector<int64_t> const& defaultValue)
{
    AP const* attr = findAttribute(node, name);
    if (attr == nullptr || (attr->type() != AP::INTS && attr->ints_size() == 0))
    {
        return defaultValue;
    }
    return std::vector<int64_t>(attr->ints().begin(), attr->ints().end());
}

std::vector<float> attrFloats(
    ::onnx::NodeProto const& node, std::string const& name, std::vector<float> const& defaultValue)
{
    AP const* attr = findAttribute(node, name);
    if (attr == nullptr || (attr->type() != AP::FLOATS && attr->floats_size() == 0))
    {
        return defaultValue;
    }
    return std::vector<float>(attr->floats().begin(), attr->floats().end());
}

std::vector<std::string> attrStrings(::onnx::NodeProto const& node, std::string const& name)
{
    AP const* attr = findAttribute(node, name);
    if (attr == nullptr)
    {
        return {};
    }
    return std::vector<std::string>(attr->strings().begin(), attr->strings().end());
}

StatusOr<int64_t> requireAttrInt(::onnx::NodeProto const& node, std::string const& name)
{
    KILN_ASSIGN_OR_RETURN(AP const* attr, typed(node, name, AP::INT));
    if (attr == nullptr)
    {
        return missing(node, name);
    }
    return attr->i();
}

StatusOr<float> requireAttrFloat(::onnx::NodeProto const& node, std::string const& name)
{
    KILN_ASSIGN_OR_RETURN(AP const* attr, typed(node, name, AP::FLOAT));
    if (attr == nullptr)
    {
        return missing(node, name);
    }
    return attr->f();
}

StatusOr<std::vector<int64_t>> requireAttrInts(::onnx::NodeProto const& node, std::string const& name)
{
    KILN_ASSIGN_OR_RETURN(AP const* attr, typed(node, name, AP::INTS));
    if (attr == nullptr)
    {
        return missing(node, name);
    }
    return std::vector<int64_t>(attr->ints().begin(), attr->ints().end());
}

StatusOr<OnnxConstant> attrTensor(::onnx::NodeProto const& node, std::string const& name)
{
    KILN_ASSIGN_OR_RETURN(AP const* attr, typed(node, name, AP::TENSOR));
    if (attr == nullptr)
    {
        return missing(node, name);
    }
    auto converted = convertTensorProto(attr->t(), nullptr, describeNode(node) + ": attribute '" + name + "'");
    if (!converted.isOk())
    {
        return converted.status();
    }
    return std::move(converted).value();
}

namespace
{
//! The node the graph importer is converting on this thread and its index (see setDescribedNode).
thread_local ::onnx::NodeProto const* tCurrentNode = nullptr;
thread_local int64_t tCurrentIndex = -1;
} // namespace

void setDescribedNode(::onnx::NodeProto const* node, int64_t index)
{
    tCurrentNode = node;
    tCurrentIndex = index;
}

std::string describeNode(::onnx::NodeProto const& node)
{
    if (!node.name().empty())
    {
        return "node '" + node.name() + "' (" + node.op_type() + ")";
    }
    if (&node == tCurrentNode && tCurrentIndex >= 0)
    {
        return "node #" + std::to_string(tCurrentIndex) + " (" + node.op_type() + ")";
    }
    if (node.output_size() > 0 && !node.output(0).empty())
    {
        return "node producing '" + node.output(0) + "' (" + node.op_type() + ")";
    }
    return "node (" + node.op_type() + ")";
}

} // namespace kiln
