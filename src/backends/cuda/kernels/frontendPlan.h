// What the cuDNN frontend graphs (convolutionGraph.cpp, attentionGraph.cpp) share: the build sequence of a graph's
// plan on the planning handle, and a process-wide cache of built plans by description.
#pragma once

#include "core/status.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>

#if KILN_HAVE_CUDNN && KILN_HAVE_CUDNN_FRONTEND
#define CUDNN_FRONTEND_SKIP_JSON_LIB 1
#include <cudnn_frontend.h>
#endif

namespace kiln::cuda
{

#if KILN_HAVE_CUDNN && KILN_HAVE_CUDNN_FRONTEND
//! What autotuning needs to run a graph's candidates on scratch buffers: the bytes of each tensor by uid.
struct FrontendTuning
{
    std::map<int64_t, int64_t> tensorBytes;
};

//! A frontend graph whose built plans Kiln can choose among (the plan list is the frontend's protected state).
class TunableGraph : public cudnn_frontend::graph::Graph
{
public:
    //! Makes the built plan at `index` the one that executes and whose workspace size the graph reports.
    void selectPlan(int64_t index);
    //! The engine tag of the built plan at `index` ("?" when none).
    std::string planTag(int64_t index) const;
    //! The position of the chosen plan (-1: none).
    int64_t selectedPlan() const { return plans.candidate; }
    //! True when the plan was chosen among several by timing, or taken from an imported choice (autotune.h).
    bool chosen() const { return mChosen; }
    void setChosen() { mChosen = true; }
    //! The recorded value of the choice: "<index>\t<engine tag>".
    std::string choiceRecord() const { return std::to_string(selectedPlan()) + '\t' + planTag(selectedPlan()); }

private:
    bool mChosen{false};
};

//! Validates `graph`, builds its operation graph on the planning handle (under the planning lock), takes heuristics
//! mode A's engines, keeps the supported ones, builds the heuristics' choice and returns its workspace size. A
//! failure is an invalid-argument Status "<what> <step>: <the frontend's message>".
StatusOr<int64_t> buildFrontendPlan(cudnn_frontend::graph::Graph& graph, std::string const& what);

//! As buildFrontendPlan, but with autotuning on (autotune.h) it builds up to the settings' number of candidates
//! within the time budget (engines that need runtime compilation only as the heuristics' first choice), times each
//! on scratch buffers of `tuning`'s sizes and selects the fastest; a candidate that fails to build or run is skipped.
//! A choice imported for `what` (the graph's description) is built alone instead, when it still builds with the same
//! engine tag.
StatusOr<int64_t> buildTunedFrontendPlan(TunableGraph& graph, std::string const& what, FrontendTuning const& tuning);
#endif

//! Built plans (and refusals, so that a refused description is not built again) by description, shared by the
//! process. At `maxEntries` the cache is emptied; plans in use stay alive through their kernels' shared pointers.
template <typename Plan>
class PlanCache
{
public:
    using Result = StatusOr<std::shared_ptr<Plan const>>;

    explicit PlanCache(size_t maxEntries)
        : mMaxEntries(maxEntries)
    {
    }

    //! The result cached for `key`, else `build()`'s (run without the lock), cached. `fresh` tells which it was.
    template <typename Build>
    Result get(std::string const& key, Build&& build, bool* fresh = nullptr)
    {
        {
            std::lock_guard<std::mutex> lock(mMutex);
            auto it = mEntries.find(key);
            if (it != mEntries.end())
            {
                if (fresh != nullptr)
                {
                    *fresh = false;
                }
                return it->second;
            }
        }
        Result result = build();
        std::lock_guard<std::mutex> lock(mMutex);
        if (mEntries.size() >= mMaxEntries)
        {
            mEntries.clear();
        }
        mEntries.emplace(key, result);
        if (fresh != nullptr)
        {
            *fresh = true;
        }
        return result;
    }

private:
    size_t mMaxEntries;
    std::mutex mMutex;
    std::map<std::string, Result> mEntries;
};

} // namespace kiln::cuda
