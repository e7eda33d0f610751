// Tests of the ONNX QuantizeLinear / DequantizeLinear mapping: INT8 with a constant scale and a zero (or absent) zero
// point becomes IQuantizeLayer / IDequantizeLayer (per-tensor and per-axis, negative axes), with results equal to
// the ONNX formula; UINT8, non-zero zero points and run-time scales keep the composite float path. (A DQ whose
// inputs are all initializers is folded into a float constant by the parser, constantFolding.h.)
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
