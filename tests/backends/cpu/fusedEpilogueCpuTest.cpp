// The CPU fused epilogue (backends/cpu/kernels/fusedEpilogueCpu.h) alone and inside the convolution and
// deconvolution CPU kernels: nodes with "fuse.*" attributes built by hand are compared with the unfused kernel
// followed by the addition and activation computed here, in double; and every error path. With oneDNN, the oneDNN
// tactic runs what it can of the epilogue as post-ops (oneDnnEpilogue.h): the tests check which cases take that path
// (sum for a full-shape residual, binary add for broadcasts, eltwise activations) and that the rest falls back.
#include "backends/cpu/cpuKernel.h"
#include "backends/cpu/kernels/convolutionCommon.h"
#include "backends/cpu/kernels/fusedEpilogueCpu.h"
#include "backends/cpu/kernels/oneDnnEpilogue.h"
#include "common/networkRunner.h"
#include "core/dataType.h"
#include "common/kernelRun.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace kiln::test
{
namespace
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;
using nvinfer1::LayerType;

double activate(ActivationType t, double a, double b, double v)
{
    switch (t)
    {
    case ActivationType::kRELU: return v > 0 ? v : 0;
    case ActivationType::kSIGMOID: return 1.0 / (1.0 + std::exp(-v));
    case ActivationType::kTANH: return std::tanh(v);
    case ActivationType::kCLIP: return std::min(std::max(v, a), b);
    case ActivationType::kLEAKY_RELU: return v >= 0 ? v : a * v;
    case ActivationType::kGELU_ERF: return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    case ActivationType::kGELU_TANH:
        return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
    case ActivationType::kELU: return v >= 0 ? v : a * std::expm1(v);
    case ActivationType::kSOFTSIGN: return v / (1.0 + std::fabs(v));
    case ActivationType::kSELU: return v > 0 ? b * v : b * a * std::expm1(v);
    default: ADD_FAILURE() << "activation not modelled by the test"; return v;
    }
}

//! Host weights of a tensor (field by field: the struct's member order is not part of its contract).
WeightsView weightsOf(HostTensor const& h)
{
    WeightsView w;
    w.data = h.data();
    w.type = h.type;
    w.count = h.volume();
    return w;
}

//! Expected act(y + add) with `add` broadcast to y (same rank after left-padding), rounded to y's type.
HostTensor expectedEpilogue(HostTensor const& y, HostTensor const* add, bool act, ActivationType t, double a, double b)
{
    HostTensor e = y;
    int32_t const rank = y.dims.nbDims;
    int32_t const lead = add != nullptr ? rank - add->dims.nbDims : 0;
    for (int64_t i = 0; i < y.volume(); ++i)
    {
        double v = y.at(i);
        if (add != nullptr)
        {
            // Unravel i over y's dims and ravel over add's (broadcast dims -> 0).
            int64_t rem = i;
            int64_t off = 0;
            int64_t stride = 1;
            for (int32_t d = rank - 1; d >= 0; --d)
            {
                int64_t const c = rem % y.dims.d[d];
                rem /= y.dims.d[d];
                if (d >= lead)
                {
                    int64_t const ext = add->dims.d[d - lead];
                    off += (ext == 1 ? 0 : c) * stride;
                    stride *= ext;
                }
            }
            v += add->at(off);
        }
        if (act)
        {
            v = activate(t, a, b, v);
        }
        e.set(i, v);
    }
    return e;
}

//! Compare two tensors of the same type within a relative/absolute tolerance.
void expectNear(HostTensor const& actual, HostTensor const& expected, double tol)
{
    ASSERT_EQ(actual.volume(), expected.volume());
    for (int64_t i = 0; i < actual.volume(); ++i)
    {
        ASSERT_NEAR(actual.at(i), expected.at(i), tol * (1.0 + std::fabs(expected.at(i)))) << "element " << i;
    }
}

PlanNode convNode(bool deconv, int64_t k)
{
    PlanNode node;
    node.kind = deconv ? LayerType::kDECONVOLUTION : LayerType::kCONVOLUTION;
    node.name = deconv ? "deconv" : "conv";
    node.attrs.setInt("nbOutputMaps", k);
    node.attrs.setInt("nbGroups", 1);
    node.attrs.setInts("kernelSize", {3, 3});
    node.attrs.setInts("stride", deconv ? std::vector<int64_t>{2, 2} : std::vector<int64_t>{1, 1});
    node.attrs.setInts("dilation", {1, 1});
    node.attrs.setInts("prePadding", {1, 1});
    node.attrs.setInts("postPadding", {1, 0});
    node.attrs.setInt("paddingMode", 0);
    node.inputs = {0};
    node.outputs = {1};
    return node;
}

StatusOr<std::unique_ptr<Kernel>> makeKernel(PlanNode const& node, std::vector<HostTensor> const& inputs,
    DataType outType, std::vector<WeightsView> const& weights)
{
    KernelSetup setup;
    setup.node = &node;
    for (HostTensor const& h : inputs)
    {
        setup.inputTypes.push_back(h.type);
        setup.inputPresent.push_back(true);
        setup.inputRanks.push_back(h.dims.nbDims);
    }
    setup.outputTypes = {outType};
    setup.outputRanks = {4};
    setup.weights = weights;
    return cpuKernelFactory(node.kind)(setup);
}

//! Runs `node` on `inputs` into a poisoned output of `outDims`.
HostTensor run(PlanNode const& node, std::vector<HostTensor> inputs, DataType outType, nvinfer1::Dims outDims,
    std::vector<WeightsView> const& weights)
{
    HostTensor out(outType, outDims);
    std::memset(out.data(), 0x7F, out.bytes.size());
    auto kernel = makeKernel(node, inputs, outType, weights);
    EXPECT_TRUE(kernel.isOk()) << kernel.status().message();
    if (!kernel.isOk())
    {
        return out;
    }
    std::vector<TensorView> ins;
    for (HostTensor& h : inputs)
    {
        ins.push_back(viewOf(h));
    }
    Status const st = kiln::test::reshapeAndRun(*(*kernel), ins, {viewOf(out)});
    EXPECT_TRUE(st.isOk()) << st.message();
    return out;
}

struct FusedCase
{
    bool deconv{false};
    DataType type{DataType::kFLOAT};
    bool add{true};
    std::vector<int64_t> addDims; //!< empty: the output's
    bool act{true};
    ActivationType activation{ActivationType::kRELU};
    float alpha{0.F};
    float beta{0.F};
    bool kernelInput{false};
};

//! Runs the case unfused and fused and compares; returns how many oneDNN executions of the fused run carried
//! post-ops.
uint64_t checkFused(FusedCase const& c, uint32_t seed)
{
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    int64_t const cin = 3;
    int64_t const k = 4;
    PlanNode plain = convNode(c.deconv, k);
    HostTensor const x = HostTensor::random(c.type, makeDims({2, cin, 6, 7}), rng, -1.0, 1.0);
    std::vector<int64_t> const kShape = c.deconv ? std::vector<int64_t>{cin, k, 3, 3} : std::vector<int64_t>{k, cin, 3, 3};
    HostTensor const w = HostTensor::random(c.type, makeDims(kShape), rng, -0.5, 0.5);
    HostTensor const b = HostTensor::random(c.type, makeDims({k}), rng, -0.5, 0.5);
    // conv: out = in + 1 + 0 - 3 + 1 = in - 1 (H) ... computed by the padding formulas below.
    nvinfer1::Dims const outDims = c.deconv ? makeDims({2, k, (6 - 1) * 2 + 3 - 2, (7 - 1) * 2 + 3 - 1})
                                            : makeDims({2, k, 6 + 2 - 3 + 1, 7 + 1 - 3 + 1});
    std::vector<HostTensor> ins{x};
    std::vector<WeightsView> weights(2);
    if (c.kernelInput)
    {
        ins.push_back(w);
        ins.push_back(b);
        plain.inputs = {0, 1, 2};
        plain.outputs = {3};
    }
    else
    {
        weights[0] = weightsOf(w);
        weights[1] = weightsOf(b);
    }
    HostTensor const unfused = run(plain, ins, c.type, outDims, weights);
    PlanNode fused = plain;
    std::vector<HostTensor> fusedIns = ins;
    HostTensor add;
    if (c.add)
    {
        std::vector<int64_t> ad = c.addDims;
        if (ad.empty())
        {
            ad.assign(outDims.d, outDims.d + outDims.nbDims);
        }
        add = HostTensor::random(c.type, makeDims(ad), rng, -1.0, 1.0);
        fused.attrs.setInt("fuse.add", 1);
        fused.inputs.push_back(static_cast<int32_t>(fused.inputs.size()));
        fusedIns.push_back(add);
    }
    if (c.act)
    {
        fused.attrs.setInt("fuse.act", static_cast<int64_t>(c.activation) + 1);
        fused.attrs.setFloat("fuse.alpha", c.alpha);
        fused.attrs.setFloat("fuse.beta", c.beta);
    }
    uint64_t const before = oneDnnPostOpRunCount();
    HostTensor const actual = run(fused, fusedIns, c.type, outDims, weights);
    uint64_t const postOpRuns = oneDnnPostOpRunCount() - before;
    HostTensor const expected = expectedEpilogue(unfused, c.add ? &add : nullptr, c.act, c.activation, c.alpha, c.beta);
    double const tol = c.type == DataType::kFLOAT ? 1e-5 : (c.type == DataType::kHALF ? 2e-3 : 1.6e-2);
    expectNear(actual, expected, tol);
    return postOpRuns;
}

TEST(FusedEpilogueCpu, ConvolutionResidualRelu)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        FusedCase c;
        c.type = t;
        checkFused(c, 1);
    }
}

