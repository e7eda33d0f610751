// ConvolutionLayerTest: IConvolutionLayer end to end (oneDNN and reference tactics) and the convolution kernel
// objects directly, against a naive double-precision oracle written here.
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

//! One convolution configuration (spatial vectors have 2 or 3 entries).
struct ConvCase
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
    std::vector<int64_t> kernelDims() const
    {
        std::vector<int64_t> d{k, c / groups};
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
            + v(dilation) + " pre=" + v(pre) + " post=" + v(post) + " mode=" + std::to_string(static_cast<int>(mode))
            + " bias=" + std::to_string(bias);
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

// ---- Oracle (TensorRT's PaddingMode formulas for convolution, then the plainest loops) ----

struct Extent
{
    int64_t out;
    int64_t before;
};

Extent convExtent(PaddingMode mode, int64_t in, int64_t f, int64_t s, int64_t d, int64_t b, int64_t a)
{
    int64_t const dk = 1 + d * (f - 1);
    if (mode == PaddingMode::kEXPLICIT_ROUND_DOWN)
    {
        return {(in + b + a - dk) / s + 1, b};
    }
    if (mode == PaddingMode::kEXPLICIT_ROUND_UP)
    {
        return {(in + b + a - dk + s - 1) / s + 1, b};
    }
    int64_t const out = (in + s - 1) / s;
    int64_t const p = std::max<int64_t>(((in - 1) / s) * s + dk - in, 0);
    int64_t const before = mode == PaddingMode::kSAME_UPPER ? p / 2 : p - p / 2;
    return {out, before};
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

std::vector<double> oracleConv(ConvCase const& cc, std::vector<double> const& x, std::vector<double> const& w,
    std::vector<double> const& b, std::vector<int64_t>& outDims)
{
    size_t const nb = cc.nb();
    std::vector<int64_t> out(nb);
    std::vector<int64_t> before(nb);
    for (size_t j = 0; j < nb; ++j)
    {
        Extent const e = convExtent(cc.mode, cc.in[j], cc.kernel[j], cc.stride[j], cc.dilation[j], cc.pre[j], cc.post[j]);
        out[j] = e.out;
        before[j] = e.before;
    }
    outDims = {cc.n, cc.k};
    outDims.insert(outDims.end(), out.begin(), out.end());
    int64_t const cg = cc.c / cc.groups;
    int64_t const kg = cc.k / cc.groups;
    std::vector<double> y(static_cast<size_t>(prod(outDims)), 0.0);
    for (int64_t ni = 0; ni < cc.n; ++ni)
    {
        for (int64_t oc = 0; oc < cc.k; ++oc)
        {
            int64_t const g = oc / kg;
            for (int64_t of = 0; of < prod(out); ++of)
            {
                std::vector<int64_t> const o = unflatten(of, out);
                double acc = cc.bias ? b[static_cast<size_t>(oc)] : 0.0;
                for (int64_t ci = 0; ci < cg; ++ci)
                {
                    for (int64_t rf = 0; rf < prod(cc.kernel); ++rf)
                    {
                        std::vector<int64_t> const r = unflatten(rf, cc.kernel);
                        std::vector<int64_t> i(nb);
                        bool inside = true;
                        for (size_t j = 0; j < nb; ++j)
                        {
                            i[j] = o[j] * cc.stride[j] - before[j] + r[j] * cc.dilation[j];
                            inside = inside && i[j] >= 0 && i[j] < cc.in[j];
                        }
                        if (!inside)
                        {
                            continue;
                        }
                        int64_t const ic = g * cg + ci;
                        acc += x[static_cast<size_t>((ni * cc.c + ic) * prod(cc.in) + flatten(i, cc.in))]
                            * w[static_cast<size_t>((oc * cg + ci) * prod(cc.kernel) + rf)];
                    }
                }
                y[static_cast<size_t>((ni * cc.k + oc) * prod(out) + of)] = acc;
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

HostTensor expectedTensor(DataType type, std::vector<int64_t> const& dims, std::vector<double> const& v)
{
    return HostTensor::fromValues(type, makeDims(dims), v);
}

Dims dimsOf(std::vector<int64_t> const& v)
{
    return makeDims(v);
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

//! Random case generator; every explicit case satisfies input + padding >= dilated kernel.
ConvCase randomCase(std::mt19937& rng, size_t nb, PaddingMode mode)
{
    auto uni = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    ConvCase cc;
    cc.mode = mode;
    cc.n = uni(1, 2);
    cc.groups = uni(1, 3);
    cc.c = cc.groups * uni(1, 3);
    cc.k = cc.groups * uni(1, 3);
    cc.bias = uni(0, 1) == 1;
    for (size_t j = 0; j < nb; ++j)
    {
        int64_t const f = uni(1, nb == 3 ? 3 : 4);
        int64_t const d = uni(1, 2);
        int64_t const dk = 1 + d * (f - 1);
        cc.kernel.push_back(f);
        cc.dilation.push_back(d);
        cc.stride.push_back(uni(1, 3));
        cc.pre.push_back(uni(0, 2));
        cc.post.push_back(uni(0, 2));
        cc.in.push_back(std::max<int64_t>(dk - cc.pre.back() - cc.post.back(), 1) + uni(0, nb == 3 ? 4 : 7));
    }
    return cc;
}

//! Builds and runs one convolution network; returns the output (and its dims through `outDims`).
HostTensor runNetwork(ConvCase const& cc, DataType type, HostTensor const& x, HostTensor const& w, HostTensor const& b,
    bool reference)
{
    ScopedTactic tactic(reference);
    NetworkRunner r;
    ITensor* in = r.addInput("x", type, cc.inputDims());
    Weights const kw{type, w.data(), w.volume()};
    Weights const bw{type, cc.bias ? b.data() : nullptr, cc.bias ? b.volume() : 0};
    IConvolutionLayer* conv = r.network().addConvolutionNd(*in, cc.k, dimsOf(cc.kernel), kw, bw);
    EXPECT_NE(conv, nullptr) << r.logger().allErrors();
    if (conv == nullptr)
    {
        return {};
    }
    conv->setNbGroups(cc.groups);
    conv->setStrideNd(dimsOf(cc.stride));
    conv->setDilationNd(dimsOf(cc.dilation));
    conv->setPrePadding(dimsOf(cc.pre));
    conv->setPostPadding(dimsOf(cc.post));
    conv->setPaddingMode(cc.mode);
    r.markOutput(conv->getOutput(0), "y");
    EXPECT_TRUE(r.build()) << r.logger().allErrors();
    auto out = r.run({{"x", x}});
    return out["y"];
}

//! Full check of one case end to end, under both tactics.
void checkEndToEnd(ConvCase const& cc, DataType type, std::mt19937& rng)
{
    SCOPED_TRACE(cc.str() + " type=" + std::to_string(static_cast<int>(type)));
    HostTensor const x = HostTensor::random(type, makeDims(cc.inputDims()), rng);
    HostTensor const w = HostTensor::random(type, makeDims(cc.kernelDims()), rng);
    HostTensor const b = HostTensor::random(type, makeDims({cc.k}), rng);
    std::vector<int64_t> outDims;
    std::vector<double> const y = oracleConv(cc, values(x), values(w), values(b), outDims);
    HostTensor const expected = expectedTensor(type, outDims, y);
    Tolerance const tol = toleranceFor(type);

    // The CPU backend runs its default tactic (oneDNN where it applies) and its reference tactic; another backend
    // runs its own kernels once. Each result must match the oracle.
    bool const onCpu = kiln::test::currentTestBackend() == kiln::BackendKind::kCPU;
    uint64_t const before = kiln::oneDnnRunCount(LayerType::kCONVOLUTION);
    HostTensor const fast = runNetwork(cc, type, x, w, b, false);
    if (onCpu && kiln::oneDnnBuilt() && type == DataType::kFLOAT)
    {
        EXPECT_GT(kiln::oneDnnRunCount(LayerType::kCONVOLUTION), before) << "the default build did not run oneDNN";
    }
    EXPECT_TRUE(kiln::test::allClose(fast, expected, tol.atol, tol.rtol));

    if (!onCpu)
    {
        return;
    }
    uint64_t const beforeRef = kiln::oneDnnRunCount(LayerType::kCONVOLUTION);
    HostTensor const ref = runNetwork(cc, type, x, w, b, true);
    EXPECT_EQ(kiln::oneDnnRunCount(LayerType::kCONVOLUTION), beforeRef) << "KILN_CPU_TACTIC=reference ran oneDNN";
    EXPECT_TRUE(kiln::test::allClose(ref, expected, tol.atol, tol.rtol));
}

// ---- Kernel-level helpers ----

kiln::Attributes convAttrs(ConvCase const& cc)
{
    kiln::Attributes a;
    a.setInt("nbOutputMaps", cc.k);
    a.setInt("nbGroups", cc.groups);
    a.setInts("kernelSize", cc.kernel);
    a.setInts("stride", cc.stride);
    a.setInts("dilation", cc.dilation);
    a.setInts("prePadding", cc.pre);
    a.setInts("postPadding", cc.post);
    a.setInt("paddingMode", static_cast<int64_t>(cc.mode));
    return a;
}

//! Run the kernel object directly with `tactic`; kernel/bias as weights (or as inputs when asInputs).
HostTensor runKernel(ConvCase const& cc, DataType type, HostTensor const& x, HostTensor const& w, HostTensor const& b,
    std::vector<int64_t> const& outDims, char const* tactic, bool asInputs = false)
{
    kiln::PlanNode node;
    node.kind = LayerType::kCONVOLUTION;
    node.name = "conv";
    node.attrs = convAttrs(cc);
    node.tactic = tactic;
    kiln::KernelSetup setup;
    setup.node = &node;
    setup.inputTypes = {type};
    setup.inputPresent = {true};
    setup.inputRanks = {static_cast<int32_t>(cc.nb() + 2)};
    setup.outputTypes = {type};
    setup.outputRanks = {static_cast<int32_t>(cc.nb() + 2)};
    std::vector<kiln::TensorView> inputs{{const_cast<void*>(x.data()), type, x.dims}};
    if (asInputs)
    {
        setup.inputTypes = {type, type, type};
        setup.inputPresent = {true, true, cc.bias};
        setup.inputRanks = {static_cast<int32_t>(cc.nb() + 2), static_cast<int32_t>(cc.nb() + 2), 1};
        setup.weights = {kiln::WeightsView{}, kiln::WeightsView{}};
        inputs.push_back({const_cast<void*>(w.data()), type, w.dims});
        inputs.push_back({cc.bias ? const_cast<void*>(b.data()) : nullptr, type, cc.bias ? b.dims : makeDims({0})});
    }
    else
    {
        setup.weights = {kiln::WeightsView{w.data(), type, w.volume()},
            cc.bias ? kiln::WeightsView{b.data(), type, b.volume()} : kiln::WeightsView{}};
    }
    auto kernel = kiln::createConvolutionKernel(setup);
    EXPECT_TRUE(kernel.isOk()) << kernel.status().message();
    HostTensor out(type, makeDims(outDims));
    for (int64_t i = 0; i < out.volume(); ++i)
    {
        out.set(i, 12345.0); // poison
    }
    if (!kernel.isOk())
    {
        return out;
    }
    kiln::Status st = kiln::test::reshapeAndRun(*kernel.value(), inputs, {{out.data(), type, out.dims}});
    EXPECT_TRUE(st.isOk()) << st.message();
    // A second run on the same kernel object reuses the cached primitive and must give the same result.
    HostTensor again(type, makeDims(outDims));
    st = kiln::test::reshapeAndRun(*kernel.value(), inputs, {{again.data(), type, again.dims}});
    EXPECT_TRUE(st.isOk()) << st.message();
    EXPECT_TRUE(kiln::test::sameBits(out, again));
    return out;
}

//! True when the tactic list for this configuration (kernel as weights) offers oneDNN.
bool offersOneDnn(ConvCase const& cc, DataType type)
{
    kiln::PlanNode node;
    node.kind = LayerType::kCONVOLUTION;
    node.name = "conv";
    node.attrs = convAttrs(cc);
    std::vector<float> w(static_cast<size_t>(prod(cc.kernelDims())), 1.F);
    kiln::KernelSetup setup;
    setup.node = &node;
    setup.inputTypes = {type};
    setup.inputPresent = {true};
    setup.inputRanks = {static_cast<int32_t>(cc.nb() + 2)};
    setup.outputTypes = {type};
    setup.outputRanks = {static_cast<int32_t>(cc.nb() + 2)};
    setup.weights = {kiln::WeightsView{w.data(), DataType::kFLOAT, static_cast<int64_t>(w.size())}, kiln::WeightsView{}};
    std::vector<std::string> const tactics = kiln::convolutionTactics(setup);
    return !tactics.empty() && tactics.front() == "onednn";
}

void checkKernels(ConvCase const& cc, DataType type, std::mt19937& rng, bool asInputs = false)
{
    SCOPED_TRACE(cc.str() + (asInputs ? " (kernel/bias as inputs)" : ""));
    HostTensor const x = HostTensor::random(type, makeDims(cc.inputDims()), rng);
    HostTensor const w = HostTensor::random(type, makeDims(cc.kernelDims()), rng);
    HostTensor const b = HostTensor::random(type, makeDims({cc.k}), rng);
    std::vector<int64_t> outDims;
    std::vector<double> const y = oracleConv(cc, values(x), values(w), values(b), outDims);
    HostTensor const expected = expectedTensor(type, outDims, y);
    Tolerance const tol = toleranceFor(type);
    uint64_t const before = kiln::oneDnnRunCount(LayerType::kCONVOLUTION);
    HostTensor const fast = runKernel(cc, type, x, w, b, outDims, "onednn", asInputs);
    if (kiln::oneDnnBuilt() && (type == DataType::kFLOAT || offersOneDnn(cc, type)))
    {
        EXPECT_GT(kiln::oneDnnRunCount(LayerType::kCONVOLUTION), before) << "oneDNN did not run";
    }
    HostTensor const ref = runKernel(cc, type, x, w, b, outDims, "reference", asInputs);
    EXPECT_TRUE(kiln::test::allClose(ref, expected, tol.atol, tol.rtol)) << "reference vs oracle";
    EXPECT_TRUE(kiln::test::allClose(fast, expected, tol.atol, tol.rtol)) << "onednn vs oracle";
    EXPECT_TRUE(kiln::test::allClose(fast, ref, tol.atol, tol.rtol)) << "onednn vs reference";
}

ConvCase simpleCase()
{
    ConvCase cc;
    cc.n = 2;
    cc.c = 3;
    cc.k = 4;
    cc.in = {7, 6};
    cc.kernel = {3, 2};
    cc.stride = {1, 2};
    cc.dilation = {1, 1};
    cc.pre = {1, 0};
    cc.post = {1, 1};
    return cc;
}

// ---- End-to-end tests ----

class ConvolutionLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(ConvolutionLayerTest);

TEST_P(ConvolutionLayerTest, Basic2DFloat)
{
    std::mt19937 rng(101);
    checkEndToEnd(simpleCase(), DataType::kFLOAT, rng);
    for (int i = 0; i < 4; ++i)
    {
        checkEndToEnd(randomCase(rng, 2, PaddingMode::kEXPLICIT_ROUND_DOWN), DataType::kFLOAT, rng);
    }
}

TEST_P(ConvolutionLayerTest, EveryPaddingMode)
{
    std::mt19937 rng(202);
    for (PaddingMode mode : {PaddingMode::kEXPLICIT_ROUND_DOWN, PaddingMode::kEXPLICIT_ROUND_UP,
             PaddingMode::kSAME_UPPER, PaddingMode::kSAME_LOWER})
    {
        for (int i = 0; i < 2; ++i)
        {
            checkEndToEnd(randomCase(rng, 2, mode), DataType::kFLOAT, rng);
        }
    }
}

TEST_P(ConvolutionLayerTest, ThreeD)
{
    std::mt19937 rng(303);
    for (PaddingMode mode : {PaddingMode::kEXPLICIT_ROUND_DOWN, PaddingMode::kSAME_LOWER})
    {
        checkEndToEnd(randomCase(rng, 3, mode), DataType::kFLOAT, rng);
    }
}

TEST_P(ConvolutionLayerTest, GroupsAndDepthwise)
{
    std::mt19937 rng(404);
    ConvCase cc = simpleCase();
    cc.c = 6;
    cc.k = 6;
    cc.groups = 6; // depthwise
    checkEndToEnd(cc, DataType::kFLOAT, rng);
    cc.k = 9;
    cc.groups = 3;
    cc.bias = false;
    checkEndToEnd(cc, DataType::kFLOAT, rng);
}

TEST_P(ConvolutionLayerTest, HalfAndBFloat16)
{
    std::mt19937 rng(505);
    for (DataType type : {DataType::kHALF, DataType::kBF16})
    {
        checkEndToEnd(simpleCase(), type, rng);
        checkEndToEnd(randomCase(rng, 2, PaddingMode::kSAME_UPPER), type, rng);
    }
}

TEST_P(ConvolutionLayerTest, KernelAndBiasAsTensors)
{
    std::mt19937 rng(606);
    ConvCase const cc = simpleCase();
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims(cc.inputDims()), rng);
    HostTensor const w = HostTensor::random(DataType::kFLOAT, makeDims(cc.kernelDims()), rng);
    HostTensor const b = HostTensor::random(DataType::kFLOAT, makeDims({cc.k}), rng);
    std::vector<int64_t> outDims;
    HostTensor const expected
        = expectedTensor(DataType::kFLOAT, outDims, oracleConv(cc, values(x), values(w), values(b), outDims));
    for (bool reference : {false, true})
    {
        for (bool kernelIsInput : {false, true})
        {
            ScopedTactic tactic(reference);
            NetworkRunner r;
            ITensor* in = r.addInput("x", DataType::kFLOAT, cc.inputDims());
            ITensor* kernel = nullptr;
            if (kernelIsInput)
            {
                kernel = r.addInput("w", DataType::kFLOAT, cc.kernelDims()); // weights that change per run
            }
            else
            {
                kernel = r.network()
                             .addConstant(makeDims(cc.kernelDims()), Weights{DataType::kFLOAT, w.data(), w.volume()})
                             ->getOutput(0);
            }
            ITensor* bias = r.network().addConstant(makeDims({cc.k}), Weights{DataType::kFLOAT, b.data(), cc.k})->getOutput(0);
            IConvolutionLayer* conv = r.network().addConvolutionNd(
                *in, cc.k, dimsOf(cc.kernel), Weights{DataType::kFLOAT, nullptr, 0}, Weights{DataType::kFLOAT, nullptr, 0});
            ASSERT_NE(conv, nullptr);
            conv->setInput(1, *kernel);
            conv->setInput(2, *bias);
            conv->setStrideNd(dimsOf(cc.stride));
            conv->setPrePadding(dimsOf(cc.pre));
            conv->setPostPadding(dimsOf(cc.post));
            EXPECT_EQ(conv->getNbInputs(), 3);
            r.markOutput(conv->getOutput(0), "y");
            ASSERT_TRUE(r.build()) << r.logger().allErrors();
            std::map<std::string, HostTensor> inputs{{"x", x}};
            if (kernelIsInput)
            {
                inputs["w"] = w;
            }
            auto out = r.run(inputs);
            EXPECT_TRUE(kiln::test::allClose(out["y"], expected, 1e-4, 1e-4));
        }
    }
}

TEST_P(ConvolutionLayerTest, DynamicShapes)
{
    std::mt19937 rng(707);
    for (bool reference : {false, true})
    {
        ScopedTactic tactic(reference);
        ConvCase cc = simpleCase();
        HostTensor const w = HostTensor::random(DataType::kFLOAT, makeDims(cc.kernelDims()), rng);
        HostTensor const b = HostTensor::random(DataType::kFLOAT, makeDims({cc.k}), rng);
        NetworkRunner r;
        ITensor* in = r.addInput("x", DataType::kFLOAT, {-1, cc.c, -1, -1});
        IConvolutionLayer* conv = r.network().addConvolutionNd(*in, cc.k, dimsOf(cc.kernel),
            Weights{DataType::kFLOAT, w.data(), w.volume()}, Weights{DataType::kFLOAT, b.data(), b.volume()});
        ASSERT_NE(conv, nullptr);
        conv->setStrideNd(dimsOf(cc.stride));
        conv->setPrePadding(dimsOf(cc.pre));
        conv->setPostPadding(dimsOf(cc.post));
        conv->setPaddingMode(PaddingMode::kSAME_UPPER);
        cc.mode = PaddingMode::kSAME_UPPER;
        r.markOutput(conv->getOutput(0), "y");
        r.setProfileDims("x", {1, cc.c, 2, 2}, {2, cc.c, 8, 8}, {3, cc.c, 16, 16});
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        for (auto const& shape : std::vector<std::vector<int64_t>>{{1, 5, 9}, {3, 12, 4}, {2, 5, 9}})
        {
            cc.n = shape[0];
            cc.in = {shape[1], shape[2]};
            HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims(cc.inputDims()), rng);
            std::vector<int64_t> outDims;
            HostTensor const expected
                = expectedTensor(DataType::kFLOAT, outDims, oracleConv(cc, values(x), values(w), values(b), outDims));
            auto out = r.run({{"x", x}});
            EXPECT_TRUE(kiln::test::allClose(out["y"], expected, 1e-4, 1e-4)) << cc.str();
        }
    }
}

TEST_P(ConvolutionLayerTest, SettersAndGetters)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {1, 4, 8, 8});
    std::vector<float> w(8 * 4 * 9, 0.5F);
    IConvolutionLayer* conv
        = r.network().addConvolutionNd(*in, 8, makeDims({3, 3}), Weights{DataType::kFLOAT, w.data(), 288}, Weights{});
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ(conv->getType(), LayerType::kCONVOLUTION);
    EXPECT_EQ(conv->getNbOutputMaps(), 8);
    EXPECT_EQ(conv->getNbGroups(), 1);
    EXPECT_EQ(conv->getPaddingMode(), PaddingMode::kEXPLICIT_ROUND_DOWN);
    EXPECT_EQ(conv->getStrideNd().nbDims, 2);
    EXPECT_EQ(conv->getStrideNd().d[1], 1);
    EXPECT_EQ(conv->getDilationNd().d[0], 1);
    EXPECT_EQ(conv->getPrePadding().d[0], 0);
    EXPECT_EQ(conv->getKernelWeights().count, 288);
    EXPECT_EQ(conv->getBiasWeights().count, 0);
    conv->setPaddingNd(makeDims({2, 1}));
    EXPECT_EQ(conv->getPrePadding().d[0], 2);
    EXPECT_EQ(conv->getPostPadding().d[1], 1);
    conv->setPrePadding(makeDims({0, 3}));
    EXPECT_EQ(conv->getPaddingNd().d[1], 3); // the pre-padding
    conv->setKernelSizeNd(makeDims({1, 1, 1}));
    EXPECT_EQ(conv->getKernelSizeNd().nbDims, 3);
    EXPECT_EQ(conv->getStrideNd().nbDims, 3); // defaults follow the kernel rank
    EXPECT_EQ(conv->getPrePadding().nbDims, 2); // user values are kept (a mismatch fails the build)
    conv->setKernelSizeNd(makeDims({3, 3}));
    conv->setPaddingMode(PaddingMode::kSAME_LOWER);
    EXPECT_EQ(conv->getPaddingMode(), PaddingMode::kSAME_LOWER);
    conv->setNbOutputMaps(4);
    conv->setNbGroups(2);
    EXPECT_EQ(conv->getNbOutputMaps(), 4);
    EXPECT_EQ(conv->getNbGroups(), 2);
    conv->setNbOutputMaps(8);
    conv->setNbGroups(1);
    r.markOutput(conv->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    Dims const out = r.network().getOutput(0)->getDimensions();
    EXPECT_EQ(kiln::test::dimsString(out), kiln::test::dimsString(makeDims({1, 8, 8, 8})));
}

TEST_P(ConvolutionLayerTest, BadArgumentsAreRejected)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {1, 2, 5, 5});
    std::vector<float> w(18, 1.F);
    Weights const kw{DataType::kFLOAT, w.data(), 18};
    EXPECT_EQ(r.network().addConvolutionNd(*in, 0, makeDims({3, 3}), kw, Weights{}), nullptr);
    EXPECT_TRUE(r.logger().hasError("nbOutputMaps")) << r.logger().allErrors();
    r.logger().clear();
    EXPECT_EQ(r.network().addConvolutionNd(*in, 1, makeDims({3}), kw, Weights{}), nullptr);
    EXPECT_TRUE(r.logger().hasError("kernelSize")) << r.logger().allErrors();
    r.logger().clear();
    EXPECT_EQ(r.network().addConvolutionNd(*in, 1, makeDims({3, 0}), kw, Weights{}), nullptr);
    EXPECT_TRUE(r.logger().hasError("kernelSize")) << r.logger().allErrors();
    r.logger().clear();
    EXPECT_EQ(r.network().addConvolutionNd(*in, 1, makeDims({3, 3}), Weights{DataType::kINT32, w.data(), 18}, Weights{}),
        nullptr);
    EXPECT_TRUE(r.logger().hasError("INT32")) << r.logger().allErrors();
    r.logger().clear();

    IConvolutionLayer* conv = r.network().addConvolutionNd(*in, 1, makeDims({3, 3}), kw, Weights{});
    ASSERT_NE(conv, nullptr);
    conv->setName("conv1");
    conv->setStrideNd(makeDims({0, 1}));
    EXPECT_TRUE(r.logger().hasError("conv1")) << r.logger().allErrors();
    EXPECT_EQ(conv->getStrideNd().d[0], 1);
    r.logger().clear();
    conv->setNbGroups(0);
    EXPECT_TRUE(r.logger().hasError("nbGroups")) << r.logger().allErrors();
    EXPECT_EQ(conv->getNbGroups(), 1);
    conv->setPaddingNd(makeDims({-1, 0}));
    EXPECT_EQ(conv->getPaddingNd().d[0], 0);
    conv->setDilationNd(makeDims({1, 1, 1, 1}));
    EXPECT_EQ(conv->getDilationNd().nbDims, 2);
    conv->setPaddingMode(static_cast<PaddingMode>(7));
    EXPECT_EQ(conv->getPaddingMode(), PaddingMode::kEXPLICIT_ROUND_DOWN);
    r.logger().clear();
    conv->setKernelWeights(Weights{DataType::kFLOAT, nullptr, 5});
    EXPECT_TRUE(r.logger().hasError("no values")) << r.logger().allErrors();
    EXPECT_EQ(conv->getKernelWeights().count, 18);
}

//! Build a one-convolution network with `edit` applied and expect the build to fail naming `message`.
void expectBuildFailure(std::vector<int64_t> const& inDims, DataType type, int64_t k, std::vector<int64_t> const& kernel,
    int64_t weightCount, std::function<void(NetworkRunner&, IConvolutionLayer&)> const& edit, std::string const& message,
    uint32_t networkFlags = 0)
{
    NetworkRunner r(networkFlags);
    ITensor* in = r.addInput("x", type, inDims);
    std::vector<float> w(static_cast<size_t>(std::max<int64_t>(weightCount, 1)), 0.25F);
    IConvolutionLayer* conv = r.network().addConvolutionNd(
        *in, k, makeDims(kernel), Weights{DataType::kFLOAT, w.data(), weightCount}, Weights{});
    ASSERT_NE(conv, nullptr) << r.logger().allErrors();
    conv->setName("badConv");
    edit(r, *conv);
    r.markOutput(conv->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError(message)) << "expected '" << message << "' in: " << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("badConv")) << r.logger().allErrors();
}

TEST_P(ConvolutionLayerTest, InvalidNetworksFailToBuild)
{
    auto none = [](NetworkRunner&, IConvolutionLayer&) {};
    expectBuildFailure({1, 2, 5, 5}, DataType::kFLOAT, 3, {3, 3}, 17, none, "kernel weights have count 17");
    expectBuildFailure({2, 5, 5}, DataType::kFLOAT, 3, {3, 3}, 54, none, "rank 3");
    expectBuildFailure({1, 2, 5, 5}, DataType::kINT32, 3, {3, 3}, 54, none, "INT32");
    expectBuildFailure({1, 2, 2, 2}, DataType::kFLOAT, 3, {3, 3}, 54, none, "smaller than the dilated kernel");
    expectBuildFailure({1, 2, 5, 5}, DataType::kFLOAT, 3, {3, 3}, 54,
        [](NetworkRunner&, IConvolutionLayer& c) { c.setNbGroups(2); }, "not divisible by nbGroups");
    expectBuildFailure({1, 2, 5, 5}, DataType::kFLOAT, 3, {3, 3}, 54,
        [](NetworkRunner&, IConvolutionLayer& c) { c.setStrideNd(makeDims({1, 1, 1})); }, "stride");
    expectBuildFailure({1, -1, 5, 5}, DataType::kFLOAT, 3, {3, 3}, 54, none, "build-time constant");
    // K * C/G * kernel volume beyond int64 (found by onnxStructureFuzz under UBSan: a signed overflow).
    expectBuildFailure({1, int64_t{1} << 62, 5, 5}, DataType::kFLOAT, 4, {3, 3}, 54, none,
        "the kernel's element count (4 * 4611686018427387904 * kernel volume 9) overflows 64-bit integers");
    expectBuildFailure({1, 2, 5, 5}, DataType::kFLOAT, 3, {3, 3}, 0, none, "no kernel");
    expectBuildFailure({1, 2, 5, 5}, DataType::kFLOAT, 3, {3, 3}, 54,
        [](NetworkRunner& r, IConvolutionLayer& c) {
            ITensor* w = r.addInput("w", DataType::kFLOAT, {3, 2, 3, 3});
            c.setInput(1, *w);
        },
        "both as weights and as input 1");
    expectBuildFailure({1, 2, 5, 5}, DataType::kFLOAT, 3, {3, 3}, 0,
        [](NetworkRunner& r, IConvolutionLayer& c) {
            ITensor* w = r.addInput("w", DataType::kFLOAT, {3, 2, 2, 3});
            c.setInput(1, *w);
        },
        "dimension 2 of kernel input 1");
    expectBuildFailure({1, 2, 5, 5}, DataType::kHALF, 3, {3, 3}, 0,
        [](NetworkRunner& r, IConvolutionLayer& c) {
            ITensor* w = r.addInput("w", DataType::kFLOAT, {3, 2, 3, 3});
            c.setInput(1, *w);
        },
        "they must match", 1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED));
}

