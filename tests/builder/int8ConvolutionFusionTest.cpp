// The INT8 convolution fusion (builder/passes/fusion/int8Convolution.cpp) and its CPU kernel (convolutionInt8.cpp):
// Q/DQ convolution networks built with the fusion pass off (KILN_FUSE=0) and with the CPU backend's default, run on
// the same random inputs; the fused engine has the fused layer's name (engine inspector) and its outputs agree with
// the unfused engine's: within FP32 rounding for a float output, within one quantization step where the Q is fused.
// Per-tensor and per-channel weight scales, bias, ReLU, strides, padding, groups and a dynamic batch; a network the
// fusion refuses (per-channel weight scales along the wrong axis) still runs right, and a weight DQ left unfused is
// folded into FP32 kernel weights.
#include "common/networkRunner.h"
#include "common/scopedEnv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <utility>

namespace kiln::test
{
namespace
{
using namespace nvinfer1;

struct Case
{
    int64_t c{8};
    int64_t k{16};
    int64_t h{9};
    int64_t w{11};
    int64_t kernel{3};
    int64_t stride{1};
    int64_t pad{1};
    int64_t groups{1};
    bool perChannel{true};
    bool bias{true};
    bool relu{true};
    bool quantizeOutput{true};
    bool dynamicBatch{false};
    int32_t weightAxis{0}; //!< axis of the per-channel weight scales (0: output maps, fusible)
    bool inputDq{true};    //!< the data input is DQ(Q(x)); false: x itself (no INT8 fusion)
    //! A second convolution "conv2" (output y2, float) reads the same DQ; both weight DQs precede both convolutions.
    bool sharedInput{false};
    //! Q -> DQ (scale 0.04) between the convolution and the ReLU, as ONNX Runtime's quantizer writes Conv -> Relu.
    bool midQdq{false};
    //! Q -> DQ (0.04) -> + DQ(Q(x, 0.03)) -> Q (0.05) after the convolution (needs c == k and a same-size output); the
    //! ReLU and output Q/DQ (0.05), when set, follow a DQ of that Q.
    bool residual{false};
};

struct Built
{
    HostTensor y;
    HostTensor y2;
    std::vector<std::string> layers;
};

//! Holds the constants' bytes until the build.
struct Store
{
    std::deque<HostTensor> tensors;
    ITensor* add(INetworkDefinition& net, HostTensor t, char const* name)
    {
        tensors.push_back(std::move(t));
        HostTensor const& h = tensors.back();
        IConstantLayer* c = net.addConstant(h.dims, Weights{h.type, h.data(), h.volume()});
        c->setName(name);
        return c->getOutput(0);
    }
};

//! Q then DQ of `t` with the per-tensor `scale`: layers "q<tag>" and "dq<tag>"; returns the DQ's output.
ITensor* quantizeDequantize(INetworkDefinition& n, Store& store, ITensor* t, double scale, std::string const& tag)
{
    HostTensor const s = HostTensor::fromValues(DataType::kFLOAT, Dims{0, {}}, {scale});
    IQuantizeLayer* q = n.addQuantize(*t, *store.add(n, s, ("s" + tag).c_str()), DataType::kINT8);
    q->setName(("q" + tag).c_str());
    IDequantizeLayer* dq = n.addDequantize(*q->getOutput(0), *store.add(n, s, ("s2" + tag).c_str()), DataType::kFLOAT);
    dq->setName(("dq" + tag).c_str());
    return dq->getOutput(0);
}

//! The convolution `name` of case `c` over `data`, its kernel the tensor `kernel`.
IConvolutionLayer* convolution(INetworkDefinition& n, Case const& c, ITensor* data, ITensor* kernel, Weights bias,
    char const* name)
{
    IConvolutionLayer* conv
        = n.addConvolutionNd(*data, c.k, makeDims({c.kernel, c.kernel}), Weights{DataType::kFLOAT, nullptr, 0}, bias);
    conv->setName(name);
    conv->setStrideNd(makeDims({c.stride, c.stride}));
    conv->setPaddingNd(makeDims({c.pad, c.pad}));
    conv->setNbGroups(c.groups);
    conv->setInput(1, *kernel);
    return conv;
}

//! x -> Q -> DQ -> conv(kernel DQ(INT8 weights)) [-> ReLU] [-> Q -> DQ] -> y, built with KILN_FUSE=`fuse`.
Built buildAndRun(Case const& c, char const* fuse, HostTensor const& x, uint32_t seed)
{
    ScopedEnv env("KILN_FUSE", fuse);
    std::mt19937 rng(seed);
    Store store;
    NetworkRunner r;
    auto& n = r.network();
    int64_t const batch = x.dims.d[0];
    ITensor* in = r.addInput("x", DataType::kFLOAT, {c.dynamicBatch ? -1 : batch, c.c, c.h, c.w});
    if (c.dynamicBatch)
    {
        r.setProfileDims("x", {1, c.c, c.h, c.w}, {2, c.c, c.h, c.w}, {4, c.c, c.h, c.w});
    }
    ITensor* data = c.inputDq ? quantizeDequantize(n, store, in, 0.02, "x") : in;
    int64_t const cg = c.c / c.groups;
    HostTensor wq(DataType::kINT8, makeDims({c.k, cg, c.kernel, c.kernel}));
    std::uniform_int_distribution<int32_t> q(-127, 127);
    for (int64_t i = 0; i < wq.volume(); ++i)
    {
        wq.set(i, q(rng));
    }
    int64_t const nbScales = !c.perChannel ? 0 : (c.weightAxis == 0 ? c.k : cg);
    HostTensor ws = nbScales == 0 ? HostTensor(DataType::kFLOAT, Dims{0, {}}) : HostTensor(DataType::kFLOAT, makeDims({nbScales}));
    std::uniform_real_distribution<double> u(0.002, 0.01);
    for (int64_t i = 0; i < ws.volume(); ++i)
    {
        ws.set(i, u(rng));
    }
    IDequantizeLayer* dqw = n.addDequantize(*store.add(n, wq, "wq"), *store.add(n, ws, "ws"), DataType::kFLOAT);
    dqw->setName("dqw");
    dqw->setAxis(nbScales == 0 ? -1 : c.weightAxis);
    IDequantizeLayer* dqw2 = nullptr;
    if (c.sharedInput)
    {
        dqw2 = n.addDequantize(*store.add(n, wq, "wq2"), *store.add(n, ws, "ws2"), DataType::kFLOAT);
        dqw2->setName("dqw2");
        dqw2->setAxis(nbScales == 0 ? -1 : c.weightAxis);
    }
    store.tensors.push_back(HostTensor::random(DataType::kFLOAT, makeDims({c.k}), rng, -0.5, 0.5));
    Weights const bias = c.bias ? Weights{DataType::kFLOAT, store.tensors.back().data(), c.k}
                                : Weights{DataType::kFLOAT, nullptr, 0};
    IConvolutionLayer* conv = convolution(n, c, data, dqw->getOutput(0), bias, "conv");
    if (c.sharedInput)
    {
        r.markOutput(convolution(n, c, data, dqw2->getOutput(0), bias, "conv2")->getOutput(0), "y2");
    }
    ITensor* y = conv->getOutput(0);
    if (c.midQdq || c.residual)
    {
        y = quantizeDequantize(n, store, y, 0.04, "m");
    }
    if (c.residual)
    {
        ITensor* res = quantizeDequantize(n, store, in, 0.03, "r");
        IElementWiseLayer* add = n.addElementWise(*y, *res, ElementWiseOperation::kSUM);
        add->setName("add");
        y = quantizeDequantize(n, store, add->getOutput(0), 0.05, "s");
    }
    if (c.relu)
    {
        IActivationLayer* relu = n.addActivation(*y, ActivationType::kRELU);
        relu->setName("relu");
        y = relu->getOutput(0);
    }
    if (c.quantizeOutput)
    {
        y = quantizeDequantize(n, store, y, 0.05, "y");
    }
    r.markOutput(y, "y");
    r.config().setProfilingVerbosity(ProfilingVerbosity::kLAYER_NAMES_ONLY);
    Built b;
    if (!r.build())
    {
        ADD_FAILURE() << "build failed (KILN_FUSE=" << (fuse ? fuse : "unset") << "): " << r.logger().allErrors();
        return b;
    }
    auto outputs = r.run({{"x", x}});
    b.y = outputs.at("y");
    if (c.sharedInput)
    {
        b.y2 = outputs.at("y2");
    }
    std::unique_ptr<IEngineInspector> inspector(r.engine().createEngineInspector());
    for (int32_t i = 0; inspector != nullptr && i < r.engine().getNbLayers(); ++i)
    {
        char const* text = inspector->getLayerInformation(i, LayerInformationFormat::kONELINE);
        b.layers.push_back(text != nullptr ? text : "");
    }
    return b;
}

//! The unfused and the fused (CPU default) builds of `c`, run on one random input of batch 2 (seed `seed`).
std::pair<Built, Built> buildBoth(Case const& c, uint32_t seed)
{
    std::mt19937 rng(seed);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, c.c, c.h, c.w}), rng, -2.0, 2.0);
    return {buildAndRun(c, "0", x, 3), buildAndRun(c, nullptr, x, 3)};
}

