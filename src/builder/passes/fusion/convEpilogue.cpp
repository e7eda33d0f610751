// Epilogue fusion: a convolution, deconvolution or matrix multiply whose output feeds (only) an elementwise kSUM with
// another tensor (a bias vector, a residual: anything broadcasting to the sum's output without growing the product's
// output), and/or whose result then feeds (only) an activation, becomes one node carrying the "fuse.*" attributes of
// backends/common/fusedEpilogue.h, the added tensor as an extra trailing input and the last fused layer's output.
// A matrix multiply takes a second kSUM after the first when one of the two added tensors has the output's full
// shape (the residual, "fuse.residual") and its backend's kernel accepts the node (KernelProbe): BERT's
// MatMul -> Add(bias) -> Add(residual), in either order of the two additions.
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

//! The kSUM node that alone reads `cur` and adds to it a tensor of its type broadcasting to its output (whose dims
//! are cur's), or -1; `other` is set to that tensor.
int32_t sumOf(FusionGraph const& g, Plan const& plan, int32_t cur, PlanNode const& head, int32_t& other)
{
    int32_t const sum = nextNode(g, plan, cur, LayerType::kELEMENTWISE, head);
    if (sum < 0)
    {
        return -1;
    }
    PlanNode const& s = plan.nodes[static_cast<size_t>(sum)];
    bool const isSum = s.attrs.getInt("operation", -1) == static_cast<int64_t>(ElementWiseOperation::kSUM);
    if (!isSum || s.inputs.size() != 2 || (s.inputs[0] == cur) == (s.inputs[1] == cur))
    {
        return -1;
    }
    other = s.inputs[0] == cur ? s.inputs[1] : s.inputs[0];
    int32_t const out = s.outputs[0];
    bool const sameType = other >= 0
        && plan.tensors[static_cast<size_t>(other)].type == plan.tensors[static_cast<size_t>(cur)].type;
    return sameType && g.sameDims(out, cur) && g.broadcastsTo(other, out) ? sum : -1;
}

//! The layers one epilogue takes from node n.
struct Candidate
{
    std::vector<int32_t> fused;
    int32_t out{-1};      //!< the last fused layer's output
    int32_t added{-1};    //!< "fuse.add"'s tensor
    int32_t residual{-1}; //!< "fuse.residual"'s tensor (full shape)
    int32_t act{-1};      //!< the activation node
};

//! The epilogue candidate of node n: one addition (two with `withResidual`, see the file comment), then an
//! activation.
Candidate collect(FusionGraph& g, int32_t n, bool withResidual)
{
    Plan const& plan = g.plan();
    PlanNode const& head = plan.nodes[static_cast<size_t>(n)];
    Candidate c;
    c.fused = {n};
    c.out = head.outputs[0];
    int32_t other = -1;
    int32_t const sum = sumOf(g, plan, c.out, head, other);
    if (sum >= 0)
    {
        c.fused.push_back(sum);
        c.added = other;
        c.out = plan.nodes[static_cast<size_t>(sum)].outputs[0];
        int32_t second = -1;
        int32_t const sum2 = withResidual ? sumOf(g, plan, c.out, head, second) : -1;
        if (sum2 >= 0)
        {
            int32_t const out2 = plan.nodes[static_cast<size_t>(sum2)].outputs[0];
            // The residual is the full-shape one (the second when both are); the other is the broadcast addition.
            if (g.sameDims(second, out2))
            {
                c.residual = second;
            }
            else if (g.sameDims(c.added, out2))
            {
                c.residual = c.added;
                c.added = second;
            }
            if (c.residual >= 0)
            {
                c.fused.push_back(sum2);
                c.out = out2;
            }
        }
    }
    int32_t const act = nextNode(g, plan, c.out, LayerType::kACTIVATION, head);
    if (act >= 0 && plan.nodes[static_cast<size_t>(act)].inputs.size() == 1)
    {
        c.fused.push_back(act);
        c.act = act;
        c.out = plan.nodes[static_cast<size_t>(act)].outputs[0];
    }
    return c;
}

//! The fused node of candidate `c` with head `head`.
PlanNode fusedNode(Plan const& plan, PlanNode const& head, Candidate const& c)
{
    std::string const name = joinedNames(plan, c.fused);
    PlanNode node = head;
    node.name = name;
    node.outputs = {c.out};
    node.attrs.setString("fuse.names", name);
    if (c.added >= 0)
    {
        node.attrs.setInt("fuse.add", 1);
        node.inputs.push_back(c.added);
    }
    if (c.residual >= 0)
    {
        node.attrs.setInt("fuse.residual", 1);
        node.inputs.push_back(c.residual);
    }
    if (c.act >= 0)
    {
        PlanNode const& a = plan.nodes[static_cast<size_t>(c.act)];
        node.attrs.setInt("fuse.act", a.attrs.getInt("type", 0) + 1);
        node.attrs.setFloat("fuse.alpha", a.attrs.getFloat("alpha", 0.0));
        node.attrs.setFloat("fuse.beta", a.attrs.getFloat("beta", 0.0));
    }
    return node;
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
    Candidate c = collect(g, n, head.kind == LayerType::kMATRIX_MULTIPLY);
    PlanNode node = fusedNode(plan, head, c);
    if (c.residual >= 0)
    {
        // Two additions in one epilogue: only where the backend's kernel runs them, else the first one alone.
        std::string const refusal = g.probe().refusal(node, makeKernelSetup(plan, node));
        if (!refusal.empty())
        {
            g.ctx().logger.verbose("fusion: residual addition left unfused ('" + node.name + "'): " + refusal);
            c = collect(g, n, false);
            node = fusedNode(plan, head, c);
        }
    }
    if (c.fused.size() == 1)
    {
        return false;
    }
    std::string message = "fusion: fused";
    for (size_t i = 0; i < c.fused.size(); ++i)
    {
        message += (i ? " + '" : " '") + plan.nodes[static_cast<size_t>(c.fused[i])].name + "'";
    }
    std::string parts = c.added >= 0 ? "add" : "";
    parts += c.residual >= 0 ? ", residual" : "";
    parts += c.act >= 0 ? std::string(parts.empty() ? "" : ", ") + "activation" : "";
    g.ctx().logger.verbose(message + " into '" + node.name + "' (" + parts + " epilogue)");
    spliceNodes(plan, c.fused, std::move(node));
    g.refresh();
    return true;
}

} // namespace

int32_t fuseEpilogues(FusionGraph& g)
{
    return fuseAtEveryNode(g, fuseAt);
}

} // namespace kiln::fusion