// ---- Kernel-level tests (both tactics on the same kernel code path the engine uses) ----

TEST_P(ConvolutionLayerTest, TacticsListOneDnnForFloat)
{
    KILN_CPU_BACKEND_ONLY("the CPU backend's tactics list");
    ConvCase const cc = simpleCase();
    kiln::PlanNode node;
    node.kind = LayerType::kCONVOLUTION;
    node.name = "conv";
    node.attrs = convAttrs(cc);
    std::vector<float> w(static_cast<size_t>(prod(cc.kernelDims())), 1.F);
    kiln::KernelSetup setup;
    setup.node = &node;
    setup.inputTypes = {DataType::kFLOAT};
    setup.inputPresent = {true};
    setup.inputRanks = {4};
    setup.outputTypes = {DataType::kFLOAT};
    setup.outputRanks = {4};
    setup.weights = {kiln::WeightsView{w.data(), DataType::kFLOAT, static_cast<int64_t>(w.size())}, kiln::WeightsView{}};
    std::vector<std::string> const tactics = kiln::convolutionTactics(setup);
    if (kiln::oneDnnBuilt())
    {
        EXPECT_EQ(tactics, (std::vector<std::string>{"onednn", "reference"}));
    }
    else
    {
        EXPECT_EQ(tactics, std::vector<std::string>{"reference"});
    }
    setup.outputTypes = {DataType::kHALF}; // mixed input/output types: reference only
    EXPECT_EQ(kiln::convolutionTactics(setup), std::vector<std::string>{"reference"});
    node.tactic = "fastest";
    auto bad = kiln::createConvolutionKernel(setup);
    EXPECT_FALSE(bad.isOk());
    EXPECT_NE(bad.status().message().find("unknown CPU tactic"), std::string::npos);
}

