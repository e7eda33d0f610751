// AutoGraph (see autoGraph.h): the choice between plain launches, capture and replay, and the capture itself.
#include "runtime/autoGraph.h"

#include <cstdlib>
#include <cstring>

namespace kiln
{

AutoGraph::AutoGraph(Backend const& backend, Logger const& logger)
    : mBackend(backend)
    , mLogger(logger)
{
    char const* env = std::getenv("KILN_AUTO_CUDA_GRAPH");
    mEnabled = env == nullptr || std::strcmp(env, "0") != 0;
}

void AutoGraph::setEnabled(bool enabled)
{
    mEnabled = enabled;
    if (!enabled)
    {
        reset();
    }
}

void AutoGraph::reset()
{
    mGraph.reset();
    mGraphValid = false;
    mGraphKey = Key{};
    mWarmGeneration = kNONE;
    mRefusedGeneration = kNONE;
}

void AutoGraph::note(char const* what, std::string_view detail)
{
    std::string_view const head(what);
    std::string_view const last(mLastNote);
    if (last.size() == head.size() + detail.size() && last.substr(0, head.size()) == head
        && last.substr(head.size()) == detail)
    {
        return; // logged already: the run path builds no string
    }
    mLastNote.assign(head).append(detail);
    mLogger.verbose("automatic CUDA graph: " + mLastNote);
}

AutoGraph::Step AutoGraph::choose(Key const& key, char const* blocker)
{
    uint64_t const generation = key.generation;
    if (!mEnabled || !mBackend.capabilities().capturesGraphs)
    {
        return Step::kPLAIN;
    }
    if (blocker != nullptr)
    {
        note("not used for this run: ", blocker);
        return Step::kPLAIN;
    }
    if (mGraphValid && mGraphKey == key)
    {
        note("replaying the graph captured for these shapes and addresses");
        return Step::kREPLAY;
    }
    if (generation == mWarmGeneration && generation != mRefusedGeneration)
    {
        return Step::kCAPTURE;
    }
    if (generation == mRefusedGeneration)
    {
        return Step::kPLAIN; // the reason was logged when the capture failed
    }
    note("plain launches while the kernels take new shapes; the next run with these shapes is captured");
    return Step::kPLAIN;
}

void AutoGraph::plainRunDone(uint64_t generation)
{
    mWarmGeneration = generation;
}

bool AutoGraph::beginCapture(cudaStream_t stream)
{
    Status const st = mBackend.beginCapture(stream);
    if (!st.isOk())
    {
        note("not used: the capture could not start: ", st.message());
        mRefusedGeneration = mWarmGeneration;
        return false;
    }
    return true;
}

bool AutoGraph::endCaptureAndLaunch(cudaStream_t stream, Status const& ran, Key const& key)
{
    bool const updating = mGraph != nullptr;
    mGraphValid = false;
    StatusOr<std::unique_ptr<CapturedRun>> graph = mBackend.endCapture(stream, std::move(mGraph));
    if (!ran.isOk() || !graph.isOk())
    {
        mRefusedGeneration = key.generation;
        note("not used for these shapes, falling back to plain launches: ",
            !graph.isOk() ? graph.status().message() : "a node failed while being captured: " + ran.message());
        return false;
    }
    mGraph = std::move(graph).value();
    Status const launched = mGraph->launch(stream);
    if (!launched.isOk())
    {
        mGraph.reset();
        mRefusedGeneration = key.generation;
        note("not used for these shapes: ", launched.message());
        return false;
    }
    mGraphValid = true;
    mGraphKey = key;
    note(updating ? "captured this run again and updated the graph" : "captured this run into a graph");
    return true;
}

Status AutoGraph::replay(cudaStream_t stream)
{
    return mGraph->launch(stream);
}

} // namespace kiln
