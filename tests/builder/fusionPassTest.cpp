// fusionPass on the CPU backend (KILN_FUSE=1): each network is built once with the pass off (KILN_FUSE=0) and once
// with it on, both engines run the same random inputs, the outputs agree within FP32 (or FP16) tolerance, and the
// fused engine has fewer layers whose names (engine inspector) are the fused layers' names joined with " + ".
// Negative cases keep their layers: an intermediate used twice, an intermediate that is a network output or a debug
// tensor, an addition that would grow the product's output, integer chains, a broadcast second addition (not a
// residual), a residual after a convolution.
#include "common/networkRunner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>

namespace kiln::test
{
namespace
{
using namespace nvinfer1;

//! Sets KILN_FUSE for the scope (nullptr: unsets it, the backend's default) and restores the previous value.
class ScopedFuseEnv
{
public:
    explicit ScopedFuseEnv(char const* value)
    {
        if (char const* old = std::getenv("KILN_FUSE"))
        {
            mOld = old;
        }
        if (value != nullptr)
        {
            ::setenv("KILN_FUSE", value, 1);
        }
        else
        {
            ::unsetenv("KILN_FUSE");
        }
    }
    ~ScopedFuseEnv()
    {
        if (mOld)
        {
            ::setenv("KILN_FUSE", mOld->c_str(), 1);
        }
        else
        {
            ::unsetenv("KILN_FUSE");
        }
    }
    ScopedFuseEnv(ScopedFuseEnv const&) = delete;
    ScopedFuseEnv& operator=(ScopedFuseEnv const&) = delete;

private:
    std::optional<std::string> mOld;
};

//! Host weights that outlive the build.
struct WeightStore
{
    std::vector<std::unique_ptr<HostTensor>> tensors;
    Weights add(DataType t, std::vector<int64_t> const& dims, std::mt19937& rng, double lo = -1.0, double hi = 1.0)
    {
        tensors.push_back(std::make_unique<HostTensor>(HostTensor::random(t, makeDims(dims), rng, lo, hi)));
        return Weights{t, tensors.back()->data(), tensors.back()->volume()};
    }
    Weights scalar(DataType t, double v, int32_t rank)
    {
        tensors.push_back(std::make_unique<HostTensor>(HostTensor::fromValues(t, makeDims(std::vector<int64_t>(
            static_cast<size_t>(rank), 1)), {v})));
        return Weights{t, tensors.back()->data(), 1};
    }
};

ITensor* constant(INetworkDefinition& net, Weights w, std::vector<int64_t> const& dims, char const* name)
{
    auto* l = net.addConstant(makeDims(dims), w);
    l->setName(name);
    return l->getOutput(0);
}

using NetworkFn = std::function<void(NetworkRunner&)>;

struct BuiltRun
{
    std::map<std::string, HostTensor> outputs;
    std::vector<std::string> layers; //!< names as the engine inspector shows them (kLAYER_NAMES_ONLY)
};

//! Builds `fn` with KILN_FUSE=`fuse` (nullptr: unset) and runs it on `inputs`.
BuiltRun buildAndRun(NetworkFn const& fn, char const* fuse, std::map<std::string, HostTensor> const& inputs)
{
    ScopedFuseEnv env(fuse);
    BuiltRun result;
    NetworkRunner r;
    fn(r);
    r.config().setProfilingVerbosity(ProfilingVerbosity::kLAYER_NAMES_ONLY);
    if (!r.build())
    {
        ADD_FAILURE() << "build with KILN_FUSE=" << (fuse != nullptr ? fuse : "(unset)")
                      << " failed: " << r.logger().allErrors();
        return result;
    }
    result.outputs = r.run(inputs);
    std::unique_ptr<IEngineInspector> inspector(r.engine().createEngineInspector());
    EXPECT_NE(inspector, nullptr);
    int32_t const n = r.engine().getNbLayers();
    for (int32_t i = 0; inspector != nullptr && i < n; ++i)
    {
        char const* text = inspector->getLayerInformation(i, LayerInformationFormat::kONELINE);
        result.layers.push_back(text != nullptr ? text : "");
    }
    return result;
}

bool hasLayer(BuiltRun const& run, std::string const& name)
{
    return std::find(run.layers.begin(), run.layers.end(), name) != run.layers.end();
}

std::string layerList(BuiltRun const& run)
{
    std::string s;
    for (auto const& l : run.layers)
    {
        s += "[" + l + "] ";
    }
    return s;
}

//! Builds unfused and fused (KILN_FUSE=`fuse`; nullptr: the backend's default), checks the outputs agree and
//! returns both runs.
std::pair<BuiltRun, BuiltRun> compareFused(NetworkFn const& fn, std::map<std::string, HostTensor> const& inputs,
    double atol = 1e-5, double rtol = 1e-5, char const* fuse = "1")
{
    BuiltRun plain = buildAndRun(fn, "0", inputs);
    BuiltRun fused = buildAndRun(fn, fuse, inputs);
    EXPECT_EQ(plain.outputs.size(), fused.outputs.size());
    for (auto const& [name, expected] : plain.outputs)
    {
        auto it = fused.outputs.find(name);
        if (it == fused.outputs.end())
        {
            ADD_FAILURE() << "fused engine lacks output " << name;
            continue;
        }
        EXPECT_TRUE(allClose(it->second, expected, atol, rtol)) << "output " << name;
    }
    return {std::move(plain), std::move(fused)};
}

//! A 3x3 convolution "conv" of x (padding 1, `k` maps, no bias of its own), then + the constant `bias` [1, k, 1, 1]
//! ("bias"); returns the sum.
ITensor* convPlusBias(NetworkRunner& r, ITensor* x, int32_t k, Weights kernel, Weights bias)
{
    auto& n = r.network();
    auto* conv = n.addConvolutionNd(*x, k, makeDims({3, 3}), kernel, Weights{DataType::kFLOAT, nullptr, 0});
    conv->setName("conv");
    conv->setPaddingNd(makeDims({1, 1}));
    auto* add = n.addElementWise(*conv->getOutput(0), *constant(n, bias, {1, k, 1, 1}, "b"), ElementWiseOperation::kSUM);
    add->setName("bias");
    return add->getOutput(0);
}

TEST(FusionPass, ConvBiasRelu)
{
    std::mt19937 rng(11);
    WeightStore w;
    Weights const kernel = w.add(DataType::kFLOAT, {6, 3, 3, 3}, rng, -0.5, 0.5);
    Weights const bias = w.add(DataType::kFLOAT, {1, 6, 1, 1}, rng);
    auto const net = [&](NetworkRunner& r) {
        auto& n = r.network();
        auto* x = r.addInput("x", DataType::kFLOAT, {2, 3, 9, 9});
        ITensor* sum = convPlusBias(r, x, 6, kernel, bias);
        auto* relu = n.addActivation(*sum, ActivationType::kRELU);
        relu->setName("relu");
        r.markOutput(relu->getOutput(0), "y");
    };
    std::map<std::string, HostTensor> const inputs{{"x", HostTensor::random(DataType::kFLOAT, makeDims({2, 3, 9, 9}), rng)}};
    auto const [plain, fused] = compareFused(net, inputs);
    EXPECT_EQ(plain.layers.size(), 3U) << layerList(plain);
    ASSERT_EQ(fused.layers.size(), 1U) << layerList(fused);
    EXPECT_EQ(fused.layers[0], "conv + bias + relu");
}

//! conv (with bias) + residual (the conv's input) + leaky ReLU, fused with KILN_FUSE=`fuse`.
void convResidualRelu(char const* fuse)
{
    std::mt19937 rng(12);
    WeightStore w;
    Weights const kernel = w.add(DataType::kFLOAT, {4, 4, 3, 3}, rng, -0.4, 0.4);
    Weights const convBias = w.add(DataType::kFLOAT, {4}, rng);
    auto const net = [&](NetworkRunner& r) {
        auto& n = r.network();
        auto* x = r.addInput("x", DataType::kFLOAT, {1, 4, 7, 7});
        auto* conv = n.addConvolutionNd(*x, 4, makeDims({3, 3}), kernel, convBias);
        conv->setName("conv");
        conv->setPaddingNd(makeDims({1, 1}));
        auto* add = n.addElementWise(*x, *conv->getOutput(0), ElementWiseOperation::kSUM); // residual first
        add->setName("residual");
        auto* relu = n.addActivation(*add->getOutput(0), ActivationType::kLEAKY_RELU);
        relu->setAlpha(0.125F);
        relu->setName("lrelu");
        r.markOutput(relu->getOutput(0), "y");
    };
    std::map<std::string, HostTensor> const inputs{{"x", HostTensor::random(DataType::kFLOAT, makeDims({1, 4, 7, 7}), rng)}};
    auto const [plain, fused] = compareFused(net, inputs, 1e-5, 1e-5, fuse);
    EXPECT_EQ(plain.layers.size(), 3U) << layerList(plain);
    ASSERT_EQ(fused.layers.size(), 1U) << layerList(fused);
    EXPECT_EQ(fused.layers[0], "conv + residual + lrelu");
}

TEST(FusionPass, ConvResidualRelu)
{
    convResidualRelu("1");
}

//! The CPU backend lists the epilogue fusion: without KILN_FUSE, a convolution's residual and activation fuse (and
//! run as oneDNN post-ops), with the unfused engine's outputs.
TEST(FusionPass, EpiloguesOnByDefaultOnTheCpuBackend)
{
    convResidualRelu(nullptr);
}

//! Checks y = GELU(x W + b) for x [2, 5, 8], W [8, 6], b [6], against a double-precision computation here (the erf
//! form, or the tanh form with `tanhForm`).
void expectGeluOfLinear(HostTensor const& y, HostTensor const& x, HostTensor const& wt, HostTensor const& bt,
    std::string const& label, bool tanhForm = false)
{
    for (int64_t i = 0; i < y.volume(); ++i)
    {
        int64_t const col = i % 6;
        int64_t const row = i / 6; // over the 2 x 5 rows
        double h = bt.at(col);
        for (int64_t k = 0; k < 8; ++k)
        {
            h += x.at(row * 8 + k) * wt.at(k * 6 + col);
        }
        double const g = tanhForm
            ? 0.5 * h * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (h + 0.044715 * h * h * h)))
            : 0.5 * h * (1.0 + std::erf(h / std::sqrt(2.0)));
        EXPECT_NEAR(y.at(i), g, 1e-5 + 1e-5 * std::fabs(g)) << label << "element " << i;
    }
}