std::string joined(std::vector<std::string> const& v)
{
    std::string s;
    for (auto const& x : v)
    {
        s += "[" + x + "] ";
    }
    return s;
}

//! Builds `c` unfused and with the CPU default, compares, and returns the fused engine's layers.
std::vector<std::string> compare(Case const& c, int64_t batch = 2)
{
    std::mt19937 rng(7);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({batch, c.c, c.h, c.w}), rng, -2.0, 2.0);
    Built const plain = buildAndRun(c, "0", x, 3);
    Built const fused = buildAndRun(c, nullptr, x, 3);
    if (plain.y.volume() == 0 || fused.y.volume() != plain.y.volume())
    {
        ADD_FAILURE() << "missing output";
        return fused.layers;
    }
    double maxAbs = 0.0;
    for (int64_t i = 0; i < plain.y.volume(); ++i)
    {
        maxAbs = std::max(maxAbs, std::abs(plain.y.at(i)));
    }
    EXPECT_GT(maxAbs, 0.1) << "the test data should not be all zeros";
    // A fused Q may round a value to the neighbouring step (oneDNN multiplies by 1 / y_scale, Kiln's Q divides).
    // With a residual the intermediate roundings can each move a value by a step: two steps at most.
    double const tol = c.residual ? 0.05 * 2.001 : c.quantizeOutput ? 0.05 * 1.001 : 1e-5 * maxAbs + 1e-6;
    int64_t stepsOff = 0;
    for (int64_t i = 0; i < plain.y.volume(); ++i)
    {
        double const d = std::abs(fused.y.at(i) - plain.y.at(i));
        EXPECT_LE(d, tol) << "element " << i << ": fused " << fused.y.at(i) << " unfused " << plain.y.at(i);
        stepsOff += d > 1e-6 ? 1 : 0;
        if (d > tol)
        {
            break;
        }
    }
    if (c.quantizeOutput)
    {
        EXPECT_LE(stepsOff, plain.y.volume() / 100 + 1) << "values one step off";
    }
    EXPECT_LT(fused.layers.size(), plain.layers.size()) << joined(fused.layers);
    return fused.layers;
}

