// Residual convolutions written in place (builder/passes/inPlaceAddPass.cpp, kADD_IN_PLACE) and convolutions whose
// trailing input no window reads (convolutionDescs.cpp), on the CPU backend:
// - networks of residual blocks, built with the oneDNN and the reference tactic, against a convolution computed here
//   in double; the residual that dies at its convolution shares the output's arena slot, one that is read again, a
//   network input and a residual that is also the data input do not;
// - the convolution kernel alone with its output buffer holding the residual (oneDNN's sum post-op adds into it; the
//   reference path and FP16 read a copy), against the same node run out of place into a poisoned output;
// - random strided shapes whose last input rows and columns are never read, oneDNN against the reference;
// - BF16 residual blocks (kBF16, KILN_PRECISION=1) kept in the region format where oneDNN's native BF16 convolution
//   picks it (cpuRegionHoldsBf16), against the computation in double.
#include "backends/cpu/cpuKernel.h"
#include "backends/cpu/kernels/convolutionCommon.h"
#include "backends/cpu/kernels/oneDnnFormats.h"
#include "common/builtPlan.h"
#include "common/kernelRun.h"
#include "common/networkRunner.h"
#include "common/scopedEnv.h"
#include "engine/planValidation.h"
#include "engine/tensorLifetimes.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

namespace kiln::test
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::ITensor;

//! A 2-D convolution's weights and geometry, and the convolution in double (groups 1, NCHW).
struct Conv
{
    int64_t c{0};
    int64_t k{0};
    int64_t r{1};
    int64_t stride{1};
    int64_t pad{0};
    std::vector<float> w;
    std::vector<float> b;

    Conv(int64_t cIn, int64_t kOut, int64_t size, int64_t s, int64_t p, std::mt19937& rng)
        : c(cIn), k(kOut), r(size), stride(s), pad(p)
    {
        std::uniform_real_distribution<float> d(-0.5F, 0.5F);
        w.resize(static_cast<size_t>(k * c * r * r));
        b.resize(static_cast<size_t>(k));
        for (float& v : w)
        {
            v = d(rng);
        }
        for (float& v : b)
        {
            v = d(rng);
        }
    }
    int64_t outSize(int64_t in) const { return (in + 2 * pad - r) / stride + 1; }

    //! [n, k, oh, ow] from x [n, c, h, w] (flat), in double.
    std::vector<double> apply(std::vector<double> const& x, int64_t n, int64_t h, int64_t wd) const
    {
        int64_t const oh = outSize(h);
        int64_t const ow = outSize(wd);
        std::vector<double> y(static_cast<size_t>(n * k * oh * ow));
        for (int64_t i = 0; i < n; ++i)
            for (int64_t o = 0; o < k; ++o)
                for (int64_t py = 0; py < oh; ++py)
                    for (int64_t px = 0; px < ow; ++px)
                    {
                        double s = b[static_cast<size_t>(o)];
                        for (int64_t ci = 0; ci < c; ++ci)
                            for (int64_t ky = 0; ky < r; ++ky)
                                for (int64_t kx = 0; kx < r; ++kx)
                                {
                                    int64_t const iy = py * stride - pad + ky;
                                    int64_t const ix = px * stride - pad + kx;
                                    if (iy >= 0 && iy < h && ix >= 0 && ix < wd)
                                    {
                                        s += w[static_cast<size_t>(((o * c + ci) * r + ky) * r + kx)]
                                            * x[static_cast<size_t>(((i * c + ci) * h + iy) * wd + ix)];
                                    }
                                }
                        y[static_cast<size_t>(((i * k + o) * oh + py) * ow + px)] = s;
                    }
        return y;
    }

    ITensor* add(NetworkRunner& r0, ITensor& in, char const* name) const
    {
        auto* l = r0.network().addConvolutionNd(in, k, nvinfer1::Dims2{r, r},
            nvinfer1::Weights{DataType::kFLOAT, w.data(), static_cast<int64_t>(w.size())},
            nvinfer1::Weights{DataType::kFLOAT, b.data(), static_cast<int64_t>(b.size())});
        l->setStrideNd(nvinfer1::Dims2{stride, stride});
        l->setPaddingNd(nvinfer1::Dims2{pad, pad});
        l->setName(name);
        return l->getOutput(0);
    }
};

//! The tensor's values as doubles.
std::vector<double> valuesOf(HostTensor const& t)
{
    std::vector<double> v(static_cast<size_t>(t.volume()));
    for (int64_t i = 0; i < t.volume(); ++i)
    {
        v[static_cast<size_t>(i)] = t.at(i);
    }
    return v;
}

