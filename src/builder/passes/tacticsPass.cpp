// tacticsPass: asks the CPU backend which implementations can run each node (best first), records the choice
// in the node, and creates the kernel once so that unsupported types or parameters fail the build, not the run.
// KILN_CPU_TACTIC=reference forces the reference kernels (useful to compare against fast paths).
// Memory pools: oneDNN tactics use scratch memory (the kWORKSPACE pool); the reference kernels use none. With
// IBuilderConfig::setMemoryPoolLimit(kWORKSPACE, 0) only tactics that need no workspace are chosen.
// Plugin nodes are skipped: pluginPass configured them and chose their tactics.
#include "builder/buildContext.h"

#include "backends/cpu/cpuKernel.h"
#include "core/dataType.h"
#include "network/inferContext.h"

#include <algorithm>
#include <cstdlib>

namespace kiln
{

Status tacticsPass(BuildContext& ctx)
{
    char const* forced = std::getenv("KILN_CPU_TACTIC");
    for (PlanNode& node : ctx.plan.nodes)
    {
        if (node.kind == nvinfer1::LayerType::kPLUGIN_V2 || node.kind == nvinfer1::LayerType::kPLUGIN_V3)
        {
            continue; // pluginPass chose the plugin's tactic ("plugin" / "plugin:<n>")
        }
        std::string const label = "layer '" + node.name + "' (" + layerKindName(node.kind) + ")";
        CpuTacticsFn tacticsFn = cpuKernelTactics(node.kind);
        CpuKernelFactory factory = cpuKernelFactory(node.kind);
        if (tacticsFn == nullptr || factory == nullptr)
        {
            return unsupported(label + ": the CPU backend has no implementation of this layer kind");
        }
        KernelSetup const setup = makeKernelSetup(ctx.plan, node);
        std::vector<std::string> tactics = tacticsFn(setup);
        if (tactics.empty())
        {
            std::string types;
            for (size_t i = 0; i < setup.inputTypes.size(); ++i)
            {
                types += (i ? ", " : "") + std::string(setup.inputPresent[i] ? dataTypeName(setup.inputTypes[i]) : "-");
            }
            return unsupported(label + ": the CPU backend cannot run it with input types (" + types + ")");
        }
        if (ctx.config.getMemoryPoolLimit(nvinfer1::MemoryPoolType::kWORKSPACE) == 0)
        {
            tactics.erase(std::remove_if(tactics.begin(), tactics.end(),
                              [](std::string const& t) { return t != "reference"; }),
                tactics.end());
            if (tactics.empty())
            {
                return unsupported(label + ": every CPU implementation needs workspace memory, but the kWORKSPACE "
                                           "memory pool limit is 0");
            }
        }
        node.tactic = tactics.front();
        if (forced != nullptr && std::find(tactics.begin(), tactics.end(), forced) != tactics.end())
        {
            node.tactic = forced;
        }
        auto kernel = factory(setup);
        if (!kernel.isOk())
        {
            return kernel.status().withContext(label);
        }
        ctx.logger.verbose(label + ": tactic '" + node.tactic + "'");
    }
    return Status::ok();
}

} // namespace kiln
