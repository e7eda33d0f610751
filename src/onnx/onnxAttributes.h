// Typed access to the attributes of an ONNX NodeProto, with defaults. Accessors taking no default return an error
// naming the node, op and attribute when the attribute is missing or has another type.
#pragma once

#include "core/status.h"
#include "onnx/onnxConstant.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

//! The attribute `name` of `node`, or nullptr.
::onnx::AttributeProto const* findAttribute(::onnx::NodeProto const& node, std::string const& name);
bool hasAttribute(::onnx::NodeProto const& node, std::string const& name);

int64_t attrInt(::onnx::NodeProto const& node, std::string const& name, int64_t defaultValue);
float attrFloat(::onnx::NodeProto const& node, std::string const& name, float defaultValue);
std::string attrString(::onnx::NodeProto const& node, std::string const& name, std::string const& defaultValue);
std::vector<int64_t> attrInts(
    ::onnx::NodeProto const& node, std::string const& name, std::vector<int64_t> const& defaultValue = {});
std::vector<float> attrFloats(
    ::onnx::NodeProto const& node, std::string const& name, std::vector<float> const& defaultValue = {});
std::vector<std::string> attrStrings(::onnx::NodeProto const& node, std::string const& name);

StatusOr<int64_t> requireAttrInt(::onnx::NodeProto const& node, std::string const& name);
StatusOr<float> requireAttrFloat(::onnx::NodeProto const& node, std::string const& name);
StatusOr<std::vector<int64_t>> requireAttrInts(::onnx::NodeProto const& node, std::string const& name);

//! A TENSOR attribute (e.g. Constant's value, ConstantOfShape's value), converted as OnnxConstant describes.
StatusOr<OnnxConstant> attrTensor(::onnx::NodeProto const& node, std::string const& name);

//! "node 'name' (OpType)" for messages; "node #<index> (OpType)" when the node has no name.
std::string describeNode(::onnx::NodeProto const& node);

} // namespace kiln