std::vector<double> relu(std::vector<double> v)
{
    for (double& x : v)
    {
        x = x > 0 ? x : 0;
    }
    return v;
}

std::vector<double> sum(std::vector<double> a, std::vector<double> const& b)
{
    for (size_t i = 0; i < a.size(); ++i)
    {
        a[i] += b[i];
    }
    return a;
}

ITensor* addRelu(NetworkRunner& r, ITensor* a, ITensor* b, std::string const& name)
{
    auto* add = r.network().addElementWise(*a, *b, nvinfer1::ElementWiseOperation::kSUM);
    add->setName((name + "Add").c_str());
    auto* act = r.network().addActivation(*add->getOutput(0), nvinfer1::ActivationType::kRELU);
    act->setName((name + "Relu").c_str());
    return act->getOutput(0);
}

//! The fused node whose names start with `conv`, or nullptr.
PlanNode const* fusedConv(Plan const& plan, std::string const& conv)
{
    for (PlanNode const& n : plan.nodes)
    {
        if (n.kind == nvinfer1::LayerType::kCONVOLUTION && n.attrs.getString("fuse.names").rfind(conv, 0) == 0)
        {
            return &n;
        }
    }
    return nullptr;
}

//! Residual blocks: a = relu(convA(x)), y = relu(convB(x)), z = relu(convC(y) + a) (a dies there: in place),
//! u = relu(convD(z) + z) (the residual is the data input too), v = convE(z) + a2 with a2 = relu(convA2(x)) read again
//! by the output w = a2 + v, and p = convP(x) + x (a network input).
void checkResidualNetwork(bool reference, uint32_t seed)
{
    SCOPED_TRACE(std::string(reference ? "reference" : "onednn") + " tactic, seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    int64_t const c = 4;
    int64_t const k = 6;
    Conv const ca(c, k, 3, 1, 1, rng);
    Conv const cb(c, 5, 1, 1, 0, rng);
    Conv const cc(5, k, 3, 1, 1, rng);
    Conv const cd(k, k, 1, 1, 0, rng);
    Conv const ce(k, k, 3, 1, 1, rng);
    Conv const ca2(c, k, 1, 1, 0, rng);
    Conv const cp(c, c, 3, 1, 1, rng);
    ScopedTactic const tactic(reference);
    NetworkRunner r(kiln::BackendKind::kCPU, 0);
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, c, 7, 9});
    r.setProfileDims("x", {1, c, 7, 9}, {2, c, 7, 9}, {3, c, 7, 9});
    auto reluOf = [&](ITensor* t, char const* name) {
        auto* l = r.network().addActivation(*t, nvinfer1::ActivationType::kRELU);
        l->setName(name);
        return l->getOutput(0);
    };
    ITensor* a = reluOf(ca.add(r, *x, "convA"), "reluA");
    ITensor* y = reluOf(cb.add(r, *x, "convB"), "reluB");
    ITensor* z = addRelu(r, cc.add(r, *y, "convC"), a, "blockC");
    ITensor* u = addRelu(r, cd.add(r, *z, "convD"), z, "blockD");
    ITensor* a2 = reluOf(ca2.add(r, *x, "convA2"), "reluA2");
    auto* v = r.network().addElementWise(*ce.add(r, *z, "convE"), *a2, nvinfer1::ElementWiseOperation::kSUM);
    v->setName("blockEAdd");
    auto* w = r.network().addElementWise(*a2, *v->getOutput(0), nvinfer1::ElementWiseOperation::kSUM);
    w->setName("again");
    auto* p = r.network().addElementWise(*cp.add(r, *x, "convP"), *x, nvinfer1::ElementWiseOperation::kSUM);
    p->setName("blockPAdd");
    r.markOutput(u, "u");
    r.markOutput(w->getOutput(0), "w");
    r.markOutput(p->getOutput(0), "p");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();

    auto plan = builtPlan(r);
    ASSERT_TRUE(plan.has_value());
    PlanNode const* blockC = fusedConv(*plan, "convC");
    ASSERT_NE(blockC, nullptr);
    EXPECT_EQ(blockC->attrs.getInt(kADD_IN_PLACE, 0), 1);
    PlanProfile const& prof = plan->profiles[0];
    EXPECT_GE(prof.tensorOffsets[static_cast<size_t>(blockC->outputs[0])], 0);
    EXPECT_EQ(prof.tensorOffsets[static_cast<size_t>(blockC->outputs[0])],
        prof.tensorOffsets[static_cast<size_t>(blockC->inputs.back())]);
    for (char const* other : {"convD", "convE", "convP"})
    {
        PlanNode const* n = fusedConv(*plan, other);
        ASSERT_NE(n, nullptr) << other << " was not fused with its addition";
        EXPECT_EQ(n->attrs.getInt(kADD_IN_PLACE, 0), 0) << other;
    }
    // The engine reader accepts the mark only on a convolution with a fused addition.
    EXPECT_TRUE(validatePlan(*plan).isOk());
    Plan corrupt = *plan;
    for (PlanNode& n : corrupt.nodes)
    {
        if (n.attrs.getInt("fuse.add", 0) == 0)
        {
            n.attrs.setInt(kADD_IN_PLACE, 1);
            break;
        }
    }
    Status const rejected = validatePlan(corrupt);
    EXPECT_FALSE(rejected.isOk());
    EXPECT_NE(rejected.message().find(kADD_IN_PLACE), std::string::npos) << rejected.message();

    for (int64_t n : {2, 3, 1})
    {
        HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({n, c, 7, 9}), rng);
        std::vector<double> const xs = valuesOf(in);
        std::vector<double> const av = relu(ca.apply(xs, n, 7, 9));
        std::vector<double> const zv = relu(sum(cc.apply(relu(cb.apply(xs, n, 7, 9)), n, 7, 9), av));
        std::vector<double> const uv = relu(sum(cd.apply(zv, n, 7, 9), zv));
        std::vector<double> const a2v = relu(ca2.apply(xs, n, 7, 9));
        std::vector<double> const wv = sum(sum(ce.apply(zv, n, 7, 9), a2v), a2v);
        std::vector<double> const pv = sum(cp.apply(xs, n, 7, 9), xs);
        auto out = r.run({{"x", in}});
        for (auto const& [name, want] : {std::pair<char const*, std::vector<double> const*>{"u", &uv}, {"w", &wv},
                 {"p", &pv}})
        {
            HostTensor const& got = out[name];
            ASSERT_EQ(got.volume(), static_cast<int64_t>(want->size())) << name;
            for (int64_t i = 0; i < got.volume(); ++i)
            {
                double const e = (*want)[static_cast<size_t>(i)];
                ASSERT_NEAR(got.at(i), e, 1e-4 * (1.0 + std::fabs(e))) << name << " element " << i << ", batch " << n;
            }
        }
    }
}

