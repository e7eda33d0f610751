// Tests of the ONNX QuantizeLinear / DequantizeLinear mapping: INT8 with a constant scale and a zero (or absent) zero
// point becomes IQuantizeLayer / IDequantizeLayer (per-tensor and per-axis, negative axes), with results equal to
// the ONNX formula; UINT8, non-zero zero points and run-time scales keep the composite float path. (A DQ whose
// inputs are all initializers is folded into a float constant by the parser, constantFolding.h, unless only Conv
// kernels read it: a QDQ convolution keeps its weight DQ and runs as one INT8 convolution on the CPU.)
#include "onnxTestModels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::LayerType;

//! saturate(round_half_even(x / scale)) to INT8, in float as ONNX defines it.
double quantizeInt8(double x, double scale)
{
    float const v = static_cast<float>(x) / static_cast<float>(scale);
    return std::clamp(std::nearbyint(static_cast<double>(v)), -128.0, 127.0);
}

TEST(QuantizationImporterTest, Int8QdqWithZeroPointsMapsToQuantizeLayers)
{
    std::mt19937 rng(811);
    int64_t const a = 2;
    int64_t const c = 3;
    int64_t const b = 7;
    std::vector<float> const scales{0.5F, 0.03F, 0.125F};
    HostTensor x = HostTensor::random(DataType::kFLOAT, makeDims({a, c, b}), rng, -20.0, 20.0);
    for (int64_t i = 0; i < x.volume(); i += 3)
    {
        x.set(i, (std::uniform_int_distribution<int>(-140, 140)(rng) + 0.5) * (i % 2 == 0 ? 0.5 : 0.125));
    }
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {a, c, b});
    model.addInitializer("s", OnnxConstant::fromFloat(scales, {c}));
    model.addInitializer("zp", toConstant(HostTensor::fromValues(DataType::kINT8, makeDims({c}), {0, 0, 0})));
    model.addNode("QuantizeLinear", {"x", "s", "zp"}, {"q"}, {intAttr("axis", -2)});
    model.addNode("DequantizeLinear", {"q", "s", "zp"}, {"y"}, {intAttr("axis", 1)});
    model.addOutput("q", DataType::kINT8);
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner r;
    ASSERT_TRUE(r.parse(model));
    EXPECT_EQ(countLayers(r.network(), LayerType::kQUANTIZE), 1);
    EXPECT_EQ(countLayers(r.network(), LayerType::kDEQUANTIZE), 1);
    EXPECT_EQ(countLayers(r.network(), LayerType::kELEMENTWISE), 0);
    for (int32_t i = 0; i < r.network().getNbLayers(); ++i)
    {
        nvinfer1::ILayer* layer = r.network().getLayer(i);
        if (layer->getType() == LayerType::kQUANTIZE)
        {
            EXPECT_EQ(static_cast<nvinfer1::IQuantizeLayer*>(layer)->getAxis(), 1);
        }
    }
    ASSERT_TRUE(r.build());
    auto out = r.run({{"x", x}});
    HostTensor wantQ(DataType::kINT8, x.dims);
    HostTensor wantY(DataType::kFLOAT, x.dims);
    for (int64_t i = 0; i < x.volume(); ++i)
    {
        float const s = scales[static_cast<size_t>((i / b) % c)];
        double const q = quantizeInt8(x.at(i), s);
        wantQ.set(i, q);
        wantY.set(i, static_cast<float>(q) * s);
    }
    EXPECT_TRUE(allClose(out["q"], wantQ, 0.0, 0.0));
    EXPECT_TRUE(allClose(out["y"], wantY, 0.0, 1e-7));
}

TEST(QuantizationImporterTest, PerTensorDequantize)
{
    std::mt19937 rng(823);
    HostTensor const w = HostTensor::random(DataType::kINT8, makeDims({4, 5}), rng, -128, 127);
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {4, 5});
    model.addInput("w", DataType::kINT8, {4, 5});
    model.addInitializer("s", OnnxConstant::fromFloat({0.0625F}, {}));
    model.addNode("DequantizeLinear", {"w", "s"}, {"wf"});
    model.addNode("Add", {"x", "wf"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner r;
    ASSERT_TRUE(r.parse(model));
    EXPECT_EQ(countLayers(r.network(), LayerType::kDEQUANTIZE), 1);
    ASSERT_TRUE(r.build());
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({4, 5}), rng, -2.0, 2.0);
    auto out = r.run({{"x", x}, {"w", w}});
    HostTensor want(DataType::kFLOAT, x.dims);
    for (int64_t i = 0; i < x.volume(); ++i)
    {
        want.set(i, static_cast<float>(x.at(i)) + static_cast<float>(w.at(i)) * 0.0625F);
    }
    EXPECT_TRUE(allClose(out["y"], want, 1e-6, 1e-6));
}

