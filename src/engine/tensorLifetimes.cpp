// tensorLifetimes implementation: one pass over the node list, then the loop extension and plugin aliases.
#include "engine/tensorLifetimes.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace kiln
{
namespace
{

//! Loop tensors survive every iteration: live from the loop's first node to its last.
void extendLoopLifetimes(Plan const& plan, std::vector<int32_t>& first, std::vector<int32_t>& last)
{
    std::map<int64_t, std::pair<int32_t, int32_t>> ranges;
    for (size_t n = 0; n < plan.nodes.size(); ++n)
    {
        if (!plan.nodes[n].attrs.has("cf.loop"))
        {
            continue;
        }
        auto const step = static_cast<int32_t>(n);
        auto [it, added] = ranges.emplace(plan.nodes[n].attrs.getInt("cf.loop"), std::make_pair(step, step));
        it->second.second = std::max(it->second.second, step);
    }
    for (auto const& [loop, range] : ranges)
    {
        // Plain variables: clang 14 (the fuzzing build) cannot capture structured bindings in a lambda.
        int32_t const begin = range.first;
        int32_t const end = range.second;
        auto touch = [&](int32_t t) {
            if (t < 0)
            {
                return;
            }
            auto const ti = static_cast<size_t>(t);
            first[ti] = last[ti] == -2 ? begin : std::min(first[ti], begin);
            last[ti] = std::max(last[ti], end);
        };
        for (int32_t n = begin; n <= end; ++n)
        {
            for (int32_t t : plan.nodes[static_cast<size_t>(n)].inputs)
            {
                touch(t);
            }
            for (int32_t t : plan.nodes[static_cast<size_t>(n)].outputs)
            {
                touch(t);
            }
        }
    }
}

} // namespace

TensorLifetimes tensorLifetimes(Plan const& plan)
{
    size_t const nbTensors = plan.tensors.size();
    TensorLifetimes life{std::vector<int32_t>(nbTensors, -1), std::vector<int32_t>(nbTensors, -2)};
    std::vector<int32_t>& first = life.first;
    std::vector<int32_t>& last = life.last;
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
    extendLoopLifetimes(plan, first, last);
    return life;
}

int32_t aliasRoot(std::vector<int32_t>& parents, int32_t tensor)
{
    while (parents[static_cast<size_t>(tensor)] != tensor)
    {
        parents[static_cast<size_t>(tensor)] = parents[static_cast<size_t>(parents[static_cast<size_t>(tensor)])];
        tensor = parents[static_cast<size_t>(tensor)];
    }
    return tensor;
}

std::vector<int32_t> aliasParents(Plan const& plan)
{
    std::vector<int32_t> parents(plan.tensors.size());
    std::iota(parents.begin(), parents.end(), 0);
    for (PlanNode const& node : plan.nodes)
    {
        if (node.kind != nvinfer1::LayerType::kPLUGIN_V2 && node.kind != nvinfer1::LayerType::kPLUGIN_V3)
        {
            continue;
        }
        std::vector<int64_t> const aliases = node.attrs.getInts("plugin.aliases");
        for (size_t o = 0; o < aliases.size() && o < node.outputs.size(); ++o)
        {
            int64_t const a = aliases[o];
            if (a >= 0 && static_cast<size_t>(a) < node.inputs.size() && node.inputs[static_cast<size_t>(a)] >= 0)
            {
                parents[static_cast<size_t>(aliasRoot(parents, node.outputs[o]))]
                    = aliasRoot(parents, node.inputs[static_cast<size_t>(a)]);
            }
        }
    }
    // Pure reshapes share their input's slot, unless a plugin writes either tensor in place (its group would then be
    // modified under the other name) or either has values computed on the host.
    std::vector<bool> pluginAliased(plan.tensors.size(), false);
    for (size_t t = 0; t < plan.tensors.size(); ++t)
    {
        int32_t const root = aliasRoot(parents, static_cast<int32_t>(t));
        if (root != static_cast<int32_t>(t))
        {
            pluginAliased[t] = true;
            pluginAliased[static_cast<size_t>(root)] = true;
        }
    }
    for (PlanNode const& node : plan.nodes)
    {
        if (!isPureReshape(plan, node))
        {
            continue;
        }
        auto const in = static_cast<size_t>(node.inputs[0]);
        auto const out = static_cast<size_t>(node.outputs[0]);
        PlanTensor const& a = plan.tensors[in];
        PlanTensor const& b = plan.tensors[out];
        if (!pluginAliased[in] && !pluginAliased[out] && !a.hasValues && !b.hasValues && a.type == b.type
            && a.format == b.format && a.format == nvinfer1::TensorFormat::kLINEAR)
        {
            parents[static_cast<size_t>(aliasRoot(parents, node.outputs[0]))] = aliasRoot(parents, node.inputs[0]);
        }
    }
    // Residuals added in place (inPlaceAddPass, last so that the reshape groups above are those it checked): the
    // node's output shares the slot of its fused addition's tensor, its last input.
    for (PlanNode const& node : plan.nodes)
    {
        if (addsInPlace(node) && node.inputs.back() < static_cast<int32_t>(plan.tensors.size())
            && node.outputs[0] < static_cast<int32_t>(plan.tensors.size()))
        {
            parents[static_cast<size_t>(aliasRoot(parents, node.outputs[0]))] = aliasRoot(parents, node.inputs.back());
        }
    }
    return parents;
}

bool addsInPlace(PlanNode const& node)
{
    return node.attrs.getInt(kADD_IN_PLACE, 0) != 0 && node.attrs.getInt("fuse.add", 0) != 0
        && node.outputs.size() == 1 && node.outputs[0] >= 0 && node.inputs.size() >= 2 && node.inputs.back() >= 0;
}

namespace
{
//! True when the permutation stored under `key` moves no data: absent, or, over its first `rank` entries (a
//! Permutation is stored with all Dims::MAX_DIMS entries), it keeps the order of every dimension that is not the
//! constant 1 (`extent(p)` gives the extent expression of source dimension p). An unsqueeze is stored as a reshape
//! followed by such a transpose of unit dimensions.
template <typename Extent>
bool keepsDataOrder(PlanNode const& node, char const* key, size_t rank, ShapeGraph const& shapes, Extent extent)
{
    if (!node.attrs.has(key))
    {
        return true;
    }
    std::vector<int64_t> const perm = node.attrs.getInts(key);
    int64_t previous = -1;
    for (size_t i = 0; i < perm.size() && i < rank; ++i)
    {
        if (perm[i] < 0 || static_cast<size_t>(perm[i]) >= rank)
        {
            return false;
        }
        ExprId const e = extent(static_cast<size_t>(perm[i]), i);
        if (shapes.isConstant(e) && shapes.constantValue(e) == 1)
        {
            continue;
        }
        if (perm[i] < previous)
        {
            return false;
        }
        previous = perm[i];
    }
    return true;
}
} // namespace

bool isPureReshape(Plan const& plan, PlanNode const& node)
{
    auto const nbTensors = static_cast<int32_t>(plan.tensors.size());
    if (node.kind != nvinfer1::LayerType::kSHUFFLE || node.inputs.empty() || node.inputs[0] < 0
        || node.inputs[0] >= nbTensors || node.outputs.size() != 1 || node.outputs[0] < 0
        || node.outputs[0] >= nbTensors || node.attrs.has("cf.loop"))
    {
        return false;
    }
    // The first transpose reads the input's dimensions (source p has the input's extent p); the second produces the
    // output (output dimension i, taken from source perm[i], has the output's extent i).
    PlanTensor const& in = plan.tensors[static_cast<size_t>(node.inputs[0])];
    PlanTensor const& out = plan.tensors[static_cast<size_t>(node.outputs[0])];
    return keepsDataOrder(node, "first_transpose", in.dims.size(), plan.shapes,
               [&](size_t source, size_t) { return in.dims[source]; })
        && keepsDataOrder(node, "second_transpose", out.dims.size(), plan.shapes,
            [&](size_t, size_t position) { return out.dims[position]; });
}

} // namespace kiln
