// Epilogue fusion: a convolution, deconvolution or matrix multiply whose output feeds (only) an elementwise kSUM with
// another tensor (a bias vector, a residual: anything broadcasting to the sum's output without growing the product's
// output), and/or whose result then feeds (only) an activation, becomes one node carrying the "fuse.*" attributes of
// backends/common/fusedEpilogue.h, the added tensor as an extra trailing input and the last fused layer's output.
// A matrix multiply takes a second kSUM after the first when one of the two added tensors has the output's full
// shape (the residual, "fuse.residual") and its backend's kernel accepts the node (KernelProbe): BERT's
// MatMul -> Add(bias) -> Add(residual), in either order of the two additions. A convolution takes, instead of a
// plain activation, a gated one: an activation A (sigmoid or hard-sigmoid) of its result v and the product v · A(v),
// the only two readers of v (SiLU in EfficientNet, hard-swish in MobileNetV3), as "fuse.gate", where its kernel
// accepts the node (KernelProbe: on CUDA the depthwise tactic does). An activation that reads the result through a pure
// reshape (GPT-2's Gemm on [B·S, C] reshaped to [B, S, C] before its GELU) is taken too: the fused node writes the
// activated values in the reshape's input, and the reshape then writes the activation's output tensor.
// Every tensor involved is FLOAT, HALF or BF16 of one type; the fused layers share their precision.
#include "backends/common/fusedEpilogue.h"
#include "builder/passes/fusion/fusion.h"
#include "builder/planEdit.h"
#include "engine/tensorLifetimes.h"

#include <algorithm>

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

//! The gated activation of `cur`: an activation A (sigmoid or hard-sigmoid) reading `cur` and the product M of `cur`
//! and A's output, the only two readers of `cur`, M the only reader of A's output, all of one type and `cur`'s dims.
//! Returns A and sets `mul` to M, or -1.
int32_t gatedActivation(FusionGraph const& g, Plan const& plan, int32_t cur, PlanNode const& head, int32_t& mul)
{
    if (!g.isInternal(cur, 2))
    {
        return -1;
    }
    std::vector<int32_t> const& readers = g.consumers(cur);
    for (size_t i = 0; i < 2; ++i)
    {
        int32_t const a = readers[i];
        PlanNode const& act = plan.nodes[static_cast<size_t>(a)];
        int64_t const type = act.attrs.getInt("type", -1);
        bool const gate = act.kind == LayerType::kACTIVATION && act.inputs.size() == 1
            && (type == static_cast<int64_t>(nvinfer1::ActivationType::kSIGMOID)
                || type == static_cast<int64_t>(nvinfer1::ActivationType::kHARD_SIGMOID));
        if (!gate || !g.isFusibleNode(act) || act.precision != head.precision)
        {
            continue;
        }
        int32_t const gateOut = act.outputs[0];
        int32_t const m = nextNode(g, plan, gateOut, LayerType::kELEMENTWISE, head);
        if (m < 0 || m != readers[1 - i])
        {
            continue;
        }
        PlanNode const& product = plan.nodes[static_cast<size_t>(m)];
        bool const isProduct = product.attrs.getInt("operation", -1) == static_cast<int64_t>(ElementWiseOperation::kPROD)
            && product.inputs.size() == 2
            && ((product.inputs[0] == cur && product.inputs[1] == gateOut)
                || (product.inputs[1] == cur && product.inputs[0] == gateOut));
        nvinfer1::DataType const type0 = plan.tensors[static_cast<size_t>(cur)].type;
        if (isProduct && plan.tensors[static_cast<size_t>(gateOut)].type == type0 && g.sameDims(gateOut, cur)
            && g.sameDims(product.outputs[0], cur))
        {
            mul = m;
            return a;
        }
    }
    return -1;
}

