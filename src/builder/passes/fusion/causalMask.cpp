// Recognition of build-time causal masks for the attention fusion, and the removal of the mask layers a causal
// fusion leaves without readers (see causalMask.h).
#include "builder/passes/fusion/causalMask.h"

#include "builder/passes/fusion/buildTimeValues.h"
#include "builder/planEdit.h"

#include <cmath>
#include <functional>

namespace kiln::fusion
{
using nvinfer1::LayerType;

namespace
{

//! The scores' square sequence extent q == k when both are constants, else -1.
int64_t squareSequence(FusionGraph& g, int32_t scores)
{
    Plan const& plan = g.plan();
    auto const& d = plan.tensors[static_cast<size_t>(scores)].dims;
    if (d.size() != 4 || !plan.shapes.isConstant(d[2]) || !plan.shapes.isConstant(d[3]))
    {
        return -1;
    }
    int64_t const q = plan.shapes.constantValue(d[2]);
    return q >= 1 && q == plan.shapes.constantValue(d[3]) ? q : -1;
}

//! True when `t` (rank 4) has build-time values whose last two axes are [s, s] for the scores' square extent s, and
//! `test(attend, value)` holds for each, attend being j <= i.
bool holdsOverBand(FusionGraph& g, int32_t t, int32_t scores, std::function<bool(bool, double)> const& test)
{
    int64_t const s = squareSequence(g, scores);
    if (s < 0 || g.plan().tensors[static_cast<size_t>(t)].dims.size() != 4)
    {
        return false;
    }
    std::optional<BuildTimeValues> const v = buildTimeValues(g.plan(), g, t);
    if (!v || v->dims.size() != 4 || v->dims[2] != s || v->dims[3] != s)
    {
        return false;
    }
    int64_t const planes = v->dims[0] * v->dims[1];
    for (int64_t p = 0; p < planes; ++p)
    {
        for (int64_t i = 0; i < s; ++i)
        {
            for (int64_t j = 0; j < s; ++j)
            {
                if (!test(j <= i, v->values[static_cast<size_t>((p * s + i) * s + j)]))
                {
                    return false;
                }
            }
        }
    }
    return true;
}

bool masked(double x)
{
    return x <= kMASKED_BIAS; // −inf included; NaN is not
}

//! Layers buildTimeValues evaluates: without side effects, so that one nothing reads may go.
bool isPureMaskLayer(PlanNode const& node)
{
    switch (node.kind)
    {
    case LayerType::kIDENTITY:
    case LayerType::kCAST:
    case LayerType::kUNARY:
    case LayerType::kELEMENTWISE:
    case LayerType::kSELECT:
    case LayerType::kSLICE:
    case LayerType::kSHUFFLE:
    case LayerType::kFILL: return true;
    default: return false;
    }
}

} // namespace

bool isCausalBias(FusionGraph& g, int32_t mask, int32_t scores)
{
    return holdsOverBand(g, mask, scores, [](bool attend, double x) { return attend ? x == 0.0 : masked(x); });
}

bool isCausalCondition(FusionGraph& g, int32_t condition, int32_t scores, bool keepWhere)
{
    return holdsOverBand(
        g, condition, scores, [keepWhere](bool attend, double x) { return ((x != 0.0) == keepWhere) == attend; });
}

bool isMaskedFill(FusionGraph& g, int32_t t)
{
    std::optional<BuildTimeValues> const v = buildTimeValues(g.plan(), g, t);
    if (!v || v->values.empty())
    {
        return false;
    }
    for (double x : v->values)
    {
        if (!masked(x))
        {
            return false;
        }
    }
    return true;
}

int32_t eraseUnreadMaskLayers(FusionGraph& g)
{
    int32_t total = 0;
    while (true)
    {
        Plan& plan = g.plan();
        std::vector<bool> erased(plan.nodes.size(), false);
        bool any = false;
        for (size_t n = 0; n < plan.nodes.size(); ++n)
        {
            PlanNode const& node = plan.nodes[n];
            if (!isPureMaskLayer(node) || !g.isFusibleNode(node) || node.outputs.empty())
            {
                continue;
            }
            bool unread = true;
            for (int32_t t : node.outputs)
            {
                unread = unread && g.isInternal(t, 0);
            }
            if (unread)
            {
                erased[n] = true;
                any = true;
                ++total;
            }
        }
        if (!any)
        {
            return total;
        }
        erasePlanNodes(plan, erased);
        g.refresh();
    }
}

} // namespace kiln::fusion
