// tacticsPass: asks the build's backend which implementations can run each node (best first), records the choice
// in the node, and creates the kernel once so that unsupported types or parameters fail the build, not the run.
// KILN_CPU_TACTIC=reference forces the reference kernels (useful to compare against fast paths).
// Memory pools: oneDNN tactics use scratch memory (the kWORKSPACE pool); the reference kernels use none. With
// IBuilderConfig::setMemoryPoolLimit(kWORKSPACE, 0) only tactics that need no workspace are chosen.
// On a device backend, nodes with several candidate tactics are timed (builder/tacticTiming.h).
// Plugin nodes are skipped: pluginPass configured them and chose their tactics.
#include "builder/buildContext.h"
#include "builder/tacticTiming.h"

#include "core/dataType.h"
#include "network/inferContext.h"

#include <algorithm>
#include <cstdlib>

namespace kiln
{

Status tacticsPass(BuildContext& ctx)
{
    Backend const& backend = ctx.backend != nullptr ? *ctx.backend : cpuBackend();
    BackendCapabilities const& caps = backend.capabilities();
    std::string const backendLabel = backendDisplayName(backend);
    char const* forced = caps.forcedTacticVariable != nullptr ? std::getenv(caps.forcedTacticVariable) : nullptr;
    KILN_ASSIGN_OR_RETURN(std::unique_ptr<BackendSession> session, backend.createSession());
    for (PlanNode& node : ctx.plan.nodes)
    {
        if (node.kind == nvinfer1::LayerType::kPLUGIN_V2 || node.kind == nvinfer1::LayerType::kPLUGIN_V3)
        {
            continue; // pluginPass chose the plugin's tactic ("plugin" / "plugin:<n>")
        }
        std::string const label = "layer '" + node.name + "' (" + layerKindName(node.kind) + ")";
        KernelSetup const setup = makeKernelSetup(ctx.plan, node);
        std::vector<std::string> tactics = backend.tactics(setup);
        // The CPU backend is the reference every kind and type combination is measured against.
        if (tactics.empty() && &backend != &cpuBackend() && !cpuBackend().tactics(setup).empty())
        {
            return unsupported(label + ": " + backendLabel + " has no implementation of this layer kind with these "
                "types yet");
        }
        if (tactics.empty() && !cpuBackend().implements(node.kind))
        {
            return unsupported(label + ": " + backendLabel + " has no implementation of this layer kind");
        }
        if (tactics.empty())
        {
            std::string types;
            for (size_t i = 0; i < setup.inputTypes.size(); ++i)
            {
                types += (i ? ", " : "") + std::string(setup.inputPresent[i] ? dataTypeName(setup.inputTypes[i]) : "-");
            }
            return unsupported(label + ": " + backendLabel + " cannot run it with input types (" + types + ")");
        }
        if (caps.workspaceFreeTactic != nullptr
            && ctx.config.getMemoryPoolLimit(nvinfer1::MemoryPoolType::kWORKSPACE) == 0)
        {
            tactics.erase(std::remove_if(tactics.begin(), tactics.end(),
                              [&](std::string const& t) { return t != caps.workspaceFreeTactic; }),
                tactics.end());
            if (tactics.empty())
            {
                return unsupported(label + ": every implementation on " + backendLabel + " needs workspace memory, but "
                                           "the kWORKSPACE memory pool limit is 0");
            }
        }
        node.tactic = tactics.front();
        if (caps.timesTactics)
        {
            KILN_RETURN_IF_ERROR(timeTactics(ctx, node, setup, tactics, *session));
        }
        if (forced != nullptr && std::find(tactics.begin(), tactics.end(), forced) != tactics.end())
        {
            node.tactic = forced;
        }
        auto kernel = session->createKernel(setup);
        if (!kernel.isOk())
        {
            return kernel.status().withContext(label);
        }
        ctx.logger.verbose(label + ": tactic '" + node.tactic + "'");
    }
    return Status::ok();
}

} // namespace kiln