TEST(FusedEpilogueCpu, ConvolutionBroadcastAddGelu)
{
    FusedCase c;
    c.addDims = {1, 4, 1, 1};
    c.activation = ActivationType::kGELU_ERF;
    checkFused(c, 2);
    c.addDims = {4, 1, 1}; // lower rank, left-padded with 1s
    c.activation = ActivationType::kGELU_TANH;
    checkFused(c, 3);
}

TEST(FusedEpilogueCpu, ActivationOnlyAndAddOnly)
{
    FusedCase c;
    c.add = false;
    c.activation = ActivationType::kCLIP;
    c.alpha = -0.2F;
    c.beta = 0.3F;
    checkFused(c, 4);
    c.activation = ActivationType::kSIGMOID;
    checkFused(c, 5);
    FusedCase a;
    a.act = false;
    checkFused(a, 6);
}

TEST(FusedEpilogueCpu, DeconvolutionAndKernelInputs)
{
    FusedCase d;
    d.deconv = true;
    d.activation = ActivationType::kLEAKY_RELU;
    d.alpha = 0.1F;
    checkFused(d, 7);
    d.kernelInput = true;
    checkFused(d, 8);
    FusedCase c;
    c.kernelInput = true;
    c.addDims = {2, 4, 1, 1};
    checkFused(c, 9);
}

