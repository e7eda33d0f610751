// GELU recognition: GELU written as pointwise layers, as ONNX exports have it, becomes one activation layer reading x:
// - the erf form 0.5·x·(1 + erf(x/√2)), with x/√2 as a division or a product by 1/√2 (BERT): kGELU_ERF;
// - the tanh form 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), with x³ as Pow(x, 3) or x·x·x (GPT-2's gelu_new):
//   kGELU_TANH;
// and the final products with 0.5 and x in any of their association orders. The epilogue rewrite that runs next can
// then fold it into the matrix multiply producing x (cuBLASLt's GELU epilogue on CUDA, oneDNN's gelu post-ops on the
// CPU). Conditions: every tensor involved is FLOAT, HALF or BF16 of one type with x's dims, the constants are
// single-element constants within 2.5e-4 of their value, the intermediate tensors are internal (fusion.h), and the
// layers share their precision.
#include "builder/passes/fusion/fusion.h"

#include <algorithm>
#include <cmath>

namespace kiln::fusion
{
using nvinfer1::ElementWiseOperation;
using nvinfer1::LayerType;

namespace
{

constexpr double kSQRT_2_OVER_PI = 0.7978845608028654;
constexpr double kTANH_CUBIC = 0.044715;

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

//! The node writing internal tensor `t`, when it is a fusible node of `head`'s precision, else -1.
int32_t writer(FusionGraph const& g, Plan const& plan, int32_t t, PlanNode const& head)
{
    int32_t const p = g.isInternal(t) ? g.producer(t) : -1;
    return p >= 0 && g.isFusibleNode(plan.nodes[static_cast<size_t>(p)])
            && plan.nodes[static_cast<size_t>(p)].precision == head.precision
        ? p
        : -1;
}

//! What feeds the erf or tanh of a GELU: x, and the nodes computing the function's argument from x.
struct GeluArgument
{
    int32_t x{-1};
    std::vector<int32_t> nodes;
};

//! erf's argument: x / √2 or x · (1/√2).
bool erfArgument(FusionGraph const& g, Plan const& plan, PlanNode const& erf, GeluArgument& arg)
{
    int32_t const div = writer(g, plan, erf.inputs[0], erf);
    if (div < 0)
    {
        return false;
    }
    if (isBinary(plan, div, ElementWiseOperation::kDIV))
    {
        arg.x = operandBesideConstant(g, plan, div, std::sqrt(2.0), false);
    }
    else if (isBinary(plan, div, ElementWiseOperation::kPROD))
    {
        arg.x = operandBesideConstant(g, plan, div, std::sqrt(0.5), true);
    }
    arg.nodes = {div};
    return arg.x >= 0;
}

//! `t` is 0.044715 · x³ (x³ as Pow(x, 3), (x·x)·x or x·(x·x)); appends the nodes computing it.
bool isTanhCubic(FusionGraph const& g, Plan const& plan, int32_t t, int32_t x, PlanNode const& head,
    std::vector<int32_t>& nodes)
{
    int32_t const scale = writer(g, plan, t, head);
    if (scale < 0 || !isBinary(plan, scale, ElementWiseOperation::kPROD))
    {
        return false;
    }
    int32_t const cube = operandBesideConstant(g, plan, scale, kTANH_CUBIC, true);
    int32_t const power = cube >= 0 ? writer(g, plan, cube, head) : -1;
    if (power < 0)
    {
        return false;
    }
    PlanNode const& p = plan.nodes[static_cast<size_t>(power)];
    if (isBinary(plan, power, ElementWiseOperation::kPOW))
    {
        if (p.inputs[0] != x || !near(constantScalar(g, plan, p.inputs[1]), 3.0))
        {
            return false;
        }
        nodes.insert(nodes.end(), {scale, power});
        return true;
    }
    // (x·x)·x or x·(x·x).
    int32_t const square = isBinary(plan, power, ElementWiseOperation::kPROD) ? otherInput(p, x) : -1;
    int32_t const squaring = square >= 0 ? writer(g, plan, square, head) : -1;
    if (squaring < 0 || !isBinary(plan, squaring, ElementWiseOperation::kPROD)
        || plan.nodes[static_cast<size_t>(squaring)].inputs[0] != x
        || plan.nodes[static_cast<size_t>(squaring)].inputs[1] != x)
    {
        return false;
    }
    nodes.insert(nodes.end(), {scale, power, squaring});
    return true;
}

//! tanh's argument: √(2/π) · (x + 0.044715 · x³), the sum in either order.
bool tanhArgument(FusionGraph const& g, Plan const& plan, PlanNode const& tanh, GeluArgument& arg)
{
    int32_t const scale = writer(g, plan, tanh.inputs[0], tanh);
    int32_t const inner = scale >= 0 && isBinary(plan, scale, ElementWiseOperation::kPROD)
        ? operandBesideConstant(g, plan, scale, kSQRT_2_OVER_PI, true)
        : -1;
    int32_t const sum = inner >= 0 ? writer(g, plan, inner, tanh) : -1;
    if (sum < 0 || !isBinary(plan, sum, ElementWiseOperation::kSUM))
    {
        return false;
    }
    PlanNode const& s = plan.nodes[static_cast<size_t>(sum)];
    for (size_t side = 0; side < 2; ++side)
    {
        std::vector<int32_t> nodes{scale, sum};
        if (isTanhCubic(g, plan, s.inputs[1 - side], s.inputs[side], tanh, nodes))
        {
            arg.x = s.inputs[side];
            arg.nodes = std::move(nodes);
            return true;
        }
    }
    return false;
}

//! Tries to match a GELU whose erf or tanh is node `n`; returns true when the plan changed.
bool fuseAt(FusionGraph& g, int32_t n)
{
    Plan& plan = g.plan();
    PlanNode const& erf = plan.nodes[static_cast<size_t>(n)];
    if (erf.inputs.size() != 1 || !g.isFusibleNode(erf))
    {
        return false;
    }
    // The erf is a unary layer, the tanh an activation layer (ONNX Tanh).
    bool const erfForm = erf.kind == LayerType::kUNARY
        && erf.attrs.getInt("operation", -1) == static_cast<int64_t>(nvinfer1::UnaryOperation::kERF);
    bool const tanhForm = erf.kind == LayerType::kACTIVATION
        && erf.attrs.getInt("type", -1) == static_cast<int64_t>(nvinfer1::ActivationType::kTANH);
    GeluArgument arg;
    bool const matched = (erfForm && erfArgument(g, plan, erf, arg)) || (tanhForm && tanhArgument(g, plan, erf, arg));
    int32_t const x = arg.x;
    if (!matched || x < 0 || !isFloatTensor(plan, x))
    {
        return false;
    }
    // 1 + erf(.) or 1 + tanh(.)
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
    std::vector<int32_t> fused = arg.nodes;
    fused.insert(fused.end(), {n, add, first});
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
    node.attrs.setInt("type",
        static_cast<int64_t>(tanhForm ? nvinfer1::ActivationType::kGELU_TANH : nvinfer1::ActivationType::kGELU_ERF));
    node.attrs.setFloat("alpha", 0.0);
    node.attrs.setFloat("beta", 0.0);
    g.ctx().logger.verbose(std::string("fusion: the ") + (tanhForm ? "tanh" : "erf") + " GELU '" + node.name
        + "' became one " + (tanhForm ? "kGELU_TANH" : "kGELU_ERF") + " activation");
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