TEST(ConvolutionInPlaceAdd, ResidualThatDiesAtItsConvolutionSharesTheOutputSlot)
{
    checkResidualNetwork(false, 11);
    checkResidualNetwork(true, 12);
}

//! One convolution node with a fused full-shape residual (and ReLU), stride/kernel from the arguments.
PlanNode residualNode(int64_t k, int64_t size, int64_t stride, int64_t pad, bool inPlace, bool reference)
{
    PlanNode node;
    node.kind = nvinfer1::LayerType::kCONVOLUTION;
    node.name = "conv";
    node.tactic = reference ? kTACTIC_REFERENCE : kTACTIC_ONEDNN;
    node.attrs.setInt("nbOutputMaps", k);
    node.attrs.setInt("nbGroups", 1);
    node.attrs.setInts("kernelSize", {size, size});
    node.attrs.setInts("stride", {stride, stride});
    node.attrs.setInts("dilation", {1, 1});
    node.attrs.setInts("prePadding", {pad, pad});
    node.attrs.setInts("postPadding", {pad, pad});
    node.attrs.setInt("paddingMode", 0);
    node.attrs.setInt("fuse.add", 1);
    node.attrs.setInt("fuse.act", static_cast<int64_t>(nvinfer1::ActivationType::kRELU) + 1);
    if (inPlace)
    {
        node.attrs.setInt(kADD_IN_PLACE, 1);
    }
    node.inputs = {0, 1};
    node.outputs = {2};
    return node;
}