//! The oneDNN tactic runs FP32 epilogues as post-ops: a full-shape residual (sum post-op), per-channel and
//! lower-rank broadcasts (binary add), the activations oneDNN has (eltwise), on convolutions and deconvolutions.
TEST(FusedEpilogueCpu, OneDnnPostOpsRunTheEpilogue)
{
    if (!oneDnnBuilt())
    {
        GTEST_SKIP() << "built without oneDNN";
    }
    struct Act
    {
        ActivationType type;
        float alpha;
        float beta;
    };
    Act const acts[] = {{ActivationType::kRELU, 0.F, 0.F}, {ActivationType::kLEAKY_RELU, 0.2F, 0.F},
        {ActivationType::kSIGMOID, 0.F, 0.F}, {ActivationType::kTANH, 0.F, 0.F}, {ActivationType::kELU, 0.7F, 0.F},
        {ActivationType::kCLIP, -0.3F, 0.4F}, {ActivationType::kGELU_ERF, 0.F, 0.F},
        {ActivationType::kGELU_TANH, 0.F, 0.F}};
    std::vector<std::vector<int64_t>> const adds{{}, {1, 4, 1, 1}, {4, 1, 1}};
    uint32_t seed = 40;
    for (bool const deconv : {false, true})
    {
        for (auto const& addDims : adds)
        {
            for (Act const& a : acts)
            {
                SCOPED_TRACE(std::string(deconv ? "deconvolution" : "convolution") + ", add rank "
                    + std::to_string(addDims.size()) + ", activation " + std::to_string(static_cast<int>(a.type)));
                FusedCase c;
                c.deconv = deconv;
                c.addDims = addDims;
                c.activation = a.type;
                c.alpha = a.alpha;
                c.beta = a.beta;
                EXPECT_EQ(checkFused(c, ++seed), 1U) << "the epilogue did not run as oneDNN post-ops";
            }
        }
    }
    FusedCase noAdd;
    noAdd.add = false;
    noAdd.activation = ActivationType::kGELU_ERF;
    EXPECT_EQ(checkFused(noAdd, 60), 1U);
    FusedCase noAct;
    noAct.act = false;
    EXPECT_EQ(checkFused(noAct, 61), 1U);
}

