// DeconvolutionLayerTest: IDeconvolutionLayer end to end (oneDNN and reference tactics) and the deconvolution kernel
// objects directly, against a naive double-precision scatter-form oracle written here.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include "backends/cpu/kernels/convolutionCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "common/kernelRun.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;
using kiln::test::ScopedTactic;

struct DeconvCase
{
    int64_t n{1};
    int64_t c{1};
    int64_t k{1};
    int64_t groups{1};
    std::vector<int64_t> in;
    std::vector<int64_t> kernel;
    std::vector<int64_t> stride;
    std::vector<int64_t> dilation;
    std::vector<int64_t> pre;
    std::vector<int64_t> post;
    PaddingMode mode{PaddingMode::kEXPLICIT_ROUND_DOWN};
    bool bias{true};

    size_t nb() const { return kernel.size(); }
    std::vector<int64_t> inputDims() const
    {
        std::vector<int64_t> d{n, c};
        d.insert(d.end(), in.begin(), in.end());
        return d;
    }
    //! TensorRT's deconvolution kernel layout: [C, K/G, k...].
    std::vector<int64_t> kernelDims() const
    {
        std::vector<int64_t> d{c, k / groups};
        d.insert(d.end(), kernel.begin(), kernel.end());
        return d;
    }
    std::string str() const
    {
        auto v = [](std::vector<int64_t> const& x) {
            std::string s;
            for (auto e : x)
            {
                s += std::to_string(e) + ",";
            }
            return s;
        };
        return "n=" + std::to_string(n) + " c=" + std::to_string(c) + " k=" + std::to_string(k) + " g="
            + std::to_string(groups) + " in=" + v(in) + " kernel=" + v(kernel) + " stride=" + v(stride) + " dil="
            + v(dilation) + " pre=" + v(pre) + " post=" + v(post) + " mode=" + std::to_string(static_cast<int>(mode));
    }
};

int64_t prod(std::vector<int64_t> const& v)
{
    int64_t p = 1;
    for (auto x : v)
    {
        p *= x;
    }
    return p;
}

std::vector<int64_t> unflatten(int64_t flat, std::vector<int64_t> const& dims)
{
    std::vector<int64_t> idx(dims.size());
    for (size_t j = dims.size(); j-- > 0;)
    {
        idx[j] = flat % dims[j];
        flat /= dims[j];
    }
    return idx;
}

int64_t flatten(std::vector<int64_t> const& idx, std::vector<int64_t> const& dims)
{
    int64_t f = 0;
    for (size_t j = 0; j < dims.size(); ++j)
    {
        f = f * dims[j] + idx[j];
    }
    return f;
}