//! Runs `node` on x and the residual; with `inPlace` the output is the residual's buffer, else a poisoned one.
HostTensor runResidual(PlanNode const& node, HostTensor x, HostTensor residual, Conv const& conv, bool inPlace)
{
    KernelSetup setup;
    setup.node = &node;
    setup.inputTypes = {x.type, residual.type};
    setup.inputPresent = {true, true};
    setup.inputRanks = {4, 4};
    setup.outputTypes = {x.type};
    setup.outputRanks = {4};
    HostTensor wt(DataType::kFLOAT, makeDims({conv.k, conv.c, conv.r, conv.r}));
    std::memcpy(wt.data(), conv.w.data(), conv.w.size() * sizeof(float));
    HostTensor bt(DataType::kFLOAT, makeDims({conv.k}));
    std::memcpy(bt.data(), conv.b.data(), conv.b.size() * sizeof(float));
    setup.weights.resize(2);
    for (size_t i = 0; i < 2; ++i)
    {
        HostTensor const& t = i == 0 ? wt : bt;
        setup.weights[i].data = t.data();
        setup.weights[i].type = DataType::kFLOAT;
        setup.weights[i].count = t.volume();
    }
    HostTensor out(residual.type, residual.dims);
    std::memset(out.data(), 0x7F, out.bytes.size());
    auto kernel = cpuKernelFactory(node.kind)(setup);
    EXPECT_TRUE(kernel.isOk()) << kernel.status().message();
    if (!kernel.isOk())
    {
        return out;
    }
    HostTensor& dst = inPlace ? residual : out;
    Status const st = reshapeAndRun(**kernel, {viewOf(x), viewOf(residual)}, {viewOf(dst)});
    EXPECT_TRUE(st.isOk()) << st.message();
    return dst;
}

TEST(ConvolutionInPlaceAdd, KernelAddsIntoTheResidualItsOutputOverwrites)
{
    std::mt19937 rng(21);
    std::uniform_int_distribution<int64_t> extent(3, 12);
    int32_t cases = 0;
    for (bool const reference : {false, true})
    {
        for (DataType const type : {DataType::kFLOAT, DataType::kHALF})
        {
            for (int32_t round = 0; round < 3; ++round)
            {
                int64_t const c = extent(rng);
                int64_t const k = extent(rng);
                int64_t const size = round == 0 ? 1 : 3;
                int64_t const stride = 1 + round % 2;
                Conv const conv(c, k, size, stride, size / 2, rng);
                int64_t const n = 1 + round;
                int64_t const h = extent(rng);
                int64_t const w = extent(rng);
                SCOPED_TRACE("case " + std::to_string(++cases) + ": " + std::to_string(c) + "->" + std::to_string(k)
                    + ", " + std::to_string(h) + "x" + std::to_string(w) + ", kernel " + std::to_string(size)
                    + ", stride " + std::to_string(stride) + (reference ? ", reference" : ", onednn")
                    + (type == DataType::kHALF ? ", FP16" : ", FP32"));
                HostTensor const x = HostTensor::random(type, makeDims({n, c, h, w}), rng);
                HostTensor const residual
                    = HostTensor::random(type, makeDims({n, k, conv.outSize(h), conv.outSize(w)}), rng);
                HostTensor const outOfPlace
                    = runResidual(residualNode(k, size, stride, size / 2, false, reference), x, residual, conv, false);
                HostTensor const inPlace
                    = runResidual(residualNode(k, size, stride, size / 2, true, reference), x, residual, conv, true);
                EXPECT_TRUE(sameBits(inPlace, outOfPlace)) << "in place differs from out of place";
                // And against the convolution computed here (the out-of-place result is checked elsewhere too).
                std::vector<double> const xs = valuesOf(x);
                std::vector<double> const y = conv.apply(xs, n, h, w);
                double const tol = type == DataType::kFLOAT ? 1e-4 : 2e-2;
                for (int64_t i = 0; i < inPlace.volume(); ++i)
                {
                    double const e = std::max(0.0, y[static_cast<size_t>(i)] + residual.at(i));
                    ASSERT_NEAR(inPlace.at(i), e, tol * (1.0 + std::fabs(e))) << "element " << i;
                }
            }
        }
    }
}

