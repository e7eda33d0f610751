// Attention fusion: scaled dot-product attention in its usual exported form — a matrix multiply of the query with
// the (transposed) key, optionally a division or multiplication by a constant scalar, optionally the addition of a
// mask that broadcasts to the scores, a softmax over the last axis, and a matrix multiply with the value — becomes
// one attention node (kind kATTENTION_OUTPUT, backends/common/attentionParams.h) whose kernel never stores the
// scores. Every tensor is 4-D of one float type, the batch and head extents of query, key and value are the same
// expressions, and every intermediate has a single reader. Runs before the epilogue and pointwise fusions, which
// would otherwise take the mask addition and the scaling.
#include "builder/passes/fusion/fusion.h"

namespace kiln::fusion
{
using nvinfer1::ElementWiseOperation;
using nvinfer1::LayerType;
using nvinfer1::MatrixOperation;

namespace
{

bool isOp(PlanNode const& node, ElementWiseOperation op)
{
    return node.attrs.getInt("operation", -1) == static_cast<int64_t>(op) && node.inputs.size() == 2;
}

int64_t matmulOp(PlanNode const& node, char const* key)
{
    return node.attrs.getInt(key, -1);
}

bool rank4Float(Plan const& plan, int32_t t)
{
    return isFloatTensor(plan, t) && plan.tensors[static_cast<size_t>(t)].dims.size() == 4;
}

//! Tries to fuse the attention whose first matrix multiply is node `n`; true when the plan changed.
bool fuseAt(FusionGraph& g, int32_t n)
{
    Plan& plan = g.plan();
    PlanNode const& bmm1 = plan.nodes[static_cast<size_t>(n)];
    if (bmm1.kind != LayerType::kMATRIX_MULTIPLY || !g.isFusibleNode(bmm1) || bmm1.inputs.size() != 2
        || matmulOp(bmm1, "op0") != static_cast<int64_t>(MatrixOperation::kNONE))
    {
        return false;
    }
    int64_t const op1 = matmulOp(bmm1, "op1");
    if (op1 != static_cast<int64_t>(MatrixOperation::kNONE) && op1 != static_cast<int64_t>(MatrixOperation::kTRANSPOSE))
    {
        return false;
    }
    int32_t const query = bmm1.inputs[0];
    int32_t const key = bmm1.inputs[1];
    int32_t cur = bmm1.outputs[0];
    if (!rank4Float(plan, query) || !rank4Float(plan, key) || !rank4Float(plan, cur))
    {
        return false;
    }
    nvinfer1::DataType const type = plan.tensors[static_cast<size_t>(cur)].type;
    std::vector<int32_t> fused{n};
    double scale = 1.0;
    // Optional scaling by a constant scalar.
    int32_t step = g.soleReader(cur, LayerType::kELEMENTWISE, bmm1);
    if (step >= 0)
    {
        PlanNode const& e = plan.nodes[static_cast<size_t>(step)];
        int32_t const other = isOp(e, ElementWiseOperation::kDIV) || isOp(e, ElementWiseOperation::kPROD)
            ? (e.inputs[0] == cur ? e.inputs[1] : e.inputs[0])
            : -1;
        float const c = other >= 0 ? constantScalar(g, plan, other).value_or(0.F) : 0.F;
        bool const divides = isOp(e, ElementWiseOperation::kDIV) && e.inputs[0] == cur;
        if (c != 0.F && (divides || isOp(e, ElementWiseOperation::kPROD)) && g.sameDims(e.outputs[0], cur))
        {
            scale = divides ? 1.0 / c : c;
            fused.push_back(step);
            cur = e.outputs[0];
            step = g.soleReader(cur, LayerType::kELEMENTWISE, bmm1);
        }
    }
    // Optional mask addition.
    int32_t mask = -1;
    if (step >= 0)
    {
        PlanNode const& e = plan.nodes[static_cast<size_t>(step)];
        if (!isOp(e, ElementWiseOperation::kSUM) || (e.inputs[0] == cur) == (e.inputs[1] == cur))
        {
            return false;
        }
        int32_t const other = e.inputs[0] == cur ? e.inputs[1] : e.inputs[0];
        if (!rank4Float(plan, other) || plan.tensors[static_cast<size_t>(other)].type != type
            || !g.sameDims(e.outputs[0], cur) || !g.broadcastsTo(other, cur))
        {
            return false;
        }
        mask = other;
        fused.push_back(step);
        cur = e.outputs[0];
    }
    // Softmax over the last axis.
    int32_t const softmax = g.soleReader(cur, LayerType::kSOFTMAX, bmm1);
    if (softmax < 0 || plan.nodes[static_cast<size_t>(softmax)].attrs.getInt("axes", 0) != (1 << 3))
    {
        return false;
    }
    fused.push_back(softmax);
    cur = plan.nodes[static_cast<size_t>(softmax)].outputs[0];
    // The second matrix multiply, probabilities times value.
    int32_t const bmm2 = g.soleReader(cur, LayerType::kMATRIX_MULTIPLY, bmm1);
    if (bmm2 < 0)
    {
        return false;
    }
    PlanNode const& second = plan.nodes[static_cast<size_t>(bmm2)];
    if (second.inputs.size() != 2 || second.inputs[0] != cur || second.inputs[1] == cur
        || matmulOp(second, "op0") != static_cast<int64_t>(MatrixOperation::kNONE)
        || matmulOp(second, "op1") != static_cast<int64_t>(MatrixOperation::kNONE))
    {
        return false;
    }
    int32_t const value = second.inputs[1];
    int32_t const out = second.outputs[0];
    if (!rank4Float(plan, value) || !rank4Float(plan, out))
    {
        return false;
    }
    for (int32_t t : {key, value, out, mask})
    {
        if (t >= 0 && plan.tensors[static_cast<size_t>(t)].type != type)
        {
            return false;
        }
    }
    // No batch broadcasting between query, key and value: the same batch and head extents.
    auto const& qd = plan.tensors[static_cast<size_t>(query)].dims;
    for (int32_t t : {key, value})
    {
        auto const& d = plan.tensors[static_cast<size_t>(t)].dims;
        if (!g.sameExtent(qd[0], d[0]) || !g.sameExtent(qd[1], d[1]))
        {
            return false;
        }
    }
    fused.push_back(bmm2);
    std::string const name = joinedNames(plan, fused);
    PlanNode node;
    node.kind = LayerType::kATTENTION_OUTPUT;
    node.name = name;
    node.metadata = bmm1.metadata;
    node.precision = bmm1.precision;
    node.inputs = {query, key, value, mask};
    node.outputs = {out};
    node.attrs.setInt("normOp", 1);
    node.attrs.setInt("causal", 0);
    node.attrs.setFloat("scale", scale);
    node.attrs.setInt("keyTransposed", op1 == static_cast<int64_t>(MatrixOperation::kNONE) ? 1 : 0);
    node.attrs.setString("fuse.names", name);
    g.ctx().logger.verbose("fusion: attention '" + name + "' (scale " + std::to_string(scale)
        + (mask >= 0 ? ", with a mask" : "") + ")");
    spliceNodes(plan, fused, std::move(node));
    g.refresh();
    return true;
}

} // namespace

int32_t fuseAttention(FusionGraph& g)
{
    return fuseAtEveryNode(g, fuseAt);
}

} // namespace kiln::fusion