//! Input x [2, 5, 8], then x W + b (layers "mm" and "bias"); returns the sum.
ITensor* linearBias(NetworkRunner& r, Weights weight, Weights bias)
{
    auto& n = r.network();
    auto* x = r.addInput("x", DataType::kFLOAT, {2, 5, 8});
    auto* mm = n.addMatrixMultiply(*x, MatrixOperation::kNONE, *constant(n, weight, {1, 8, 6}, "W"),
        MatrixOperation::kNONE);
    mm->setName("mm");
    auto* add = n.addElementWise(*mm->getOutput(0), *constant(n, bias, {1, 1, 6}, "B"), ElementWiseOperation::kSUM);
    add->setName("bias");
    return add->getOutput(0);
}

//! BERT's feed-forward start: x W + b, then the erf-GELU written out as layers.
void matmulBiasGelu(NetworkRunner& r, WeightStore& w, std::mt19937& rng, Weights& weight, Weights& bias)
{
    auto& n = r.network();
    ITensor* h = linearBias(r, weight, bias);
    auto* half = n.addElementWise(*h, *constant(n, w.scalar(DataType::kFLOAT, 0.5, 3), {1, 1, 1}, "c0.5"),
        ElementWiseOperation::kPROD);
    half->setName("half");
    auto* scaled = n.addElementWise(*h, *constant(n, w.scalar(DataType::kFLOAT, std::sqrt(2.0), 3), {1, 1, 1},
        "csqrt2"), ElementWiseOperation::kDIV);
    scaled->setName("div");
    auto* erf = n.addUnary(*scaled->getOutput(0), UnaryOperation::kERF);
    erf->setName("erf");
    auto* one = n.addElementWise(*erf->getOutput(0), *constant(n, w.scalar(DataType::kFLOAT, 1.0, 3), {1, 1, 1}, "c1"),
        ElementWiseOperation::kSUM);
    one->setName("plus1");
    auto* gelu = n.addElementWise(*half->getOutput(0), *one->getOutput(0), ElementWiseOperation::kPROD);
    gelu->setName("gelu");
    r.markOutput(gelu->getOutput(0), "y");
    (void) rng;
}

TEST(FusionPass, MatmulBiasGeluChain)
{
    std::mt19937 rng(13);
    WeightStore w;
    Weights weight = w.add(DataType::kFLOAT, {1, 8, 6}, rng);
    Weights bias = w.add(DataType::kFLOAT, {1, 1, 6}, rng);
    auto const net = [&](NetworkRunner& r) { matmulBiasGelu(r, w, rng, weight, bias); };
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, 5, 8}), rng);
    auto const [plain, fused] = compareFused(net, {{"x", x}});
    EXPECT_EQ(plain.layers.size(), 7U) << layerList(plain);
    // The GELU rewrite makes the chain one kGELU_ERF activation, which the epilogue then takes.
    ASSERT_EQ(fused.layers.size(), 1U) << layerList(fused);
    EXPECT_EQ(fused.layers[0], "mm + bias + half + div + erf + plus1 + gelu");
    expectGeluOfLinear(fused.outputs.at("y"), x, *w.tensors[0], *w.tensors[1], "");
}

