// pluginFallback: imports an ONNX node through a registered plugin creator (IPluginCreator / IPluginCreatorV3One),
// looked up by op_type, the plugin_version attribute (default "1") and the plugin_namespace attribute (default: the
// node's domain unless it is the ONNX domain). Node attributes become PluginFields of the types the creator declares.
#pragma once

#include "NvInfer.h"
#include "core/status.h"
#include "onnx/importerContextImpl.h"

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace kiln
{

struct PluginFallbackResult
{
    //! Whether a creator served the node (false: no creator found, nothing was added).
    bool handled{false};
    //! Paths of the plugin libraries whose creators served the node (empty for built-in creators).
    std::vector<std::string> libraries;
};

//! Import `node` with a plugin creator. A miss is not an error (result.handled stays false); a creator that exists
//! but rejects the node's attributes, or fails to create the plugin, is.
Status importWithPlugin(ImporterContextImpl& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs,
    PluginFallbackResult& result);

//! Whether some registry the network's builder searches has a creator named `opType` (any version/namespace).
bool pluginCreatorExists(nvinfer1::INetworkDefinition const& network, std::string const& opType);

//! The plugin library file a creator object lives in, or "" when it is part of the application or of Kiln.
std::string pluginLibraryOf(void const* creator);

//! The message for a node no importer or creator serves: op, version, namespace, registries searched and the closest
//! registered creator names.
std::string missingPluginMessage(ImporterContextImpl& ctx, ::onnx::NodeProto const& node);

} // namespace kiln
