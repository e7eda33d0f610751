// memoryPass: plans one activation arena per optimization profile. Every intermediate tensor gets an offset
// and a capacity large enough for the profile's kMIN, kOPT and kMAX shapes; tensors whose lifetimes do not
// overlap share memory (greedy first fit, largest first). Network I/O and constants need no arena space.
#include "builder/buildContext.h"

#include "core/dataType.h"

#include <algorithm>

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
    int32_t tensor;
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
                int64_t volume = 1;
                for (ExprId id : plan.tensors[t].dims)
                {
                    volume *= values[static_cast<size_t>(id)];
                }
                bytes[t] = std::max(bytes[t], byteSize(plan.tensors[t].type, volume));
            }
        }
        std::vector<Interval> intervals;
        for (size_t t = 0; t < nbTensors; ++t)
        {
            PlanTensor const& pt = plan.tensors[t];
            bool const inArena = pt.ioMode == nvinfer1::TensorIOMode::kNONE && pt.constant < 0;
            bool const used = last[t] != -2 || pt.hasValues;
            if (inArena && used)
            {
                intervals.push_back(Interval{static_cast<int32_t>(t), first[t], std::max(last[t], first[t]),
                    alignUp(std::max<int64_t>(bytes[t], 1))});
            }
        }
        // Largest first, ties by index, so the plan is deterministic.
        std::stable_sort(intervals.begin(), intervals.end(),
            [](Interval const& a, Interval const& b) { return a.size > b.size; });
        std::vector<Interval const*> placed;
        int64_t arena = 0;
        for (Interval& iv : intervals)
        {
            std::vector<std::pair<int64_t, int64_t>> busy;
            for (Interval const* p : placed)
            {
                if (p->first <= iv.last && iv.first <= p->last)
                {
                    busy.emplace_back(p->offset, p->offset + p->size);
                }
            }
            std::sort(busy.begin(), busy.end());
            int64_t offset = 0;
            for (auto const& [lo, hi] : busy)
            {
                if (offset + iv.size <= lo)
                {
                    break;
                }
                offset = std::max(offset, hi);
            }
            iv.offset = offset;
            arena = std::max(arena, offset + iv.size);
            placed.push_back(&iv);
        }
        profile.tensorOffsets.assign(nbTensors, -1);
        profile.tensorCapacity.assign(nbTensors, 0);
        for (Interval const& iv : intervals)
        {
            profile.tensorOffsets[static_cast<size_t>(iv.tensor)] = iv.offset;
            profile.tensorCapacity[static_cast<size_t>(iv.tensor)] = iv.size;
        }
        profile.arenaSize = arena;
    }
    return Status::ok();
}

} // namespace kiln
