// Attention fusion: scaled dot-product attention in its usual exported form — a matrix multiply of the query with
// the (transposed) key, optionally a division or multiplication by a constant scalar, optionally the addition of a
// mask that broadcasts to the scores, a softmax over the last axis, and a matrix multiply with the value — becomes
// one attention node (kind kATTENTION_OUTPUT, backends/common/attentionParams.h) whose kernel never stores the
// scores. Every tensor is 4-D of one float type, the batch and head extents of query, key and value are the same
// expressions, and every intermediate has a single reader. Runs before the epilogue and pointwise fusions, which
// would otherwise take the mask addition and the scaling. Pure transposes (the key's: one, or two in a row) that
// split the heads before and merge them after the attention are taken in too where the backend's kernel reads
// [b, s, h, d] tensors (layout.* = 1), and so are the Slice + Reshape pairs that cut Q, K and V out of one packed
// projection [b, s, r] (an exported Split; layout.* = 2, packed.*) where each slice and reshape has that single
// reader. The fused node is kept only when the backend's attention kernel accepts it at every profile shape
// (KernelProbe); the variants are tried from the most absorbed to the plain one. A mask that is the causal band known
// at build time (an additive bias, or a Where before the softmax; causalMask.h) becomes "causal" = 1 without a mask.
#include "builder/passes/fusion/fusion.h"

#include "builder/passes/fusion/buildTimeValues.h"
#include "builder/passes/fusion/causalMask.h"

#include "backends/common/attentionParams.h"
#include "backends/common/sliceParams.h"
#include "engine/tensorLifetimes.h"

#include <algorithm>
#include <array>
#include <optional>

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

//! True when mask `m` may broadcast to scores `s` without growing them: each extent is the scores' expression, the
//! constant 1, or an expression of its own (exported masks often take their batch from another network input than
//! the query); the kernel checks the last kind at run time (attentionShapes) and fails cleanly where the unfused
//! addition would have broadcast the scores up to the mask.
bool maskMayBroadcast(FusionGraph& g, int32_t m, int32_t s)
{
    Plan const& plan = g.plan();
    ShapeGraph const& shapes = plan.shapes;
    auto const& md = plan.tensors[static_cast<size_t>(m)].dims;
    auto const& sd = plan.tensors[static_cast<size_t>(s)].dims;
    for (size_t i = 0; i < md.size(); ++i)
    {
        bool const unit = shapes.isConstant(md[i]) && shapes.constantValue(md[i]) == 1;
        bool const bothConstant = shapes.isConstant(md[i]) && shapes.isConstant(sd[i]);
        if (!g.sameExtent(md[i], sd[i]) && !unit && bothConstant)
        {
            return false;
        }
    }
    return true;
}

//! The permutation of `node` when it is a Shuffle that only permutes a 4-D tensor (no reshape, no second transpose).
std::optional<std::array<int64_t, 4>> pureTransposePerm(FusionGraph& g, PlanNode const& node)
{
    Plan const& plan = g.plan();
    if (node.kind != LayerType::kSHUFFLE || !g.isFusibleNode(node) || node.inputs.empty() || node.outputs.size() != 1
        || (node.inputs.size() > 1 && node.inputs[1] >= 0) || node.inputs[0] < 0)
    {
        return std::nullopt;
    }
    std::vector<int64_t> const first = node.attrs.getInts("first_transpose");
    std::vector<int64_t> const second = node.attrs.getInts("second_transpose");
    auto const& in = plan.tensors[static_cast<size_t>(node.inputs[0])].dims;
    auto const& out = plan.tensors[static_cast<size_t>(node.outputs[0])].dims;
    // The network stores each permutation with Dims::MAX_DIMS entries; the first `rank` count.
    if (first.size() < 4 || second.size() < 4 || in.size() != 4 || out.size() != 4)
    {
        return std::nullopt;
    }
    std::array<int64_t, 4> perm{};
    for (size_t i = 0; i < 4; ++i)
    {
        if (first[i] < 0 || first[i] > 3 || second[i] != static_cast<int64_t>(i)
            || !g.sameExtent(out[i], in[static_cast<size_t>(first[i])]))
        {
            return std::nullopt;
        }
        perm[i] = first[i];
    }
    return perm;
}

