// fusionPass: merges nodes of the plan into fused nodes after the precision pass and before tactics are chosen
// (TensorRT fuses layers likewise; a fused layer's name is its layers' names joined with " + "). Running after
// precisionPass means fused layers share the precision it chose, and it still finds every layer by name. The
// rewrites, in this order:
//   0. fusion/attention.cpp: matrix multiply + scale + mask add + softmax + matrix multiply -> one attention node
//      (kATTENTION_OUTPUT), where the backend has an attention kernel;
//   0b. fusion/gelu.cpp: the erf GELU written as pointwise layers -> one kGELU_ERF activation layer;
//   0c. fusion/int8Convolution.cpp: DQ(INT8 x) + DQ(INT8 weights) + convolution [+ activation] [+ Q] -> one INT8
//      convolution node, where the backend's kernel takes it; then the weight DQs left fold into FP32 weights;
//   1. fusion/convEpilogue.cpp: convolution / deconvolution / matrix multiply + elementwise kSUM with a tensor (bias or
//      residual) and/or an activation -> one node with the "fuse.*" attributes (backends/common/fusedEpilogue.h);
//   1b. fusion/residualNorm.cpp: elementwise kSUM + layer norm -> one normalization node ("fuse.residualNorm") that
//      also writes the sum where it has other readers; after the epilogues, so that a matrix multiply keeps a
//      residual it can take as its GEMM's C (BERT), and the additions left (GPT-2's residual stream) join the norm;
//   2. fusion/pointwiseChains.cpp: chains of elementwise / unary / activation layers -> one kELEMENTWISE node with a
//      pointwise program (backends/common/pointwiseProgram.h).
// It runs when the engine is built for the CUDA backend, or when the environment variable KILN_FUSE=1 (so that the
// CPU backend, whose kernels honour the fused nodes too, can exercise it); KILN_FUSE=0 disables it everywhere.
// Tensors that disappear into a fused node stay in the plan, unreferenced, so that tensor indices remain stable.
#include "builder/passes/fusion/fusion.h"
#include "builder/planEdit.h"
#include "core/dataType.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace kiln
{
namespace fusion
{

FusionGraph::FusionGraph(BuildContext& ctx)
    : mCtx(ctx)
{
    refresh();
}

void FusionGraph::refresh()
{
    Plan const& plan = mCtx.plan;
    size_t const nbTensors = plan.tensors.size();
    mUses.assign(nbTensors, 0);
    mProducer.assign(nbTensors, -1);
    mConsumers.assign(nbTensors, {});
    for (size_t n = 0; n < plan.nodes.size(); ++n)
    {
        PlanNode const& node = plan.nodes[n];
        for (int32_t in : node.inputs)
        {
            if (in < 0 || static_cast<size_t>(in) >= nbTensors)
            {
                continue;
            }
            ++mUses[static_cast<size_t>(in)];
            auto& c = mConsumers[static_cast<size_t>(in)];
            if (c.empty() || c.back() != static_cast<int32_t>(n))
            {
                c.push_back(static_cast<int32_t>(n));
            }
        }
        for (int32_t out : node.outputs)
        {
            if (out >= 0 && static_cast<size_t>(out) < nbTensors)
            {
                mProducer[static_cast<size_t>(out)] = static_cast<int32_t>(n);
            }
        }
    }
    // Node inputs listing a tensor twice are adjacent only by chance: deduplicate the consumer lists.
    for (auto& c : mConsumers)
    {
        std::sort(c.begin(), c.end());
        c.erase(std::unique(c.begin(), c.end()), c.end());
    }
    mDebug.assign(nbTensors, false);
    for (auto const& [tensor, index] : mCtx.tensorIndex)
    {
        if (index >= 0 && static_cast<size_t>(index) < nbTensors && mCtx.network.isDebug(tensor))
        {
            mDebug[static_cast<size_t>(index)] = true;
        }
    }
}

bool FusionGraph::isInternal(int32_t t, size_t readers) const
{
    if (t < 0 || static_cast<size_t>(t) >= mCtx.plan.tensors.size())
    {
        return false;
    }
    PlanTensor const& pt = mCtx.plan.tensors[static_cast<size_t>(t)];
    return mConsumers[static_cast<size_t>(t)].size() == readers && mProducer[static_cast<size_t>(t)] >= 0
        && pt.ioMode == nvinfer1::TensorIOMode::kNONE && !pt.hasValues && pt.constant < 0
        && pt.sizeTensorSymbol < 0 && pt.format == nvinfer1::TensorFormat::kLINEAR && !mDebug[static_cast<size_t>(t)];
}

bool FusionGraph::isFusibleNode(PlanNode const& node) const
{
    if (node.kind == nvinfer1::LayerType::kPLUGIN || node.kind == nvinfer1::LayerType::kPLUGIN_V2
        || node.kind == nvinfer1::LayerType::kPLUGIN_V3 || node.outputs.size() != 1)
    {
        return false;
    }
    for (auto const& [key, value] : node.attrs.values())
    {
        if (key.rfind("cf.", 0) == 0 || key.rfind("fuse.", 0) == 0 || key.rfind("pw.", 0) == 0)
        {
            return false; // in a loop or conditional, or already fused
        }
    }
    return true;
}

int32_t FusionGraph::soleReader(int32_t t, nvinfer1::LayerType kind, PlanNode const& head) const
{
    if (!isInternal(t))
    {
        return -1;
    }
    int32_t const c = mConsumers[static_cast<size_t>(t)].front();
    PlanNode const& node = mCtx.plan.nodes[static_cast<size_t>(c)];
    return node.kind == kind && isFusibleNode(node) && node.precision == head.precision ? c : -1;
}

bool FusionGraph::sameDims(int32_t t, int32_t u) const
{
    Plan const& plan = mCtx.plan;
    auto const& a = plan.tensors[static_cast<size_t>(t)].dims;
    auto const& b = plan.tensors[static_cast<size_t>(u)].dims;
    if (a.size() != b.size())
    {
        return false;
    }
    for (size_t i = 0; i < a.size(); ++i)
    {
        bool const equalConstants = plan.shapes.isConstant(a[i]) && plan.shapes.isConstant(b[i])
            && plan.shapes.constantValue(a[i]) == plan.shapes.constantValue(b[i]);
        if (a[i] != b[i] && !equalConstants)
        {
            return false;
        }
    }
    return true;
}

namespace
{

//! The symbols (indices) that the extents `dims` depend on, sorted.
std::vector<int64_t> symbolsOf(ShapeGraph const& shapes, std::vector<ExprId> const& dims)
{
    std::vector<int64_t> symbols;
    std::vector<ExprId> stack(dims.begin(), dims.end());
    std::vector<bool> seen(shapes.nodes().size(), false);
    while (!stack.empty())
    {
        ExprId const id = stack.back();
        stack.pop_back();
        if (!shapes.isValid(id) || seen[static_cast<size_t>(id)])
        {
            continue;
        }
        seen[static_cast<size_t>(id)] = true;
        ExprNode const& n = shapes.node(id);
        if (n.op == ExprOp::kSYMBOL)
        {
            symbols.push_back(n.value);
            continue;
        }
        for (ExprId operand : {n.a, n.b, n.c})
        {
            stack.push_back(operand);
        }
    }
    std::sort(symbols.begin(), symbols.end());
    return symbols;
}

} // namespace

bool FusionGraph::sameDimsAtProfiles(int32_t t, int32_t u)
{
    if (sameDims(t, u))
    {
        return true;
    }
    Plan const& plan = mCtx.plan;
    PlanTensor const& a = plan.tensors[static_cast<size_t>(t)];
    PlanTensor const& b = plan.tensors[static_cast<size_t>(u)];
    // Extents of independent inputs (two dynamic inputs that may broadcast at run time) are never taken as equal:
    // both tensors' extents must depend on the same symbols.
    if (a.dims.size() != b.dims.size() || symbolsOf(plan.shapes, a.dims) != symbolsOf(plan.shapes, b.dims))
    {
        return false;
    }
    auto const& sets = mProbe.shapeSets();
    if (sets.empty())
    {
        return false;
    }
    for (auto const& values : sets)
    {
        nvinfer1::Dims const da = KernelProbe::extents(a, values);
        nvinfer1::Dims const db = KernelProbe::extents(b, values);
        if (da.nbDims != db.nbDims || da.nbDims != static_cast<int32_t>(a.dims.size()))
        {
            return false;
        }
        for (int32_t i = 0; i < da.nbDims; ++i)
        {
            if (da.d[i] != db.d[i] || da.d[i] < 0)
            {
                return false;
            }
        }
    }
    return true;
}

bool FusionGraph::broadcastsTo(int32_t t, int32_t out) const
{
    Plan const& plan = mCtx.plan;
    auto const& a = plan.tensors[static_cast<size_t>(t)].dims;
    auto const& b = plan.tensors[static_cast<size_t>(out)].dims;
    if (a.size() != b.size())
    {
        return false;
    }
    for (size_t i = 0; i < a.size(); ++i)
    {
        bool const unit = plan.shapes.isConstant(a[i]) && plan.shapes.constantValue(a[i]) == 1;
        bool const equalConstants = plan.shapes.isConstant(a[i]) && plan.shapes.isConstant(b[i])
            && plan.shapes.constantValue(a[i]) == plan.shapes.constantValue(b[i]);
        if (a[i] != b[i] && !unit && !equalConstants)
        {
            return false;
        }
    }
    return true;
}

bool FusionGraph::sameExtent(ExprId a, ExprId b) const
{
    ShapeGraph const& shapes = mCtx.plan.shapes;
    return a == b || (shapes.isConstant(a) && shapes.isConstant(b) && shapes.constantValue(a) == shapes.constantValue(b));
}

bool FusionGraph::isUnitVolume(int32_t t) const
{
    Plan const& plan = mCtx.plan;
    for (ExprId d : plan.tensors[static_cast<size_t>(t)].dims)
    {
        if (!plan.shapes.isConstant(d) || plan.shapes.constantValue(d) != 1)
        {
            return false;
        }
    }
    return true;
}

bool isFloatTensor(Plan const& plan, int32_t t)
{
    if (t < 0 || static_cast<size_t>(t) >= plan.tensors.size())
    {
        return false;
    }
    nvinfer1::DataType const type = plan.tensors[static_cast<size_t>(t)].type;
    return type == nvinfer1::DataType::kFLOAT || type == nvinfer1::DataType::kHALF
        || type == nvinfer1::DataType::kBF16;
}

void spliceNodes(Plan& plan, std::vector<int32_t> const& fused, PlanNode replacement)
{
    int32_t const last = fused.back();
    plan.nodes[static_cast<size_t>(last)] = std::move(replacement);
    std::vector<bool> erased(plan.nodes.size(), false);
    for (int32_t n : fused)
    {
        erased[static_cast<size_t>(n)] = n != last;
    }
    erasePlanNodes(plan, erased);
}

std::optional<float> constantScalar(FusionGraph const& g, Plan const& plan, int32_t t)
{
    using nvinfer1::DataType;
    PlanTensor const& pt = plan.tensors[static_cast<size_t>(t)];
    if (pt.constant < 0 || static_cast<size_t>(pt.constant) >= plan.weights.size() || !g.isUnitVolume(t))
    {
        return std::nullopt;
    }
    PlanWeights const& w = plan.weights[static_cast<size_t>(pt.constant)];
    if (w.count != 1 || w.data == nullptr || w.type != pt.type)
    {
        return std::nullopt;
    }
    switch (w.type)
    {
    case DataType::kFLOAT:
    {
        float v = 0.F;
        std::memcpy(&v, w.data, sizeof(v));
        return v;
    }
    case DataType::kHALF:
    case DataType::kBF16:
    {
        uint16_t bits = 0;
        std::memcpy(&bits, w.data, sizeof(bits));
        return w.type == DataType::kHALF ? halfToFloat(bits) : bf16ToFloat(bits);
    }
    default: return std::nullopt;
    }
}

int32_t fuseAtEveryNode(FusionGraph& g, bool (*fuseAt)(FusionGraph&, int32_t))
{
    int32_t count = 0;
    size_t n = 0;
    while (n < g.plan().nodes.size())
    {
        if (fuseAt(g, static_cast<int32_t>(n)))
        {
            ++count; // the head was removed from position n (the fused node sits later): look at n again
            continue;
        }
        ++n;
    }
    return count;
}

std::string joinedNames(Plan const& plan, std::vector<int32_t> const& nodes)
{
    std::string s;
    for (int32_t n : nodes)
    {
        s += (s.empty() ? "" : " + ") + plan.nodes[static_cast<size_t>(n)].name;
    }
    return s;
}

} // namespace fusion

Status fusionPass(BuildContext& ctx)
{
    char const* env = std::getenv("KILN_FUSE");
    bool const forcedOff = env != nullptr && std::strcmp(env, "0") == 0;
    bool const forcedOn = env != nullptr && std::strcmp(env, "1") == 0;
    uint32_t const fusions = forcedOn ? ~0U : (ctx.backend != nullptr ? ctx.backend->capabilities().fusions : 0U);
    if (forcedOff || fusions == 0)
    {
        return Status::ok();
    }
    if (!ctx.nodePlugins.empty())
    {
        return Status::ok(); // plugin nodes are still indexed by position (the plugin pass did not run): leave as is
    }
    fusion::FusionGraph g(ctx);
    size_t const before = ctx.plan.nodes.size();
    // Attention first: the epilogue and pointwise rewrites would take its mask addition and scaling. Only where the
    // backend has an attention kernel (KILN_FUSE=1 asks for every fusion).
    bool const attentionKernel = ctx.backend != nullptr && ctx.backend->implements(nvinfer1::LayerType::kATTENTION_OUTPUT);
    int32_t const attentions
        = (fusions & static_cast<uint32_t>(Fusion::kATTENTION)) != 0 && attentionKernel ? fusion::fuseAttention(g) : 0;
    // INT8 convolutions before epilogues, which would take their activations into FP32 convolutions. Weight
    // dequantizations left are folded into FP32 kernel weights wherever the pass runs.
    int32_t const int8Convolutions
        = (fusions & static_cast<uint32_t>(Fusion::kINT8_CONVOLUTION)) != 0 ? fusion::fuseInt8Convolutions(g) : 0;
    int32_t const weightFolds = fusion::foldWeightDequantizations(g);
    // GELUs before epilogues, so that a matrix multiply's epilogue takes the activation.
    int32_t const gelus = (fusions & static_cast<uint32_t>(Fusion::kGELU)) != 0 ? fusion::fuseGelu(g) : 0;
    int32_t const epilogues = (fusions & static_cast<uint32_t>(Fusion::kEPILOGUE)) != 0 ? fusion::fuseEpilogues(g) : 0;
    int32_t const norms
        = (fusions & static_cast<uint32_t>(Fusion::kRESIDUAL_NORM)) != 0 ? fusion::fuseResidualNorms(g) : 0;
    int32_t const chains
        = (fusions & static_cast<uint32_t>(Fusion::kPOINTWISE_PROGRAM)) != 0 ? fusion::fusePointwiseChains(g) : 0;
    if (attentions + int8Convolutions + weightFolds + gelus + epilogues + norms + chains > 0)
    {
        ctx.logger.verbose("fusion: " + std::to_string(attentions) + " attention(s), "
            + std::to_string(int8Convolutions) + " INT8 convolution(s), " + std::to_string(weightFolds)
            + " weight dequantization(s) folded, " + std::to_string(gelus)
            + " GELU(s), " + std::to_string(epilogues)
            + " epilogue fusion(s), " + std::to_string(norms) + " residual norm(s), " + std::to_string(chains)
            + " pointwise program(s); " + std::to_string(before) + " -> " + std::to_string(ctx.plan.nodes.size())
            + " layers");
    }
    return Status::ok();
}

} // namespace kiln
