// INT8 convolution fusion (explicit quantization): a convolution whose data input is the
// dequantization DQ(xq, per-tensor scale) of an INT8 activation and whose kernel (input 1) is DQ(wq, per-tensor or
// per-output-channel scales) of constant INT8 weights, with an optional FP32 bias in its weights slot, and then,
// each the sole reader of the previous result, an optional activation and an optional per-tensor quantization
// Q(., y scale) becomes one kCONVOLUTION node that reads xq and the INT8 weights (its weights slot 0) and writes the
// Q's INT8 output (or the float result without a Q). The scales travel as attributes: "int8.xScale", "int8.wScales"
// (one per output channel, or one), "int8.yScale" when the Q is fused; the activation as "fuse.act" (fusedEpilogue.h).
// Two longer forms that ONNX Runtime's quantizer writes are taken whole: Q -> DQ -> activation -> Q after the
// convolution ("int8.midScale": the first pair becomes an intermediate rounding), and the ResNet block's
// Q -> DQ -> Add(DQ(INT8 residual)) -> Q [-> DQ -> activation -> Q] (the residual becomes input 1, with
// "int8.residualScale" and "int8.sumScale").
// Zero points must be absent. The backend's kernel is asked at every profile shape (KernelProbe); a candidate it
// refuses is tried without its Q and activation, then left as it is. A DQ whose output other layers read too stays
// for them. Afterwards every weight DQ left (constant INT8 weights and scale) that only convolutions read as their
// kernel is folded into FP32 kernel weights in the convolutions' weights slot, so that an unfused network runs as
// fast as one whose parser folded the dequantization.
#include "builder/passes/fusion/fusion.h"
#include "builder/planEdit.h"
#include "core/dataType.h"

#include <algorithm>
#include <cstring>