//! True when `node` is a Shuffle that only permutes a 4-D tensor by `perm`.
bool isPureTranspose(FusionGraph& g, PlanNode const& node, int64_t const (&perm)[4])
{
    auto const p = pureTransposePerm(g, node);
    return p.has_value() && std::equal(p->begin(), p->end(), perm);
}

//! Pure transposes (one, or two in a row: an export may transpose the heads first and then swap the key's last two
//! axes) that turn a tensor into `t` by `perm`, each output read only by the next.
struct TransposeChain
{
    int32_t source{-1};
    std::vector<int32_t> nodes;
};

//! The chain writing `t` (read only by the attention) by `perm`, if there is one.
std::optional<TransposeChain> pureTransposeProducer(FusionGraph& g, int32_t t, int64_t const (&perm)[4])
{
    Plan const& plan = g.plan();
    int32_t const last = g.producer(t);
    if (last < 0 || !g.isInternal(t) || g.uses(t) != 1)
    {
        return std::nullopt;
    }
    PlanNode const& node = plan.nodes[static_cast<size_t>(last)];
    auto const outer = pureTransposePerm(g, node);
    if (!outer.has_value())
    {
        return std::nullopt;
    }
    if (std::equal(outer->begin(), outer->end(), perm))
    {
        return TransposeChain{node.inputs[0], {last}};
    }
    int32_t const middle = node.inputs[0];
    int32_t const first = g.producer(middle);
    if (first < 0 || !g.isInternal(middle) || g.uses(middle) != 1)
    {
        return std::nullopt;
    }
    auto const inner = pureTransposePerm(g, plan.nodes[static_cast<size_t>(first)]);
    if (!inner.has_value())
    {
        return std::nullopt;
    }
    // out[i] = middle[outer[i]] = in[inner[outer[i]]].
    for (size_t i = 0; i < 4; ++i)
    {
        if ((*inner)[static_cast<size_t>((*outer)[i])] != perm[i])
        {
            return std::nullopt;
        }
    }
    return TransposeChain{plan.nodes[static_cast<size_t>(first)].inputs[0], {first, last}};
}

//! A query, key or value [b, s, h, d] read in place from the packed projection it was sliced from.
struct PackedView
{
    int32_t packed{-1};  //!< the packed tensor [b, s, r]
    int32_t reshape{-1}; //!< the Shuffle [b, s, h·d] -> [b, s, h, d]
    int32_t slice{-1};   //!< the Slice of the last axis
    int64_t offset{0};
    int64_t heads{0};
    int64_t dim{0};
};

//! The constant value of extent `e`, or -1.
int64_t constantExtent(ShapeGraph const& shapes, ExprId e)
{
    return shapes.isConstant(e) ? shapes.constantValue(e) : -1;
}

//! True when extent `e` is `other`, directly or as the extent a reshape computes from a shape tensor's value x,
//! "(x == -1) ? inferred : x", whose x is `other`: a tensor's extent, never -1, so that the select yields x.
bool sameReshapedExtent(FusionGraph& g, ExprId e, ExprId other)
{
    ShapeGraph const& shapes = g.plan().shapes;
    if (g.sameExtent(e, other))
    {
        return true;
    }
    if (!shapes.isValid(e) || shapes.node(e).op != ExprOp::kSELECT || !shapes.isValid(shapes.node(e).a))
    {
        return false;
    }
    ExprNode const& select = shapes.node(e);
    ExprNode const& test = shapes.node(select.a);
    auto isMinusOne = [&](ExprId x) { return shapes.isValid(x) && shapes.isConstant(x) && shapes.constantValue(x) == -1; };
    bool const infers = test.op == ExprOp::kEQUAL
        && ((test.a == select.c && isMinusOne(test.b)) || (test.b == select.c && isMinusOne(test.a)));
    return infers && g.sameExtent(select.c, other);
}

