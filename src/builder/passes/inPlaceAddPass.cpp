// inPlaceAddPass: a convolution with a fused residual addition (fuse.add of the output's shape) writes its output
// into the residual's memory when the residual dies there, on backends that add in place
// (BackendCapabilities::addsInPlace). The node gets kADD_IN_PLACE; aliasParents (engine/tensorLifetimes.h) then gives
// the output the residual's arena slot, and the kernel adds into the residual where it lies instead of first copying
// it into the output (oneDNN's sum post-op on the CPU). Runs after tacticsPass, before memoryPass.
//
// A residual qualifies when it and every tensor sharing its slot (pure reshapes) are arena tensors (not network
// I/O, not constants, no host values) whose last use is this node, when it has the output's type, format and shape
// expressions, and when no other input of the node shares its slot. Nodes in loops or conditional branches are left
// alone.
#include "builder/buildContext.h"
#include "builder/dataDependentShapes.h"
#include "engine/tensorLifetimes.h"

#include <algorithm>

namespace kiln
{
namespace
{

bool arenaTensor(PlanTensor const& t)
{
    return t.ioMode == nvinfer1::TensorIOMode::kNONE && t.constant < 0 && !t.hasValues;
}

} // namespace

Status inPlaceAddPass(BuildContext& ctx)
{
    if (ctx.backend == nullptr || !ctx.backend->capabilities().addsInPlace)
    {
        return Status::ok();
    }
    Plan& plan = ctx.plan;
    size_t const nbTensors = plan.tensors.size();
    TensorLifetimes const lifetimes = tensorLifetimes(plan);
    std::vector<int32_t> parents = aliasParents(plan);
    std::vector<bool> const dataDependent = dataDependentExprs(plan.shapes);
    std::vector<bool> const sizedAtRun = plan.shapes.dependsOnKind(SymbolKind::kINPUT_FLOAT_VALUE);
    // Per slot group (indexed by root): the last step any member is used, and whether every member is an arena tensor.
    std::vector<int32_t> groupLast(nbTensors, -2);
    std::vector<bool> groupInArena(nbTensors, true);
    for (size_t t = 0; t < nbTensors; ++t)
    {
        auto const root = static_cast<size_t>(aliasRoot(parents, static_cast<int32_t>(t)));
        groupLast[root] = std::max(groupLast[root], lifetimes.last[t]);
        PlanTensor const& pt = plan.tensors[t];
        if (!arenaTensor(pt) || dependsOnData(dataDependent, pt.dims) || dependsOnData(sizedAtRun, pt.dims))
        {
            groupInArena[root] = false;
        }
    }
    for (size_t n = 0; n < plan.nodes.size(); ++n)
    {
        PlanNode& node = plan.nodes[n];
        if (node.kind != nvinfer1::LayerType::kCONVOLUTION || node.attrs.getInt("fuse.add", 0) == 0
            || node.attrs.has("cf.loop") || node.attrs.has("cf.if") || node.outputs.size() != 1
            || node.inputs.size() < 2 || node.inputs.back() < 0 || node.outputs[0] < 0)
        {
            continue;
        }
        auto const r = static_cast<size_t>(node.inputs.back());
        auto const y = static_cast<size_t>(node.outputs[0]);
        PlanTensor const& residual = plan.tensors[r];
        PlanTensor const& out = plan.tensors[y];
        if (residual.type != out.type || residual.format != out.format || residual.dims != out.dims)
        {
            continue;
        }
        int32_t const rootR = aliasRoot(parents, static_cast<int32_t>(r));
        int32_t const rootY = aliasRoot(parents, static_cast<int32_t>(y));
        auto const step = static_cast<int32_t>(n);
        bool sharedWithOtherInput = false;
        for (size_t i = 0; i + 1 < node.inputs.size(); ++i)
        {
            sharedWithOtherInput = sharedWithOtherInput
                || (node.inputs[i] >= 0 && aliasRoot(parents, node.inputs[i]) == rootR);
        }
        if (rootR == rootY || sharedWithOtherInput || !groupInArena[static_cast<size_t>(rootR)]
            || !groupInArena[static_cast<size_t>(rootY)] || groupLast[static_cast<size_t>(rootR)] != step)
        {
            continue;
        }
        node.attrs.setInt(kADD_IN_PLACE, 1);
        parents[static_cast<size_t>(rootY)] = rootR;
        groupLast[static_cast<size_t>(rootR)]
            = std::max(groupLast[static_cast<size_t>(rootR)], groupLast[static_cast<size_t>(rootY)]);
        ctx.logger.verbose("in-place addition: '" + node.name + "' writes '" + out.name + "' over its residual '"
            + residual.name + "', which it reads last");
    }
    return Status::ok();
}

} // namespace kiln