bool hasLayer(std::vector<std::string> const& layers, std::string const& name)
{
    return std::find(layers.begin(), layers.end(), name) != layers.end();
}

TEST(Int8ConvolutionFusion, PerChannelBiasReluQuantized)
{
    auto const layers = compare(Case{});
    EXPECT_TRUE(hasLayer(layers, "dqx + dqw + conv + relu + qy")) << joined(layers);
    EXPECT_EQ(layers.size(), 3U) << joined(layers); // qx, the fused convolution, dqy
}

TEST(Int8ConvolutionFusion, QuantizeDequantizeBeforeTheRelu)
{
    Case c;
    c.midQdq = true;
    auto const layers = compare(c);
    EXPECT_TRUE(hasLayer(layers, "dqx + dqw + conv + qm + dqm + relu + qy")) << joined(layers);
    EXPECT_EQ(layers.size(), 3U) << joined(layers);
}

TEST(Int8ConvolutionFusion, ResidualAdditionWithRelu)
{
    Case c;
    c.residual = true;
    c.k = c.c;
    auto const layers = compare(c);
    EXPECT_TRUE(hasLayer(layers, "dqx + dqw + conv + qm + dqm + dqr + add + qs + dqs + relu + qy")) << joined(layers);
    EXPECT_EQ(layers.size(), 4U) << joined(layers); // qx, qr, the fused convolution, dqy
}

TEST(Int8ConvolutionFusion, ResidualAdditionAlone)
{
    Case c;
    c.residual = true;
    c.k = c.c;
    c.relu = false;
    c.quantizeOutput = false;
    c.perChannel = false;
    auto const layers = compare(c);
    EXPECT_TRUE(hasLayer(layers, "dqx + dqw + conv + qm + dqm + dqr + add + qs")) << joined(layers);
}

