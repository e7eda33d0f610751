// Epilogue fusion: a convolution, deconvolution or matrix multiply whose output feeds (only) an elementwise kSUM with
// another tensor (a bias vector, a residual: anything broadcasting to the sum's output without growing the product's
// output), and/or whose result then feeds (only) an activation, becomes one node carrying the "fuse.*" attributes of
// backends/common/fusedEpilogue.h, the added tensor as an extra trailing input and the last fused layer's output.
// Every tensor involved is FLOAT, HALF or BF16 of one type; the fused layers share their precision.
#include "backends/common/fusedEpilogue.h"
#include "builder/passes/fusion/fusion.h"

namespace kiln::fusion
{
using nvinfer1::ElementWiseOperation;
using nvinfer1::LayerType;

namespace
{

bool takesEpilogue(LayerType kind)
{
    return kind == LayerType::kCONVOLUTION || kind == LayerType::kDECONVOLUTION
        || kind == LayerType::kMATRIX_MULTIPLY;
}

//! The single reader of `t` (FusionGraph::soleReader) when its output also keeps `t`'s type, else -1.
int32_t nextNode(FusionGraph const& g, Plan const& plan, int32_t t, LayerType kind, PlanNode const& head)
{
    int32_t const c = g.soleReader(t, kind, head);
    if (c < 0)
    {
        return -1;
    }
    int32_t const out = plan.nodes[static_cast<size_t>(c)].outputs[0];
    return plan.tensors[static_cast<size_t>(out)].type == plan.tensors[static_cast<size_t>(t)].type ? c : -1;
}

//! Tries to fuse an epilogue into node `n`; returns true when the plan changed.
bool fuseAt(FusionGraph& g, int32_t n)
{
    Plan& plan = g.plan();
    PlanNode const& head = plan.nodes[static_cast<size_t>(n)];
    if (!takesEpilogue(head.kind) || !g.isFusibleNode(head) || !isFloatTensor(plan, head.outputs[0]))
    {
        return false;
    }
    std::vector<int32_t> fused{n};
    int32_t cur = head.outputs[0];
    int32_t added = -1;
    // 1. + tensor.
    int32_t const sum = nextNode(g, plan, cur, LayerType::kELEMENTWISE, head);
    if (sum >= 0)
    {
        PlanNode const& s = plan.nodes[static_cast<size_t>(sum)];
        bool const isSum = s.attrs.getInt("operation", -1) == static_cast<int64_t>(ElementWiseOperation::kSUM);
        if (isSum && s.inputs.size() == 2 && (s.inputs[0] == cur) != (s.inputs[1] == cur))
        {
            int32_t const other = s.inputs[0] == cur ? s.inputs[1] : s.inputs[0];
            int32_t const out = s.outputs[0];
            bool const sameType = other >= 0
                && plan.tensors[static_cast<size_t>(other)].type == plan.tensors[static_cast<size_t>(cur)].type;
            if (sameType && g.sameDims(out, cur) && g.broadcastsTo(other, out))
            {
                fused.push_back(sum);
                added = other;
                cur = out;
            }
        }
    }
    // 2. activation.
    int32_t const act = nextNode(g, plan, cur, LayerType::kACTIVATION, head);
    PlanNode const* a = nullptr;
    if (act >= 0 && plan.nodes[static_cast<size_t>(act)].inputs.size() == 1)
    {
        a = &plan.nodes[static_cast<size_t>(act)];
        fused.push_back(act);
        cur = a->outputs[0];
    }
    if (fused.size() == 1)
    {
        return false;
    }
    std::string const name = joinedNames(plan, fused);
    PlanNode node = head;
    node.name = name;
    node.outputs = {cur};
    node.attrs.setString("fuse.names", name);
    if (added >= 0)
    {
        node.attrs.setInt("fuse.add", 1);
        node.inputs.push_back(added);
    }
    if (a != nullptr)
    {
        node.attrs.setInt("fuse.act", a->attrs.getInt("type", 0) + 1);
        node.attrs.setFloat("fuse.alpha", a->attrs.getFloat("alpha", 0.0));
        node.attrs.setFloat("fuse.beta", a->attrs.getFloat("beta", 0.0));
    }
    std::string message = "fusion: fused";
    for (size_t i = 0; i < fused.size(); ++i)
    {
        message += (i ? " + '" : " '") + plan.nodes[static_cast<size_t>(fused[i])].name + "'";
    }
    g.ctx().logger.verbose(message + " into '" + name + "' (" + (added >= 0 ? "add" : "") + (added >= 0 && a ? ", " : "")
        + (a != nullptr ? "activation" : "") + " epilogue)");
    spliceNodes(plan, fused, std::move(node));
    g.refresh();
    return true;
}

} // namespace

int32_t fuseEpilogues(FusionGraph& g)
{
    return fuseAtEveryNode(g, fuseAt);
}

} // namespace kiln::fusion