//! x W + b, then GELU written in one of its exported forms: 0 (x·0.5)·(1+erf(x/√2)), 1 (x·(1+erf(x·(1/√2))))·0.5,
//! 2 x·((1+erf(x/√2))·0.5); `half` is the constant used for 0.5 (anything else must stay unfused).
NetworkFn geluNetwork(int32_t form, double half, WeightStore& w, Weights weight, Weights bias)
{
    return [=, &w](NetworkRunner& r) {
        auto& n = r.network();
        auto const scalar = [&](double v, char const* name) {
            return constant(n, w.scalar(DataType::kFLOAT, v, 3), {1, 1, 1}, name);
        };
        ITensor* h = linearBias(r, weight, bias);
        ILayer* scaled = form == 1
            ? n.addElementWise(*scalar(std::sqrt(0.5), "c"), *h, ElementWiseOperation::kPROD)
            : n.addElementWise(*h, *scalar(std::sqrt(2.0), "c"), ElementWiseOperation::kDIV);
        auto* erf = n.addUnary(*scaled->getOutput(0), UnaryOperation::kERF);
        auto* onePlus = n.addElementWise(*scalar(1.0, "one"), *erf->getOutput(0), ElementWiseOperation::kSUM);
        ITensor* p = onePlus->getOutput(0);
        ITensor* y = nullptr;
        if (form == 0)
        {
            auto* hh = n.addElementWise(*h, *scalar(half, "half"), ElementWiseOperation::kPROD);
            y = n.addElementWise(*hh->getOutput(0), *p, ElementWiseOperation::kPROD)->getOutput(0);
        }
        else if (form == 1)
        {
            auto* xp = n.addElementWise(*h, *p, ElementWiseOperation::kPROD);
            y = n.addElementWise(*xp->getOutput(0), *scalar(half, "half"), ElementWiseOperation::kPROD)->getOutput(0);
        }
        else
        {
            auto* ph = n.addElementWise(*p, *scalar(half, "half"), ElementWiseOperation::kPROD);
            y = n.addElementWise(*h, *ph->getOutput(0), ElementWiseOperation::kPROD)->getOutput(0);
        }
        r.markOutput(y, "y");
    };
}

TEST(FusionPass, GeluFormsFuseIntoTheMatmulByDefaultOnTheCpuBackend)
{
    for (int32_t form = 0; form < 3; ++form)
    {
        std::mt19937 rng(40 + form);
        WeightStore w;
        Weights const weight = w.add(DataType::kFLOAT, {1, 8, 6}, rng);
        Weights const bias = w.add(DataType::kFLOAT, {1, 1, 6}, rng);
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, 5, 8}), rng, -2.0, 2.0);
        auto const [plain, fused]
            = compareFused(geluNetwork(form, 0.5, w, weight, bias), {{"x", x}}, 1e-5, 1e-5, nullptr);
        EXPECT_EQ(plain.layers.size(), 7U) << "form " << form << ": " << layerList(plain);
        ASSERT_EQ(fused.layers.size(), 1U) << "form " << form << ": " << layerList(fused);
        EXPECT_EQ(fused.layers[0].rfind("mm + bias + ", 0), 0U) << fused.layers[0];
        expectGeluOfLinear(
            fused.outputs.at("y"), x, *w.tensors[0], *w.tensors[1], "form " + std::to_string(form) + ", ");
    }
}

//! x W + b, then GPT-2's gelu_new written out: 0.5·h·(1 + tanh(√(2/π)·(h + 0.044715·h³))), with h³ as Pow(h, 3)
//! (`cubeByPow`) or (h·h)·h, the sum's operands in either order (`swapSum`); `cubic` is the constant used for 0.044715.
NetworkFn tanhGeluNetwork(bool cubeByPow, bool swapSum, double cubic, WeightStore& w, Weights weight, Weights bias)
{
    return [=, &w](NetworkRunner& r) {
        auto& n = r.network();
        auto const scalar = [&](double v, char const* name) {
            return constant(n, w.scalar(DataType::kFLOAT, v, 3), {1, 1, 1}, name);
        };
        ITensor* h = linearBias(r, weight, bias);
        ITensor* cube = cubeByPow
            ? n.addElementWise(*h, *scalar(3.0, "three"), ElementWiseOperation::kPOW)->getOutput(0)
            : n.addElementWise(*n.addElementWise(*h, *h, ElementWiseOperation::kPROD)->getOutput(0), *h,
                   ElementWiseOperation::kPROD)
                  ->getOutput(0);
        ITensor* scaledCube = n.addElementWise(*scalar(cubic, "c"), *cube, ElementWiseOperation::kPROD)->getOutput(0);
        ITensor* inner = swapSum ? n.addElementWise(*scaledCube, *h, ElementWiseOperation::kSUM)->getOutput(0)
                                 : n.addElementWise(*h, *scaledCube, ElementWiseOperation::kSUM)->getOutput(0);
        ITensor* arg = n.addElementWise(*inner, *scalar(std::sqrt(2.0 / M_PI), "k"), ElementWiseOperation::kPROD)
                           ->getOutput(0);
        auto* tanh = n.addActivation(*arg, ActivationType::kTANH);
        auto* onePlus = n.addElementWise(*tanh->getOutput(0), *scalar(1.0, "one"), ElementWiseOperation::kSUM);
        auto* hh = n.addElementWise(*scalar(0.5, "half"), *h, ElementWiseOperation::kPROD);
        r.markOutput(n.addElementWise(*hh->getOutput(0), *onePlus->getOutput(0), ElementWiseOperation::kPROD)
                         ->getOutput(0),
            "y");
    };
}

TEST(FusionPass, TanhGeluFormsFuseIntoTheMatmul)
{
    for (int32_t form = 0; form < 4; ++form)
    {
        bool const byPow = form % 2 == 0;
        bool const swap = form >= 2;
        std::mt19937 rng(50 + form);
        WeightStore w;
        Weights const weight = w.add(DataType::kFLOAT, {1, 8, 6}, rng);
        Weights const bias = w.add(DataType::kFLOAT, {1, 1, 6}, rng);
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, 5, 8}), rng, -2.0, 2.0);
        auto const [plain, fused]
            = compareFused(tanhGeluNetwork(byPow, swap, 0.044715, w, weight, bias), {{"x", x}}, 1e-5, 1e-5, nullptr);
        std::string const label = "form " + std::to_string(form) + ": ";
        EXPECT_EQ(plain.layers.size(), byPow ? 10U : 11U) << label << layerList(plain);
        ASSERT_EQ(fused.layers.size(), 1U) << label << layerList(fused);
        EXPECT_EQ(fused.layers[0].rfind("mm + bias + ", 0), 0U) << fused.layers[0];
        expectGeluOfLinear(fused.outputs.at("y"), x, *w.tensors[0], *w.tensors[1], label, true);
    }
    // A wrong cubic coefficient is not GELU: only the bias add joins the matrix multiply.
    std::mt19937 rng(55);
    WeightStore w;
    Weights const weight = w.add(DataType::kFLOAT, {1, 8, 6}, rng);
    Weights const bias = w.add(DataType::kFLOAT, {1, 1, 6}, rng);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, 5, 8}), rng);
    auto const [plain, fused]
        = compareFused(tanhGeluNetwork(true, false, 0.05, w, weight, bias), {{"x", x}}, 1e-5, 1e-5, nullptr);
    EXPECT_EQ(fused.layers.size(), plain.layers.size() - 1) << layerList(fused);
}

