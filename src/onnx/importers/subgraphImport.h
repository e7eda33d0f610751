// Subgraph import for the control-flow importers (If, Loop, Scan): the nodes of a branch or body graph are imported
// inline into the enclosing network, with the subgraph's formal inputs bound to given values and the enclosing
// scope's values visible by name. Bindings the subgraph makes are undone afterwards, so a body can be imported once
// per unrolled iteration. Also the helpers the expansions share (flags, selects, stacking, run-time checks).
#pragma once

#include "onnx/importerContextImpl.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

//! Import `graph` (a graph attribute of `node`) inline. `inputs` are bound to the graph's formal inputs, in order
//! (there must be exactly as many). Tensors the subgraph creates are named `prefix` + their ONNX name. Returns the
//! graph's outputs. `where` prefixes error messages (e.g. "node 'x' (Loop): body iteration 3").
StatusOr<std::vector<OnnxValue>> importSubgraph(ImporterContextImpl& ctx, ::onnx::GraphProto const& graph,
    std::vector<OnnxValue> const& inputs, std::string const& where, std::string const& prefix);

//! `value` as a network tensor (a constant becomes an IConstantLayer named after `hint`).
StatusOr<nvinfer1::ITensor*> valueTensor(ImporterContextImpl& ctx, OnnxValue const& value, std::string const& hint);

//! The element type of `value` (tensor or constant).
nvinfer1::DataType valueType(OnnxValue const& value);

//! A rank-0 BOOL network tensor from a one-element boolean-like tensor (any type: non-zero is true).
StatusOr<nvinfer1::ITensor*> scalarFlag(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t,
    std::string const& suffix);

//! select(flag ? a : b) where flag is a rank-0 BOOL tensor, broadcast over a and b (brought to one rank first).
StatusOr<nvinfer1::ITensor*> selectValue(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* flag,
    nvinfer1::ITensor* a, nvinfer1::ITensor* b, std::string const& suffix);

//! Concatenate `parts` after inserting a new axis `axis` into each (ONNX stacking).
StatusOr<nvinfer1::ITensor*> stackTensors(ImporterContext& ctx, ::onnx::NodeProto const& node,
    std::vector<nvinfer1::ITensor*> const& parts, int32_t axis, std::string const& suffix);

//! "<node name>/" (or the first output's name, or the op type, when the node has no name): the prefix of the
//! names of the tensors a subgraph expansion creates.
std::string namePrefix(::onnx::NodeProto const& node);

//! Most body copies one Loop or Scan may unroll into.
constexpr int64_t kMaxUnrolledIterations = 1024;

//! The parser's importer context (subgraph import needs it); an internal error naming the node otherwise.
StatusOr<ImporterContextImpl*> implOf(ImporterContext& ctx, ::onnx::NodeProto const& node);
//! Graph attribute `name` of `node`; an error naming the node when it is missing.
StatusOr<::onnx::GraphProto const*> graphAttr(::onnx::NodeProto const& node, char const* name);
//! Input `index` of `node` as a value (constant or tensor); an undefined value when the input is left out.
StatusOr<OnnxValue> inputValue(ImporterContextImpl& ctx, ::onnx::NodeProto const& node, int32_t index);

//! Loop through ILoop (subgraphImportLoop.cpp), for a run-time trip count M or a condition-only loop; `carried`
//! are the initial loop-carried values. Scan outputs need M and a condition that is always true.
Status importLoopWithILoop(ImporterContextImpl& impl, ::onnx::NodeProto const& node, ::onnx::GraphProto const& body,
    OnnxValue const& tripCount, OnnxValue const& cond, bool condAlwaysTrue, std::vector<OnnxValue> const& carried,
    std::vector<OnnxValue>& outputs);

//! Importer of Scan (scanImporter.cpp).
Status importScan(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs);

//! The static dims the enclosing graph declares for value `name` (graph outputs and value_info), or nbDims -1.
nvinfer1::Dims declaredDims(ImporterContextImpl const& ctx, std::string const& name);

} // namespace kiln
