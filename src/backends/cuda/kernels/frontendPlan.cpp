// The build sequence of a cuDNN frontend graph's plan (see frontendPlan.h).
#include "backends/cuda/kernels/frontendPlan.h"

#include "backends/cuda/kernels/cudnnCommon.h"

namespace kiln::cuda
{

#if KILN_HAVE_CUDNN && KILN_HAVE_CUDNN_FRONTEND

namespace fe = cudnn_frontend;

StatusOr<int64_t> buildFrontendPlan(fe::graph::Graph& graph, std::string const& what)
{
    CudnnPlanningLock lock;
    KILN_ASSIGN_OR_RETURN(cudnnHandle_t h, cudnnPlanningHandle());
    fe::error_t e = graph.validate();
    char const* step = "validation";
    if (e.is_good())
    {
        step = "operation graph";
        e = graph.build_operation_graph(h);
    }
    if (e.is_good())
    {
        step = "heuristics";
        e = graph.create_execution_plans({fe::HeurMode_t::A});
    }
    if (e.is_good())
    {
        step = "support";
        e = graph.check_support(h);
    }
    if (e.is_good())
    {
        step = "plan";
        e = graph.build_plans(fe::BuildPlanPolicy_t::HEURISTICS_CHOICE);
    }
    int64_t bytes = 0;
    if (e.is_good())
    {
        step = "workspace size";
        e = graph.get_workspace_size(bytes);
    }
    if (e.is_bad())
    {
        return invalidArgument(what + " " + step + ": " + e.get_message());
    }
    return bytes;
}

#endif

} // namespace kiln::cuda