//! The start along the last axis of a slice of a 3-D tensor that keeps the other axes whole, unit stride, strict
//! bounds, parameters known at build time; -1 when the slice is anything else.
int64_t lastAxisSliceStart(Plan const& plan, PlanNode const& slice)
{
    if (slice.attrs.getInt("mode", -1) != static_cast<int64_t>(nvinfer1::SampleMode::kSTRICT_BOUNDS)
        || (slice.inputs.size() > kSLICE_FILL_VALUE && slice.inputs[kSLICE_FILL_VALUE] >= 0))
    {
        return -1;
    }
    auto const start = staticSliceParameter(plan, slice, kSLICE_START, "start");
    auto const stride = staticSliceParameter(plan, slice, kSLICE_STRIDE, "stride");
    auto axes = staticSliceParameter(plan, slice, kSLICE_AXES, "axes");
    if (axes.has_value() && axes->empty())
    {
        axes = std::vector<int64_t>{0, 1, 2};
    }
    if (!start || !stride || !axes || start->size() != axes->size() || stride->size() != axes->size())
    {
        return -1;
    }
    int64_t last = -1;
    for (size_t i = 0; i < axes->size(); ++i)
    {
        int64_t const axis = (*axes)[i] < 0 ? (*axes)[i] + 3 : (*axes)[i];
        if (axis == 2 && (*stride)[i] == 1 && (*start)[i] >= 0)
        {
            last = (*start)[i];
        }
        else if (axis < 0 || axis > 2 || (*start)[i] != 0 || (*stride)[i] != 1)
        {
            return -1;
        }
    }
    return last;
}

