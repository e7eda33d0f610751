// Importers of the convolution, pooling and normalization families beyond the ONNX node tests: Conv with a dynamic
// batch (profile), Conv weights and bias through Identity nodes, 1-D grouped Conv with run-time weights, ConvTranspose with run-time weights and output_padding,
// LayerNormalization's Mean/InvStdDev outputs, GroupNormalization (opsets 18 and 21), LpPool/GlobalLpPool,
// LpNormalization and MaxPool's ceil-mode window rule. nnReductionImportersTest.cpp covers the other families.
#include "onnxTestModels.h"

#include "onnx/onnxConstant.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

class NnImportersTest : public ::testing::Test
{
protected:
    std::mt19937 mRng{31337};

    HostTensor random(std::vector<int64_t> const& dims, double lo = -2.0, double hi = 2.0)
    {
        return HostTensor::random(DataType::kFLOAT, makeDims(dims), mRng, lo, hi);
    }
};

//! Direct 2-D convolution, NCHW / KCRS, with symmetric padding `pad`, stride `s`, groups `g`.
HostTensor referenceConv2d(HostTensor const& x, HostTensor const& w, HostTensor const* b, int64_t pad, int64_t s,
    int64_t g)
{
    int64_t const n = x.dims.d[0];
    int64_t const c = x.dims.d[1];
    int64_t const h = x.dims.d[2];
    int64_t const wd = x.dims.d[3];
    int64_t const k = w.dims.d[0];
    int64_t const cg = w.dims.d[1];
    int64_t const r = w.dims.d[2];
    int64_t const q = w.dims.d[3];
    int64_t const oh = (h + 2 * pad - r) / s + 1;
    int64_t const ow = (wd + 2 * pad - q) / s + 1;
    HostTensor y(DataType::kFLOAT, makeDims({n, k, oh, ow}));
    int64_t const kg = k / g;
    for (int64_t in = 0; in < n; ++in)
    {
        for (int64_t ik = 0; ik < k; ++ik)
        {
            int64_t const group = ik / kg;
            for (int64_t oy = 0; oy < oh; ++oy)
            {
                for (int64_t ox = 0; ox < ow; ++ox)
                {
                    double acc = b != nullptr ? b->at(ik) : 0.0;
                    for (int64_t ic = 0; ic < cg; ++ic)
                    {
                        for (int64_t ry = 0; ry < r; ++ry)
                        {
                            for (int64_t rx = 0; rx < q; ++rx)
                            {
                                int64_t const iy = oy * s - pad + ry;
                                int64_t const ix = ox * s - pad + rx;
                                if (iy < 0 || iy >= h || ix < 0 || ix >= wd)
                                {
                                    continue;
                                }
                                int64_t const ch = group * cg + ic;
                                acc += x.at(((in * c + ch) * h + iy) * wd + ix)
                                    * w.at(((ik * cg + ic) * r + ry) * q + rx);
                            }
                        }
                    }
                    y.set(((in * k + ik) * oh + oy) * ow + ox, acc);
                }
            }
        }
    }
    (void) c;
    return y;
}

TEST_F(NnImportersTest, ConvWithDynamicBatchAndProfile)
{
    HostTensor const w = random({4, 3, 3, 3}, -1.0, 1.0);
    HostTensor const b = random({4}, -1.0, 1.0);
    OnnxModelBuilder model(11);
    model.addInput("x", DataType::kFLOAT, {-1, 3, 7, 6});
    model.addInitializer("w", toConstant(w));
    model.addInitializer("b", toConstant(b));
    model.addNode("Conv", {"x", "w", "b"}, {"y"},
        {intsAttr("pads", {1, 1, 1, 1}), intsAttr("strides", {2, 2}), intsAttr("kernel_shape", {3, 3})});
    model.addOutput("y", DataType::kFLOAT);

    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    EXPECT_EQ(runner.network().getInput(0)->getDimensions().d[0], -1);
    runner.runner().setProfileDims("x", {1, 3, 7, 6}, {2, 3, 7, 6}, {4, 3, 7, 6});
    ASSERT_TRUE(runner.build());
    for (int64_t n : {1, 3})
    {
        HostTensor const x = random({n, 3, 7, 6});
        auto outputs = runner.run({{"x", x}});
        ASSERT_EQ(outputs.count("y"), 1U);
        EXPECT_TRUE(allClose(outputs["y"], referenceConv2d(x, w, &b, 1, 2, 1), 1e-4, 1e-4)) << "N = " << n;
    }
}