//! Oracle: scatter every input element through every kernel tap into the untrimmed output
//! ((I - 1) * S + DK per dimension), then crop what the padding mode trims (TensorRT's deconvolution formulas).
std::vector<double> oracleDeconv(DeconvCase const& dc, std::vector<double> const& x, std::vector<double> const& w,
    std::vector<double> const& b, std::vector<int64_t>& outDims)
{
    size_t const nb = dc.nb();
    std::vector<int64_t> full(nb);
    std::vector<int64_t> out(nb);
    std::vector<int64_t> before(nb);
    for (size_t j = 0; j < nb; ++j)
    {
        int64_t const dk = 1 + dc.dilation[j] * (dc.kernel[j] - 1);
        full[j] = (dc.in[j] - 1) * dc.stride[j] + dk;
        if (dc.mode == PaddingMode::kSAME_UPPER || dc.mode == PaddingMode::kSAME_LOWER)
        {
            out[j] = std::min(dc.in[j] * dc.stride[j], full[j]);
            int64_t const p = std::max<int64_t>(dk - dc.stride[j], 0);
            before[j] = dc.mode == PaddingMode::kSAME_UPPER ? p / 2 : p - p / 2;
        }
        else
        {
            out[j] = full[j] - dc.pre[j] - dc.post[j];
            before[j] = dc.pre[j];
        }
    }
    int64_t const cg = dc.c / dc.groups;
    int64_t const kg = dc.k / dc.groups;
    std::vector<double> untrimmed(static_cast<size_t>(dc.n * dc.k * prod(full)), 0.0);
    for (int64_t ni = 0; ni < dc.n; ++ni)
    {
        for (int64_t ic = 0; ic < dc.c; ++ic)
        {
            int64_t const g = ic / cg;
            for (int64_t xf = 0; xf < prod(dc.in); ++xf)
            {
                std::vector<int64_t> const i = unflatten(xf, dc.in);
                double const xv = x[static_cast<size_t>((ni * dc.c + ic) * prod(dc.in) + xf)];
                for (int64_t kk = 0; kk < kg; ++kk)
                {
                    int64_t const oc = g * kg + kk;
                    for (int64_t rf = 0; rf < prod(dc.kernel); ++rf)
                    {
                        std::vector<int64_t> const r = unflatten(rf, dc.kernel);
                        std::vector<int64_t> o(nb);
                        for (size_t j = 0; j < nb; ++j)
                        {
                            o[j] = i[j] * dc.stride[j] + r[j] * dc.dilation[j];
                        }
                        untrimmed[static_cast<size_t>((ni * dc.k + oc) * prod(full) + flatten(o, full))]
                            += xv * w[static_cast<size_t>((ic * kg + kk) * prod(dc.kernel) + rf)];
                    }
                }
            }
        }
    }
    outDims = {dc.n, dc.k};
    outDims.insert(outDims.end(), out.begin(), out.end());
    std::vector<double> y(static_cast<size_t>(prod(outDims)));
    for (int64_t ni = 0; ni < dc.n; ++ni)
    {
        for (int64_t oc = 0; oc < dc.k; ++oc)
        {
            for (int64_t of = 0; of < prod(out); ++of)
            {
                std::vector<int64_t> o = unflatten(of, out);
                for (size_t j = 0; j < nb; ++j)
                {
                    o[j] += before[j];
                }
                y[static_cast<size_t>((ni * dc.k + oc) * prod(out) + of)]
                    = untrimmed[static_cast<size_t>((ni * dc.k + oc) * prod(full) + flatten(o, full))]
                    + (dc.bias ? b[static_cast<size_t>(oc)] : 0.0);
            }
        }
    }
    return y;
}

std::vector<double> values(HostTensor const& t)
{
    std::vector<double> v(static_cast<size_t>(t.volume()));
    for (int64_t i = 0; i < t.volume(); ++i)
    {
        v[static_cast<size_t>(i)] = t.at(i);
    }
    return v;
}

struct Tolerance
{
    double atol;
    double rtol;
};

Tolerance toleranceFor(DataType t)
{
    switch (t)
    {
    case DataType::kHALF: return {2e-2, 1e-2};
    case DataType::kBF16: return {1e-1, 3e-2};
    default: return {1e-4, 1e-4};
    }
}

DeconvCase randomCase(std::mt19937& rng, size_t nb, PaddingMode mode)
{
    auto uni = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    DeconvCase dc;
    dc.mode = mode;
    dc.n = uni(1, 2);
    dc.groups = uni(1, 3);
    dc.c = dc.groups * uni(1, 3);
    dc.k = dc.groups * uni(1, 3);
    dc.bias = uni(0, 1) == 1;
    for (size_t j = 0; j < nb; ++j)
    {
        int64_t const f = uni(1, nb == 3 ? 3 : 4);
        int64_t const d = uni(1, 2);
        int64_t const s = uni(1, 3);
        int64_t const dk = 1 + d * (f - 1);
        dc.kernel.push_back(f);
        dc.dilation.push_back(d);
        dc.stride.push_back(s);
        dc.pre.push_back(uni(0, 2));
        dc.post.push_back(uni(0, 2));
        // Keep (I - 1) * S + DK - pre - post >= 1.
        int64_t const need = dc.pre.back() + dc.post.back() + 1 - dk;
        int64_t const minIn = need > 0 ? 1 + (need + s - 1) / s : 1;
        dc.in.push_back(minIn + uni(0, nb == 3 ? 2 : 4));
    }
    return dc;
}

