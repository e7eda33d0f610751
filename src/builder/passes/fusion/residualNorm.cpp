// Residual normalization fusion: an elementwise kSUM s = a + b feeding a layer normalization (the Normalization layer
// with nbGroups 1 and its axes a trailing block: how addLayerNorm-style networks and ONNX LayerNormalization arrive)
// becomes one normalization node carrying "fuse.residualNorm" (backends/common/normalizationParams.h): inputs
// (x, scale, bias, r), outputs (y) when the norm is the sum's only reader, else (y, s), so that later readers of the
// residual stream (GPT-2's, a pre-norm transformer's) still find s. x is the operand with the sum's shape; r has it
// too, or is a row broadcast over the leading axes (a bias vector [1, .., 1, C]). The same shape is the same extent
// expressions, or extents of the same symbols that agree at every profile's kMIN, kOPT and kMAX: an exported reshape to a shape computed
// from Shape(x) (GPT-2's) carries the placeholder rules in its extents, so they are not the sum's expressions; the
// fused kernel checks the extents again at every reshape, so a run where they differ fails with the reason. Conditions: FLOAT, HALF or BF16, a, b
// and s of one type, the layers of one precision, s not network I/O, a debug tensor or a shape tensor, every other
// reader of s after the norm in the plan's order (the fused node takes the norm's place), and the backend's kernel
// accepts the node at every profile shape (KernelProbe). RMSNorm has no layer of its own in TensorRT's network API
// (ONNX exports spell it as Pow/ReduceMean/Sqrt/Div/Mul), so only the layer-norm form is recognised here.
#include "backends/common/normalizationParams.h"
#include "builder/passes/fusion/fusion.h"

#include <algorithm>

namespace kiln::fusion
{
using nvinfer1::ElementWiseOperation;
using nvinfer1::LayerType;

namespace
{

//! The normalization's axes are a trailing block and it has no groups (layer norm).
bool isLayerNorm(Plan const& plan, PlanNode const& norm)
{
    int64_t const mask = norm.attrs.getInt("axes", 0);
    auto const rank = static_cast<int64_t>(plan.tensors[static_cast<size_t>(norm.inputs[0])].dims.size());
    return norm.attrs.getInt("nbGroups", 1) == 1 && mask > 0 && rank < 63 && (mask >> rank) == 0
        && mask + (mask & -mask) == (int64_t{1} << rank);
}

//! `r` has `x`'s extents, or constant 1s followed by `x`'s trailing extents (a row broadcast over leading axes).
bool isResidualOperand(FusionGraph& g, Plan const& plan, int32_t r, int32_t x)
{
    if (g.sameDimsAtProfiles(r, x))
    {
        return true;
    }
    auto const& rd = plan.tensors[static_cast<size_t>(r)].dims;
    auto const& xd = plan.tensors[static_cast<size_t>(x)].dims;
    if (rd.size() != xd.size())
    {
        return false;
    }
    bool leading = true;
    for (size_t i = 0; i < rd.size(); ++i)
    {
        leading = leading && plan.shapes.isConstant(rd[i]) && plan.shapes.constantValue(rd[i]) == 1;
        if (!leading && !g.sameExtent(rd[i], xd[i]))
        {
            return false;
        }
    }
    return true;
}

//! Tries to fuse the addition feeding normalization node `n`; returns true when the plan changed.
bool fuseAt(FusionGraph& g, int32_t n)
{
    Plan& plan = g.plan();
    PlanNode const& norm = plan.nodes[static_cast<size_t>(n)];
    if (norm.kind != LayerType::kNORMALIZATION || norm.inputs.size() != 3 || !g.isFusibleNode(norm)
        || !isLayerNorm(plan, norm))
    {
        return false;
    }
    int32_t const s = norm.inputs[0];
    if (norm.inputs[1] == s || norm.inputs[2] == s || !isFloatTensor(plan, s))
    {
        return false;
    }
    // s may have other readers, but must otherwise be an ordinary activation tensor (isInternal's other conditions).
    size_t const readers = g.consumers(s).size();
    int32_t const add = g.isInternal(s, readers) ? g.producer(s) : -1;
    if (add < 0)
    {
        return false;
    }
    PlanNode const& a = plan.nodes[static_cast<size_t>(add)];
    if (a.kind != LayerType::kELEMENTWISE || !g.isFusibleNode(a) || a.inputs.size() != 2 || a.precision != norm.precision
        || a.attrs.getInt("operation", -1) != static_cast<int64_t>(ElementWiseOperation::kSUM))
    {
        return false;
    }
    for (int32_t c : g.consumers(s))
    {
        if (c != n && c < n)
        {
            return false; // a reader between the addition and the norm would run before the fused node
        }
    }
    auto const type = plan.tensors[static_cast<size_t>(s)].type;
    int32_t x = -1;
    int32_t r = -1;
    for (int32_t side = 0; side < 2 && x < 0; ++side)
    {
        int32_t const first = a.inputs[static_cast<size_t>(side)];
        int32_t const second = a.inputs[static_cast<size_t>(1 - side)];
        if (first >= 0 && second >= 0 && g.sameDimsAtProfiles(first, s) && isResidualOperand(g, plan, second, s))
        {
            x = first;
            r = second;
        }
    }
    if (x < 0 || plan.tensors[static_cast<size_t>(x)].type != type || plan.tensors[static_cast<size_t>(r)].type != type)
    {
        // Said once per pair, so that a model whose additions stay (dynamic extents not provably equal) shows why.
        g.ctx().logger.verbose("fusion: residual addition '" + a.name + "' left before '" + norm.name
            + "': no operand has the sum's extents with the other of them or a row broadcast (or the types differ)");
        return false;
    }
    std::vector<int32_t> const fused{add, n};
    PlanNode node = norm;
    node.name = joinedNames(plan, fused);
    node.attrs.setString("fuse.names", node.name);
    node.attrs.setInt(kRESIDUAL_NORM_ATTR, 1);
    node.inputs = {x, norm.inputs[1], norm.inputs[2], r};
    node.outputs = {norm.outputs[0]};
    if (readers > 1)
    {
        node.outputs.push_back(s);
    }
    std::string const refusal = g.probe().refusal(node, makeKernelSetup(plan, node));
    if (!refusal.empty())
    {
        g.ctx().logger.verbose("fusion: residual addition left before the norm ('" + node.name + "'): " + refusal);
        return false;
    }
    g.ctx().logger.verbose("fusion: fused '" + a.name + "' into '" + norm.name + "' (residual norm"
        + (readers > 1 ? ", the sum kept as a second output)" : ")"));
    spliceNodes(plan, fused, std::move(node));
    g.refresh();
    return true;
}

} // namespace

int32_t fuseResidualNorms(FusionGraph& g)
{
    return fuseAtEveryNode(g, fuseAt);
}

} // namespace kiln::fusion