TEST_F(NnImportersTest, ConvWeightsFromIdentityOutliveTheParse)
{
    // The exporters share identical initializers through Identity nodes (torch does so for the zero biases of folded
    // batch norms). Those constants are computed during the import; the layer weights must not point into memory the
    // import frees. Freed blocks are refilled with NaN bytes before the build, so a dangling pointer shows.
    HostTensor const w = random({4, 3, 3, 3}, -1.0, 1.0);
    HostTensor const b = random({4}, -1.0, 1.0);
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {1, 3, 6, 6});
    model.addInitializer("w0", toConstant(w));
    model.addInitializer("b0", toConstant(b));
    model.addNode("Identity", {"w0"}, {"w"});
    model.addNode("Identity", {"b0"}, {"b"});
    model.addNode("Conv", {"x", "w", "b"}, {"y"}, {intsAttr("pads", {1, 1, 1, 1}), intsAttr("kernel_shape", {3, 3})});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    std::vector<std::vector<uint8_t>> scribble;
    for (size_t i = 0; i < 4096; ++i)
    {
        scribble.emplace_back(8 + (i % 64) * 8, uint8_t{0xFF});
    }
    ASSERT_TRUE(runner.build());
    HostTensor const x = random({1, 3, 6, 6});
    auto outputs = runner.run({{"x", x}});
    ASSERT_EQ(outputs.count("y"), 1U);
    EXPECT_TRUE(allClose(outputs["y"], referenceConv2d(x, w, &b, 1, 1, 1), 1e-4, 1e-4));
}

TEST_F(NnImportersTest, GroupedConv1DWithRunTimeWeights)
{
    // 1-D convolution (run as 2-D of width 1) whose kernel is a graph input, 2 groups, no bias.
    HostTensor const x = random({2, 4, 9});
    HostTensor const w = random({6, 2, 3});
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2, 4, 9});
    model.addInput("w", DataType::kFLOAT, {6, 2, 3});
    model.addNode("Conv", {"x", "w"}, {"y"}, {intAttr("group", 2)});
    model.addOutput("y", DataType::kFLOAT);
    auto outputs = runOnnxModel(model, {{"x", x}, {"w", w}});
    ASSERT_EQ(outputs.count("y"), 1U);
    // The same numbers as a 2-D convolution with a 1-wide kernel.
    HostTensor x4 = x;
    x4.dims = makeDims({2, 4, 9, 1});
    HostTensor w4 = w;
    w4.dims = makeDims({6, 2, 3, 1});
    HostTensor expected = referenceConv2d(x4, w4, nullptr, 0, 1, 2);
    expected.dims = makeDims({2, 6, 7});
    EXPECT_TRUE(allClose(outputs["y"], expected, 1e-4, 1e-4));
}

TEST_F(NnImportersTest, LayerNormalizationProducesMeanAndInvStdDev)
{
    HostTensor const x = random({2, 3, 4});
    HostTensor const scale = random({3, 4});
    HostTensor const bias = random({3, 4});
    float const eps = 1e-3F;
    OnnxModelBuilder model(17);
    model.addInput("x", DataType::kFLOAT, {2, 3, 4});
    model.addInitializer("scale", toConstant(scale));
    model.addInitializer("bias", toConstant(bias));
    model.addNode("LayerNormalization", {"x", "scale", "bias"}, {"y", "mean", "invstd"},
        {intAttr("axis", 1), floatAttr("epsilon", eps)});
    model.addOutput("y", DataType::kFLOAT);
    model.addOutput("mean", DataType::kFLOAT);
    model.addOutput("invstd", DataType::kFLOAT);
    auto outputs = runOnnxModel(model, {{"x", x}});
    ASSERT_EQ(outputs.size(), 3U);
    HostTensor y(DataType::kFLOAT, x.dims);
    HostTensor mean(DataType::kFLOAT, makeDims({2, 1, 1}));
    HostTensor inv(DataType::kFLOAT, makeDims({2, 1, 1}));
    for (int64_t n = 0; n < 2; ++n)
    {
        double m = 0.0;
        for (int64_t i = 0; i < 12; ++i)
        {
            m += x.at(n * 12 + i);
        }
        m /= 12.0;
        double v = 0.0;
        for (int64_t i = 0; i < 12; ++i)
        {
            v += (x.at(n * 12 + i) - m) * (x.at(n * 12 + i) - m);
        }
        double const is = 1.0 / std::sqrt(v / 12.0 + eps);
        mean.set(n, m);
        inv.set(n, is);
        for (int64_t i = 0; i < 12; ++i)
        {
            y.set(n * 12 + i, (x.at(n * 12 + i) - m) * is * scale.at(i) + bias.at(i));
        }
    }
    EXPECT_TRUE(allClose(outputs["y"], y, 1e-5, 1e-4));
    EXPECT_TRUE(allClose(outputs["mean"], mean, 1e-6, 1e-5));
    EXPECT_TRUE(allClose(outputs["invstd"], inv, 1e-5, 1e-4));
}

