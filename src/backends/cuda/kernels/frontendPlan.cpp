// The build sequence of a cuDNN frontend graph's plan (see frontendPlan.h): the heuristics' choice, or several
// candidates timed on scratch buffers (autotune.h) with the fastest kept.
#include "backends/cuda/kernels/frontendPlan.h"

#include "backends/cuda/kernels/autotune.h"
#include "backends/cuda/kernels/cudnnCommon.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <unordered_map>
#include <vector>

namespace kiln::cuda
{

#if KILN_HAVE_CUDNN && KILN_HAVE_CUDNN_FRONTEND

namespace fe = cudnn_frontend;

namespace
{

//! Candidates other than the heuristics' first choice may not use more workspace than this.
constexpr int64_t kMAX_CANDIDATE_WORKSPACE = 256LL << 20;

bool needsRuntimeCompilation(fe::graph::Graph const& graph, int64_t index)
{
    std::vector<fe::BehaviorNote_t> notes;
    if (graph.get_behavior_notes_for_plan_at_index(index, notes).is_bad())
    {
        return false;
    }
    return std::find(notes.begin(), notes.end(), fe::BehaviorNote_t::RUNTIME_COMPILATION) != notes.end();
}

//! Builds up to the settings' number of candidates (in the heuristics' order) within the budget; their indices.
std::vector<int64_t> buildCandidates(fe::graph::Graph& graph, AutotuneSettings const& settings,
    std::chrono::steady_clock::time_point start, std::string& failure)
{
    auto const count = graph.get_execution_plan_count();
    std::vector<int64_t> built;
    for (int64_t i = 0; i < count && static_cast<int32_t>(built.size()) < settings.candidates; ++i)
    {
        if (!built.empty())
        {
            double const spent
                = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            if (spent > settings.budgetMs)
            {
                break;
            }
            if (needsRuntimeCompilation(graph, i))
            {
                continue; // runtime compilation takes 0.1-1 s a plan: only as the heuristics' first choice
            }
        }
        fe::error_t e = graph.build_plan_at_index(i);
        if (e.is_bad())
        {
            failure = e.get_message();
            continue;
        }
        int64_t bytes = 0;
        if (!built.empty()
            && (graph.get_workspace_size_plan_at_index(i, bytes).is_bad() || bytes > kMAX_CANDIDATE_WORKSPACE))
        {
            continue;
        }
        built.push_back(i);
    }
    return built;
}

//! Builds the imported choice "<index>\t<engine tag>" alone; its index, or -1 when it does not build with that tag.
int64_t buildImported(TunableGraph& graph, std::string const& value)
{
    size_t const tab = value.find('\t');
    char* end = nullptr;
    long long const index = std::strtoll(value.c_str(), &end, 10);
    if (tab == std::string::npos || end != value.c_str() + tab || index < 0
        || index >= static_cast<long long>(graph.get_execution_plan_count()))
    {
        return -1;
    }
    if (graph.build_plan_at_index(index).is_bad() || graph.planTag(index) != value.substr(tab + 1))
    {
        return -1; // another cuDNN or device: time as usual
    }
    return index;
}

//! Times the built candidates on scratch buffers; their times in ms (negative: failed to run).
std::vector<double> timeCandidates(
    fe::graph::Graph& graph, cudnnHandle_t h, std::vector<int64_t> const& built, FrontendTuning const& tuning)
{
    std::vector<double> times(built.size(), -1.0);
    TimingStream timing;
    ScratchBuffers scratch(timing.stream());
    std::unordered_map<int64_t, void*> pointers;
    for (auto const& [uid, bytes] : tuning.tensorBytes)
    {
        void* p = scratch.allocate(bytes);
        if (p == nullptr)
        {
            return times;
        }
        pointers.emplace(uid, p);
    }
    int64_t maxWorkspace = 0;
    for (int64_t i : built)
    {
        int64_t bytes = 0;
        if (graph.get_workspace_size_plan_at_index(i, bytes).is_good())
        {
            maxWorkspace = std::max(maxWorkspace, bytes);
        }
    }
    void* workspace = scratch.allocate(maxWorkspace);
    cudaStream_t previous = nullptr;
    if (workspace == nullptr || !timing.valid() || cudnnGetStream(h, &previous) != CUDNN_STATUS_SUCCESS
        || cudnnSetStream(h, timing.stream()) != CUDNN_STATUS_SUCCESS)
    {
        (void) cudaGetLastError();
        return times;
    }
    for (size_t c = 0; c < built.size(); ++c)
    {
        times[c] = timing.time(
            [&]() { return graph.execute_plan_at_index(h, pointers, workspace, built[c]).is_good(); });
    }
    (void) cudnnSetStream(h, previous);
    (void) cudaGetLastError();
    return times;
}

//! Chooses among several built candidates by timing (tuning began at `start`) and selects the choice in the graph.
void chooseCandidate(TunableGraph& graph, cudnnHandle_t h, std::vector<int64_t> const& built,
    FrontendTuning const& tuning, AutotuneSettings const& settings, std::string const& what,
    std::chrono::steady_clock::time_point start)
{
    std::vector<double> const times = timeCandidates(graph, h, built, tuning);
    int64_t const pick = pickCandidate(times, settings);
    graph.selectPlan(pick >= 0 ? built[static_cast<size_t>(pick)] : built.front());
    std::vector<std::string> names;
    for (int64_t i : built)
    {
        names.push_back(graph.planTag(i));
    }
    reportAutotune(true, what, names, times, pick, start);
}

//! The build sequence; `tunable` is `graph` itself when its candidates may be timed.
StatusOr<int64_t> buildPlan(fe::graph::Graph& graph, std::string const& what, TunableGraph* tunable,
    FrontendTuning const* tuning)
{
    CudnnPlanningLock lock;
    KILN_ASSIGN_OR_RETURN(cudnnHandle_t h, cudnnPlanningHandle());
    AutotuneSettings const settings = autotuneSettings();
    bool const tune = tunable != nullptr && settings.enabled && settings.candidates > 1;
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
    if (e.is_good() && !tune)
    {
        step = "plan";
        e = graph.build_plans(fe::BuildPlanPolicy_t::HEURISTICS_CHOICE);
    }
    else if (e.is_good())
    {
        step = "plan";
        std::string failure = "no engine config could be built";
        auto const start = std::chrono::steady_clock::now();
        std::optional<std::string> const imported = importedTuning('c', what);
        int64_t const importedIndex = imported.has_value() ? buildImported(*tunable, *imported) : -1;
        std::vector<int64_t> const built = importedIndex >= 0 ? std::vector<int64_t>{importedIndex}
                                                              : buildCandidates(graph, settings, start, failure);
        // The variant pack template (build_plans prepares it; building plan by plan does not).
        e = built.empty() ? fe::error_t{fe::error_code_t::GRAPH_EXECUTION_PLAN_CREATION_FAILED, failure}
                          : graph.prepare_variant_pack_template();
        if (e.is_good() && built.size() == 1)
        {
            tunable->selectPlan(built.front());
        }
        else if (e.is_good())
        {
            chooseCandidate(*tunable, h, built, *tuning, settings, what, start);
        }
        if (e.is_good() && (importedIndex >= 0 || built.size() > 1))
        {
            tunable->setChosen();
        }
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

} // namespace

void TunableGraph::selectPlan(int64_t index)
{
    plans.candidate = index;
    apply_oss_slot_indices_to_plans();
}

std::string TunableGraph::planTag(int64_t index) const
{
    auto const& list = plans.execution_plans;
    if (index < 0 || static_cast<size_t>(index) >= list.size() || list[static_cast<size_t>(index)] == nullptr)
    {
        return "?";
    }
    return list[static_cast<size_t>(index)]->getTag();
}

StatusOr<int64_t> buildFrontendPlan(fe::graph::Graph& graph, std::string const& what)
{
    return buildPlan(graph, what, nullptr, nullptr);
}

StatusOr<int64_t> buildTunedFrontendPlan(TunableGraph& graph, std::string const& what, FrontendTuning const& tuning)
{
    return buildPlan(graph, what, &graph, &tuning);
}

#endif

} // namespace kiln::cuda