TEST(Int8ConvolutionFusion, PerTensorNoBiasFloatOutput)
{
    Case c;
    c.perChannel = false;
    c.bias = false;
    c.relu = false;
    c.quantizeOutput = false;
    auto const layers = compare(c);
    EXPECT_TRUE(hasLayer(layers, "dqx + dqw + conv")) << joined(layers);
}

TEST(Int8ConvolutionFusion, ReluFloatOutput)
{
    Case c;
    c.quantizeOutput = false;
    auto const layers = compare(c);
    EXPECT_TRUE(hasLayer(layers, "dqx + dqw + conv + relu")) << joined(layers);
}

TEST(Int8ConvolutionFusion, QuantizedWithoutRelu)
{
    Case c;
    c.relu = false;
    auto const layers = compare(c);
    EXPECT_TRUE(hasLayer(layers, "dqx + dqw + conv + qy")) << joined(layers);
}

TEST(Int8ConvolutionFusion, StrideTwoNoPadding)
{
    Case c;
    c.stride = 2;
    c.pad = 0;
    c.h = 15;
    c.w = 12;
    auto const layers = compare(c);
    EXPECT_TRUE(hasLayer(layers, "dqx + dqw + conv + relu + qy")) << joined(layers);
}

TEST(Int8ConvolutionFusion, GroupedAndPointwise)
{
    Case grouped;
    grouped.groups = 4;
    EXPECT_TRUE(hasLayer(compare(grouped), "dqx + dqw + conv + relu + qy"));
    Case pointwise;
    pointwise.kernel = 1;
    pointwise.pad = 0;
    pointwise.c = 32;
    pointwise.k = 24;
    EXPECT_TRUE(hasLayer(compare(pointwise), "dqx + dqw + conv + relu + qy"));
}

TEST(Int8ConvolutionFusion, DynamicBatch)
{
    Case c;
    c.dynamicBatch = true;
    EXPECT_TRUE(hasLayer(compare(c, 3), "dqx + dqw + conv + relu + qy"));
    EXPECT_TRUE(hasLayer(compare(c, 1), "dqx + dqw + conv + relu + qy"));
}

TEST(Int8ConvolutionFusion, TwoConvolutionsShareOneDequantize)
{
    Case c;
    c.sharedInput = true;
    auto const [plain, fused] = buildBoth(c, 8);
    // The shared DQ stays for the second convolution, whose fusion then takes it as its sole reader.
    EXPECT_TRUE(hasLayer(fused.layers, "dqw + conv + relu + qy")) << joined(fused.layers);
    EXPECT_TRUE(hasLayer(fused.layers, "dqx + dqw2 + conv2")) << joined(fused.layers);
    EXPECT_EQ(fused.layers.size(), 4U) << joined(fused.layers);
    ASSERT_EQ(fused.y2.volume(), plain.y2.volume());
    double maxAbs = 0.0;
    for (int64_t i = 0; i < plain.y2.volume(); ++i)
    {
        maxAbs = std::max(maxAbs, std::abs(plain.y2.at(i)));
    }
    EXPECT_TRUE(allClose(fused.y2, plain.y2, 1e-5 * maxAbs, 1e-5));
    EXPECT_TRUE(allClose(fused.y, plain.y, 0.05 * 1.001, 0.0));
}

TEST(Int8ConvolutionFusion, WeightScalesOnTheWrongAxisStayUnfused)
{
    Case c;
    c.weightAxis = 1; // per input channel: not an output scale
    auto const [plain, fused] = buildBoth(c, 9);
    EXPECT_TRUE(hasLayer(fused.layers, "dqx")) << joined(fused.layers);
    EXPECT_TRUE(hasLayer(fused.layers, "dqw")) << joined(fused.layers);
    ASSERT_EQ(fused.y.volume(), plain.y.volume());
    EXPECT_TRUE(allClose(fused.y, plain.y, 1e-5, 1e-5));
}

TEST(Int8ConvolutionFusion, UnfusedWeightDequantizeIsFolded)
{
    Case c;
    c.inputDq = false; // a float data input: no INT8 convolution, but the weight DQ folds into FP32 weights
    c.quantizeOutput = false;
    c.relu = false;
    auto const [plain, fused] = buildBoth(c, 10);
    EXPECT_TRUE(hasLayer(plain.layers, "dqw")) << joined(plain.layers);
    EXPECT_FALSE(hasLayer(fused.layers, "dqw")) << joined(fused.layers);
    ASSERT_EQ(fused.y.volume(), plain.y.volume());
    EXPECT_TRUE(allClose(fused.y, plain.y, 1e-5, 1e-5));
}

} // namespace
} // namespace kiln::test
