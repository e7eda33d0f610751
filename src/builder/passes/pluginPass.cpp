// pluginPass: builds every plugin node. Per build and per plugin node, in TensorRT's order:
//  1. clone the network's plugin (the builder's copy, destroyed at the end of the node) and refuse plugins that do
//     not opt into the CPU backend (kiln::IPluginCpuSupport) when building for the CPU;
//  2. getNbOutputs, getOutputDataType(s), getOutputDimensions/getOutputShapes on the builder's copy;
//  3. format/type negotiation (pluginNegotiation.h); a reformat node (kIDENTITY, "reformat" = 1) converts an input
//     whose producer has another type/format, and an output whose consumers or network output need another one;
//     INT8 tensors get PlanTensor::scale from their dynamic range;
//  4. configurePlugin once per optimization profile (min/opt/max of the profile) and getWorkspaceSize, checked
//     against the kWORKSPACE memory pool limit;
//  5. tactics: two or more are timed (pluginTiming.h), one is taken as is;
//  6. IPluginV2 family: initialize, then terminate;
//  7. getAliasedInput per output, serialization, and the PluginRecord in the node's attributes.
// Network I/O tensors whose ITensor::setAllowedFormats excludes kLINEAR get the first allowed format (supported when
// only plugins touch them). Finally, aliased (in-place) outputs get a private copy of their input when the input is a
// network tensor or is read after the plugin, and a private output when they are network outputs; memoryPass gives
// each aliased pair one arena slot.
// This file runs the steps; pluginConfigure.h has steps 2, 4 and 5, pluginReformats.h step 3's reformat nodes and
// the network I/O formats, pluginAliasing.h the aliased outputs.
#include "builder/buildContext.h"
#include "builder/pluginAliasing.h"
#include "builder/pluginConfigure.h"
#include "builder/pluginReformats.h"
#include "network/layers/pluginLayer.h"

namespace kiln
{
namespace
{

class PluginPass
{
public:
    explicit PluginPass(BuildContext& ctx)
        : mCtx(ctx)
        , mPlan(ctx.plan)
        , mConfigurator(ctx)
        , mReformats(ctx)
    {
    }

    Status run()
    {
        KILN_RETURN_IF_ERROR(mConfigurator.evaluateProfiles());
        KILN_RETURN_IF_ERROR(mReformats.prepare());
        std::vector<PlanNode> old = std::move(mPlan.nodes);
        mPlan.nodes.clear();
        for (size_t k = 0; k < old.size(); ++k)
        {
            auto it = mCtx.nodePlugins.find(k);
            if (it == mCtx.nodePlugins.end())
            {
                // Non-plugin node: reads the original tensors.
                mEntries.push_back(PluginNodeEntry{std::move(old[k]), {}});
                continue;
            }
            KILN_RETURN_IF_ERROR(buildPluginNode(std::move(old[k]), *it->second));
        }
        KILN_RETURN_IF_ERROR(isolatePluginAliases(mCtx, mReformats, mConfigurator.dataDependent(), mEntries));
        for (PlanProfile& profile : mPlan.profiles)
        {
            profile.workspaceSizes.assign(mEntries.size(), 0);
            profile.workspaceOffsets.assign(mEntries.size(), -1);
        }
        for (size_t n = 0; n < mEntries.size(); ++n)
        {
            for (size_t p = 0; p < mEntries[n].workspace.size() && p < mPlan.profiles.size(); ++p)
            {
                mPlan.profiles[p].workspaceSizes[n] = mEntries[n].workspace[p];
            }
            mPlan.nodes.push_back(std::move(mEntries[n].node));
        }
        mCtx.nodePlugins.clear();
        return Status::ok();
    }

private:
    Status buildPluginNode(PlanNode node, PluginLayerState const& state)
    {
        PluginAdapter& networkPlugin = state.plugin();
        networkPlugin.setLayerName(node.name);
        // 1. The builder's own copy.
        KILN_ASSIGN_OR_RETURN(std::unique_ptr<PluginAdapter> plugin, networkPlugin.clone());
        plugin->setLayerName(node.name);
        Backend const& backend = mCtx.backend != nullptr ? *mCtx.backend : cpuBackend();
        if (backend.capabilities().hostPlugins && !plugin->supportsCpu())
        {
            return unsupported(
                plugin->label() + " does not support " + backendDisplayName(backend) + ": " + plugin->cpuOptInAdvice());
        }
        int32_t const nbShape = static_cast<int32_t>(node.attrs.getInt("plugin.nbShapeInputs", 0));
        int32_t const nbIn = static_cast<int32_t>(node.inputs.size()) - nbShape;
        std::vector<int32_t> sources;
        for (int32_t i = 0; i < nbIn; ++i)
        {
            sources.push_back(mReformats.pluginSource(node.inputs[static_cast<size_t>(i)]));
        }
        // 2. Shapes and types; 3. negotiation.
        KILN_RETURN_IF_ERROR(mConfigurator.queryShapes(*plugin, node, nbIn, sources));
        std::vector<PlanNode> pre;
        std::vector<PlanNode> post;
        KILN_RETURN_IF_ERROR(mReformats.negotiate(*plugin, node, nbIn, sources, mConfigurator, pre, post));
        for (PlanNode& n : pre)
        {
            mEntries.push_back(PluginNodeEntry{std::move(n), {}});
        }
        // 4./5. Configure, workspace, tactics.
        std::vector<int32_t> const ins(node.inputs.begin(), node.inputs.begin() + nbIn);
        std::vector<int64_t> workspace;
        int32_t tactic = 0;
        KILN_RETURN_IF_ERROR(mConfigurator.configure(*plugin, ins, node.outputs, workspace, tactic, node.tactic));
        // 6. IPluginV2 family: initialize -> terminate (no-ops for IPluginV3).
        KILN_RETURN_IF_ERROR(plugin->initialize());
        plugin->terminate();
        // 7. Aliases and the engine record.
        PluginRecord record;
        record.name = plugin->name();
        record.version = plugin->version();
        record.pluginNamespace = plugin->pluginNamespace();
        record.generation = plugin->generation();
        record.tactic = tactic;
        for (size_t o = 0; o < node.outputs.size(); ++o)
        {
            int32_t const alias = plugin->aliasedInput(static_cast<int32_t>(o));
            if (alias < -1 || alias >= nbIn)
            {
                return invalidArgument(plugin->label() + ": getAliasedInput(" + std::to_string(o) + ") returned "
                    + std::to_string(alias) + ", which is not -1 or an input index in [0, " + std::to_string(nbIn)
                    + ")");
            }
            record.aliases.push_back(alias);
        }
        KILN_ASSIGN_OR_RETURN(record.data, plugin->serialize());
        storePluginRecord(record, node.attrs);
        mEntries.push_back(PluginNodeEntry{std::move(node), std::move(workspace)});
        for (PlanNode& n : post)
        {
            mEntries.push_back(PluginNodeEntry{std::move(n), {}});
        }
        return Status::ok(); // the builder's copy is destroyed here
    }

    BuildContext& mCtx;
    Plan& mPlan;
    PluginConfigurator mConfigurator; // step 2 and steps 4/5, over the shapes evaluated per profile
    PluginReformats mReformats;       // step 3, network I/O formats and the builder's tensors
    std::vector<PluginNodeEntry> mEntries;
};

} // namespace

Status pluginPass(BuildContext& ctx)
{
    PluginPass pass(ctx);
    return pass.run();
}

} // namespace kiln