Dims dimsOf(std::vector<int64_t> const& v)
{
    return makeDims(v);
}

HostTensor runNetwork(DeconvCase const& dc, DataType type, HostTensor const& x, HostTensor const& w,
    HostTensor const& b, bool reference)
{
    ScopedTactic tactic(reference);
    NetworkRunner r;
    ITensor* in = r.addInput("x", type, dc.inputDims());
    IDeconvolutionLayer* deconv = r.network().addDeconvolutionNd(*in, dc.k, dimsOf(dc.kernel),
        Weights{type, w.data(), w.volume()}, Weights{type, dc.bias ? b.data() : nullptr, dc.bias ? b.volume() : 0});
    EXPECT_NE(deconv, nullptr) << r.logger().allErrors();
    if (deconv == nullptr)
    {
        return {};
    }
    deconv->setNbGroups(dc.groups);
    deconv->setStrideNd(dimsOf(dc.stride));
    deconv->setDilationNd(dimsOf(dc.dilation));
    deconv->setPrePadding(dimsOf(dc.pre));
    deconv->setPostPadding(dimsOf(dc.post));
    deconv->setPaddingMode(dc.mode);
    r.markOutput(deconv->getOutput(0), "y");
    EXPECT_TRUE(r.build()) << r.logger().allErrors();
    auto out = r.run({{"x", x}});
    return out["y"];
}

void checkEndToEnd(DeconvCase const& dc, DataType type, std::mt19937& rng)
{
    SCOPED_TRACE(dc.str() + " type=" + std::to_string(static_cast<int>(type)));
    HostTensor const x = HostTensor::random(type, makeDims(dc.inputDims()), rng);
    HostTensor const w = HostTensor::random(type, makeDims(dc.kernelDims()), rng);
    HostTensor const b = HostTensor::random(type, makeDims({dc.k}), rng);
    std::vector<int64_t> outDims;
    std::vector<double> const y = oracleDeconv(dc, values(x), values(w), values(b), outDims);
    HostTensor const expected = HostTensor::fromValues(type, makeDims(outDims), y);
    Tolerance const tol = toleranceFor(type);
    // The CPU backend runs its default tactic (oneDNN where it applies) and its reference tactic; another backend
    // runs its own kernels once. Each result must match the oracle.
    bool const onCpu = kiln::test::currentTestBackend() == kiln::BackendKind::kCPU;
    uint64_t const before = kiln::oneDnnRunCount(LayerType::kDECONVOLUTION);
    HostTensor const fast = runNetwork(dc, type, x, w, b, false);
    if (onCpu && kiln::oneDnnBuilt() && type == DataType::kFLOAT)
    {
        EXPECT_GT(kiln::oneDnnRunCount(LayerType::kDECONVOLUTION), before) << "the default build did not run oneDNN";
    }
    EXPECT_TRUE(kiln::test::allClose(fast, expected, tol.atol, tol.rtol));
    if (!onCpu)
    {
        return;
    }
    uint64_t const beforeRef = kiln::oneDnnRunCount(LayerType::kDECONVOLUTION);
    HostTensor const ref = runNetwork(dc, type, x, w, b, true);
    EXPECT_EQ(kiln::oneDnnRunCount(LayerType::kDECONVOLUTION), beforeRef);
    EXPECT_TRUE(kiln::test::allClose(ref, expected, tol.atol, tol.rtol));
}

