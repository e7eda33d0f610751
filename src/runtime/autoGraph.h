// AutoGraph: automatic CUDA graphs for one execution context. When a context runs again with the same shapes and
// addresses, enqueueV3 replays a graph captured from an earlier run instead of launching every node; changed
// addresses re-capture and update the graph in place (cudaGraphExecUpdate), new shapes first run plainly once
// (kernels reshape outside any capture). Runs that cannot be captured fall back to plain launches and say why in
// one verbose log line per change of reason. docs/gpu.md states the rules.
#pragma once

#include "backends/backend.h"
#include "core/logging.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace kiln
{

class AutoGraph
{
public:
    enum class Step : int32_t
    {
        kPLAIN,   //!< launch the nodes one by one
        kCAPTURE, //!< capture the nodes into a graph, then launch it
        kREPLAY,  //!< launch the graph captured for these shapes and addresses
    };

    //! What a captured graph depends on: the shapes (their generation), every tensor's address (the binding's stamp,
    //! TensorBindings) and the kernels' scratch memory.
    struct Key
    {
        uint64_t generation{0};
        uint64_t bindingStamp{0};
        void const* scratch{nullptr};
        bool operator==(Key const& other) const
        {
            return generation == other.generation && bindingStamp == other.bindingStamp && scratch == other.scratch;
        }
    };

    AutoGraph(Backend const& backend, Logger const& logger);

    //! On unless KILN_AUTO_CUDA_GRAPH=0; kiln::setAutoCudaGraphs changes it per context.
    void setEnabled(bool enabled);
    bool enabled() const { return mEnabled; }

    //! The step for a run with `key`. `blocker`: why this run cannot use a graph (logged at kVERBOSE when it
    //! changes), or nullptr. Builds no string unless the logged reason changes.
    Step choose(Key const& key, char const* blocker);
    //! A plain run with these shapes finished: the kernels are warm, the next run may be captured.
    void plainRunDone(uint64_t generation);
    //! Start capturing on `stream`; false (logged) when the backend refuses.
    bool beginCapture(cudaStream_t stream);
    //! End the capture begun by beginCapture. `ran` is how the captured nodes returned. On success the graph is
    //! kept and launched and true is returned; otherwise the capture is dropped, the reason logged, these shapes
    //! are not captured again, and the caller must run the nodes plainly.
    bool endCaptureAndLaunch(cudaStream_t stream, Status const& ran, Key const& key);
    Status replay(cudaStream_t stream);
    //! Forget the graph (its memory may be gone: new activation memory, context destruction).
    void reset();

private:
    //! Log "automatic CUDA graph: <what><detail>" unless it is the last line logged.
    void note(char const* what, std::string_view detail = {});

    Backend const& mBackend;
    Logger const& mLogger;
    bool mEnabled{true};
    std::unique_ptr<CapturedRun> mGraph;
    bool mGraphValid{false};
    Key mGraphKey;
    static constexpr uint64_t kNONE = ~uint64_t{0};
    uint64_t mWarmGeneration{kNONE};    //!< shapes of the last plain run (kernels reshaped and warm)
    uint64_t mRefusedGeneration{kNONE}; //!< shapes whose capture failed
    std::string mLastNote;
};

} // namespace kiln