//! Strided convolutions whose last input rows/columns no window reads (1x1 stride 2 over an even extent, 3x3 stride
//! 3 without padding, ...): the oneDNN tactic, given the whole input, against the convolution computed here.
TEST(ConvolutionInPlaceAdd, StridedConvolutionsThatSkipTrailingInput)
{
    if (!oneDnnBuilt())
    {
        GTEST_SKIP() << "built without oneDNN";
    }
    std::mt19937 rng(31);
    std::uniform_int_distribution<int64_t> extent(4, 15);
    struct Geometry
    {
        int64_t size;
        int64_t stride;
        int64_t pad;
    };
    for (Geometry const g : {Geometry{1, 2, 0}, Geometry{1, 3, 0}, Geometry{3, 2, 0}, Geometry{3, 3, 1},
             Geometry{2, 2, 0}, Geometry{5, 4, 1}})
    {
        for (int32_t round = 0; round < 3; ++round)
        {
            int64_t const c = extent(rng);
            int64_t const k = extent(rng);
            int64_t const h = extent(rng);
            int64_t const w = extent(rng);
            Conv const conv(c, k, g.size, g.stride, g.pad, rng);
            SCOPED_TRACE(std::to_string(c) + "->" + std::to_string(k) + ", " + std::to_string(h) + "x"
                + std::to_string(w) + ", kernel " + std::to_string(g.size) + ", stride " + std::to_string(g.stride)
                + ", pad " + std::to_string(g.pad));
            HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, c, h, w}), rng);
            HostTensor const residual
                = HostTensor::random(DataType::kFLOAT, makeDims({2, k, conv.outSize(h), conv.outSize(w)}), rng);
            uint64_t const before = oneDnnRunCount(nvinfer1::LayerType::kCONVOLUTION);
            HostTensor const got
                = runResidual(residualNode(k, g.size, g.stride, g.pad, false, false), x, residual, conv, false);
            EXPECT_EQ(oneDnnRunCount(nvinfer1::LayerType::kCONVOLUTION) - before, 1U) << "oneDNN did not run it";
            std::vector<double> const xs = valuesOf(x);
            std::vector<double> const y = conv.apply(xs, 2, h, w);
            for (int64_t i = 0; i < got.volume(); ++i)
            {
                double const e = std::max(0.0, y[static_cast<size_t>(i)] + residual.at(i));
                ASSERT_NEAR(got.at(i), e, 1e-4 * (1.0 + std::fabs(e))) << "element " << i;
            }
        }
    }
}

//! relu(convB(relu(convA(x))) + relu(convA(x))) built with kBF16 and reduced precision on the CPU: the convolutions
//! run in BF16, in the region format when oneDNN's BF16 convolution picks it, and match the computation in double.
TEST(ConvolutionInPlaceAdd, Bf16ResidualBlockStaysInTheRegion)
{
    ScopedEnv const precision("KILN_PRECISION", "1");
    std::mt19937 rng(41);
    int64_t const c = 16;
    Conv const ca(c, c, 3, 1, 1, rng);
    Conv const cb(c, c, 3, 1, 1, rng);
    NetworkRunner r(kiln::BackendKind::kCPU, 0);
    r.config().setFlag(nvinfer1::BuilderFlag::kBF16);
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, c, 10, 12});
    r.setProfileDims("x", {1, c, 10, 12}, {2, c, 10, 12}, {3, c, 10, 12});
    auto* actA = r.network().addActivation(*ca.add(r, *x, "convA"), nvinfer1::ActivationType::kRELU);
    actA->setName("reluA");
    ITensor* a = actA->getOutput(0);
    r.markOutput(addRelu(r, cb.add(r, *a, "convB"), a, "blockB"), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    auto plan = builtPlan(r);
    ASSERT_TRUE(plan.has_value());
    PlanNode const* blockB = fusedConv(*plan, "convB");
    ASSERT_NE(blockB, nullptr);
    PlanTensor const& out = plan->tensors[static_cast<size_t>(blockB->outputs[0])];
    EXPECT_EQ(out.type, DataType::kBF16);
    EXPECT_EQ(out.format == cpuRegionFormat(), cpuRegionHoldsBf16())
        << "the BF16 convolution's output is in format " << static_cast<int>(out.format);
    for (int64_t n : {2, 1, 3})
    {
        HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({n, c, 10, 12}), rng);
        std::vector<double> const xs = valuesOf(in);
        std::vector<double> const av = relu(ca.apply(xs, n, 10, 12));
        std::vector<double> const yv = relu(sum(cb.apply(av, n, 10, 12), av));
        auto got = r.run({{"x", in}});
        ASSERT_EQ(got["y"].volume(), static_cast<int64_t>(yv.size()));
        for (int64_t i = 0; i < got["y"].volume(); ++i)
        {
            double const e = yv[static_cast<size_t>(i)];
            ASSERT_NEAR(got["y"].at(i), e, 5e-2 * (1.0 + std::fabs(e))) << "element " << i << ", batch " << n;
        }
    }
}

} // namespace
} // namespace kiln::test
