// GELU recognition: the erf form of GELU written as pointwise layers, as ONNX exports have it
// (0.5·x·(1 + erf(x/√2)), in any of its association orders, with x/√2 as a division or a product by 1/√2), becomes
// one activation layer of type kGELU_ERF reading x. The epilogue rewrite that runs next can then fold it into the matrix multiply producing x
// (the CPU backend runs it as oneDNN's gelu_erf post-op). Conditions: every tensor involved is FLOAT, HALF or BF16 of
// one type with x's dims, the constants are single-element constants within 2.5e-4 of 0.5, 1 and √2 (or 1/√2), the
// intermediate tensors are internal (fusion.h), and the layers share their precision.
#include "builder/passes/fusion/fusion.h"

#include <algorithm>
#include <cmath>

namespace kiln::fusion
{
using nvinfer1::ElementWiseOperation;
using nvinfer1::LayerType;

namespace
{

//! Within 2.5e-4 (relative) of `want`: the HALF and BF16 values nearest √2 and 1/√2 (1.4140625, 0.70703125) are
//! 1.07e-4 away, so FP16/BF16 exports match too.
bool near(std::optional<float> v, double want)
{
    return v.has_value() && std::abs(static_cast<double>(*v) - want) <= 2.5e-4 * std::abs(want);
}

//! Node `n` is an elementwise `op` with two inputs.
bool isBinary(Plan const& plan, int32_t n, ElementWiseOperation op)
{
    PlanNode const& node = plan.nodes[static_cast<size_t>(n)];
    return node.kind == LayerType::kELEMENTWISE && node.inputs.size() == 2 && node.outputs.size() == 1
        && node.attrs.getInt("operation", -1) == static_cast<int64_t>(op);
}

//! For a two-input elementwise node: the input that is not the single-element constant near `value` (either order
//! for commutative operations, the second input only otherwise), or -1.
int32_t operandBesideConstant(FusionGraph const& g, Plan const& plan, int32_t n, double value, bool commutative)
{
    PlanNode const& node = plan.nodes[static_cast<size_t>(n)];
    if (near(constantScalar(g, plan, node.inputs[1]), value))
    {
        return node.inputs[0];
    }
    if (commutative && near(constantScalar(g, plan, node.inputs[0]), value))
    {
        return node.inputs[1];
    }
    return -1;
}

//! The node reading internal tensor `t`, when it may join a fusion with `head`, else -1.
int32_t reader(FusionGraph const& g, Plan const& plan, int32_t t, PlanNode const& head)
{
    if (!g.isInternal(t))
    {
        return -1;
    }
    int32_t const c = g.consumers(t).front();
    PlanNode const& node = plan.nodes[static_cast<size_t>(c)];
    return g.isFusibleNode(node) && node.precision == head.precision ? c : -1;
}

//! The input of two-input node `n` other than `t` (-1 when both or neither are `t`).
int32_t otherInput(PlanNode const& node, int32_t t)
{
    if ((node.inputs[0] == t) == (node.inputs[1] == t))
    {
        return -1;
    }
    return node.inputs[0] == t ? node.inputs[1] : node.inputs[0];
}

//! Tries to match a GELU whose erf is node `n`; returns true when the plan changed.
bool fuseAt(FusionGraph& g, int32_t n)
{
    Plan& plan = g.plan();
    PlanNode const& erf = plan.nodes[static_cast<size_t>(n)];
    if (erf.kind != LayerType::kUNARY || erf.inputs.size() != 1 || !g.isFusibleNode(erf)
        || erf.attrs.getInt("operation", -1) != static_cast<int64_t>(nvinfer1::UnaryOperation::kERF))
    {
        return false;
    }
    // x / √2 or x · (1/√2).
    int32_t const scaled = erf.inputs[0];
    int32_t const div = g.isInternal(scaled) ? g.producer(scaled) : -1;
    if (div < 0 || !g.isFusibleNode(plan.nodes[static_cast<size_t>(div)])
        || plan.nodes[static_cast<size_t>(div)].precision != erf.precision)
    {
        return false;
    }
    int32_t x = -1;
    if (isBinary(plan, div, ElementWiseOperation::kDIV))
    {
        x = operandBesideConstant(g, plan, div, std::sqrt(2.0), false);
    }
    else if (isBinary(plan, div, ElementWiseOperation::kPROD))
    {
        x = operandBesideConstant(g, plan, div, std::sqrt(0.5), true);
    }
    if (x < 0 || !isFloatTensor(plan, x))
    {
        return false;
    }
    // 1 + erf(.)
    int32_t const add = reader(g, plan, erf.outputs[0], erf);
    if (add < 0 || !isBinary(plan, add, ElementWiseOperation::kSUM)
        || operandBesideConstant(g, plan, add, 1.0, true) != erf.outputs[0])
    {
        return false;
    }
    int32_t const onePlus = plan.nodes[static_cast<size_t>(add)].outputs[0];
    // Then two products, with 0.5 and with x, in either order or association:
    //   (x · 0.5) · p,   (x · p) · 0.5,   x · (p · 0.5).
    int32_t const first = reader(g, plan, onePlus, erf);
    if (first < 0 || !isBinary(plan, first, ElementWiseOperation::kPROD))
    {
        return false;
    }
    std::vector<int32_t> fused{div, n, add, first};
    int32_t out = -1;
    PlanNode const& firstNode = plan.nodes[static_cast<size_t>(first)];
    int32_t const partner = otherInput(firstNode, onePlus);
    if (partner < 0)
    {
        return false;
    }
    if (partner == x || near(constantScalar(g, plan, partner), 0.5))
    {
        // (x · p) · 0.5 or x · (p · 0.5): one more product with the missing factor.
        int32_t const second = reader(g, plan, firstNode.outputs[0], erf);
        if (second < 0 || !isBinary(plan, second, ElementWiseOperation::kPROD))
        {
            return false;
        }
        PlanNode const& secondNode = plan.nodes[static_cast<size_t>(second)];
        int32_t const missing = otherInput(secondNode, firstNode.outputs[0]);
        bool const ok = partner == x ? near(constantScalar(g, plan, missing), 0.5) : missing == x;
        if (!ok)
        {
            return false;
        }
        fused.push_back(second);
        out = secondNode.outputs[0];
    }
    else
    {
        // (x · 0.5) · p: the partner is x · 0.5.
        int32_t const half = g.isInternal(partner) ? g.producer(partner) : -1;
        if (half < 0 || !isBinary(plan, half, ElementWiseOperation::kPROD)
            || !g.isFusibleNode(plan.nodes[static_cast<size_t>(half)])
            || plan.nodes[static_cast<size_t>(half)].precision != erf.precision
            || operandBesideConstant(g, plan, half, 0.5, true) != x)
        {
            return false;
        }
        fused.push_back(half);
        out = firstNode.outputs[0];
    }
    // One type throughout, x's dims at every step (the constants broadcast, nothing else does).
    nvinfer1::DataType const type = plan.tensors[static_cast<size_t>(x)].type;
    for (int32_t f : fused)
    {
        int32_t const t = plan.nodes[static_cast<size_t>(f)].outputs[0];
        if (plan.tensors[static_cast<size_t>(t)].type != type || !g.sameDims(t, x))
        {
            return false;
        }
    }
    std::sort(fused.begin(), fused.end());
    if (g.producer(x) >= fused.front())
    {
        return false; // x must be computed before the layers it replaces (a topological order is kept)
    }
    PlanNode node;
    node.kind = LayerType::kACTIVATION;
    node.name = joinedNames(plan, fused);
    node.precision = erf.precision;
    node.inputs = {x};
    node.outputs = {out};
    node.attrs.setInt("type", static_cast<int64_t>(nvinfer1::ActivationType::kGELU_ERF));
    node.attrs.setFloat("alpha", 0.0);
    node.attrs.setFloat("beta", 0.0);
    g.ctx().logger.verbose("fusion: the erf GELU '" + node.name + "' became one kGELU_ERF activation");
    spliceNodes(plan, fused, std::move(node));
    g.refresh();
    return true;
}

} // namespace

int32_t fuseGelu(FusionGraph& g)
{
    return fuseAtEveryNode(g, fuseAt);
}

} // namespace kiln::fusion