TEST_F(NnImportersTest, GroupNormalizationOpset18And21ScaleShapes)
{
    // x [2, 4, 3], 2 groups of 2 channels. Opset 18: scale/bias per group; opset 21: per channel.
    HostTensor const x = random({2, 4, 3});
    float const eps = 1e-2F;
    for (int64_t opset : {18, 21})
    {
        int64_t const params = opset == 18 ? 2 : 4;
        HostTensor const scale = random({params});
        HostTensor const bias = random({params});
        OnnxModelBuilder model(opset);
        model.addInput("x", DataType::kFLOAT, {2, 4, 3});
        model.addInitializer("scale", toConstant(scale));
        model.addInitializer("bias", toConstant(bias));
        model.addNode("GroupNormalization", {"x", "scale", "bias"}, {"y"},
            {intAttr("num_groups", 2), floatAttr("epsilon", eps)});
        model.addOutput("y", DataType::kFLOAT);
        auto outputs = runOnnxModel(model, {{"x", x}});
        ASSERT_EQ(outputs.count("y"), 1U) << "opset " << opset;
        HostTensor expected(DataType::kFLOAT, x.dims);
        for (int64_t n = 0; n < 2; ++n)
        {
            for (int64_t g = 0; g < 2; ++g)
            {
                int64_t const first = (n * 4 + g * 2) * 3; // 2 channels x 3 positions are contiguous
                double m = 0.0;
                for (int64_t i = 0; i < 6; ++i)
                {
                    m += x.at(first + i);
                }
                m /= 6.0;
                double v = 0.0;
                for (int64_t i = 0; i < 6; ++i)
                {
                    v += (x.at(first + i) - m) * (x.at(first + i) - m);
                }
                v /= 6.0;
                for (int64_t i = 0; i < 6; ++i)
                {
                    int64_t const c = g * 2 + i / 3;
                    int64_t const p = opset == 18 ? g : c;
                    expected.set(first + i, (x.at(first + i) - m) / std::sqrt(v + eps) * scale.at(p) + bias.at(p));
                }
            }
        }
        EXPECT_TRUE(allClose(outputs["y"], expected, 1e-5, 1e-4)) << "opset " << opset;
    }
}

TEST_F(NnImportersTest, LpPool1DAndGlobalLpPool)
{
    // LpPool p=3, 1-D window 3, stride 2, pads 1: (sum over the window of |x|^3)^(1/3), padding counts as 0.
    HostTensor const x = random({1, 2, 8});
    OnnxModelBuilder model(18);
    model.addInput("x", DataType::kFLOAT, {1, 2, 8});
    model.addNode("LpPool", {"x"}, {"y"},
        {intAttr("p", 3), intsAttr("kernel_shape", {3}), intsAttr("strides", {2}), intsAttr("pads", {1, 1})});
    model.addNode("GlobalLpPool", {"x"}, {"g"}, {intAttr("p", 2)});
    model.addOutput("y", DataType::kFLOAT);
    model.addOutput("g", DataType::kFLOAT);
    auto outputs = runOnnxModel(model, {{"x", x}});
    ASSERT_EQ(outputs.size(), 2U);
    HostTensor y(DataType::kFLOAT, makeDims({1, 2, 4}));
    HostTensor g(DataType::kFLOAT, makeDims({1, 2, 1}));
    for (int64_t c = 0; c < 2; ++c)
    {
        for (int64_t o = 0; o < 4; ++o)
        {
            double sum = 0.0;
            for (int64_t k = 0; k < 3; ++k)
            {
                int64_t const i = o * 2 - 1 + k;
                if (i >= 0 && i < 8)
                {
                    sum += std::pow(std::fabs(x.at(c * 8 + i)), 3.0);
                }
            }
            y.set(c * 4 + o, std::cbrt(sum));
        }
        double sq = 0.0;
        for (int64_t i = 0; i < 8; ++i)
        {
            sq += x.at(c * 8 + i) * x.at(c * 8 + i);
        }
        g.set(c, std::sqrt(sq));
    }
    EXPECT_TRUE(allClose(outputs["y"], y, 1e-5, 1e-4));
    EXPECT_TRUE(allClose(outputs["g"], g, 1e-5, 1e-4));
}

TEST_F(NnImportersTest, LpNormalizationL1AlongAxis0)
{
    HostTensor const x = random({3, 4});
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {3, 4});
    model.addNode("LpNormalization", {"x"}, {"y"}, {intAttr("axis", 0), intAttr("p", 1)});
    model.addOutput("y", DataType::kFLOAT);
    auto outputs = runOnnxModel(model, {{"x", x}});
    ASSERT_EQ(outputs.count("y"), 1U);
    HostTensor expected(DataType::kFLOAT, x.dims);
    for (int64_t j = 0; j < 4; ++j)
    {
        double norm = 0.0;
        for (int64_t i = 0; i < 3; ++i)
        {
            norm += std::fabs(x.at(i * 4 + j));
        }
        for (int64_t i = 0; i < 3; ++i)
        {
            expected.set(i * 4 + j, x.at(i * 4 + j) / norm);
        }
    }
    EXPECT_TRUE(allClose(outputs["y"], expected, 1e-6, 1e-5));
}

