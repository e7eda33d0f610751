// Control-flow helpers of the builder: node attributes for loops and conditionals and build-time conditions
// (see loopRegions.h).
#include "builder/passes/loopRegions.h"

#include "network/layers/conditionLayer.h"
#include "network/layers/loopAnalysis.h"
#include "network/networkDefinition.h"

#include <algorithm>

namespace kiln
{

void annotateControlFlow(PlanNode& node, Layer const& layer, NetworkAnalysis const& analysis,
    std::function<int32_t(Tensor const*)> const& tensorIndex)
{
    ControlFlowInfo const* info = analysis.controlFlow.get();
    if (info == nullptr || info->empty())
    {
        return;
    }
    auto loop = info->loopOf.find(&layer);
    if (loop != info->loopOf.end())
    {
        node.attrs.setInt("cf.loop", loop->second);
        if (info->loops[static_cast<size_t>(loop->second)].condition.count(&layer) != 0)
        {
            node.attrs.setInt("cf.loopCondition", 1);
        }
        return;
    }
    auto branch = info->branchOf.find(&layer);
    if (branch != info->branchOf.end())
    {
        int32_t const k = info->conditionalOf.at(&layer);
        ConditionalRegion const& region = info->conditionals[static_cast<size_t>(k)];
        node.attrs.setInt("cf.if", k);
        node.attrs.setInt("cf.branch", branch->second);
        node.attrs.setInt("cf.condition", tensorIndex(region.condition->inputs()[0]));
    }
}

int32_t constantConditionalInput(Layer const& layer, NetworkAnalysis const& analysis)
{
    if (layer.kind() != nvinfer1::LayerType::kCONDITIONAL_OUTPUT || layer.inputs().size() < 3
        || layer.inputs()[2] == nullptr)
    {
        return -1;
    }
    auto it = analysis.infos.find(layer.inputs()[2]);
    if (it == analysis.infos.end())
    {
        return -1;
    }
    int32_t const known = buildTimeCondition(it->second);
    return known < 0 ? -1 : (known == 1 ? 0 : 1);
}

} // namespace kiln