TEST(QuantizationImporterTest, QdqConvolutionRunsAsOneInt8Convolution)
{
    std::mt19937 rng(829);
    int64_t const c = 6;
    int64_t const k = 8;
    int64_t const h = 7;
    int64_t const w = 9;
    float const xs = 0.03F;
    float const ys = 0.04F;
    HostTensor const wq = HostTensor::random(DataType::kINT8, makeDims({k, c, 3, 3}), rng, -127, 127);
    std::vector<float> ws(static_cast<size_t>(k));
    std::vector<float> bias(static_cast<size_t>(k));
    for (int64_t o = 0; o < k; ++o)
    {
        ws[static_cast<size_t>(o)] = std::uniform_real_distribution<float>(0.002F, 0.01F)(rng);
        bias[static_cast<size_t>(o)] = std::uniform_real_distribution<float>(-0.5F, 0.5F)(rng);
    }
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {1, c, h, w});
    model.addInitializer("xs", OnnxConstant::fromFloat({xs}, {}));
    model.addInitializer("ys", OnnxConstant::fromFloat({ys}, {}));
    model.addInitializer("zp", toConstant(HostTensor::fromValues(DataType::kINT8, makeDims({}), {0.0})));
    model.addInitializer("wq", toConstant(wq));
    model.addInitializer("ws", OnnxConstant::fromFloat(ws, {k}));
    model.addInitializer("b", OnnxConstant::fromFloat(bias, {k}));
    model.addNode("QuantizeLinear", {"x", "xs", "zp"}, {"xq"});
    model.addNode("DequantizeLinear", {"xq", "xs", "zp"}, {"xf"});
    model.addNode("DequantizeLinear", {"wq", "ws"}, {"wf"}, {intAttr("axis", 0)});
    model.addNode("Conv", {"xf", "wf", "b"}, {"conv"}, {intsAttr("pads", {1, 1, 1, 1})});
    model.addNode("Relu", {"conv"}, {"relu"});
    model.addNode("QuantizeLinear", {"relu", "ys", "zp"}, {"yq"});
    model.addNode("DequantizeLinear", {"yq", "ys", "zp"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner r;
    ASSERT_TRUE(r.parse(model));
    EXPECT_EQ(countLayers(r.network(), LayerType::kDEQUANTIZE), 3); // the weights' DQ is kept for the fusion
    ASSERT_TRUE(r.build());
    // Q, the INT8 convolution (DQ, DQ, Conv, Relu, Q), DQ.
    EXPECT_EQ(r.runner().engine().getNbLayers(), 3);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({1, c, h, w}), rng, -3.0, 3.0);
    auto out = r.run({{"x", x}});
    HostTensor want(DataType::kFLOAT, makeDims({1, k, h, w}));
    for (int64_t o = 0; o < k; ++o)
    {
        for (int64_t i = 0; i < h * w; ++i)
        {
            double acc = 0.0;
            for (int64_t ci = 0; ci < c; ++ci)
            {
                for (int64_t t = 0; t < 9; ++t)
                {
                    int64_t const yy = i / w + t / 3 - 1;
                    int64_t const xx = i % w + t % 3 - 1;
                    if (yy >= 0 && yy < h && xx >= 0 && xx < w)
                    {
                        acc += quantizeInt8(x.at((ci * h + yy) * w + xx), xs) * wq.at((o * c + ci) * 9 + t);
                    }
                }
            }
            double const v = std::max(acc * xs * ws[static_cast<size_t>(o)] + bias[static_cast<size_t>(o)], 0.0);
            want.set(o * h * w + i, quantizeInt8(v, ys) * ys);
        }
    }
    // Within one quantization step of the output (rounding of values near a tie).
    EXPECT_TRUE(allClose(out["y"], want, ys * 1.001, 0.0));
}

TEST(QuantizationImporterTest, OtherFormsKeepTheCompositePath)
{
    // A non-zero zero point, a UINT8 type (no zero point) and a run-time scale are composed in float.
    for (int32_t form = 0; form < 3; ++form)
    {
        OnnxModelBuilder model(13);
        model.addInput("x", DataType::kFLOAT, {2, 3});
        std::vector<std::string> inputs{"x", "s"};
        if (form == 2)
        {
            model.addInput("s", DataType::kFLOAT, {});
        }
        else
        {
            model.addInitializer("s", OnnxConstant::fromFloat({0.25F}, {}));
        }
        if (form != 1)
        {
            // form 0: zero point 3; form 2: zero point 0 (but the scale is a network input).
            model.addInitializer("zp", toConstant(HostTensor::fromValues(DataType::kINT8, makeDims({}), {form == 0 ? 3.0 : 0.0})));
            inputs.push_back("zp");
        }
        model.addNode("QuantizeLinear", inputs, {"q"});
        model.addOutput("q", form == 1 ? DataType::kUINT8 : DataType::kINT8);
        OnnxRunner r;
        ASSERT_TRUE(r.parse(model)) << form;
        EXPECT_EQ(countLayers(r.network(), LayerType::kQUANTIZE), 0) << form;
        EXPECT_GT(countLayers(r.network(), LayerType::kELEMENTWISE), 0) << form;
    }
}

} // namespace
} // namespace kiln::test