kiln::Attributes deconvAttrs(DeconvCase const& dc)
{
    kiln::Attributes a;
    a.setInt("nbOutputMaps", dc.k);
    a.setInt("nbGroups", dc.groups);
    a.setInts("kernelSize", dc.kernel);
    a.setInts("stride", dc.stride);
    a.setInts("dilation", dc.dilation);
    a.setInts("prePadding", dc.pre);
    a.setInts("postPadding", dc.post);
    a.setInt("paddingMode", static_cast<int64_t>(dc.mode));
    return a;
}

HostTensor runKernel(DeconvCase const& dc, DataType type, HostTensor const& x, HostTensor const& w,
    HostTensor const& b, std::vector<int64_t> const& outDims, char const* tactic, bool asInputs)
{
    kiln::PlanNode node;
    node.kind = LayerType::kDECONVOLUTION;
    node.name = "deconv";
    node.attrs = deconvAttrs(dc);
    node.tactic = tactic;
    kiln::KernelSetup setup;
    setup.node = &node;
    int32_t const rank = static_cast<int32_t>(dc.nb() + 2);
    setup.inputTypes = {type};
    setup.inputPresent = {true};
    setup.inputRanks = {rank};
    setup.outputTypes = {type};
    setup.outputRanks = {rank};
    std::vector<kiln::TensorView> inputs{{const_cast<void*>(x.data()), type, x.dims}};
    if (asInputs)
    {
        setup.inputTypes = {type, type, type};
        setup.inputPresent = {true, true, dc.bias};
        setup.inputRanks = {rank, rank, 1};
        setup.weights = {kiln::WeightsView{}, kiln::WeightsView{}};
        inputs.push_back({const_cast<void*>(w.data()), type, w.dims});
        inputs.push_back({dc.bias ? const_cast<void*>(b.data()) : nullptr, type, dc.bias ? b.dims : makeDims({0})});
    }
    else
    {
        setup.weights = {kiln::WeightsView{w.data(), type, w.volume()},
            dc.bias ? kiln::WeightsView{b.data(), type, b.volume()} : kiln::WeightsView{}};
    }
    auto kernel = kiln::createDeconvolutionKernel(setup);
    EXPECT_TRUE(kernel.isOk()) << kernel.status().message();
    HostTensor out(type, makeDims(outDims));
    for (int64_t i = 0; i < out.volume(); ++i)
    {
        out.set(i, -777.0);
    }
    if (!kernel.isOk())
    {
        return out;
    }
    kiln::Status st = kiln::test::reshapeAndRun(*kernel.value(), inputs, {{out.data(), type, out.dims}});
    EXPECT_TRUE(st.isOk()) << st.message();
    return out;
}

void checkKernels(DeconvCase const& dc, DataType type, std::mt19937& rng, bool asInputs = false)
{
    SCOPED_TRACE(dc.str() + (asInputs ? " (kernel/bias as inputs)" : ""));
    HostTensor const x = HostTensor::random(type, makeDims(dc.inputDims()), rng);
    HostTensor const w = HostTensor::random(type, makeDims(dc.kernelDims()), rng);
    HostTensor const b = HostTensor::random(type, makeDims({dc.k}), rng);
    std::vector<int64_t> outDims;
    std::vector<double> const y = oracleDeconv(dc, values(x), values(w), values(b), outDims);
    HostTensor const expected = HostTensor::fromValues(type, makeDims(outDims), y);
    Tolerance const tol = toleranceFor(type);
    uint64_t const before = kiln::oneDnnRunCount(LayerType::kDECONVOLUTION);
    HostTensor const fast = runKernel(dc, type, x, w, b, outDims, "onednn", asInputs);
    if (kiln::oneDnnBuilt() && type == DataType::kFLOAT)
    {
        EXPECT_GT(kiln::oneDnnRunCount(LayerType::kDECONVOLUTION), before) << "oneDNN did not run";
    }
    HostTensor const ref = runKernel(dc, type, x, w, b, outDims, "reference", asInputs);
    EXPECT_TRUE(kiln::test::allClose(ref, expected, tol.atol, tol.rtol)) << "reference vs oracle";
    EXPECT_TRUE(kiln::test::allClose(fast, expected, tol.atol, tol.rtol)) << "onednn vs oracle";
    EXPECT_TRUE(kiln::test::allClose(fast, ref, tol.atol, tol.rtol)) << "onednn vs reference";
}