namespace kiln::fusion
{
using nvinfer1::DataType;
using nvinfer1::LayerType;

namespace
{

//! The values of constant tensor `t` (FLOAT/HALF/BF16) as floats; empty when it is not such a constant.
std::vector<float> constantFloats(Plan const& plan, int32_t t)
{
    if (t < 0 || static_cast<size_t>(t) >= plan.tensors.size())
    {
        return {};
    }
    PlanTensor const& pt = plan.tensors[static_cast<size_t>(t)];
    if (pt.constant < 0 || static_cast<size_t>(pt.constant) >= plan.weights.size())
    {
        return {};
    }
    PlanWeights const& w = plan.weights[static_cast<size_t>(pt.constant)];
    std::vector<float> v(static_cast<size_t>(std::max<int64_t>(w.count, 0)));
    for (size_t i = 0; i < v.size() && w.data != nullptr; ++i)
    {
        uint16_t bits = 0;
        switch (w.type)
        {
        case DataType::kFLOAT: std::memcpy(&v[i], w.data + i * sizeof(float), sizeof(float)); break;
        case DataType::kHALF:
        case DataType::kBF16:
            std::memcpy(&bits, w.data + i * sizeof(uint16_t), sizeof(bits));
            v[i] = w.type == DataType::kHALF ? halfToFloat(bits) : bf16ToFloat(bits);
            break;
        default: return {};
        }
    }
    bool const positive = std::all_of(v.begin(), v.end(), [](float s) { return s > 0.F && s < 3.0e38F; });
    return w.data != nullptr && positive ? v : std::vector<float>{};
}

//! A Q or DQ node of `kind` that the fusion reads: INT8 on its quantized side, no zero point, positive finite
//! constant scales (returned; per tensor, or along `axis` when `perAxis`), else empty.
std::vector<float> quantScales(FusionGraph const& g, PlanNode const& node, LayerType kind, int32_t axis)
{
    Plan const& plan = const_cast<FusionGraph&>(g).plan();
    if (node.kind != kind || node.inputs.size() < 2 || (node.inputs.size() > 2 && node.inputs[2] >= 0)
        || node.outputs.size() != 1 || !node.attrs.getInts("blockShape").empty())
    {
        return {};
    }
    int32_t const quantized = kind == LayerType::kQUANTIZE ? node.outputs[0] : node.inputs[0];
    int32_t const real = kind == LayerType::kQUANTIZE ? node.inputs[0] : node.outputs[0];
    if (plan.tensors[static_cast<size_t>(quantized)].type != DataType::kINT8
        || plan.tensors[static_cast<size_t>(real)].type != DataType::kFLOAT)
    {
        return {};
    }
    std::vector<float> scales = constantFloats(plan, node.inputs[1]);
    int64_t const nodeAxis = node.attrs.getInt("axis", -1);
    bool const fits = scales.size() == 1 || (axis >= 0 && nodeAxis == axis);
    return fits ? scales : std::vector<float>{};
}

//! The plan weights holding convolution `conv`'s FP32 bias: its weights slot 1, or input 2 when that is a constant
//! tensor (the ONNX parser passes a bias as a tensor when the kernel is one); -1 without a bias, -2 for a bias the
//! rewrites cannot take (a run-time tensor, another type).
int32_t constantBias(Plan const& plan, PlanNode const& conv)
{
    int32_t index = conv.weights.size() > 1 ? conv.weights[1] : -1;
    if (conv.inputs.size() > 2 && conv.inputs[2] >= 0)
    {
        if (index >= 0)
        {
            return -2;
        }
        index = plan.tensors[static_cast<size_t>(conv.inputs[2])].constant;
        if (index < 0)
        {
            return -2;
        }
    }
    bool const float32 = index < 0 || plan.weights[static_cast<size_t>(index)].type == DataType::kFLOAT;
    return float32 ? index : -2;
}

//! The node writing `t` when it is a fusible node of `kind`, else -1.
int32_t producerOf(FusionGraph const& g, int32_t t, LayerType kind)
{
    int32_t const p = t >= 0 ? g.producer(t) : -1;
    if (p < 0)
    {
        return -1;
    }
    PlanNode const& node = const_cast<FusionGraph&>(g).plan().nodes[static_cast<size_t>(p)];
    return node.kind == kind && g.isFusibleNode(node) ? p : -1;
}

//! The layers one INT8 convolution takes.
struct Candidate
{
    int32_t conv{-1};
    int32_t dqX{-1};
    int32_t dqW{-1};
    int32_t act{-1};
    int32_t quant{-1};
    int32_t midQuant{-1}; //!< a Q -> DQ pair between the convolution and its activation (ONNX Runtime's QDQ form)
    int32_t midDq{-1};
    float midScale{0.F};
    // The residual form: Q -> DQ -> + DQ(residual) -> Q(sum) [-> DQ -> activation -> Q] (ONNX Runtime's ResNet block).
    int32_t sum{-1};
    int32_t resDq{-1};
    int32_t resInput{-1}; //!< the INT8 residual
    float resScale{0.F};
    int32_t sumQuant{-1};
    float sumScale{0.F};
    int32_t sumDq{-1};
    float xScale{0.F};
    std::vector<float> wScales;
    float yScale{0.F};
};

//! The residual form after the convolution's Q -> DQ (`midDq`, scale c.yScale): an elementwise kSUM, sole reader of
//! the DQ, with DQ(INT8 residual, per-tensor) of the output's dims, then its per-tensor Q, then optionally DQ (the same
//! scale) -> activation -> Q. Returns the candidate `c` extended with it, or one with sum = -1.
Candidate residualForm(FusionGraph& g, Candidate c, int32_t midDq)
{
    Plan const& plan = g.plan();
    PlanNode const& conv = plan.nodes[static_cast<size_t>(c.conv)];
    Candidate none = c;
    none.sum = -1;
    int32_t const dqOut = plan.nodes[static_cast<size_t>(midDq)].outputs[0];
    int32_t const sum = g.soleReader(dqOut, LayerType::kELEMENTWISE, conv);
    PlanNode const* s = sum >= 0 ? &plan.nodes[static_cast<size_t>(sum)] : nullptr;
    if (s == nullptr || s->attrs.getInt("operation", -1) != static_cast<int64_t>(nvinfer1::ElementWiseOperation::kSUM)
        || s->inputs.size() != 2 || (s->inputs[0] == dqOut) == (s->inputs[1] == dqOut))
    {
        return none;
    }
    int32_t const other = s->inputs[0] == dqOut ? s->inputs[1] : s->inputs[0];
    int32_t const resDq = producerOf(g, other, LayerType::kDEQUANTIZE);
    std::vector<float> const rs
        = resDq >= 0 ? quantScales(g, plan.nodes[static_cast<size_t>(resDq)], LayerType::kDEQUANTIZE, -1) : std::vector<float>{};
    if (rs.size() != 1 || !g.sameDims(other, conv.outputs[0]) || !g.sameDims(s->outputs[0], conv.outputs[0])
        || plan.tensors[static_cast<size_t>(plan.nodes[static_cast<size_t>(resDq)].inputs[0])].constant >= 0)
    {
        return none;
    }
    int32_t const q2 = g.soleReader(s->outputs[0], LayerType::kQUANTIZE, conv);
    std::vector<float> const s2
        = q2 >= 0 ? quantScales(g, plan.nodes[static_cast<size_t>(q2)], LayerType::kQUANTIZE, -1) : std::vector<float>{};
    if (s2.size() != 1)
    {
        return none;
    }
    c.midQuant = c.quant;
    c.midDq = midDq;
    c.midScale = c.yScale;
    c.sum = sum;
    c.resDq = resDq;
    c.resInput = plan.nodes[static_cast<size_t>(resDq)].inputs[0];
    c.resScale = rs[0];
    c.sumQuant = q2;
    c.sumScale = s2[0];
    c.act = -1;
    c.quant = -1;
    int32_t const dq2 = g.soleReader(plan.nodes[static_cast<size_t>(q2)].outputs[0], LayerType::kDEQUANTIZE, conv);
    std::vector<float> const d2
        = dq2 >= 0 ? quantScales(g, plan.nodes[static_cast<size_t>(dq2)], LayerType::kDEQUANTIZE, -1) : std::vector<float>{};
    int32_t const a = d2.size() == 1 && d2[0] == s2[0]
        ? g.soleReader(plan.nodes[static_cast<size_t>(dq2)].outputs[0], LayerType::kACTIVATION, conv)
        : -1;
    int32_t const q3 = a >= 0 && plan.nodes[static_cast<size_t>(a)].inputs.size() == 1
        ? g.soleReader(plan.nodes[static_cast<size_t>(a)].outputs[0], LayerType::kQUANTIZE, conv)
        : -1;
    std::vector<float> const s3
        = q3 >= 0 ? quantScales(g, plan.nodes[static_cast<size_t>(q3)], LayerType::kQUANTIZE, -1) : std::vector<float>{};
    if (s3.size() == 1)
    {
        c.sumDq = dq2;
        c.act = a;
        c.quant = q3;
        c.yScale = s3[0];
    }
    return c;
}

//! The candidate around convolution `n` (without activation or Q yet), or conv = -1.
Candidate collect(FusionGraph& g, int32_t n)
{
    Plan const& plan = g.plan();
    PlanNode const& conv = plan.nodes[static_cast<size_t>(n)];
    Candidate c;
    bool const shape = conv.kind == LayerType::kCONVOLUTION && g.isFusibleNode(conv)
        && conv.precision == DataType::kFLOAT && (conv.inputs.size() == 2 || conv.inputs.size() == 3)
        && (conv.weights.empty() || conv.weights[0] < 0)
        && plan.tensors[static_cast<size_t>(conv.outputs[0])].type == DataType::kFLOAT;
    if (!shape || constantBias(plan, conv) == -2)
    {
        return c;
    }
    c.dqX = producerOf(g, conv.inputs[0], LayerType::kDEQUANTIZE);
    c.dqW = producerOf(g, conv.inputs[1], LayerType::kDEQUANTIZE);
    if (c.dqX < 0 || c.dqW < 0)
    {
        return c;
    }
    PlanNode const& dqx = plan.nodes[static_cast<size_t>(c.dqX)];
    PlanNode const& dqw = plan.nodes[static_cast<size_t>(c.dqW)];
    std::vector<float> const xs = quantScales(g, dqx, LayerType::kDEQUANTIZE, -1);
    c.wScales = quantScales(g, dqw, LayerType::kDEQUANTIZE, 0);
    PlanTensor const& wq = plan.tensors[static_cast<size_t>(dqw.inputs[0])];
    int64_t const maps = conv.attrs.getInt("nbOutputMaps", 0);
    bool const constantWeights = wq.constant >= 0 && plan.weights[static_cast<size_t>(wq.constant)].type == DataType::kINT8;
    bool const perChannel = c.wScales.size() == 1 || static_cast<int64_t>(c.wScales.size()) == maps;
    if (xs.size() != 1 || c.wScales.empty() || !constantWeights || !perChannel
        || plan.tensors[static_cast<size_t>(dqx.inputs[0])].constant >= 0)
    {
        return c;
    }
    c.xScale = xs[0];
    c.conv = n;
    return c;
}

//! The fused node of `c` with its activation and Q when `withAct` / `withQ`; `fused` gets the nodes it replaces.
PlanNode fusedNode(FusionGraph& g, Candidate const& c, bool withAct, bool withQ, std::vector<int32_t>& fused)
{
    Plan const& plan = g.plan();
    PlanNode const& conv = plan.nodes[static_cast<size_t>(c.conv)];
    PlanNode const& dqx = plan.nodes[static_cast<size_t>(c.dqX)];
    PlanNode const& dqw = plan.nodes[static_cast<size_t>(c.dqW)];
    fused.clear();
    // A DQ goes with the convolution only when the convolution is its sole reader.
    for (int32_t dq : {c.dqX, c.dqW})
    {
        if (g.isInternal(plan.nodes[static_cast<size_t>(dq)].outputs[0]))
        {
            fused.push_back(dq);
        }
    }
    fused.push_back(c.conv);
    PlanNode node = conv;
    node.inputs = {dqx.inputs[0]};
    node.weights = {plan.tensors[static_cast<size_t>(dqw.inputs[0])].constant, constantBias(plan, conv)};
    node.attrs.setFloat("int8.xScale", c.xScale);
    node.attrs.setFloats("int8.wScales", std::vector<double>(c.wScales.begin(), c.wScales.end()));
    node.outputs = {conv.outputs[0]};
    if (c.sum >= 0)
    {
        node.inputs.push_back(c.resInput);
        node.attrs.setFloat("int8.midScale", c.midScale);
        node.attrs.setFloat("int8.residualScale", c.resScale);
        node.attrs.setFloat("int8.sumScale", c.sumScale);
        fused.insert(fused.end(), {c.midQuant, c.midDq, c.sum, c.sumQuant});
        if (g.isInternal(plan.nodes[static_cast<size_t>(c.resDq)].outputs[0]))
        {
            fused.push_back(c.resDq);
        }
        node.outputs = {plan.nodes[static_cast<size_t>(c.sumQuant)].outputs[0]};
        node.attrs.setFloat("int8.yScale", c.sumScale);
        withQ = false;
        if (c.act < 0)
        {
            withAct = false;
        }
        else
        {
            fused.push_back(c.sumDq);
            withQ = true;
        }
    }
    if (withAct && c.act >= 0)
    {
        if (c.midQuant >= 0 && c.sum < 0)
        {
            node.attrs.setFloat("int8.midScale", c.midScale);
            fused.insert(fused.end(), {c.midQuant, c.midDq});
        }
        PlanNode const& a = plan.nodes[static_cast<size_t>(c.act)];
        node.attrs.setInt("fuse.act", a.attrs.getInt("type", 0) + 1);
        node.attrs.setFloat("fuse.alpha", a.attrs.getFloat("alpha", 0.0));
        node.attrs.setFloat("fuse.beta", a.attrs.getFloat("beta", 0.0));
        node.outputs = {a.outputs[0]};
        fused.push_back(c.act);
    }
    if (withQ && c.quant >= 0 && (withAct || c.act < 0))
    {
        node.attrs.setFloat("int8.yScale", c.yScale);
        node.outputs = {plan.nodes[static_cast<size_t>(c.quant)].outputs[0]};
        fused.push_back(c.quant);
    }
    std::sort(fused.begin(), fused.end());
    node.name = joinedNames(plan, fused);
    node.attrs.setString("fuse.names", node.name);
    return node;
}

//! Tries the INT8 convolution at node `n`; on success `erasedBefore` is the number of fused nodes (DQs) that stood
//! before it, so that the caller resumes at the first node it has not seen.
bool fuseAt(FusionGraph& g, int32_t n, int32_t& erasedBefore)
{
    Plan& plan = g.plan();
    Candidate c = collect(g, n);
    if (c.conv < 0)
    {
        return false;
    }
    PlanNode const& conv = plan.nodes[static_cast<size_t>(n)];
    int32_t cur = conv.outputs[0];
    int32_t const act = g.soleReader(cur, LayerType::kACTIVATION, conv);
    if (act >= 0 && plan.nodes[static_cast<size_t>(act)].inputs.size() == 1
        && plan.tensors[static_cast<size_t>(plan.nodes[static_cast<size_t>(act)].outputs[0])].type == DataType::kFLOAT)
    {
        c.act = act;
        cur = plan.nodes[static_cast<size_t>(act)].outputs[0];
    }
    int32_t const q = g.soleReader(cur, LayerType::kQUANTIZE, conv);
    if (q >= 0)
    {
        std::vector<float> const ys = quantScales(g, plan.nodes[static_cast<size_t>(q)], LayerType::kQUANTIZE, -1);
        if (ys.size() == 1)
        {
            c.quant = q;
            c.yScale = ys[0];
        }
    }
    // The quantizer's Q -> DQ -> activation -> Q after the convolution (ONNX Runtime's QDQ Conv -> Relu): the first Q
    // and DQ (one per-tensor scale) become the node's intermediate rounding, the second Q its output.
    int32_t const midDq = c.act < 0 && c.quant >= 0
        ? g.soleReader(plan.nodes[static_cast<size_t>(c.quant)].outputs[0], LayerType::kDEQUANTIZE, conv)
        : -1;
    Candidate residual;
    if (midDq >= 0)
    {
        residual = residualForm(g, c, midDq);
    }
    if (midDq >= 0)
    {
        PlanNode const& dq = plan.nodes[static_cast<size_t>(midDq)];
        std::vector<float> const s1 = quantScales(g, dq, LayerType::kDEQUANTIZE, -1);
        int32_t const a = s1.size() == 1 && s1[0] == c.yScale ? g.soleReader(dq.outputs[0], LayerType::kACTIVATION, conv) : -1;
        bool const oneInput = a >= 0 && plan.nodes[static_cast<size_t>(a)].inputs.size() == 1;
        int32_t const q2 = oneInput ? g.soleReader(plan.nodes[static_cast<size_t>(a)].outputs[0], LayerType::kQUANTIZE, conv) : -1;
        std::vector<float> const s2
            = q2 >= 0 ? quantScales(g, plan.nodes[static_cast<size_t>(q2)], LayerType::kQUANTIZE, -1) : std::vector<float>{};
        if (s2.size() == 1)
        {
            c.midQuant = c.quant;
            c.midDq = midDq;
            c.midScale = c.yScale;
            c.act = a;
            c.quant = q2;
            c.yScale = s2[0];
        }
    }
    // The residual form, then the whole candidate, then without the Q, then the convolution alone.
    struct Try
    {
        Candidate const* candidate;
        bool withAct;
        bool withQ;
    };
    std::vector<Try> tries{{&c, true, true}, {&c, true, false}, {&c, false, false}};
    if (residual.sum >= 0)
    {
        tries.insert(tries.begin(), Try{&residual, true, true});
    }
    for (Try const& t : tries)
    {
        std::vector<int32_t> fused;
        PlanNode node = fusedNode(g, *t.candidate, t.withAct, t.withQ, fused);
        std::string const refusal = g.probe().refusal(node, makeKernelSetup(plan, node));
        if (!refusal.empty())
        {
            g.ctx().logger.verbose("fusion: INT8 convolution '" + node.name + "' refused by the kernel: " + refusal);
            continue;
        }
        g.ctx().logger.verbose("fusion: INT8 convolution '" + node.name + "'");
        // A DQ read elsewhere stays; the fused node sits where the last fused layer was.
        erasedBefore = static_cast<int32_t>(std::count_if(fused.begin(), fused.end(), [n](int32_t f) { return f < n; }));
        spliceNodes(plan, fused, std::move(node));
        g.refresh();
        return true;
    }
    return false;
}

//! Folds weight DQ node `n` (constant INT8 weights and scales along axis 0, or one scale) into FP32 kernel weights
//! of the convolutions reading it as their kernel (the only readers); returns true when the plan changed.
bool foldWeightDequantize(FusionGraph& g, int32_t n)
{
    Plan& plan = g.plan();
    PlanNode const& dq = plan.nodes[static_cast<size_t>(n)];
    std::vector<float> const scales = quantScales(g, dq, LayerType::kDEQUANTIZE, 0);
    if (scales.empty() || !g.isFusibleNode(dq))
    {
        return false;
    }
    int32_t const out = dq.outputs[0];
    PlanTensor const& wq = plan.tensors[static_cast<size_t>(dq.inputs[0])];
    PlanTensor const& ot = plan.tensors[static_cast<size_t>(out)];
    if (wq.constant < 0 || plan.weights[static_cast<size_t>(wq.constant)].type != DataType::kINT8
        || ot.ioMode != nvinfer1::TensorIOMode::kNONE || g.consumers(out).empty() || wq.dims.empty())
    {
        return false;
    }
    for (int32_t r : g.consumers(out))
    {
        PlanNode const& conv = plan.nodes[static_cast<size_t>(r)];
        bool const kernelOnly = conv.kind == LayerType::kCONVOLUTION && conv.inputs.size() >= 2
            && conv.inputs.size() <= 3 && conv.inputs[1] == out && conv.inputs[0] != out
            && (conv.inputs.size() < 3 || conv.inputs[2] != out) && (conv.weights.empty() || conv.weights[0] < 0)
            && constantBias(plan, conv) != -2;
        if (!kernelOnly)
        {
            return false;
        }
    }
    PlanWeights const& w = plan.weights[static_cast<size_t>(wq.constant)];
    int64_t const perScale = scales.size() == 1 ? w.count : w.count / static_cast<int64_t>(scales.size());
    if (perScale <= 0 || perScale * static_cast<int64_t>(scales.size()) != w.count)
    {
        return false;
    }
    std::vector<float> values(static_cast<size_t>(w.count));
    int8_t const* q = reinterpret_cast<int8_t const*>(w.data);
    for (int64_t i = 0; i < w.count; ++i)
    {
        values[static_cast<size_t>(i)] = static_cast<float>(q[i]) * scales[static_cast<size_t>(i / perScale)];
    }
    PlanWeights const folded = addPlanWeights(plan, DataType::kFLOAT, w.count, values.data(),
        static_cast<int64_t>(values.size() * sizeof(float)));
    plan.weights.push_back(folded);
    int32_t const index = static_cast<int32_t>(plan.weights.size() - 1);
    for (int32_t r : g.consumers(out))
    {
        PlanNode& conv = plan.nodes[static_cast<size_t>(r)];
        int32_t const bias = constantBias(plan, conv);
        conv.inputs.resize(1);
        conv.weights = {index, bias};
    }
    g.ctx().logger.verbose("fusion: weight dequantization '" + dq.name + "' folded into FP32 kernel weights");
    std::vector<bool> erased(plan.nodes.size(), false);
    erased[static_cast<size_t>(n)] = true;
    erasePlanNodes(plan, erased);
    g.refresh();
    return true;
}

} // namespace

int32_t fuseInt8Convolutions(FusionGraph& g)
{
    // Like fuseAtEveryNode, but a fusion also erases DQs before the convolution: resume that many places earlier.
    int32_t count = 0;
    int32_t n = 0;
    while (static_cast<size_t>(n) < g.plan().nodes.size())
    {
        int32_t erasedBefore = 0;
        if (fuseAt(g, n, erasedBefore))
        {
            ++count;
            n -= erasedBefore;
            continue;
        }
        ++n;
    }
    return count;
}

int32_t foldWeightDequantizations(FusionGraph& g)
{
    return fuseAtEveryNode(g, foldWeightDequantize);
}

} // namespace kiln::fusion