//! GPT-2's feed-forward start: x [2, 5, 8] reshaped to [10, 8], x W + b, reshaped back to [2, 5, 6], then `act`.
NetworkFn reshapedLinearActivation(ActivationType act, WeightStore& w, Weights weight, Weights bias)
{
    return [=, &w](NetworkRunner& r) {
        auto& n = r.network();
        auto* x = r.addInput("x", DataType::kFLOAT, {2, 5, 8});
        auto* flat = n.addShuffle(*x);
        flat->setReshapeDimensions(Dims2{10, 8});
        flat->setName("flatten");
        auto* mm = n.addMatrixMultiply(*flat->getOutput(0), MatrixOperation::kNONE, *constant(n, weight, {8, 6}, "W"),
            MatrixOperation::kNONE);
        mm->setName("mm");
        auto* add = n.addElementWise(*mm->getOutput(0), *constant(n, bias, {1, 6}, "B"), ElementWiseOperation::kSUM);
        add->setName("bias");
        auto* back = n.addShuffle(*add->getOutput(0));
        back->setReshapeDimensions(Dims3{2, 5, 6});
        back->setName("unflatten");
        auto* a = n.addActivation(*back->getOutput(0), act);
        a->setName("act");
        r.markOutput(a->getOutput(0), "y");
    };
}

TEST(FusionPass, ActivationAfterAReshapeJoinsTheMatmul)
{
    for (ActivationType act : {ActivationType::kRELU, ActivationType::kGELU_TANH})
    {
        std::mt19937 rng(60 + static_cast<int32_t>(act));
        WeightStore w;
        Weights const weight = w.add(DataType::kFLOAT, {8, 6}, rng);
        Weights const bias = w.add(DataType::kFLOAT, {1, 6}, rng);
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, 5, 8}), rng, -2.0, 2.0);
        auto const [plain, fused]
            = compareFused(reshapedLinearActivation(act, w, weight, bias), {{"x", x}}, 1e-5, 1e-5, nullptr);
        // flatten, mm, bias, unflatten, act -> flatten, "mm + bias + act", unflatten (the reshapes move no data).
        EXPECT_EQ(plain.layers.size(), 5U) << layerList(plain);
        ASSERT_EQ(fused.layers.size(), 3U) << layerList(fused);
        EXPECT_TRUE(hasLayer(fused, "mm + bias + act")) << layerList(fused);
    }
}

TEST(FusionPass, NotAGeluStaysUnfused)
{
    std::mt19937 rng(45);
    WeightStore w;
    Weights const weight = w.add(DataType::kFLOAT, {1, 8, 6}, rng);
    Weights const bias = w.add(DataType::kFLOAT, {1, 1, 6}, rng);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, 5, 8}), rng);
    // 0.6 instead of 0.5: only the bias add joins the matrix multiply.
    auto const [plain, fused] = compareFused(geluNetwork(0, 0.6, w, weight, bias), {{"x", x}}, 1e-5, 1e-5, nullptr);
    EXPECT_EQ(fused.layers.size(), plain.layers.size() - 1) << layerList(fused);
    EXPECT_TRUE(hasLayer(fused, "mm + bias")) << layerList(fused);
}

TEST(FusionPass, MatmulBiasRelu)
{
    std::mt19937 rng(14);
    WeightStore w;
    Weights const bias = w.add(DataType::kFLOAT, {1, 1, 7}, rng);
    auto const net = [&](NetworkRunner& r) {
        auto& n = r.network();
        auto* a = r.addInput("a", DataType::kFLOAT, {3, 4, 5});
        auto* b = r.addInput("b", DataType::kFLOAT, {3, 7, 5});
        auto* mm = n.addMatrixMultiply(*a, MatrixOperation::kNONE, *b, MatrixOperation::kTRANSPOSE);
        mm->setName("mm");
        auto* add = n.addElementWise(*constant(n, bias, {1, 1, 7}, "B"), *mm->getOutput(0), ElementWiseOperation::kSUM);
        add->setName("bias");
        auto* relu = n.addActivation(*add->getOutput(0), ActivationType::kRELU);
        relu->setName("relu");
        r.markOutput(relu->getOutput(0), "y");
    };
    std::map<std::string, HostTensor> const inputs{{"a", HostTensor::random(DataType::kFLOAT, makeDims({3, 4, 5}), rng)},
        {"b", HostTensor::random(DataType::kFLOAT, makeDims({3, 7, 5}), rng)}};
    auto const [plain, fused] = compareFused(net, inputs);
    EXPECT_EQ(plain.layers.size(), 3U);
    ASSERT_EQ(fused.layers.size(), 1U) << layerList(fused);
    EXPECT_EQ(fused.layers[0], "mm + bias + relu");
}

//! a + b (broadcast), tanh, * a, abs, max with a scalar constant: one program; FP32, and FP16 (rounded intermediates,
//! compared bit for bit with the unfused engine).
void pointwiseChain(DataType t)
{
    std::mt19937 rng(15);
    WeightStore w;
    Weights const quarter = w.scalar(t, 0.25, 3);
    auto const net = [&](NetworkRunner& r) {
        auto& n = r.network();
        auto* a = r.addInput("a", t, {2, 3, 4});
        auto* b = r.addInput("b", t, {1, 3, 1});
        auto* s = n.addElementWise(*a, *b, ElementWiseOperation::kSUM);
        s->setName("add");
        auto* th = n.addActivation(*s->getOutput(0), ActivationType::kTANH);
        th->setName("tanh");
        auto* m = n.addElementWise(*th->getOutput(0), *a, ElementWiseOperation::kPROD);
        m->setName("mul");
        auto* ab = n.addUnary(*m->getOutput(0), UnaryOperation::kABS);
        ab->setName("abs");
        auto* mx = n.addElementWise(*ab->getOutput(0), *constant(n, quarter, {1, 1, 1}, "q"), ElementWiseOperation::kMAX);
        mx->setName("max");
        r.markOutput(mx->getOutput(0), "y");
    };
    HostTensor const a = HostTensor::random(t, makeDims({2, 3, 4}), rng, -2.0, 2.0);
    HostTensor const b = HostTensor::random(t, makeDims({1, 3, 1}), rng, -2.0, 2.0);
    // FP16: the program rounds its intermediates where the unfused layers store them, so the bits must agree.
    double const tol = t == DataType::kFLOAT ? 1e-6 : 0.0;
    auto const [plain, fused] = compareFused(net, {{"a", a}, {"b", b}}, tol, tol);
    EXPECT_EQ(plain.layers.size(), 5U) << layerList(plain);
    ASSERT_EQ(fused.layers.size(), 1U) << layerList(fused);
    EXPECT_EQ(fused.layers[0], "add + tanh + mul + abs + max");
    if (t == DataType::kFLOAT)
    {
        auto const& y = fused.outputs.at("y");
        for (int64_t i = 0; i < y.volume(); ++i)
        {
            double const av = a.at(i);
            double const e = std::max(std::fabs(std::tanh(av + b.at((i / 4) % 3)) * av), 0.25);
            EXPECT_NEAR(y.at(i), e, 1e-6) << "element " << i;
        }
    }
}

TEST(FusionPass, PointwiseChainFloat)
{
    pointwiseChain(DataType::kFLOAT);
}

TEST(FusionPass, PointwiseChainHalfRoundsIntermediates)
{
    pointwiseChain(DataType::kHALF);
}