TEST_F(NnImportersTest, MaxPoolCeilModeDropsAWindowStartingInThePadding)
{
    // 5 + 2 (end padding), window 2, stride 3: round-up gives 3 windows, but the third would start at 6, inside
    // the padding, so ONNX (like PyTorch) keeps 2.
    HostTensor const x = random({1, 1, 5, 5});
    OnnxModelBuilder model(12);
    model.addInput("x", DataType::kFLOAT, {1, 1, 5, 5});
    model.addNode("MaxPool", {"x"}, {"y"},
        {intsAttr("kernel_shape", {2, 2}), intsAttr("strides", {3, 3}), intsAttr("pads", {0, 0, 2, 2}),
            intAttr("ceil_mode", 1)});
    model.addOutput("y", DataType::kFLOAT);
    auto outputs = runOnnxModel(model, {{"x", x}});
    ASSERT_EQ(outputs.count("y"), 1U);
    HostTensor expected(DataType::kFLOAT, makeDims({1, 1, 2, 2}));
    for (int64_t i = 0; i < 2; ++i)
    {
        for (int64_t j = 0; j < 2; ++j)
        {
            double m = -INFINITY;
            for (int64_t di = 0; di < 2; ++di)
            {
                for (int64_t dj = 0; dj < 2; ++dj)
                {
                    m = std::max(m, x.at((3 * i + di) * 5 + 3 * j + dj));
                }
            }
            expected.set(i * 2 + j, m);
        }
    }
    EXPECT_TRUE(allClose(outputs["y"], expected, 0.0, 0.0));
}

TEST_F(NnImportersTest, ConvTransposeWithRunTimeWeightsBiasAndOutputPadding)
{
    // x [1, 2, 3, 4], W [2, 3, 3, 2] (C, M, kH, kW) and B [3] as graph inputs; strides (2, 3), pads (1, 0, 0, 1)
    // (H begin 1, W end 1), output_padding (1, 2): out = (in - 1) * s + k - pads + output_padding = (7, 12); the
    // last W column lies beyond every window and holds only the bias.
    HostTensor const x = random({1, 2, 3, 4});
    HostTensor const w = random({2, 3, 3, 2});
    HostTensor const b = random({3});
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {1, 2, 3, 4});
    model.addInput("w", DataType::kFLOAT, {2, 3, 3, 2});
    model.addInput("b", DataType::kFLOAT, {3});
    model.addNode("ConvTranspose", {"x", "w", "b"}, {"y"},
        {intsAttr("strides", {2, 3}), intsAttr("pads", {1, 0, 0, 1}), intsAttr("output_padding", {1, 2})});
    model.addOutput("y", DataType::kFLOAT);
    auto outputs = runOnnxModel(model, {{"x", x}, {"w", w}, {"b", b}});
    ASSERT_EQ(outputs.count("y"), 1U);
    int64_t const oh = 7;
    int64_t const ow = 12;
    HostTensor expected(DataType::kFLOAT, makeDims({1, 3, oh, ow}));
    std::vector<double> acc(static_cast<size_t>(3 * oh * ow), 0.0);
    for (int64_t m = 0; m < 3; ++m)
    {
        for (int64_t i = 0; i < oh * ow; ++i)
        {
            acc[static_cast<size_t>(m * oh * ow + i)] = b.at(m);
        }
    }
    for (int64_t c = 0; c < 2; ++c)
    {
        for (int64_t iy = 0; iy < 3; ++iy)
        {
            for (int64_t ix = 0; ix < 4; ++ix)
            {
                for (int64_t m = 0; m < 3; ++m)
                {
                    for (int64_t ry = 0; ry < 3; ++ry)
                    {
                        for (int64_t rx = 0; rx < 2; ++rx)
                        {
                            int64_t const oy = iy * 2 + ry - 1;
                            int64_t const ox = ix * 3 + rx;
                            if (oy < 0 || oy >= oh || ox < 0 || ox >= ow)
                            {
                                continue;
                            }
                            acc[static_cast<size_t>((m * oh + oy) * ow + ox)]
                                += x.at((c * 3 + iy) * 4 + ix) * w.at(((c * 3 + m) * 3 + ry) * 2 + rx);
                        }
                    }
                }
            }
        }
    }
    for (size_t i = 0; i < acc.size(); ++i)
    {
        expected.set(static_cast<int64_t>(i), acc[i]);
    }
    EXPECT_TRUE(allClose(outputs["y"], expected, 1e-4, 1e-4));
}

} // namespace
} // namespace kiln::test