DeconvCase simpleCase()
{
    DeconvCase dc;
    dc.n = 2;
    dc.c = 3;
    dc.k = 4;
    dc.in = {4, 5};
    dc.kernel = {3, 2};
    dc.stride = {2, 1};
    dc.dilation = {1, 1};
    dc.pre = {1, 0};
    dc.post = {0, 1};
    return dc;
}

class DeconvolutionLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(DeconvolutionLayerTest);

TEST_P(DeconvolutionLayerTest, Basic2DFloat)
{
    std::mt19937 rng(11);
    checkEndToEnd(simpleCase(), DataType::kFLOAT, rng);
    for (int i = 0; i < 3; ++i)
    {
        checkEndToEnd(randomCase(rng, 2, PaddingMode::kEXPLICIT_ROUND_DOWN), DataType::kFLOAT, rng);
    }
}

TEST_P(DeconvolutionLayerTest, EveryPaddingMode)
{
    std::mt19937 rng(22);
    for (PaddingMode mode : {PaddingMode::kEXPLICIT_ROUND_DOWN, PaddingMode::kEXPLICIT_ROUND_UP,
             PaddingMode::kSAME_UPPER, PaddingMode::kSAME_LOWER})
    {
        checkEndToEnd(randomCase(rng, 2, mode), DataType::kFLOAT, rng);
        checkEndToEnd(randomCase(rng, 2, mode), DataType::kFLOAT, rng);
    }
}

TEST_P(DeconvolutionLayerTest, ThreeDAndGroups)
{
    std::mt19937 rng(33);
    checkEndToEnd(randomCase(rng, 3, PaddingMode::kEXPLICIT_ROUND_DOWN), DataType::kFLOAT, rng);
    checkEndToEnd(randomCase(rng, 3, PaddingMode::kSAME_UPPER), DataType::kFLOAT, rng);
    DeconvCase dc = simpleCase();
    dc.c = 4;
    dc.k = 6;
    dc.groups = 2;
    checkEndToEnd(dc, DataType::kFLOAT, rng);
}

TEST_P(DeconvolutionLayerTest, HalfAndBFloat16)
{
    std::mt19937 rng(44);
    for (DataType type : {DataType::kHALF, DataType::kBF16})
    {
        checkEndToEnd(simpleCase(), type, rng);
        checkEndToEnd(randomCase(rng, 2, PaddingMode::kSAME_LOWER), type, rng);
    }
}

TEST_P(DeconvolutionLayerTest, KernelAsTensorAndDynamicShapes)
{
    std::mt19937 rng(55);
    for (bool reference : {false, true})
    {
        ScopedTactic tactic(reference);
        DeconvCase dc = simpleCase();
        HostTensor const w = HostTensor::random(DataType::kFLOAT, makeDims(dc.kernelDims()), rng);
        HostTensor const b = HostTensor::random(DataType::kFLOAT, makeDims({dc.k}), rng);
        NetworkRunner r;
        ITensor* in = r.addInput("x", DataType::kFLOAT, {-1, dc.c, -1, -1});
        ITensor* kernel = r.addInput("w", DataType::kFLOAT, dc.kernelDims());
        ITensor* bias = r.network().addConstant(makeDims({dc.k}), Weights{DataType::kFLOAT, b.data(), dc.k})->getOutput(0);
        IDeconvolutionLayer* deconv = r.network().addDeconvolutionNd(*in, dc.k, dimsOf(dc.kernel), Weights{}, Weights{});
        ASSERT_NE(deconv, nullptr);
        deconv->setInput(1, *kernel);
        deconv->setInput(2, *bias);
        deconv->setStrideNd(dimsOf(dc.stride));
        deconv->setPrePadding(dimsOf(dc.pre));
        deconv->setPostPadding(dimsOf(dc.post));
        r.markOutput(deconv->getOutput(0), "y");
        r.setProfileDims("x", {1, dc.c, 1, 1}, {2, dc.c, 4, 4}, {3, dc.c, 9, 9});
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        for (auto const& shape : std::vector<std::vector<int64_t>>{{1, 3, 7}, {3, 9, 2}})
        {
            dc.n = shape[0];
            dc.in = {shape[1], shape[2]};
            HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims(dc.inputDims()), rng);
            std::vector<int64_t> outDims;
            HostTensor const expected = HostTensor::fromValues(
                DataType::kFLOAT, makeDims(outDims), oracleDeconv(dc, values(x), values(w), values(b), outDims));
            auto out = r.run({{"x", x}, {"w", w}});
            EXPECT_TRUE(kiln::test::allClose(out["y"], expected, 1e-4, 1e-4)) << dc.str();
        }
    }
}