TEST_P(ConvolutionLayerTest, KernelsRandomSweep)
{
    KILN_CPU_BACKEND_ONLY("the CPU backend's kernels, called directly");
    std::mt19937 rng(808);
    for (PaddingMode mode : {PaddingMode::kEXPLICIT_ROUND_DOWN, PaddingMode::kEXPLICIT_ROUND_UP,
             PaddingMode::kSAME_UPPER, PaddingMode::kSAME_LOWER})
    {
        for (int i = 0; i < 6; ++i)
        {
            checkKernels(randomCase(rng, 2, mode), DataType::kFLOAT, rng);
        }
        for (int i = 0; i < 2; ++i)
        {
            checkKernels(randomCase(rng, 3, mode), DataType::kFLOAT, rng);
        }
    }
}

TEST_P(ConvolutionLayerTest, KernelsUnreadTailAndRoundUp)
{
    KILN_CPU_BACKEND_ONLY("the CPU backend's kernels, called directly");
    std::mt19937 rng(909);
    ConvCase cc;
    cc.n = 2;
    cc.c = 8;
    cc.k = 16;
    cc.in = {10, 10};
    cc.kernel = {1, 1};
    cc.stride = {2, 2}; // 1x1 stride 2 on an even input: the last row/column is never read
    cc.dilation = {1, 1};
    cc.pre = {0, 0};
    cc.post = {0, 0};
    checkKernels(cc, DataType::kFLOAT, rng);
    cc.kernel = {3, 3};
    cc.in = {9, 8};
    cc.mode = PaddingMode::kEXPLICIT_ROUND_UP; // windows run past the post-padding
    checkKernels(cc, DataType::kFLOAT, rng);
    cc.pre = {3, 4}; // padding larger than the kernel: some outputs see only padding
    cc.post = {4, 3};
    cc.mode = PaddingMode::kEXPLICIT_ROUND_DOWN;
    checkKernels(cc, DataType::kFLOAT, rng);
}

