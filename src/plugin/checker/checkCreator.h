// The contract checker's dealings with plugin creators: finding the requested creator in a registry (with a
// helpful listing when it is missing), creating the plugin from fields (build phase), and recreating it from
// serialized bytes the way an engine does (IPluginCreator::deserializePlugin, or IPluginCreatorV3One::createPlugin
// with kRUNTIME and the decoded fields). Every call into the creator is guarded.
#pragma once

#include "core/logging.h"
#include "plugin/checker/checkReport.h"
#include "plugin/checker/checkSpec.h"
#include "plugin/pluginAdapter.h"
#include "plugin/pluginRegistry.h"

#include <memory>
#include <string>

namespace kiln::checker
{

struct CreatorRef
{
    nvinfer1::IPluginCreatorInterface* creator{nullptr};
    CreatorKind kind{CreatorKind::kV1};
    std::string name;
    std::string version;
    std::string pluginNamespace; //!< the namespace it was found under
    //! "IPluginCreator 'Name' version '1' namespace 'ns'"
    std::string describe() const;
};

//! Find the creator of spec (resolving an open version). On failure adds a creator-not-found, bad-request or
//! not-checkable finding to `report` and returns false.
bool findCreator(nvinfer1::IPluginRegistry& registry, CheckSpec const& spec, CreatorRef& out, CheckReport& report);

//! createPlugin(layer, fields) (V1) or createPlugin(layer, fields, kBUILD) (V3One), wrapped in an owned adapter.
StatusOr<std::unique_ptr<PluginAdapter>> createFromFields(
    CreatorRef const& creator, CheckSpec const& spec, Logger const& logger);

//! Recreate a plugin from PluginAdapter::serialize() bytes as an engine does, wrapped in an owned adapter.
StatusOr<std::unique_ptr<PluginAdapter>> createFromBytes(
    CreatorRef const& creator, std::string const& bytes, CheckSpec const& spec, Logger const& logger);

} // namespace kiln::checker
