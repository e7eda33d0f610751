// KernelProbe: asks the backend's own kernel whether it runs a candidate node. The kernel is created from the node's
// KernelSetup (with the backend's first tactic) and reshaped at every optimisation profile's kMIN, kOPT and kMAX
// shapes; its error is the refusal. Passes that rewrite the plan for what a backend's kernels can do (channel-last
// formats, the attention fusion) decide by that answer and never name a device. On CUDA, kernels build their cuDNN
// plans while they are probed, and later contexts reuse them from the process-wide caches.
#pragma once

#include "backends/backend.h"
#include "builder/buildContext.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln
{

class KernelProbe
{
public:
    explicit KernelProbe(BuildContext& ctx)
        : mCtx(ctx)
    {
    }

    //! Why the backend's kernel refuses `node`, with `setup` made from it by makeKernelSetup and possibly edited
    //! (formats), created with `tactic` (default: the backend's first for the setup); empty when it accepts every
    //! profile shape. The probe's own failures (no session, shapes that do not evaluate) are refusals too.
    std::string refusal(PlanNode const& node, KernelSetup setup, std::string const& tactic = std::string());

    //! The expression values at every profile's kMIN, kOPT and kMAX (evaluated on first use; empty when they do not
    //! evaluate, in which case refusal() says why).
    std::vector<std::vector<int64_t>> const& shapeSets()
    {
        (void) init();
        return mShapeSets;
    }

    //! The extents of plan tensor `t` at evaluated expression values `values`.
    static nvinfer1::Dims extents(PlanTensor const& t, std::vector<int64_t> const& values);

private:
    Status init();

    BuildContext& mCtx;
    Backend const* mBackend{nullptr}; //!< the build's backend (the CPU backend when none is set), set by init()
    bool mReady{false};
    Status mInit{Status::ok()};
    std::unique_ptr<BackendSession> mSession;
    std::vector<std::vector<int64_t>> mShapeSets; //!< expression values at each profile's kMIN, kOPT, kMAX
};

} // namespace kiln