//! The activation reading `t` through a pure reshape: the reshape (sole reader of `t`, `reshape` is set to it) and
//! the activation (sole reader of the reshape's output, one input), or -1.
int32_t activationAfterReshape(FusionGraph const& g, Plan const& plan, int32_t t, PlanNode const& head, int32_t& reshape)
{
    int32_t const r = nextNode(g, plan, t, LayerType::kSHUFFLE, head);
    if (r < 0 || !isPureReshape(plan, plan.nodes[static_cast<size_t>(r)]) || plan.nodes[static_cast<size_t>(r)].inputs[0] != t)
    {
        return -1;
    }
    int32_t const a = nextNode(g, plan, plan.nodes[static_cast<size_t>(r)].outputs[0], LayerType::kACTIVATION, head);
    if (a < 0 || plan.nodes[static_cast<size_t>(a)].inputs.size() != 1)
    {
        return -1;
    }
    reshape = r;
    return a;
}

//! The layers one epilogue takes from node n.
struct Candidate
{
    std::vector<int32_t> fused;
    int32_t out{-1};      //!< the last fused layer's output
    int32_t added{-1};    //!< "fuse.add"'s tensor
    int32_t residual{-1}; //!< "fuse.residual"'s tensor (full shape)
    int32_t act{-1};      //!< the activation node
    bool gated{false};    //!< the activation's result multiplies its input ("fuse.gate")
};

//! The epilogue candidate of node n: one addition (two with `withResidual`, see the file comment), then an
//! activation (a gated one with `withGate`).
Candidate collect(FusionGraph& g, int32_t n, bool withResidual, bool withGate)
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
        return c;
    }
    int32_t mul = -1;
    int32_t const gate = withGate ? gatedActivation(g, plan, c.out, head, mul) : -1;
    if (gate >= 0)
    {
        c.fused.insert(c.fused.end(), {std::min(gate, mul), std::max(gate, mul)});
        c.act = gate;
        c.gated = true;
        c.out = plan.nodes[static_cast<size_t>(mul)].outputs[0];
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
        if (c.gated)
        {
            node.attrs.setInt("fuse.gate", 1);
        }
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
    Candidate c = collect(g, n, head.kind == LayerType::kMATRIX_MULTIPLY, head.kind == LayerType::kCONVOLUTION);
    PlanNode node = fusedNode(plan, head, c);
    if (c.residual >= 0 || c.gated)
    {
        // Two additions, or a gated activation, in one epilogue: only where the backend's kernel runs them, else the
        // first addition alone.
        std::string const refusal = g.probe().refusal(node, makeKernelSetup(plan, node));
        if (!refusal.empty())
        {
            g.ctx().logger.verbose(std::string("fusion: ") + (c.gated ? "gated activation" : "residual addition")
                + " left unfused ('" + node.name + "'): " + refusal);
            c = collect(g, n, false, false);
            node = fusedNode(plan, head, c);
        }
    }
    int32_t reshape = -1;
    int32_t const lateAct = c.act < 0 ? activationAfterReshape(g, plan, c.out, head, reshape) : -1;
    if (lateAct >= 0)
    {
        Candidate withAct = c;
        withAct.act = lateAct;
        withAct.fused.push_back(lateAct); // for the name only: the node stays before the reshape
        PlanNode moved = fusedNode(plan, head, withAct);
        moved.outputs = {c.out};
        std::string const refusal = g.probe().refusal(moved, makeKernelSetup(plan, moved));
        if (refusal.empty())
        {
            g.ctx().logger.verbose("fusion: activation '" + plan.nodes[static_cast<size_t>(lateAct)].name
                + "' taken across the reshape '" + plan.nodes[static_cast<size_t>(reshape)].name + "' into '"
                + moved.name + "'");
            int32_t const out = plan.nodes[static_cast<size_t>(lateAct)].outputs[0];
            plan.nodes[static_cast<size_t>(reshape)].outputs[0] = out;
            std::vector<bool> erased(plan.nodes.size(), false);
            for (int32_t f : c.fused)
            {
                erased[static_cast<size_t>(f)] = f != c.fused.back();
            }
            erased[static_cast<size_t>(lateAct)] = true;
            plan.nodes[static_cast<size_t>(c.fused.back())] = std::move(moved);
            erasePlanNodes(plan, erased);
            g.refresh();
            return true;
        }
        g.ctx().logger.verbose("fusion: activation after a reshape left unfused ('" + moved.name + "'): " + refusal);
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
    parts += c.act >= 0 ? std::string(parts.empty() ? "" : ", ") + (c.gated ? "gated activation" : "activation") : "";
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