//! What oneDNN does not express falls back to the CPU epilogue, in part or whole: an activation without an exact
//! eltwise (the addition still runs as a post-op), broadcasts oneDNN's post-ops may reject, and the reference tactic.
TEST(FusedEpilogueCpu, OneDnnPostOpsFallBack)
{
    FusedCase softsign;
    softsign.activation = ActivationType::kSOFTSIGN;
    uint64_t const addOnly = checkFused(softsign, 70);
    EXPECT_EQ(addOnly, oneDnnBuilt() ? 1U : 0U) << "the residual should still be a post-op";
    FusedCase selu;
    selu.add = false;
    selu.activation = ActivationType::kSELU;
    selu.alpha = 1.67F;
    selu.beta = 1.05F;
    EXPECT_EQ(checkFused(selu, 71), 0U) << "nothing to fuse: the activation has no exact eltwise";
    // Broadcasts along the batch, a spatial row or a single element: post-ops or the CPU epilogue, same values.
    for (std::vector<int64_t> const& dims : std::vector<std::vector<int64_t>>{{2, 1, 1, 1}, {1, 1, 1, 6}, {1}, {2, 4, 1, 1}})
    {
        FusedCase b;
        b.addDims = dims;
        b.activation = ActivationType::kTANH;
        checkFused(b, 73);
    }
    FusedCase half; // FP16: oneDNN's post-ops where this CPU has FP16 convolutions, else the reference kernel
    half.type = DataType::kHALF;
    half.addDims = {1, 4, 1, 1};
    checkFused(half, 74);
}

TEST(FusedEpilogueCpu, ApplyDirectly)
{
    std::mt19937 rng(10);
    HostTensor out = HostTensor::random(DataType::kFLOAT, makeDims({2, 3, 4}), rng, -2.0, 2.0);
    HostTensor add = HostTensor::random(DataType::kHALF, makeDims({3, 1}), rng, -2.0, 2.0);
    HostTensor const before = out;
    FusedEpilogue e;
    e.hasAdd = true;
    e.addInput = 1;
    e.hasActivation = true;
    e.activation = ActivationType::kTANH;
    TensorView const addView = viewOf(add);
    ASSERT_TRUE(applyFusedEpilogueCpu(e, viewOf(out), &addView).isOk());
    expectNear(out, expectedEpilogue(before, &add, true, ActivationType::kTANH, 0, 0), 1e-6);
    // An empty epilogue leaves the output alone; an empty output is fine.
    HostTensor untouched = before;
    ASSERT_TRUE(applyFusedEpilogueCpu(FusedEpilogue{}, viewOf(untouched), nullptr).isOk());
    EXPECT_EQ(untouched.bytes, before.bytes);
    HostTensor empty(DataType::kFLOAT, makeDims({0, 3}));
    HostTensor emptyAdd(DataType::kFLOAT, makeDims({1, 3}));
    TensorView const emptyAddView = viewOf(emptyAdd);
    EXPECT_TRUE(applyFusedEpilogueCpu(e, viewOf(empty), &emptyAddView).isOk());
}