TEST_P(ConvolutionLayerTest, KernelsWithTensorInputsAndTypes)
{
    KILN_CPU_BACKEND_ONLY("the CPU backend's kernels, called directly");
    std::mt19937 rng(1010);
    checkKernels(simpleCase(), DataType::kFLOAT, rng, true);
    ConvCase cc = simpleCase();
    cc.bias = false;
    checkKernels(cc, DataType::kFLOAT, rng, true);
    checkKernels(simpleCase(), DataType::kBF16, rng);
    checkKernels(simpleCase(), DataType::kHALF, rng);
    checkKernels(simpleCase(), DataType::kBF16, rng, true);
}

TEST_P(ConvolutionLayerTest, KernelRejectsInconsistentShapes)
{
    KILN_CPU_BACKEND_ONLY("the CPU backend's kernels, called directly");
    ConvCase const cc = simpleCase();
    for (char const* tactic : {"onednn", "reference"})
    {
        kiln::PlanNode node;
        node.kind = LayerType::kCONVOLUTION;
        node.name = "conv";
        node.attrs = convAttrs(cc);
        node.tactic = tactic;
        std::vector<float> w(static_cast<size_t>(prod(cc.kernelDims())), 1.F);
        kiln::KernelSetup setup;
        setup.node = &node;
        setup.inputTypes = {DataType::kFLOAT};
        setup.inputPresent = {true};
        setup.inputRanks = {4};
        setup.outputTypes = {DataType::kFLOAT};
        setup.outputRanks = {4};
        setup.weights = {kiln::WeightsView{w.data(), DataType::kFLOAT, static_cast<int64_t>(w.size())}, kiln::WeightsView{}};
        auto kernel = kiln::createConvolutionKernel(setup);
        ASSERT_TRUE(kernel.isOk());
        std::vector<float> x(2 * 3 * 7 * 6, 1.F);
        std::vector<float> y(1000, 0.F);
        // Output extent 9 instead of the 7 the padding gives.
        kiln::Status st = kiln::test::reshapeAndRun(*kernel.value(), 
            {{x.data(), DataType::kFLOAT, makeDims({2, 3, 7, 6})}}, {{y.data(), DataType::kFLOAT, makeDims({2, 4, 9, 3})}});
        EXPECT_FALSE(st.isOk());
        // Channels that do not match the weights.
        st = kiln::test::reshapeAndRun(*kernel.value(), 
            {{x.data(), DataType::kFLOAT, makeDims({2, 2, 7, 6})}}, {{y.data(), DataType::kFLOAT, makeDims({2, 4, 7, 3})}});
        EXPECT_FALSE(st.isOk());
        // A corrupt plan: missing attribute.
        node.attrs.erase("stride");
        EXPECT_FALSE(kiln::createConvolutionKernel(setup).isOk());
    }
}

} // namespace
