// EnginePlugins: the engine-level plugin objects of one engine, one per plugin node (PlanNode kind kPLUGIN_V2 /
// kPLUGIN_V3). They are recreated from the node's PluginRecord through the runtime's plugin registry when the
// engine is created (IPluginCreator::deserializePlugin / IPluginCreatorV3One::createPlugin(kRUNTIME)), then
// initialize()d (V2 family) or given their build-time tactic (V3). Execution contexts attach their own clones;
// plain IPluginV2 objects are shared by all contexts, guarded by the node's mutex. The engine and every context
// hold the object through a shared_ptr, so plugins die after the last user: terminate() then destroy()/delete.
#pragma once

#include "core/logging.h"
#include "core/status.h"
#include "plugin/pluginAdapter.h"
#include "runtime/engineData.h"

#include <memory>
#include <mutex>
#include <vector>

namespace kiln
{

class PluginRegistry;

//! Where engine plugins come from: the registry searched (with its parents) and whether plugin libraries embedded
//! in the engine may be loaded (IRuntime::setEngineHostCodeAllowed).
struct EngineLoadOptions
{
    PluginRegistry* registry{nullptr}; //!< nullptr: the global registry
    bool hostCodeAllowed{false};
    nvinfer1::IGpuAllocator* allocator{nullptr}; //!< the runtime's allocator, offered to plugins (nullptr: host)
};

struct EnginePlugin
{
    std::unique_ptr<PluginAdapter> adapter;
    PluginRecord record;
    int32_t nbShapeInputs{0}; //!< V3 shape inputs, the last node inputs (not given to enqueue)
    bool initialized{false};  //!< initialize() succeeded (V2 family): terminate() is due at engine destruction
    //! Plain IPluginV2 objects are shared by every context: calls are serialized and the last context that
    //! configured the object is remembered, so that another context re-configures it with its own shapes.
    std::mutex mutex;
    void const* configuredBy{nullptr};
};

class EnginePlugins
{
public:
    //! Recreate the plugin of every plugin node of `data`. Loads embedded plugin libraries first (refused unless
    //! options.hostCodeAllowed). Fails naming the layer and the plugin (missing creator with the closest names,
    //! corrupt record, initialize() != 0, ...); plugins created before the failure are terminated and destroyed.
    static StatusOr<std::shared_ptr<EnginePlugins>> load(
        EngineData const& data, EngineLoadOptions const& options, std::shared_ptr<Logger const> logger);

    ~EnginePlugins();
    EnginePlugins(EnginePlugins const&) = delete;
    EnginePlugins& operator=(EnginePlugins const&) = delete;

    //! The plugin of node `n`, nullptr for other nodes.
    EnginePlugin* node(size_t n) const { return n < mNodes.size() ? mNodes[n].get() : nullptr; }
    bool empty() const { return mCount == 0; }
    nvinfer1::IGpuAllocator* allocator() const { return mAllocator; }

private:
    EnginePlugins() = default;

    std::shared_ptr<Logger const> mLogger; // adapters log through it: declared first, destroyed last
    std::vector<std::unique_ptr<EnginePlugin>> mNodes;
    size_t mCount{0};
    nvinfer1::IGpuAllocator* mAllocator{nullptr};
};

//! True for the layer kinds that carry a plugin record.
bool isPluginNode(nvinfer1::LayerType kind);

} // namespace kiln
