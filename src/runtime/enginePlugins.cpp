// EnginePlugins: recreation of an engine's plugins from their records at engine load, and their teardown.
#include "runtime/enginePlugins.h"
#include "core/quoting.h"

#include "plugin/embeddedLibraries.h"
#include "plugin/pluginAdapterV3.h"
#include "plugin/pluginRegistry.h"

#include <optional>

namespace kiln
{

namespace
{

Status loadNode(EnginePlugin& plugin, PlanNode const& node, PluginRegistry& registry, Logger const& logger)
{
    std::string const layer = "layer " + singleQuoted(node.name);
    auto record = loadPluginRecord(node.attrs);
    if (!record.isOk())
    {
        return record.status().withContext(layer + ": the engine's plugin record is invalid");
    }
    plugin.record = std::move(record).value();
    PluginRecord const& r = plugin.record;
    bool const v3 = r.generation == PluginGeneration::kV3_ONE;
    if (v3 != (node.kind == nvinfer1::LayerType::kPLUGIN_V3))
    {
        return invalidArgument(layer + ": the engine's plugin record describes an " + pluginGenerationName(r.generation)
            + " plugin ('" + r.name + "'), but the layer is a " + (v3 ? "IPluginV2" : "IPluginV3") + " layer");
    }
    int64_t const nbShapeInputs = node.attrs.getInt("plugin.nbShapeInputs", 0);
    if (nbShapeInputs < 0 || static_cast<size_t>(nbShapeInputs) > node.inputs.size() || (!v3 && nbShapeInputs != 0))
    {
        return invalidArgument(layer + ": the engine says plugin '" + r.name + "' has " + std::to_string(nbShapeInputs)
            + " shape inputs, but the layer has " + std::to_string(node.inputs.size()) + " inputs"
            + (v3 ? "" : " and only IPluginV3 plugins take shape inputs"));
    }
    plugin.nbShapeInputs = static_cast<int32_t>(nbShapeInputs);
    KILN_ASSIGN_OR_RETURN(plugin.adapter, deserializePlugin(registry, r, node.name, logger));
    if (plugin.adapter == nullptr)
    {
        return internalError(layer + ": recreating plugin '" + r.name + "' gave no plugin object");
    }
    plugin.adapter->setLayerName(node.name);
    // The kernel gives the plugin one pointer per recorded output. A V3 object created for the runtime phase is
    // asked through its build capability when it has one (nbOutputsIfKnown); one without gets the recorded counts
    // from onShapeChange before its first enqueue, where it can refuse them.
    std::optional<int32_t> nbOutputs;
    if (v3)
    {
        if (plugin.adapter->generation() != PluginGeneration::kV3_ONE)
        {
            return internalError(layer + ": recreating IPluginV3 plugin '" + r.name + "' gave an "
                + pluginGenerationName(plugin.adapter->generation()) + " object");
        }
        auto const& adapter = static_cast<PluginAdapterV3 const&>(*plugin.adapter);
        KILN_ASSIGN_OR_RETURN(nbOutputs, adapter.nbOutputsIfKnown());
    }
    else
    {
        KILN_ASSIGN_OR_RETURN(nbOutputs, plugin.adapter->nbOutputs());
    }
    if (nbOutputs.has_value() && static_cast<size_t>(*nbOutputs) != node.outputs.size())
    {
        return invalidArgument(layer + ": the engine records " + std::to_string(node.outputs.size())
            + " outputs for plugin '" + r.name + "', but the plugin reports " + std::to_string(*nbOutputs)
            + " (getNbOutputs)");
    }
    if (v3)
    {
        KILN_RETURN_IF_ERROR(plugin.adapter->setTactic(r.tactic));
    }
    else
    {
        KILN_RETURN_IF_ERROR(plugin.adapter->initialize());
        plugin.initialized = true;
    }
    return Status::ok();
}

} // namespace

bool isPluginNode(nvinfer1::LayerType kind)
{
    return kind == nvinfer1::LayerType::kPLUGIN_V2 || kind == nvinfer1::LayerType::kPLUGIN_V3;
}

StatusOr<std::shared_ptr<EnginePlugins>> EnginePlugins::load(
    EngineData const& data, EngineLoadOptions const& options, std::shared_ptr<Logger const> logger)
{
    std::shared_ptr<EnginePlugins> plugins(new EnginePlugins());
    plugins->mLogger = std::move(logger);
    plugins->mAllocator = options.allocator;
    Plan const& plan = data.plan;
    PluginRegistry& registry = options.registry != nullptr ? *options.registry : globalPluginRegistry();
    if (!plan.pluginLibraries.empty())
    {
        KILN_RETURN_IF_ERROR(loadEmbeddedPluginLibraries(registry, plan.pluginLibraries, options.hostCodeAllowed));
    }
    plugins->mNodes.resize(plan.nodes.size());
    for (size_t n = 0; n < plan.nodes.size(); ++n)
    {
        PlanNode const& node = plan.nodes[n];
        if (!isPluginNode(node.kind))
        {
            continue;
        }
        plugins->mNodes[n] = std::make_unique<EnginePlugin>();
        ++plugins->mCount;
        KILN_RETURN_IF_ERROR(loadNode(*plugins->mNodes[n], node, registry, *plugins->mLogger));
    }
    return plugins;
}

EnginePlugins::~EnginePlugins()
{
    // Engine destruction: terminate() (V2 family objects whose initialize() succeeded), then destroy()/delete
    // through the adapter's destructor.
    for (auto& node : mNodes)
    {
        if (node != nullptr && node->adapter != nullptr)
        {
            if (node->initialized)
            {
                node->adapter->terminate();
            }
            node->adapter.reset();
        }
    }
}

} // namespace kiln