// ---------------------------------------------------------------------------------------------------------------
// Negative cases
// ---------------------------------------------------------------------------------------------------------------

TEST(FusionPass, IntermediateUsedTwiceStaysUnfused)
{
    std::mt19937 rng(16);
    auto const net = [&](NetworkRunner& r) {
        auto& n = r.network();
        auto* a = r.addInput("a", DataType::kFLOAT, {4, 6});
        auto* b = r.addInput("b", DataType::kFLOAT, {6, 5});
        auto* mm = n.addMatrixMultiply(*a, MatrixOperation::kNONE, *b, MatrixOperation::kNONE);
        mm->setName("mm");
        auto* relu = n.addActivation(*mm->getOutput(0), ActivationType::kRELU);
        relu->setName("relu");
        auto* add = n.addElementWise(*mm->getOutput(0), *relu->getOutput(0), ElementWiseOperation::kSUM);
        add->setName("sum");
        r.markOutput(add->getOutput(0), "y");
    };
    std::map<std::string, HostTensor> const inputs{{"a", HostTensor::random(DataType::kFLOAT, makeDims({4, 6}), rng)},
        {"b", HostTensor::random(DataType::kFLOAT, makeDims({6, 5}), rng)}};
    auto const [plain, fused] = compareFused(net, inputs);
    EXPECT_EQ(plain.layers.size(), 3U);
    // The product feeds two layers: no epilogue; the relu + sum chain still becomes one program.
    ASSERT_EQ(fused.layers.size(), 2U) << layerList(fused);
    EXPECT_TRUE(hasLayer(fused, "mm")) << layerList(fused);
    EXPECT_TRUE(hasLayer(fused, "relu + sum")) << layerList(fused);
}

TEST(FusionPass, IntermediateOutputStopsTheFusion)
{
    std::mt19937 rng(17);
    WeightStore w;
    Weights const kernel = w.add(DataType::kFLOAT, {2, 3, 1, 1}, rng);
    Weights const bias = w.add(DataType::kFLOAT, {1, 2, 1, 1}, rng);
    auto const net = [&](NetworkRunner& r) {
        auto& n = r.network();
        auto* x = r.addInput("x", DataType::kFLOAT, {1, 3, 4, 4});
        auto* conv = n.addConvolutionNd(*x, 2, makeDims({1, 1}), kernel, Weights{DataType::kFLOAT, nullptr, 0});
        conv->setName("conv");
        auto* add = n.addElementWise(*conv->getOutput(0), *constant(n, bias, {1, 2, 1, 1}, "b"), ElementWiseOperation::kSUM);
        add->setName("bias");
        auto* sig = n.addActivation(*add->getOutput(0), ActivationType::kSIGMOID);
        sig->setName("sigmoid");
        r.markOutput(add->getOutput(0), "pre");
        r.markOutput(sig->getOutput(0), "y");
    };
    std::map<std::string, HostTensor> const inputs{{"x", HostTensor::random(DataType::kFLOAT, makeDims({1, 3, 4, 4}), rng)}};
    auto const [plain, fused] = compareFused(net, inputs);
    ASSERT_EQ(fused.layers.size(), 2U) << layerList(fused);
    EXPECT_TRUE(hasLayer(fused, "conv + bias")) << layerList(fused);
    EXPECT_TRUE(hasLayer(fused, "sigmoid")) << layerList(fused);
}

TEST(FusionPass, DebugTensorStopsTheFusion)
{
    std::mt19937 rng(18);
    auto const net = [&](NetworkRunner& r) {
        auto& n = r.network();
        auto* a = r.addInput("a", DataType::kFLOAT, {3, 5});
        auto* neg = n.addUnary(*a, UnaryOperation::kNEG);
        neg->setName("neg");
        auto* ex = n.addUnary(*neg->getOutput(0), UnaryOperation::kEXP);
        ex->setName("exp");
        auto* sg = n.addActivation(*ex->getOutput(0), ActivationType::kSOFTSIGN);
        sg->setName("softsign");
        n.markDebug(*neg->getOutput(0));
        r.markOutput(sg->getOutput(0), "y");
    };
    auto const [plain, fused] = compareFused(net, {{"a", HostTensor::random(DataType::kFLOAT, makeDims({3, 5}), rng)}});
    ASSERT_EQ(fused.layers.size(), 2U) << layerList(fused);
    EXPECT_TRUE(hasLayer(fused, "neg")) << layerList(fused);
    EXPECT_TRUE(hasLayer(fused, "exp + softsign")) << layerList(fused);
}

TEST(FusionPass, AdditionThatGrowsTheProductIsNotAnEpilogue)
{
    std::mt19937 rng(19);
    auto const net = [&](NetworkRunner& r) {
        auto& n = r.network();
        auto* a = r.addInput("a", DataType::kFLOAT, {2, 1, 6});
        auto* b = r.addInput("b", DataType::kFLOAT, {2, 6, 3});
        auto* c = r.addInput("c", DataType::kFLOAT, {2, 4, 3});
        auto* mm = n.addMatrixMultiply(*a, MatrixOperation::kNONE, *b, MatrixOperation::kNONE); // [2, 1, 3]
        mm->setName("mm");
        auto* add = n.addElementWise(*mm->getOutput(0), *c, ElementWiseOperation::kSUM); // [2, 4, 3]
        add->setName("grow");
        auto* th = n.addActivation(*add->getOutput(0), ActivationType::kTANH);
        th->setName("tanh");
        r.markOutput(th->getOutput(0), "y");
    };
    std::map<std::string, HostTensor> const inputs{{"a", HostTensor::random(DataType::kFLOAT, makeDims({2, 1, 6}), rng)},
        {"b", HostTensor::random(DataType::kFLOAT, makeDims({2, 6, 3}), rng)},
        {"c", HostTensor::random(DataType::kFLOAT, makeDims({2, 4, 3}), rng)}};
    auto const [plain, fused] = compareFused(net, inputs);
    ASSERT_EQ(fused.layers.size(), 2U) << layerList(fused);
    EXPECT_TRUE(hasLayer(fused, "mm")) << layerList(fused);
    EXPECT_TRUE(hasLayer(fused, "grow + tanh")) << layerList(fused); // broadcast inside a program is fine
}

TEST(FusionPass, IntegerChainsAndComparisonsStayUnfused)
{
    std::mt19937 rng(20);
    auto const net = [&](NetworkRunner& r) {
        auto& n = r.network();
        auto* a = r.addInput("a", DataType::kINT32, {4, 3});
        auto* b = r.addInput("b", DataType::kINT32, {4, 3});
        auto* s = n.addElementWise(*a, *b, ElementWiseOperation::kSUM);
        s->setName("isum");
        auto* p = n.addElementWise(*s->getOutput(0), *a, ElementWiseOperation::kPROD);
        p->setName("iprod");
        r.markOutput(p->getOutput(0), "y");
        auto* f = r.addInput("f", DataType::kFLOAT, {4, 3});
        auto* ex = n.addUnary(*f, UnaryOperation::kEXP);
        ex->setName("fexp");
        auto* gt = n.addElementWise(*ex->getOutput(0), *f, ElementWiseOperation::kGREATER); // BOOL result
        gt->setName("greater");
        r.markOutput(gt->getOutput(0), "g");
    };
    std::map<std::string, HostTensor> const inputs{{"a", HostTensor::random(DataType::kINT32, makeDims({4, 3}), rng, -50, 50)},
        {"b", HostTensor::random(DataType::kINT32, makeDims({4, 3}), rng, -50, 50)},
        {"f", HostTensor::random(DataType::kFLOAT, makeDims({4, 3}), rng)}};
    auto const [plain, fused] = compareFused(net, inputs, 0.0, 0.0);
    EXPECT_EQ(fused.layers, plain.layers);
    EXPECT_EQ(fused.layers.size(), 4U) << layerList(fused);
}

