// graphImporter: converts the main graph of a loaded ONNX model into an INetworkDefinition: opset checks, graph
// inputs, initializers (lazy constants), every node through its op importer (or the plugin fallback), and the graph
// outputs. It stops at the first failing node, as TensorRT's parser does, and reports where it failed.
#pragma once

#include "NvOnnxParser.h"
#include "onnx/importerContextImpl.h"
#include "onnx/modelLoader.h"
#include "onnx/opImporters.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kiln
{

//! Highest default-domain opset the parser accepts (ONNX 1.18's opset; later ones are refused as unsupported).
constexpr int64_t kMaxOpset = 23;
//! Lowest opset imported without a warning; older ones are imported best-effort.
constexpr int64_t kMinWarnFreeOpset = 9;

//! Where and why an import failed.
struct ImportFailure
{
    nvonnxparser::ErrorCode code{nvonnxparser::ErrorCode::kINTERNAL_ERROR};
    std::string desc;
    int node{-1}; //!< index in the main graph, -1 for model-level errors
    std::string nodeName;
    std::string nodeOperator;
    char const* func{""};
    int line{0};
};

//! Called for a node that has no importer (or for every node under kENABLE_PLUGIN_OVERRIDE); sets `handled` to
//! false when no plugin creator serves the node.
using NodeFallback = std::function<Status(
    ImporterContextImpl& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs, bool& handled)>;

struct GraphImportOptions
{
    //! Bytes supplied through IParser::loadInitializer, by initializer name.
    std::map<std::string, std::pair<void const*, size_t>> initializerOverrides;
    //! Plugin fallback (may be empty).
    NodeFallback fallback;
    //! Try the fallback before the built-in importer (kENABLE_PLUGIN_OVERRIDE).
    bool fallbackFirst{false};
    //! Values known before the import (constant folding results), bound before the first node.
    std::map<std::string, OnnxConstant> const* foldedValues{nullptr};
    //! Node indices to skip (their outputs are in foldedValues).
    std::vector<bool> const* skipNodes{nullptr};
    //! Only convert the nodes (no graph outputs marked); used for scratch imports.
    bool markOutputs{true};
    //! Extra value names to mark as network outputs after the nodes (scratch imports), in order.
    std::vector<std::string> extraOutputs;
    //! Keep going after a failing node (supportsModel): its outputs become placeholder inputs when value_info gives
    //! their type and shape; nodes that depend on an unavailable value are unsupported too.
    bool tolerant{false};
    //! Add the graph inputs as network inputs (scratch imports of constant parts do not need them).
    bool addGraphInputs{true};
};

struct GraphImportResult
{
    //! Network tensors of each named node's outputs, by node name (first node of that name).
    std::map<std::string, std::vector<nvinfer1::ITensor*>> nodeOutputs;
    //! Index of the first node that failed (or graph size when every node imported).
    int nodesImported{0};
    //! Tolerant imports: whether each node imported, and every node failure.
    std::vector<bool> nodeSupported;
    std::vector<ImportFailure> failures;
};

//! Check the model's opset imports: the default domain must be present with version 1..kMaxOpset.
//! Returns the opsets by canonical domain ("" for ai.onnx); logs a warning through `logger` below opset 9.
StatusOr<std::map<std::string, int64_t>> checkOpsets(::onnx::ModelProto const& model, nvinfer1::ILogger* logger,
    nvonnxparser::ErrorCode& code);

//! Import `model` into `network`. Returns true on success; otherwise fills `failure`.
bool importGraph(OnnxModel const& model, nvinfer1::INetworkDefinition& network, nvinfer1::ILogger* logger,
    WeightStore& weights, GraphImportOptions const& options, GraphImportResult& result, ImportFailure& failure);

//! Set the node describeNode() reports by index when it has no name (defined in onnxAttributes.cpp).
void setDescribedNode(::onnx::NodeProto const* node, int64_t index);

} // namespace kiln