TEST_P(DeconvolutionLayerTest, SettersAndGetters)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {1, 4, 5, 5});
    std::vector<float> w(4 * 2 * 4, 0.5F);
    IDeconvolutionLayer* deconv = r.network().addDeconvolutionNd(
        *in, 2, makeDims({2, 2}), Weights{DataType::kFLOAT, w.data(), static_cast<int64_t>(w.size())}, Weights{});
    ASSERT_NE(deconv, nullptr);
    EXPECT_EQ(deconv->getType(), LayerType::kDECONVOLUTION);
    EXPECT_EQ(deconv->getNbOutputMaps(), 2);
    EXPECT_EQ(deconv->getNbGroups(), 1);
    EXPECT_EQ(deconv->getKernelSizeNd().d[1], 2);
    deconv->setStrideNd(makeDims({2, 2}));
    EXPECT_EQ(deconv->getStrideNd().d[0], 2);
    deconv->setPaddingNd(makeDims({1, 1}));
    EXPECT_EQ(deconv->getPostPadding().d[1], 1);
    deconv->setPaddingMode(PaddingMode::kSAME_UPPER); // takes precedence over the explicit padding
    EXPECT_EQ(deconv->getPaddingMode(), PaddingMode::kSAME_UPPER);
    deconv->setDilationNd(makeDims({1, 1}));
    EXPECT_EQ(deconv->getDilationNd().d[0], 1);
    r.markOutput(deconv->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    EXPECT_EQ(kiln::test::dimsString(r.network().getOutput(0)->getDimensions()),
        kiln::test::dimsString(makeDims({1, 2, 10, 10})));
}

