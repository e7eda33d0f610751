// memoryPass: plans one activation arena per optimization profile. Every intermediate tensor gets an offset
// and a capacity large enough for the profile's kMIN, kOPT and kMAX shapes; tensors whose lifetimes do not
// overlap share memory (greedy first fit, largest first). Network I/O and constants need no arena space.
// Plugins: a tensor in a vectorized format takes its padded size; a plugin output aliased to an input
// (getAliasedInput) shares the input's slot; a plugin's workspace is a slot live during its node only
// (PlanProfile::workspaceOffsets). Tensors whose shape depends on a data-dependent size (plugin size tensors)
// stay out of the arena (offset -1): the runtime allocates them. Pure reshapes share their input's slot
// (engine/tensorLifetimes.h: aliasParents), so they move no data (their kernels skip the copy when the addresses
// are equal).
#include "builder/buildContext.h"
#include "builder/dataDependentShapes.h"
#include "builder/intervalPacking.h"
#include "core/dataType.h"
#include "core/tensorFormat.h"
#include "engine/tensorLifetimes.h"

#include <algorithm>
#include <numeric>

namespace kiln
{
namespace
{
constexpr int64_t kALIGNMENT = 256;

int64_t alignUp(int64_t v)
{
    return (v + kALIGNMENT - 1) / kALIGNMENT * kALIGNMENT;
}

struct Interval
{
    int32_t tensor; // group representative, or -1 for a workspace
    int32_t node;   // workspace owner, or -1
    int32_t first;
    int32_t last;
    int64_t size;
    int64_t offset{-1};
};

} // namespace

Status memoryPass(BuildContext& ctx)
{
    Plan& plan = ctx.plan;
    size_t const nbTensors = plan.tensors.size();
    // Lifetimes (loop tensors stay live across all iterations) and plugin aliases (an aliased output shares its
    // input's slot) come from engine/tensorLifetimes.h, which the engine reader checks the arena with.
    TensorLifetimes const lifetimes = tensorLifetimes(plan);
    std::vector<int32_t> const& first = lifetimes.first;
    std::vector<int32_t> const& last = lifetimes.last;
    std::vector<int32_t> parent = aliasParents(plan);
    std::vector<bool> const dataDependent = dataDependentExprs(plan.shapes);
    // Tensors sized by FLOAT shape-tensor input values (no profile bounds them) get run-time buffers.
    std::vector<bool> const sizedAtRun = plan.shapes.dependsOnKind(SymbolKind::kINPUT_FLOAT_VALUE);
    for (PlanProfile& profile : plan.profiles)
    {
        std::vector<int64_t> bytes(nbTensors, 0);
        for (int32_t s = 0; s < 3; ++s)
        {
            KILN_ASSIGN_OR_RETURN(std::vector<int64_t> symbols, profileSymbolValues(plan, profile, s));
            std::vector<int64_t> values;
            KILN_RETURN_IF_ERROR(plan.shapes.evaluate(symbols, values));
            for (size_t t = 0; t < nbTensors; ++t)
            {
                std::vector<int64_t> extents;
                for (ExprId id : plan.tensors[t].dims)
                {
                    extents.push_back(values[static_cast<size_t>(id)]);
                }
                int64_t const tensorBytes = formattedBytes(plan.tensors[t].type, plan.tensors[t].format, extents);
                if (tensorBytes < 0)
                {
                    std::string shape;
                    for (int64_t e : extents)
                    {
                        shape += (shape.empty() ? "" : "x") + std::to_string(e);
                    }
                    return invalidArgument("tensor '" + plan.tensors[t].name + "' has more elements than memory can "
                        "address at a shape of its optimization profile (" + shape + ")");
                }
                bytes[t] = std::max(bytes[t], tensorBytes);
            }
        }
        // One interval per group of tensors sharing a slot (a single tensor unless aliased).
        std::vector<Interval> intervals;
        std::vector<int32_t> groupInterval(nbTensors, -1);
        for (size_t t = 0; t < nbTensors; ++t)
        {
            PlanTensor const& pt = plan.tensors[t];
            bool const inArena = pt.ioMode == nvinfer1::TensorIOMode::kNONE && pt.constant < 0
                && !dependsOnData(dataDependent, pt.dims) && !dependsOnData(sizedAtRun, pt.dims);
            bool const used = last[t] != -2 || pt.hasValues;
            if (!inArena || !used)
            {
                continue;
            }
            int32_t const root = aliasRoot(parent, static_cast<int32_t>(t));
            int32_t& slot = groupInterval[static_cast<size_t>(root)];
            int64_t const size = alignUp(std::max<int64_t>(bytes[t], 1));
            if (slot < 0)
            {
                slot = static_cast<int32_t>(intervals.size());
                intervals.push_back(Interval{root, -1, first[t], std::max(last[t], first[t]), size});
                continue;
            }
            Interval& iv = intervals[static_cast<size_t>(slot)];
            iv.first = std::min(iv.first, first[t]);
            iv.last = std::max(iv.last, std::max(last[t], first[t]));
            iv.size = std::max(iv.size, size);
        }
        // Plugin workspaces: live while their node runs.
        profile.workspaceSizes.resize(plan.nodes.size(), 0);
        profile.workspaceOffsets.assign(plan.nodes.size(), -1);
        for (size_t n = 0; n < plan.nodes.size(); ++n)
        {
            if (profile.workspaceSizes[n] > 0)
            {
                int32_t const step = static_cast<int32_t>(n);
                intervals.push_back(Interval{-1, step, step, step, alignUp(profile.workspaceSizes[n])});
            }
        }
        // Largest first, ties by index, so the plan is deterministic.
        std::vector<size_t> order(intervals.size());
        std::iota(order.begin(), order.end(), size_t{0});
        std::stable_sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return intervals[a].size > intervals[b].size; });
        // Each interval goes to the lowest offset where it meets no placed interval whose lifetime overlaps its own
        // (builder/intervalPacking.h: near-linear in the number of intervals).
        std::vector<PackInterval> packing;
        packing.reserve(intervals.size());
        for (Interval const& iv : intervals)
        {
            packing.push_back(PackInterval{iv.first, iv.last, iv.size});
        }
        int64_t arena = 0;
        std::vector<int64_t> const offsets = packFirstFit(packing, order, arena);
        for (size_t i = 0; i < intervals.size(); ++i)
        {
            intervals[i].offset = offsets[i];
        }
        profile.tensorOffsets.assign(nbTensors, -1);
        profile.tensorCapacity.assign(nbTensors, 0);
        for (Interval const& iv : intervals)
        {
            if (iv.node >= 0)
            {
                profile.workspaceOffsets[static_cast<size_t>(iv.node)] = iv.offset;
            }
        }
        for (size_t t = 0; t < nbTensors; ++t)
        {
            int32_t const slot = groupInterval[static_cast<size_t>(aliasRoot(parent, static_cast<int32_t>(t)))];
            PlanTensor const& pt = plan.tensors[t];
            bool const inArena = pt.ioMode == nvinfer1::TensorIOMode::kNONE && pt.constant < 0
                && !dependsOnData(dataDependent, pt.dims) && !dependsOnData(sizedAtRun, pt.dims);
            bool const used = last[t] != -2 || pt.hasValues;
            if (slot >= 0 && inArena && used)
            {
                profile.tensorOffsets[t] = intervals[static_cast<size_t>(slot)].offset;
                profile.tensorCapacity[t] = intervals[static_cast<size_t>(slot)].size;
            }
        }
        profile.arenaSize = arena;
    }
    return Status::ok();
}

} // namespace kiln
