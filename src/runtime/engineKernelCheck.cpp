// checkEngineKernels: the engine-load check of every node against its backend's kernel (see engineKernelCheck.h).
#include "runtime/engineKernelCheck.h"

#include "backends/backend.h"
#include "core/layerKinds.h"
#include "core/quoting.h"

namespace kiln
{

Status checkEngineKernels(EngineData const& data, DeviceWeights const* deviceWeights)
{
    Plan const& plan = data.plan;
    Backend const& backend = *data.backend;
    std::unique_ptr<BackendSession> session;
    for (PlanNode const& node : plan.nodes)
    {
        if (isPluginKind(node.kind))
        {
            continue; // the plugin decides what it accepts (its record is checked by EnginePlugins::load)
        }
        if (session == nullptr)
        {
            KILN_ASSIGN_OR_RETURN(session, backend.createSession());
        }
        KernelSetup setup = makeKernelSetup(plan, node);
        if (deviceWeights != nullptr)
        {
            deviceWeights->attach(node, setup);
        }
        StatusOr<std::unique_ptr<Kernel>> kernel = session->createKernel(setup);
        if (!kernel.isOk())
        {
            return Status(kernel.status().code(), "invalid engine: node " + singleQuoted(node.name) + " ("
                + layerKindName(node.kind) + (node.tactic.empty() ? std::string() : ", tactic " + singleQuoted(node.tactic))
                + ") is not what " + backendDisplayName(backend) + "'s kernel accepts: " + kernel.status().message());
        }
    }
    return Status::ok();
}

} // namespace kiln