TEST(FusedEpilogueCpu, ApplyErrors)
{
    std::mt19937 rng(11);
    HostTensor out = HostTensor::random(DataType::kFLOAT, makeDims({2, 3, 4}), rng);
    FusedEpilogue e;
    e.hasAdd = true;
    e.addInput = 1;
    auto expectError = [&](TensorView const& o, TensorView const* a, char const* text) {
        Status const st = applyFusedEpilogueCpu(e, o, a);
        ASSERT_FALSE(st.isOk()) << text;
        EXPECT_NE(st.message().find(text), std::string::npos) << st.message();
    };
    expectError(viewOf(out), nullptr, "missing");
    HostTensor bad = HostTensor::random(DataType::kFLOAT, makeDims({2, 2, 4}), rng);
    TensorView const badView = viewOf(bad);
    expectError(viewOf(out), &badView, "does not broadcast");
    HostTensor high = HostTensor::random(DataType::kFLOAT, makeDims({1, 2, 3, 4}), rng);
    TensorView const highView = viewOf(high);
    expectError(viewOf(out), &highView, "higher rank");
    HostTensor i8 = HostTensor::random(DataType::kINT8, makeDims({3, 4}), rng);
    TensorView const i8View = viewOf(i8);
    expectError(viewOf(out), &i8View, "type INT8");
    HostTensor i32 = HostTensor::random(DataType::kINT32, makeDims({2, 3, 4}), rng);
    HostTensor fine = HostTensor::random(DataType::kFLOAT, makeDims({3, 4}), rng);
    TensorView const fineView = viewOf(fine);
    expectError(viewOf(i32), &fineView, "output type");
    EXPECT_FALSE(fusedEpilogueCpuSupports(DataType::kINT32, DataType::kFLOAT));
    EXPECT_TRUE(fusedEpilogueCpuSupports(DataType::kBF16, DataType::kHALF));
}

TEST(FusedEpilogueCpu, KernelErrors)
{
    std::mt19937 rng(12);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({1, 3, 6, 7}), rng);
    HostTensor const w = HostTensor::random(DataType::kFLOAT, makeDims({4, 3, 3, 3}), rng);
    std::vector<WeightsView> const weights{weightsOf(w), WeightsView{}};
    // Unknown activation.
    PlanNode node = convNode(false, 4);
    node.attrs.setInt("fuse.act", 1000);
    auto k = makeKernel(node, {x}, DataType::kFLOAT, weights);
    ASSERT_FALSE(k.isOk());
    EXPECT_NE(k.status().message().find("fuse.act"), std::string::npos) << k.status().message();
    // fuse.add without any input but the data.
    node = convNode(false, 4);
    node.attrs.setInt("fuse.add", 1);
    k = makeKernel(node, {x}, DataType::kFLOAT, weights);
    ASSERT_FALSE(k.isOk());
    EXPECT_NE(k.status().message().find("fuse.add"), std::string::npos) << k.status().message();
    // An INT32 added tensor is refused at creation.
    node.inputs = {0, 1};
    HostTensor const addI32 = HostTensor::random(DataType::kINT32, makeDims({1, 4, 6, 5}), rng);
    k = makeKernel(node, {x, addI32}, DataType::kFLOAT, weights);
    ASSERT_FALSE(k.isOk());
    EXPECT_NE(k.status().message().find("conv"), std::string::npos) << k.status().message();
    // A run whose added tensor does not broadcast fails and names the layer.
    HostTensor const addBad = HostTensor::random(DataType::kFLOAT, makeDims({1, 3, 6, 6}), rng);
    k = makeKernel(node, {x, addBad}, DataType::kFLOAT, weights);
    ASSERT_TRUE(k.isOk()) << k.status().message();
    HostTensor xIn = x;
    HostTensor addIn = addBad;
    HostTensor out(DataType::kFLOAT, makeDims({1, 4, 6, 6}));
    Status const st = kiln::test::reshapeAndRun(*(*k), {viewOf(xIn), viewOf(addIn)}, {viewOf(out)});
    ASSERT_FALSE(st.isOk());
    EXPECT_NE(st.message().find("conv"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("broadcast"), std::string::npos) << st.message();
    // A run without the added input.
    Status const missing = kiln::test::reshapeAndRun(*(*k), {viewOf(xIn)}, {viewOf(out)});
    ASSERT_FALSE(missing.isOk());
    EXPECT_NE(missing.message().find("fused addition"), std::string::npos) << missing.message();
}

} // namespace
} // namespace kiln::test
