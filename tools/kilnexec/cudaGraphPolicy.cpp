// kilnexec's CUDA graph decisions (cudaGraphPolicy.h).
#include "cudaGraphPolicy.h"

#include "options.h"

namespace kilnexec
{

GraphDecision planCudaGraph(GraphQuery const& query)
{
    GraphDecision decision;
    if (!query.requested)
    {
        return decision;
    }
    decision.mode = GraphMode::kFALLBACK;
    if (query.engineBackend != kiln::BackendKind::kCUDA)
    {
        decision.message = "--useCudaGraph: CUDA graphs do not apply to the CPU backend; running without one.";
        return decision;
    }
    if (!query.cudaBuilt)
    {
        decision.message = "--useCudaGraph: kilnexec was built without CUDA; running without a CUDA graph.";
        return decision;
    }
    for (auto const& [name, dims] : query.outputShapes)
    {
        bool dataDependent = dims.nbDims < 0;
        for (int32_t i = 0; i < dims.nbDims; ++i)
        {
            dataDependent = dataDependent || dims.d[i] < 0;
        }
        if (dataDependent)
        {
            decision.message = "The engine contains data-dependent shapes (output '" + name + "' is "
                + dimsText(dims) + " until it runs): CUDA graphs are not used; running enqueueV3 without one.";
            return decision;
        }
    }
    decision.mode = GraphMode::kCAPTURE;
    return decision;
}

GraphDecision captureOutcome(bool enqueueOk, std::string const& captureError)
{
    GraphDecision decision;
    if (enqueueOk && captureError.empty())
    {
        decision.mode = GraphMode::kCAPTURE;
        return decision;
    }
    decision.mode = GraphMode::kFALLBACK;
    std::string reason = enqueueOk ? std::string() : "enqueueV3 returned false during the capture";
    if (!captureError.empty())
    {
        reason += (reason.empty() ? "" : "; ") + captureError;
    }
    decision.message = "The CUDA graph capture on the stream has failed (" + reason
        + "); running enqueueV3 without a CUDA graph.";
    return decision;
}

bool profileInSeparateRuns(bool wantProfile, bool separateProfileRun, bool graphUsed)
{
    return wantProfile && (separateProfileRun || graphUsed);
}

} // namespace kilnexec