//! ... but pointwise chains stay unfused by default on the CPU backend.
TEST(FusionPass, PointwiseChainsOffByDefaultOnTheCpuBackend)
{
    std::optional<std::string> old;
    if (char const* v = std::getenv("KILN_FUSE"))
    {
        old = v;
    }
    ::unsetenv("KILN_FUSE");
    NetworkRunner r;
    auto* a = r.addInput("a", DataType::kFLOAT, {2, 2});
    auto* u = r.network().addUnary(*a, UnaryOperation::kEXP);
    auto* v = r.network().addUnary(*u->getOutput(0), UnaryOperation::kLOG);
    r.markOutput(v->getOutput(0), "y");
    bool const built = r.build();
    if (old)
    {
        ::setenv("KILN_FUSE", old->c_str(), 1);
    }
    ASSERT_TRUE(built) << r.logger().allErrors();
    EXPECT_EQ(r.engine().getNbLayers(), 2);
}

//! Attention as exported by BERT: q [b, 2, 6, 8] · (k [b, 2, 6, 8] transposed by a shuffle) → ÷ √8 → + mask
//! [b, 1, 1, 6] → softmax over the keys → · v. `variant` 1: the second product reads the key through op1 kTRANSPOSE
//! and the scores are multiplied by 0.25; 2: the softmax runs over another axis (not an attention); 3: the scores are
//! also a network output (an intermediate read twice).
NetworkFn attentionNetwork(int32_t variant, WeightStore& store)
{
    return [variant, &store](NetworkRunner& r) {
        INetworkDefinition& n = r.network();
        ITensor* q = r.addInput("q", DataType::kFLOAT, {-1, 2, 6, 8});
        ITensor* k = r.addInput("k", DataType::kFLOAT, {-1, 2, 6, 8});
        ITensor* v = r.addInput("v", DataType::kFLOAT, {-1, 2, 6, 8});
        ITensor* mask = r.addInput("mask", DataType::kFLOAT, {-1, 1, 1, 6});
        for (ITensor* t : {q, k, v, mask})
        {
            t->setDimensionName(0, "batch"); // one batch extent (else the mask could broadcast the batch)
        }
        IMatrixMultiplyLayer* bmm1 = nullptr;
        if (variant == 1)
        {
            bmm1 = n.addMatrixMultiply(*q, MatrixOperation::kNONE, *k, MatrixOperation::kTRANSPOSE);
        }
        else
        {
            auto* kt = n.addShuffle(*k);
            kt->setFirstTranspose(Permutation{{0, 1, 3, 2}});
            bmm1 = n.addMatrixMultiply(*q, MatrixOperation::kNONE, *kt->getOutput(0), MatrixOperation::kNONE);
        }
        bmm1->setName("bmm1");
        ITensor* c = constant(n, store.scalar(DataType::kFLOAT, variant == 1 ? 0.25 : std::sqrt(8.0), 4), {1, 1, 1, 1}, "c");
        auto* scaled = n.addElementWise(*bmm1->getOutput(0), *c,
            variant == 1 ? ElementWiseOperation::kPROD : ElementWiseOperation::kDIV);
        scaled->setName("scale");
        auto* masked = n.addElementWise(*scaled->getOutput(0), *mask, ElementWiseOperation::kSUM);
        masked->setName("mask");
        auto* soft = n.addSoftMax(*masked->getOutput(0));
        soft->setAxes(variant == 2 ? (1U << 2) : (1U << 3));
        soft->setName("softmax");
        auto* bmm2 = n.addMatrixMultiply(*soft->getOutput(0), MatrixOperation::kNONE, *v, MatrixOperation::kNONE);
        bmm2->setName("bmm2");
        r.markOutput(bmm2->getOutput(0), "out");
        if (variant == 3)
        {
            r.markOutput(masked->getOutput(0), "scores");
        }
        for (char const* name : {"q", "k", "v"})
        {
            r.setProfileDims(name, {1, 2, 6, 8}, {2, 2, 6, 8}, {3, 2, 6, 8});
        }
        r.setProfileDims("mask", {1, 1, 1, 6}, {2, 1, 1, 6}, {3, 1, 1, 6});
    };
}

std::map<std::string, HostTensor> attentionInputs(int64_t batch, std::mt19937& rng)
{
    std::map<std::string, HostTensor> in;
    for (char const* name : {"q", "k", "v"})
    {
        in[name] = HostTensor::random(DataType::kFLOAT, makeDims({batch, 2, 6, 8}), rng, -1.0, 1.0);
    }
    in["mask"] = HostTensor::random(DataType::kFLOAT, makeDims({batch, 1, 1, 6}), rng, -4.0, 0.0);
    return in;
}

TEST(FusionPass, AttentionBecomesOneLayer)
{
    for (int32_t variant : {0, 1})
    {
        SCOPED_TRACE("variant " + std::to_string(variant));
        WeightStore store;
        std::mt19937 rng(91 + static_cast<uint32_t>(variant));
        for (int64_t batch : {2, 3})
        {
            auto const inputs = attentionInputs(batch, rng);
            BuiltRun const plain = buildAndRun(attentionNetwork(variant, store), "0", inputs);
            BuiltRun const fused = buildAndRun(attentionNetwork(variant, store), "1", inputs);
            EXPECT_TRUE(hasLayer(fused, "bmm1 + scale + mask + softmax + bmm2")) << layerList(fused);
            EXPECT_FALSE(hasLayer(plain, "bmm1 + scale + mask + softmax + bmm2")) << layerList(plain);
            ASSERT_EQ(fused.outputs.count("out"), 1U);
            EXPECT_TRUE(allClose(fused.outputs.at("out"), plain.outputs.at("out"), 1e-5, 1e-5));
        }
    }
}

TEST(FusionPass, NotAnAttentionStaysUnfused)
{
    for (int32_t variant : {2, 3})
    {
        SCOPED_TRACE("variant " + std::to_string(variant));
        WeightStore store;
        std::mt19937 rng(95);
        auto const inputs = attentionInputs(2, rng);
        BuiltRun const fused = buildAndRun(attentionNetwork(variant, store), "1", inputs);
        BuiltRun const plain = buildAndRun(attentionNetwork(variant, store), "0", inputs);
        EXPECT_TRUE(hasLayer(fused, "bmm2")) << layerList(fused);
        EXPECT_TRUE(allClose(fused.outputs.at("out"), plain.outputs.at("out"), 1e-5, 1e-5));
    }
}