TEST_P(DeconvolutionLayerTest, InvalidArgumentsAndNetworks)
{
    {
        NetworkRunner r;
        ITensor* in = r.addInput("x", DataType::kFLOAT, {1, 2, 3, 3});
        std::vector<float> w(8, 1.F);
        EXPECT_EQ(r.network().addDeconvolutionNd(*in, -1, makeDims({2, 2}), Weights{DataType::kFLOAT, w.data(), 8}, Weights{}),
            nullptr);
        EXPECT_TRUE(r.logger().hasError("addDeconvolutionNd")) << r.logger().allErrors();
        IDeconvolutionLayer* d
            = r.network().addDeconvolutionNd(*in, 1, makeDims({2, 2}), Weights{DataType::kFLOAT, w.data(), 8}, Weights{});
        ASSERT_NE(d, nullptr);
        d->setName("up");
        r.logger().clear();
        d->setStrideNd(makeDims({1, -2}));
        EXPECT_TRUE(r.logger().hasError("up")) << r.logger().allErrors();
        EXPECT_EQ(d->getStrideNd().d[1], 1);
        d->setBiasWeights(Weights{DataType::kFLOAT, w.data(), 3}); // wrong count: caught at build
        r.markOutput(d->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("bias weights have count 3")) << r.logger().allErrors();
    }
    {
        NetworkRunner r;
        ITensor* in = r.addInput("x", DataType::kFLOAT, {1, 2, 3, 3});
        std::vector<float> w(16, 1.F);
        // Kernel [C=2, K=2, 2, 2] needs 16 values; the layout is CKRS, so 8 is wrong.
        IDeconvolutionLayer* d
            = r.network().addDeconvolutionNd(*in, 2, makeDims({2, 2}), Weights{DataType::kFLOAT, w.data(), 8}, Weights{});
        ASSERT_NE(d, nullptr);
        r.markOutput(d->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("kernel weights have count 8 but 16")) << r.logger().allErrors();
    }
    {
        NetworkRunner r;
        ITensor* in = r.addInput("x", DataType::kFLOAT, {1, 2, 3, 3});
        std::vector<float> w(8, 1.F);
        IDeconvolutionLayer* d
            = r.network().addDeconvolutionNd(*in, 1, makeDims({2, 2}), Weights{DataType::kFLOAT, w.data(), 8}, Weights{});
        ASSERT_NE(d, nullptr);
        d->setPaddingNd(makeDims({3, 3})); // (3 - 1) * 1 + 2 - 6 < 1
        r.markOutput(d->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("trims the whole output")) << r.logger().allErrors();
    }
}

TEST_P(DeconvolutionLayerTest, KernelsRandomSweep)
{
    KILN_CPU_BACKEND_ONLY("the CPU backend's kernels, called directly");
    std::mt19937 rng(66);
    for (PaddingMode mode : {PaddingMode::kEXPLICIT_ROUND_DOWN, PaddingMode::kEXPLICIT_ROUND_UP,
             PaddingMode::kSAME_UPPER, PaddingMode::kSAME_LOWER})
    {
        for (int i = 0; i < 6; ++i)
        {
            checkKernels(randomCase(rng, 2, mode), DataType::kFLOAT, rng);
        }
        checkKernels(randomCase(rng, 3, mode), DataType::kFLOAT, rng);
    }
}

TEST_P(DeconvolutionLayerTest, KernelsWithTensorInputsAndTypes)
{
    KILN_CPU_BACKEND_ONLY("the CPU backend's kernels, called directly");
    std::mt19937 rng(77);
    checkKernels(simpleCase(), DataType::kFLOAT, rng, true);
    DeconvCase dc = simpleCase();
    dc.bias = false;
    dc.groups = 1;
    checkKernels(dc, DataType::kFLOAT, rng, true);
    checkKernels(simpleCase(), DataType::kBF16, rng);
    checkKernels(simpleCase(), DataType::kHALF, rng);
}

TEST_P(DeconvolutionLayerTest, TacticsList)
{
    KILN_CPU_BACKEND_ONLY("the CPU backend's tactics list");
    DeconvCase const dc = simpleCase();
    kiln::PlanNode node;
    node.kind = LayerType::kDECONVOLUTION;
    node.name = "deconv";
    node.attrs = deconvAttrs(dc);
    std::vector<float> w(static_cast<size_t>(prod(dc.kernelDims())), 1.F);
    kiln::KernelSetup setup;
    setup.node = &node;
    setup.inputTypes = {DataType::kFLOAT};
    setup.inputPresent = {true};
    setup.inputRanks = {4};
    setup.outputTypes = {DataType::kFLOAT};
    setup.outputRanks = {4};
    setup.weights = {kiln::WeightsView{w.data(), DataType::kFLOAT, static_cast<int64_t>(w.size())}, kiln::WeightsView{}};
    std::vector<std::string> const expected
        = kiln::oneDnnBuilt() ? std::vector<std::string>{"onednn", "reference"} : std::vector<std::string>{"reference"};
    EXPECT_EQ(kiln::deconvolutionTactics(setup), expected);
}

} // namespace