//! How `t` ([b, s, h, d], read only by the attention) is a reshaped slice of a packed [b, s, r] projection: a pure
//! reshape of [b, s, h·d] that is a slice along the last axis (what an exported Split becomes), each with no other
//! reader.
std::optional<PackedView> packedView(FusionGraph& g, int32_t t)
{
    Plan const& plan = g.plan();
    ShapeGraph const& shapes = plan.shapes;
    PackedView v;
    v.reshape = g.producer(t);
    if (v.reshape < 0 || !g.isInternal(t) || g.uses(t) != 1)
    {
        return std::nullopt;
    }
    PlanNode const& reshape = plan.nodes[static_cast<size_t>(v.reshape)];
    if (reshape.kind != LayerType::kSHUFFLE || !g.isFusibleNode(reshape) || !isPureReshape(plan, reshape))
    {
        return std::nullopt;
    }
    int32_t const sliced = reshape.inputs[0];
    auto const& td = plan.tensors[static_cast<size_t>(t)].dims;
    auto const& ud = plan.tensors[static_cast<size_t>(sliced)].dims;
    v.slice = g.producer(sliced);
    if (td.size() != 4 || ud.size() != 3 || v.slice < 0 || !g.isInternal(sliced) || g.uses(sliced) != 1
        || !sameReshapedExtent(g, td[0], ud[0]) || !sameReshapedExtent(g, td[1], ud[1]))
    {
        return std::nullopt;
    }
    v.heads = constantExtent(shapes, td[2]);
    v.dim = constantExtent(shapes, td[3]);
    int64_t const width = constantExtent(shapes, ud[2]);
    if (v.heads < 1 && v.dim >= 1 && width >= v.dim && width % v.dim == 0)
    {
        // A head count the reshape inferred (-1, as transformers' GPT-2 writes view(b, s, -1, d)): its extent is the
        // volume over the other extents, which no constant expresses while b is dynamic. A pure reshape keeps the
        // volume and the first two extents are the slice's, so the heads are the slice's width over the head size.
        v.heads = width / v.dim;
    }
    if (v.heads < 1 || v.dim < 1 || width != v.heads * v.dim)
    {
        return std::nullopt;
    }
    PlanNode const& slice = plan.nodes[static_cast<size_t>(v.slice)];
    if (slice.kind != LayerType::kSLICE || !g.isFusibleNode(slice) || slice.inputs.empty() || slice.inputs[0] < 0
        || slice.outputs.size() != 1)
    {
        return std::nullopt;
    }
    v.packed = slice.inputs[0];
    auto const& pd = plan.tensors[static_cast<size_t>(v.packed)].dims;
    v.offset = lastAxisSliceStart(plan, slice);
    if (pd.size() != 3 || v.offset < 0 || !g.sameExtent(pd[0], ud[0]) || !g.sameExtent(pd[1], ud[1])
        || constantExtent(shapes, pd[2]) < v.offset + v.heads * v.dim)
    {
        return std::nullopt;
    }
    return v;
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
    // Optional Where(causal band, scores, masked value) (or Where(outside the band, masked value, scores)), as older
    // transformers export GPT-2's bias buffer: taken in only when the build can prove the band causal.
    bool causal = false;
    int32_t const select = g.soleReader(cur, LayerType::kSELECT, bmm1);
    if (select >= 0)
    {
        PlanNode const& w = plan.nodes[static_cast<size_t>(select)];
        if (w.inputs.size() != 3 || w.inputs[0] == cur || (w.inputs[1] == cur) == (w.inputs[2] == cur)
            || !g.sameDims(w.outputs[0], cur))
        {
            return false;
        }
        bool const keepWhere = w.inputs[1] == cur;
        if (!isMaskedFill(g, keepWhere ? w.inputs[2] : w.inputs[1]) || !isCausalCondition(g, w.inputs[0], cur, keepWhere))
        {
            return false;
        }
        causal = true;
        fused.push_back(select);
        cur = w.outputs[0];
        step = g.soleReader(cur, LayerType::kELEMENTWISE, bmm1);
    }
    // Optional mask addition; a mask that is the causal band known at build time becomes "causal" = 1.
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
            || !maskMayBroadcast(g, other, cur))
        {
            return false;
        }
        if (isCausalBias(g, other, cur))
        {
            causal = true;
        }
        else if (causal)
        {
            return false; // the causal node takes no mask besides
        }
        else
        {
            mask = other;
        }
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
    bool const keyTransposed = op1 == static_cast<int64_t>(MatrixOperation::kNONE);
    PlanNode node;
    node.kind = LayerType::kATTENTION_OUTPUT;
    node.metadata = bmm1.metadata;
    node.precision = bmm1.precision;
    node.inputs = {query, key, value, mask};
    node.outputs = {out};
    node.attrs.setInt("normOp", 1);
    node.attrs.setInt("causal", causal ? 1 : 0);
    node.attrs.setFloat("scale", scale);
    node.attrs.setInt("keyTransposed", keyTransposed ? 1 : 0);

    // The exported form transposes each head split [b, s, h, d] -> [b, h, s, d] before the attention (the key to
    // [b, h, d, s]) and the result back after it: a backend whose kernel reads [b, s, h, d] takes those transposes
    // in (layout.* = 1), so that they never run.
    PlanNode absorbed = node;
    std::vector<int32_t> absorbedNodes = fused;
    int32_t const kept = static_cast<int32_t>(fused.size());
    constexpr int64_t kHEADS_FIRST[4]{0, 2, 1, 3};
    constexpr int64_t kKEY_TRANSPOSED[4]{0, 2, 3, 1};
    for (int32_t slot = 0; slot < 3; ++slot)
    {
        bool const transposedKey = slot == kATTENTION_KEY && keyTransposed;
        std::optional<TransposeChain> const chain = pureTransposeProducer(g, node.inputs[static_cast<size_t>(slot)],
            transposedKey ? kKEY_TRANSPOSED : kHEADS_FIRST);
        if (chain.has_value())
        {
            absorbed.inputs[static_cast<size_t>(slot)] = chain->source;
            absorbed.attrs.setInt(kATTENTION_LAYOUT_ATTRIBUTES[slot], 1);
            absorbedNodes.insert(absorbedNodes.end(), chain->nodes.begin(), chain->nodes.end());
            if (transposedKey)
            {
                absorbed.attrs.setInt("keyTransposed", 0);
            }
        }
    }
    int32_t const after = g.soleReader(out, LayerType::kSHUFFLE, bmm1);
    if (after >= 0 && isPureTranspose(g, plan.nodes[static_cast<size_t>(after)], kHEADS_FIRST))
    {
        absorbed.outputs = {plan.nodes[static_cast<size_t>(after)].outputs[0]};
        absorbed.attrs.setInt(kATTENTION_LAYOUT_ATTRIBUTES[kATTENTION_OUTPUT], 1);
        absorbedNodes.push_back(after);
    }
    bool const anyAbsorbed = static_cast<int32_t>(absorbedNodes.size()) > kept;

    // An exported model with one QKV projection splits it along the last axis (Slice) and reshapes each part to
    // [b, s, h, d] before those transposes: a backend whose kernel reads strided views takes the slices and the
    // reshapes in too (layout.* = 2, packed.* = [offset, heads, dim]), so that Q, K and V are never copied out.
    PlanNode packedNode = absorbed;
    std::vector<int32_t> packedNodes = absorbedNodes;
    for (int32_t slot = 0; slot < 3; ++slot)
    {
        if (absorbed.attrs.getInt(kATTENTION_LAYOUT_ATTRIBUTES[slot], 0) != kATTENTION_LAYOUT_BSHD)
        {
            continue;
        }
        std::optional<PackedView> const view = packedView(g, absorbed.inputs[static_cast<size_t>(slot)]);
        if (view.has_value())
        {
            packedNode.inputs[static_cast<size_t>(slot)] = view->packed;
            packedNode.attrs.setInt(kATTENTION_LAYOUT_ATTRIBUTES[slot], kATTENTION_LAYOUT_PACKED);
            packedNode.attrs.setInts(kATTENTION_PACKED_ATTRIBUTES[slot], {view->offset, view->heads, view->dim});
            packedNodes.push_back(view->reshape);
            packedNodes.push_back(view->slice);
        }
    }
    bool const anyPacked = packedNodes.size() > absorbedNodes.size();
    std::sort(absorbedNodes.begin(), absorbedNodes.end());
    std::sort(packedNodes.begin(), packedNodes.end());

    // The backend's attention kernel must run the node at every profile shape (CUDA: cuDNN's SDPA has FP16/BF16
    // engines with limits on the head size, the layouts and the alignment); otherwise the next variant is tried, and
    // at last the layers stay as they are.
    struct Variant
    {
        PlanNode* node;
        std::vector<int32_t> const* nodes;
        char const* note;
    };
    std::vector<Variant> variants;
    if (anyPacked)
    {
        variants.push_back({&packedNode, &packedNodes, ", packed QKV slices and head transposes absorbed"});
    }
    if (anyAbsorbed)
    {
        variants.push_back({&absorbed, &absorbedNodes, ", head transposes absorbed"});
    }
    variants.push_back({&node, &fused, ""});
    for (Variant const& variant : variants)
    {
        PlanNode& candidate = *variant.node;
        std::string const name = joinedNames(plan, *variant.nodes);
        candidate.name = name;
        candidate.attrs.setString("fuse.names", name);
        std::string const refusal = g.probe().refusal(candidate, makeKernelSetup(plan, candidate));
        if (refusal.empty())
        {
            g.ctx().logger.verbose("fusion: attention '" + name + "' (scale " + std::to_string(scale)
                + (mask >= 0 ? ", with a mask" : "") + (causal ? ", causal" : "") + variant.note + ")");
            spliceNodes(plan, *variant.nodes, std::move(candidate));
            g.refresh();
            return true;
        }
        g.ctx().logger.verbose("fusion: attention left unfused ('" + name + "'): " + refusal);
    }
    return false;
}

} // namespace

int32_t fuseAttention(FusionGraph& g)
{
    int32_t const fusions = fuseAtEveryNode(g, fuseAt);
    bool anyCausal = false;
    for (PlanNode const& node : g.plan().nodes)
    {
        anyCausal = anyCausal || (node.kind == LayerType::kATTENTION_OUTPUT && node.attrs.getInt("causal", 0) != 0);
    }
    if (anyCausal)
    {
        // The causal nodes no longer read their masks: the layers that computed them (Range, comparisons, Where,
        // Expand) would still run for nothing.
        int32_t const erased = eraseUnreadMaskLayers(g);
        if (erased > 0)
        {
            g.ctx().logger.verbose("fusion: " + std::to_string(erased) + " mask layer(s) without readers removed");
        }
    }
    return fusions;
}

} // namespace kiln::fusion