//! The exported form: q, k, v [b, 6, 2, 8] split into heads by transposes (the key to [b, 2, 8, 6]), the result merged
//! back. The CPU attention kernel reads [b, s, h, d] tensors (layout.* = 1), so the fusion's probe accepts the variant
//! with the transposes taken in and the CPU plan fuses all nine layers into one.
TEST(FusionPass, AttentionAbsorbsTheHeadTransposes)
{
    NetworkFn const fn = [](NetworkRunner& r) {
        INetworkDefinition& n = r.network();
        auto transposed = [&](ITensor* t, Permutation perm, char const* name) {
            auto* s = n.addShuffle(*t);
            s->setFirstTranspose(perm);
            s->setName(name);
            return s->getOutput(0);
        };
        ITensor* q = r.addInput("q", DataType::kFLOAT, {-1, 6, 2, 8});
        ITensor* k = r.addInput("k", DataType::kFLOAT, {-1, 6, 2, 8});
        ITensor* v = r.addInput("v", DataType::kFLOAT, {-1, 6, 2, 8});
        for (ITensor* t : {q, k, v})
        {
            t->setDimensionName(0, "batch");
        }
        auto* bmm1 = n.addMatrixMultiply(*transposed(q, Permutation{{0, 2, 1, 3}}, "qt"), MatrixOperation::kNONE,
            *transposed(k, Permutation{{0, 2, 3, 1}}, "kt"), MatrixOperation::kNONE);
        bmm1->setName("bmm1");
        auto* soft = n.addSoftMax(*bmm1->getOutput(0));
        soft->setAxes(1U << 3);
        soft->setName("softmax");
        auto* bmm2 = n.addMatrixMultiply(*soft->getOutput(0), MatrixOperation::kNONE,
            *transposed(v, Permutation{{0, 2, 1, 3}}, "vt"), MatrixOperation::kNONE);
        bmm2->setName("bmm2");
        r.markOutput(transposed(bmm2->getOutput(0), Permutation{{0, 2, 1, 3}}, "ot"), "out");
        for (char const* name : {"q", "k", "v"})
        {
            r.setProfileDims(name, {1, 6, 2, 8}, {2, 6, 2, 8}, {3, 6, 2, 8});
        }
    };
    std::mt19937 rng(97);
    std::map<std::string, HostTensor> inputs;
    for (char const* name : {"q", "k", "v"})
    {
        inputs[name] = HostTensor::random(DataType::kFLOAT, makeDims({2, 6, 2, 8}), rng, -1.0, 1.0);
    }
    BuiltRun const plain = buildAndRun(fn, "0", inputs);
    BuiltRun const fused = buildAndRun(fn, "1", inputs);
    EXPECT_TRUE(hasLayer(fused, "kt + qt + bmm1 + softmax + vt + bmm2 + ot")) << layerList(fused);
    EXPECT_EQ(fused.layers.size(), 1U) << layerList(fused);
    EXPECT_TRUE(hasLayer(plain, "qt")) << layerList(plain);
    ASSERT_EQ(fused.outputs.count("out"), 1U);
    EXPECT_TRUE(allClose(fused.outputs.at("out"), plain.outputs.at("out"), 1e-5, 1e-5));
}


// ---------------------------------------------------------------------------------------------------------------
// Bias and residual in one matrix multiply epilogue ("fuse.residual")
// ---------------------------------------------------------------------------------------------------------------

//! x [2, 6, 8] · W [1, 8, 8] ("mm"), then the bias constant "B" (dims `biasDims`, layer "bias") and the input "r"
//! (dims `secondDims`, layer "res") added in either order, then an optional activation ("act") and an optional layer
//! norm over the last axis ("ln"); output "y". Weights: W, B (then the layer norm's scale and shift) in `w`.
struct ResidualNet
{
    DataType type{DataType::kFLOAT};
    std::vector<int64_t> biasDims{1, 1, 8};
    std::vector<int64_t> secondDims{2, 6, 8};
    bool residualFirst{false};
    std::optional<ActivationType> act;
    bool layerNorm{false};
    bool intermediateOutput{false}; //!< the first sum is also a network output "t"
};

NetworkFn residualNetwork(ResidualNet const& c, WeightStore& w, std::mt19937& rng)
{
    Weights const weight = w.add(c.type, {1, 8, 8}, rng, -0.5, 0.5);
    Weights const bias = w.add(c.type, c.biasDims, rng);
    Weights const lnScale = w.add(c.type, {1, 1, 8}, rng, 0.5, 1.5);
    Weights const lnShift = w.add(c.type, {1, 1, 8}, rng);
    return [=](NetworkRunner& r) {
        auto& n = r.network();
        auto* x = r.addInput("x", c.type, {2, 6, 8});
        auto* res = r.addInput("r", c.type, c.secondDims);
        auto* mm = n.addMatrixMultiply(*x, MatrixOperation::kNONE, *constant(n, weight, {1, 8, 8}, "W"),
            MatrixOperation::kNONE);
        mm->setName("mm");
        ITensor* b = constant(n, bias, c.biasDims, "B");
        ILayer* first = c.residualFirst ? n.addElementWise(*mm->getOutput(0), *res, ElementWiseOperation::kSUM)
                                        : n.addElementWise(*b, *mm->getOutput(0), ElementWiseOperation::kSUM);
        first->setName(c.residualFirst ? "res" : "bias");
        ILayer* second = c.residualFirst ? n.addElementWise(*first->getOutput(0), *b, ElementWiseOperation::kSUM)
                                         : n.addElementWise(*res, *first->getOutput(0), ElementWiseOperation::kSUM);
        second->setName(c.residualFirst ? "bias" : "res");
        ITensor* y = second->getOutput(0);
        if (c.act)
        {
            auto* a = n.addActivation(*y, *c.act);
            a->setName("act");
            y = a->getOutput(0);
        }
        if (c.layerNorm)
        {
            auto* ln = n.addNormalizationV2(*y, *constant(n, lnScale, {1, 1, 8}, "S"),
                *constant(n, lnShift, {1, 1, 8}, "Z"), 1U << 2);
            ln->setName("ln");
            y = ln->getOutput(0);
        }
        if (c.intermediateOutput)
        {
            r.markOutput(first->getOutput(0), "t");
        }
        r.markOutput(y, "y");
    };
}

//! y = act(x W + B + r) computed here in double from the (rounded) inputs and weights.
void expectResidualLinear(HostTensor const& y, HostTensor const& x, HostTensor const& r, HostTensor const& wt,
    HostTensor const& bt, std::optional<ActivationType> act, double tol)
{
    for (int64_t i = 0; i < y.volume(); ++i)
    {
        int64_t const col = i % 8;
        int64_t const row = i / 8;
        double v = bt.at(bt.volume() == 8 ? col : i) + r.at(i);
        for (int64_t k = 0; k < 8; ++k)
        {
            v += x.at(row * 8 + k) * wt.at(k * 8 + col);
        }
        if (act == ActivationType::kRELU)
        {
            v = std::max(v, 0.0);
        }
        else if (act == ActivationType::kGELU_ERF)
        {
            v = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
        }
        else if (act)
        {
            ADD_FAILURE() << "no reference for this activation";
        }
        ASSERT_NEAR(y.at(i), v, tol * (1.0 + std::fabs(v))) << "element " << i;
    }
}

