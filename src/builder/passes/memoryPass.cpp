// memoryPass: plans one activation arena per optimization profile. Every intermediate tensor gets an offset
// and a capacity large enough for the profile's kMIN, kOPT and kMAX shapes; tensors whose lifetimes do not
// overlap share memory (greedy first fit, largest first). Network I/O and constants need no arena space.
// Plugins: a tensor in a vectorized format takes its padded size; a plugin output aliased to an input
// (getAliasedInput) shares the input's slot; a plugin's workspace is a slot live during its node only
// (PlanProfile::workspaceOffsets). Tensors whose shape depends on a data-dependent size (plugin size tensors)
// stay out of the arena (offset -1): the runtime allocates them.
// Reshapes: the output of a Shuffle that only reshapes (both transposes the identity) shares its input's slot when
// both live in the arena, so the node moves no data (its kernels skip the copy when the two addresses are equal).
#include "builder/buildContext.h"
#include "builder/dataDependentShapes.h"
#include "builder/intervalPacking.h"
#include "builder/planEdit.h"
#include "builder/passes/loopRegions.h"
#include "core/dataType.h"
#include "core/tensorFormat.h"
#include "plugin/pluginAdapter.h"

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

int32_t findRoot(std::vector<int32_t>& parent, int32_t t)
{
    while (parent[static_cast<size_t>(t)] != t)
    {
        parent[static_cast<size_t>(t)] = parent[static_cast<size_t>(parent[static_cast<size_t>(t)])];
        t = parent[static_cast<size_t>(t)];
    }
    return t;
}

} // namespace

Status memoryPass(BuildContext& ctx)
{
    Plan& plan = ctx.plan;
    size_t const nbTensors = plan.tensors.size();
    std::vector<int32_t> first(nbTensors, -1);
    std::vector<int32_t> last(nbTensors, -2);
    for (size_t n = 0; n < plan.nodes.size(); ++n)
    {
        int32_t const step = static_cast<int32_t>(n);
        for (int32_t out : plan.nodes[n].outputs)
        {
            if (last[static_cast<size_t>(out)] == -2)
            {
                first[static_cast<size_t>(out)] = step;
            }
            last[static_cast<size_t>(out)] = std::max(last[static_cast<size_t>(out)], step);
        }
        for (int32_t in : plan.nodes[n].inputs)
        {
            if (in >= 0)
            {
                if (last[static_cast<size_t>(in)] == -2)
                {
                    first[static_cast<size_t>(in)] = -1; // materialized before the first node
                }
                last[static_cast<size_t>(in)] = std::max(last[static_cast<size_t>(in)], step);
            }
        }
    }
    extendLoopLifetimes(plan, first, last); // loop tensors stay live across all iterations
    // Aliased plugin outputs share their input's slot.
    std::vector<int32_t> parent(nbTensors);
    std::iota(parent.begin(), parent.end(), 0);
    for (PlanNode const& node : plan.nodes)
    {
        if (node.kind != nvinfer1::LayerType::kPLUGIN_V2 && node.kind != nvinfer1::LayerType::kPLUGIN_V3)
        {
            continue;
        }
        KILN_ASSIGN_OR_RETURN(PluginRecord record, loadPluginRecord(node.attrs));
        for (size_t o = 0; o < record.aliases.size() && o < node.outputs.size(); ++o)
        {
            int64_t const a = record.aliases[o];
            if (a >= 0 && static_cast<size_t>(a) < node.inputs.size() && node.inputs[static_cast<size_t>(a)] >= 0)
            {
                parent[static_cast<size_t>(findRoot(parent, node.outputs[o]))]
                    = findRoot(parent, node.inputs[static_cast<size_t>(a)]);
            }
        }
    }
    std::vector<bool> const dataDependent = dataDependentExprs(plan.shapes);
    // Tensors sized by FLOAT shape-tensor input values (no profile bounds them) get run-time buffers.
    std::vector<bool> const sizedAtRun = plan.shapes.dependsOnKind(SymbolKind::kINPUT_FLOAT_VALUE);
    auto inArenaTensor = [&](int32_t t) {
        PlanTensor const& pt = plan.tensors[static_cast<size_t>(t)];
        return pt.ioMode == nvinfer1::TensorIOMode::kNONE && pt.constant < 0 && !dependsOnData(dataDependent, pt.dims)
            && !dependsOnData(sizedAtRun, pt.dims);
    };
    // Pure reshapes share their input's slot, unless a plugin writes either tensor in place (its group would then be
    // modified under the other name) or either has values computed on the host.
    std::vector<bool> pluginAliased(nbTensors, false);
    for (size_t t = 0; t < nbTensors; ++t)
    {
        pluginAliased[t] = findRoot(parent, static_cast<int32_t>(t)) != static_cast<int32_t>(t);
        if (pluginAliased[t])
        {
            pluginAliased[static_cast<size_t>(findRoot(parent, static_cast<int32_t>(t)))] = true;
        }
    }
    for (PlanNode const& node : plan.nodes)
    {
        if (!isPureReshape(node))
        {
            continue;
        }
        int32_t const in = node.inputs[0];
        int32_t const out = node.outputs[0];
        PlanTensor const& a = plan.tensors[static_cast<size_t>(in)];
        PlanTensor const& b = plan.tensors[static_cast<size_t>(out)];
        if (inArenaTensor(in) && inArenaTensor(out) && !pluginAliased[static_cast<size_t>(in)]
            && !pluginAliased[static_cast<size_t>(out)] && !a.hasValues && !b.hasValues && a.type == b.type
            && a.format == b.format && a.format == nvinfer1::TensorFormat::kLINEAR)
        {
            parent[static_cast<size_t>(findRoot(parent, out))] = findRoot(parent, in);
        }
    }
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
                int64_t const volume = formattedVolume(plan.tensors[t].format, extents);
                bytes[t] = std::max(bytes[t], byteSize(plan.tensors[t].type, volume));
            }
        }
        // One interval per group of tensors sharing a slot (a single tensor unless aliased).
        std::vector<Interval> intervals;
        std::vector<int32_t> groupInterval(nbTensors, -1);
        for (size_t t = 0; t < nbTensors; ++t)
        {
            PlanTensor const& pt = plan.tensors[t];
            bool const inArena = inArenaTensor(static_cast<int32_t>(t));
            bool const used = last[t] != -2 || pt.hasValues;
            if (!inArena || !used)
            {
                continue;
            }
            int32_t const root = findRoot(parent, static_cast<int32_t>(t));
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
            int32_t const slot = groupInterval[static_cast<size_t>(findRoot(parent, static_cast<int32_t>(t)))];
            PlanTensor const& pt = plan.tensors[t];
            bool const inArena = inArenaTensor(static_cast<int32_t>(t));
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
