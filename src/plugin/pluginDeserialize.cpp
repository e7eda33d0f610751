// deserializePlugin: recreate an engine's plugin from its PluginRecord through a registry (with parent search):
// IPluginCreator::deserializePlugin for the IPluginV2 family, IPluginCreatorV3One::createPlugin(kRUNTIME) with
// the decoded fields for IPluginV3. A missing creator is the most common plugin failure users meet, so its message
// names the plugin, the registries searched, the closest registered creators and how to register one.
#include "plugin/pluginAdapter.h"

#include "core/editDistance.h"
#include "plugin/pluginCallGuard.h"
#include "plugin/pluginCpuOptIn.h"
#include "plugin/pluginRegistry.h"

#include <algorithm>
#include <cctype>

namespace kiln
{

using namespace nvinfer1;

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{

constexpr size_t kMAX_CLOSEST = 5;

std::string quote(std::string const& s)
{
    return "'" + s + "'";
}

std::string describeRecord(PluginRecord const& r)
{
    return quote(r.name) + " version " + quote(r.version) + " namespace " + quote(r.pluginNamespace);
}

bool isV2Family(PluginGeneration g)
{
    return g != PluginGeneration::kV3_ONE;
}

} // namespace

namespace
{

//! The "no plugin creator" message.
std::string missingCreatorMessage(PluginRegistry const& registry, PluginRecord const& record, std::string const& layerName)
{
    std::string message = "no plugin creator for " + describeRecord(record) + " (needed by layer " + quote(layerName)
        + "); searched ";
    auto const searched = registry.searchedRegistries();
    for (size_t i = 0; i < searched.size(); ++i)
    {
        message += (i == 0 ? "" : " then ") + searched[i];
    }
    auto creators = registry.visibleCreators();
    if (creators.empty())
    {
        message += "; no plugin creators are registered";
    }
    else
    {
        // Same name (another version or namespace) first, then by edit distance on the name.
        std::vector<std::string> names;
        for (auto const& c : creators)
        {
            names.push_back(c.name);
        }
        auto ranked = creators;
        auto const order = rankByCloseness(record.name, names);
        for (size_t i = 0; i < order.size(); ++i)
        {
            ranked[i] = creators[order[i]];
        }
        creators = std::move(ranked);
        message += "; closest registered: ";
        for (size_t i = 0; i < creators.size() && i < kMAX_CLOSEST; ++i)
        {
            auto const& c = creators[i];
            message += (i == 0 ? "" : ", ") + quote(c.name) + " version " + quote(c.version) + " namespace "
                + quote(c.nspace) + " (" + creatorKindName(c.kind) + ", in " + c.registry + ")";
        }
        if (creators.size() > kMAX_CLOSEST)
        {
            message += " and " + std::to_string(creators.size() - kMAX_CLOSEST) + " more";
        }
    }
    message += ". Call initLibNvInferPlugins() or IPluginRegistry::loadLibrary(), or register the creator "
               "(REGISTER_TENSORRT_PLUGIN), before deserializing the engine";
    return message;
}

} // namespace

StatusOr<std::unique_ptr<PluginAdapter>> deserializePlugin(
    PluginRegistry& registry, PluginRecord const& record, std::string const& layerName, Logger const& logger)
{
    IPluginCreatorInterface* creator
        = registry.getCreator(record.name.c_str(), record.version.c_str(), record.pluginNamespace.c_str());
    if (creator == nullptr)
    {
        return invalidArgument(missingCreatorMessage(registry, record, layerName));
    }
    CreatorKind kind{};
    if (!PluginRegistry::creatorKindOf(*creator, kind))
    {
        return unsupported("the creator of plugin " + describeRecord(record) + " (layer " + quote(layerName)
            + ") has an unknown interface kind");
    }
    std::string const who = std::string(creatorKindName(kind)) + " of plugin " + describeRecord(record);
    bool const wantV3 = !isV2Family(record.generation);
    if ((kind == CreatorKind::kV1) == wantV3 || kind == CreatorKind::kV3Quick)
    {
        return invalidArgument("layer " + quote(layerName) + ": the engine holds an "
            + pluginGenerationName(record.generation) + " plugin " + describeRecord(record)
            + ", but the registered creator is an " + creatorKindName(kind) + ", which creates "
            + (kind == CreatorKind::kV1 ? "IPluginV2-family plugins" : "IPluginV3 plugins")
            + "; was the plugin library changed since the engine was built?");
    }

    std::unique_ptr<PluginAdapter> adapter;
    if (kind == CreatorKind::kV1)
    {
        auto* v1 = static_cast<IPluginCreator*>(creator);
        IPluginV2* plugin = nullptr;
        KILN_RETURN_IF_ERROR(guardedCallNamed(who, "deserializePlugin",
            [&] { plugin = v1->deserializePlugin(layerName.c_str(), record.data.data(), record.data.size()); }));
        if (plugin == nullptr)
        {
            return internalError(who + ": deserializePlugin returned nullptr for layer " + quote(layerName) + " ("
                + std::to_string(record.data.size()) + " bytes)");
        }
        // As TensorRT does: the plugin belongs to the namespace it was registered under.
        Status ns = guardedCallNamed(
            who, "setPluginNamespace", [&] { plugin->setPluginNamespace(record.pluginNamespace.c_str()); });
        if (!ns.isOk())
        {
            (void) guardedCallNamed(who, "destroy", [&] { plugin->destroy(); });
            return ns;
        }
        KILN_ASSIGN_OR_RETURN(adapter, PluginAdapter::wrapV2(plugin, PluginOwnership::kOWNED, logger));
        adapter->setCreatorDeclaresCpu(creatorDeclaresCpuSupport(*v1, who));
        if (!isV2Family(adapter->generation()))
        {
            return internalError(who + ": deserializePlugin returned a non-IPluginV2 object");
        }
    }
    else
    {
        auto decoded = decodePluginFields(record.data);
        if (!decoded.isOk())
        {
            return decoded.status().withContext("layer " + quote(layerName) + ", plugin " + describeRecord(record));
        }
        auto fields = std::move(decoded.value());
        auto* v3 = static_cast<IPluginCreatorV3One*>(creator);
        IPluginV3* plugin = nullptr;
        KILN_RETURN_IF_ERROR(guardedCallNamed(who, "createPlugin", [&] {
            plugin = v3->createPlugin(layerName.c_str(), &fields->collection(), TensorRTPhase::kRUNTIME);
        }));
        if (plugin == nullptr)
        {
            return internalError(who + ": createPlugin(kRUNTIME) returned nullptr for layer " + quote(layerName));
        }
        KILN_ASSIGN_OR_RETURN(
            adapter, PluginAdapter::wrapV3(plugin, PluginOwnership::kOWNED, TensorRTPhase::kRUNTIME, logger));
    }
    adapter->setLayerName(layerName);
    return adapter;
}

KILN_IGNORE_DEPRECATED_END

} // namespace kiln