std::map<std::string, HostTensor> residualInputs(ResidualNet const& c, std::mt19937& rng)
{
    return {{"x", HostTensor::random(c.type, makeDims({2, 6, 8}), rng)},
        {"r", HostTensor::random(c.type, makeDims(c.secondDims), rng, -2.0, 2.0)}};
}

//! BERT's attention output / FFN2 block: MatMul, Add(bias), Add(residual), LayerNorm. With the CPU backend's
//! defaults and with KILN_FUSE=1, the two additions join the product (the layer norm stays), with the unfused
//! engine's outputs.
TEST(FusionPass, BiasAndResidualJoinTheMatmulBeforeALayerNorm)
{
    for (char const* fuse : {static_cast<char const*>(nullptr), "1"})
    {
        std::mt19937 rng(60);
        WeightStore w;
        ResidualNet c;
        c.layerNorm = true;
        auto const net = residualNetwork(c, w, rng);
        auto const [plain, fused] = compareFused(net, residualInputs(c, rng), 1e-5, 1e-5, fuse);
        EXPECT_EQ(plain.layers.size(), 4U) << layerList(plain);
        ASSERT_EQ(fused.layers.size(), 2U) << layerList(fused);
        EXPECT_TRUE(hasLayer(fused, "mm + bias + res")) << layerList(fused);
        EXPECT_TRUE(hasLayer(fused, "ln")) << layerList(fused);
    }
}

//! The residual added first, then the bias, then an activation: one node; FP32 against the double reference.
TEST(FusionPass, ResidualThenBiasThenActivation)
{
    for (ActivationType act : {ActivationType::kRELU, ActivationType::kGELU_ERF})
    {
        std::mt19937 rng(61);
        WeightStore w;
        ResidualNet c;
        c.residualFirst = true;
        c.act = act;
        auto const net = residualNetwork(c, w, rng);
        auto const inputs = residualInputs(c, rng);
        auto const [plain, fused] = compareFused(net, inputs, 1e-5, 1e-5, nullptr);
        ASSERT_EQ(fused.layers.size(), 1U) << layerList(fused);
        EXPECT_EQ(fused.layers[0], "mm + res + bias + act");
        expectResidualLinear(fused.outputs.at("y"), inputs.at("x"), inputs.at("r"), *w.tensors[0], *w.tensors[1],
            c.act, 1e-5);
    }
}

//! FP16 and BF16: the fused node sums in float and rounds once, the unfused layers round after each addition, so
//! they agree within a few units of the type's last place; both are checked against the double reference.
TEST(FusionPass, BiasAndResidualInHalfAndBf16)
{
    for (DataType t : {DataType::kHALF, DataType::kBF16})
    {
        std::mt19937 rng(62);
        WeightStore w;
        ResidualNet c;
        c.type = t;
        c.act = ActivationType::kRELU;
        auto const net = residualNetwork(c, w, rng);
        auto const inputs = residualInputs(c, rng);
        double const tol = t == DataType::kHALF ? 4e-3 : 3e-2;
        auto const [plain, fused] = compareFused(net, inputs, tol, tol, nullptr);
        ASSERT_EQ(fused.layers.size(), 1U) << layerList(fused);
        EXPECT_EQ(fused.layers[0], "mm + bias + res + act");
        expectResidualLinear(
            fused.outputs.at("y"), inputs.at("x"), inputs.at("r"), *w.tensors[0], *w.tensors[1], c.act, tol);
    }
}

//! A second addition that broadcasts (a position table over the batch, a per-row term) is not a residual: only the
//! first addition joins the product, in either order; so is a first sum that is also a network output.
TEST(FusionPass, BroadcastSecondAdditionIsNotAResidual)
{
    for (std::vector<int64_t> const& dims : {std::vector<int64_t>{1, 6, 8}, std::vector<int64_t>{2, 6, 1}})
    {
        for (bool residualFirst : {false, true})
        {
            std::mt19937 rng(63);
            WeightStore w;
            ResidualNet c;
            c.secondDims = dims;
            c.residualFirst = residualFirst;
            auto const [plain, fused] = compareFused(residualNetwork(c, w, rng), residualInputs(c, rng), 1e-5, 1e-5,
                nullptr);
            ASSERT_EQ(fused.layers.size(), 2U) << layerList(fused);
            EXPECT_TRUE(hasLayer(fused, residualFirst ? "mm + res" : "mm + bias")) << layerList(fused);
            EXPECT_TRUE(hasLayer(fused, residualFirst ? "bias" : "res")) << layerList(fused);
        }
    }
    std::mt19937 rng(64);
    WeightStore w;
    ResidualNet c;
    c.intermediateOutput = true;
    auto const [plain, fused] = compareFused(residualNetwork(c, w, rng), residualInputs(c, rng), 1e-5, 1e-5, nullptr);
    ASSERT_EQ(fused.layers.size(), 2U) << layerList(fused);
    EXPECT_TRUE(hasLayer(fused, "mm + bias")) << layerList(fused);
    EXPECT_TRUE(hasLayer(fused, "res")) << layerList(fused);
}

//! Two full-shape additions: the second is the residual, the first the node's addition; one node.
TEST(FusionPass, TwoFullShapeAdditionsFuse)
{
    std::mt19937 rng(65);
    WeightStore w;
    ResidualNet c;
    c.biasDims = {2, 6, 8};
    auto const inputs = residualInputs(c, rng);
    auto const [plain, fused] = compareFused(residualNetwork(c, w, rng), inputs, 1e-5, 1e-5, nullptr);
    ASSERT_EQ(fused.layers.size(), 1U) << layerList(fused);
    EXPECT_EQ(fused.layers[0], "mm + bias + res");
}

//! A convolution takes one addition: its bias add fuses, the residual after it stays a layer.
TEST(FusionPass, ConvolutionTakesNoResidual)
{
    std::mt19937 rng(66);
    WeightStore w;
    Weights const kernel = w.add(DataType::kFLOAT, {4, 4, 3, 3}, rng, -0.4, 0.4);
    Weights const bias = w.add(DataType::kFLOAT, {1, 4, 1, 1}, rng);
    auto const net = [&](NetworkRunner& r) {
        auto& n = r.network();
        auto* x = r.addInput("x", DataType::kFLOAT, {1, 4, 7, 7});
        auto* res = n.addElementWise(*convPlusBias(r, x, 4, kernel, bias), *x, ElementWiseOperation::kSUM);
        res->setName("res");
        r.markOutput(res->getOutput(0), "y");
    };
    std::map<std::string, HostTensor> const inputs{{"x", HostTensor::random(DataType::kFLOAT, makeDims({1, 4, 7, 7}), rng)}};
    auto const [plain, fused] = compareFused(net, inputs, 1e-5, 1e-5, nullptr);
    ASSERT_EQ(fused.layers.size(), 2U) << layerList(fused);
    EXPECT_TRUE(hasLayer(fused, "conv + bias")) << layerList(fused);
    EXPECT_TRUE(hasLayer(fused, "res")) << layerList(fused);
}

} // namespace
} // namespace kiln::test
