// Importers of the activation, unary and cast families beyond the ONNX node tests: Clip with one bound (attribute
// and input forms, integer and runtime bounds), Celu/HardSwish/Mish/Gelu/Shrink compositions, IsInf with one sign,
// Cast truncation toward zero, Dropout's all-true mask, and the error paths with their messages.
#include "onnxTestModels.h"

#include "onnx/onnxConstant.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

class ActivationImportersTest : public ::testing::Test
{
protected:
    std::mt19937 mRng{7177};

    //! Runs a one-input, one-output float model and compares with f applied in float.
    template <typename F>
    void expectUnaryFloat(OnnxModelBuilder const& model, HostTensor const& x, F&& f, double tol)
    {
        auto outputs = runOnnxModel(model, {{"x", x}});
        ASSERT_EQ(outputs.count("y"), 1U);
        HostTensor expected(DataType::kFLOAT, x.dims);
        for (int64_t i = 0; i < x.volume(); ++i)
        {
            expected.set(i, f(static_cast<float>(x.at(i))));
        }
        EXPECT_TRUE(allClose(outputs["y"], expected, tol, tol));
    }
};

TEST_F(ActivationImportersTest, ClipWithOnlyMaxInput)
{
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({3, 7}), mRng, -5.0, 5.0);
    float const hi = std::uniform_real_distribution<float>(-1.F, 1.F)(mRng);
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {3, 7});
    model.addInitializer("hi", OnnxConstant::fromFloat({hi}, {}));
    model.addNode("Clip", {"x", "", "hi"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);
    expectUnaryFloat(model, x, [&](float v) { return std::min(v, hi); }, 0.0);
}

TEST_F(ActivationImportersTest, ClipWithOnlyMaxAttributeOpset6)
{
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({10}), mRng, -5.0, 5.0);
    float const hi = std::uniform_real_distribution<float>(0.F, 2.F)(mRng);
    OnnxModelBuilder model(6);
    model.addInput("x", DataType::kFLOAT, {10});
    model.addNode("Clip", {"x"}, {"y"}, {floatAttr("max", hi)});
    model.addOutput("y", DataType::kFLOAT);
    expectUnaryFloat(model, x, [&](float v) { return std::min(v, hi); }, 0.0);
}

TEST_F(ActivationImportersTest, ClipIntegerWithRuntimeBoundsAndMinAboveMax)
{
    HostTensor const x = HostTensor::random(DataType::kINT8, makeDims({12}), mRng, -100.0, 100.0);
    HostTensor const lo = HostTensor::fromValues(DataType::kINT8, makeDims({}), {-10.0});
    HostTensor const hi = HostTensor::fromValues(DataType::kINT8, makeDims({}), {20.0});
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kINT8, {12});
    model.addInput("lo", DataType::kINT8, {});
    model.addInput("hi", DataType::kINT8, {});
    model.addNode("Clip", {"x", "lo", "hi"}, {"y"});
    model.addNode("Clip", {"x", "hi", "lo"}, {"z"}); // min > max: every element becomes max
    model.addOutput("y", DataType::kINT8);
    model.addOutput("z", DataType::kINT8);
    auto outputs = runOnnxModel(model, {{"x", x}, {"lo", lo}, {"hi", hi}});
    ASSERT_EQ(outputs.size(), 2U);
    for (int64_t i = 0; i < 12; ++i)
    {
        EXPECT_EQ(outputs["y"].at(i), std::min(std::max(x.at(i), -10.0), 20.0));
        EXPECT_EQ(outputs["z"].at(i), -10.0);
    }
}

TEST_F(ActivationImportersTest, CeluHardSwishMishAndGelu)
{
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({4, 8}), mRng, -4.0, 4.0);
    float const alpha = std::uniform_real_distribution<float>(0.5F, 3.F)(mRng);
    OnnxModelBuilder model(20);
    model.addInput("x", DataType::kFLOAT, {4, 8});
    model.addNode("Celu", {"x"}, {"celu"}, {floatAttr("alpha", alpha)});
    model.addNode("HardSwish", {"x"}, {"hswish"});
    model.addNode("Mish", {"x"}, {"mish"});
    model.addNode("Gelu", {"x"}, {"gelu"});
    model.addNode("Gelu", {"x"}, {"geluTanh"}, {stringAttr("approximate", "tanh")});
    for (char const* name : {"celu", "hswish", "mish", "gelu", "geluTanh"})
    {
        model.addOutput(name, DataType::kFLOAT);
    }
    auto outputs = runOnnxModel(model, {{"x", x}});
    ASSERT_EQ(outputs.size(), 5U);
    std::map<std::string, HostTensor> expected;
    for (char const* name : {"celu", "hswish", "mish", "gelu", "geluTanh"})
    {
        expected[name] = HostTensor(DataType::kFLOAT, x.dims);
    }
    for (int64_t i = 0; i < x.volume(); ++i)
    {
        double const v = static_cast<float>(x.at(i));
        expected["celu"].set(i, std::max(0.0, v) + std::min(0.0, alpha * (std::exp(v / alpha) - 1.0)));
        expected["hswish"].set(i, v * std::max(0.0, std::min(1.0, v / 6.0 + 0.5)));
        expected["mish"].set(i, v * std::tanh(std::log1p(std::exp(v))));
        expected["gelu"].set(i, 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))));
        double const inner = std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v);
        expected["geluTanh"].set(i, 0.5 * v * (1.0 + std::tanh(inner)));
    }
    for (auto const& [name, want] : expected)
    {
        EXPECT_TRUE(allClose(outputs[name], want, 1e-5, 1e-5)) << name;
    }
}

TEST_F(ActivationImportersTest, ShrinkWithBias)
{
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({16}), mRng, -3.0, 3.0);
    float const lambd = std::uniform_real_distribution<float>(0.5F, 1.5F)(mRng);
    float const bias = std::uniform_real_distribution<float>(0.1F, 0.4F)(mRng);
    OnnxModelBuilder model(9);
    model.addInput("x", DataType::kFLOAT, {16});
    model.addNode("Shrink", {"x"}, {"y"}, {floatAttr("lambd", lambd), floatAttr("bias", bias)});
    model.addOutput("y", DataType::kFLOAT);
    expectUnaryFloat(
        model, x, [&](float v) { return v < -lambd ? v + bias : (v > lambd ? v - bias : 0.F); }, 0.0);
}

TEST_F(ActivationImportersTest, IsInfWithOneSign)
{
    HostTensor x = HostTensor::random(DataType::kFLOAT, makeDims({6}), mRng, -3.0, 3.0);
    x.set(0, std::numeric_limits<double>::infinity());
    x.set(3, -std::numeric_limits<double>::infinity());
    x.set(4, std::numeric_limits<double>::quiet_NaN());
    OnnxModelBuilder model(10);
    model.addInput("x", DataType::kFLOAT, {6});
    model.addNode("IsInf", {"x"}, {"pos"}, {intAttr("detect_negative", 0)});
    model.addNode("IsInf", {"x"}, {"neg"}, {intAttr("detect_positive", 0)});
    model.addNode("IsInf", {"x"}, {"both"});
    model.addOutput("pos", DataType::kBOOL);
    model.addOutput("neg", DataType::kBOOL);
    model.addOutput("both", DataType::kBOOL);
    auto outputs = runOnnxModel(model, {{"x", x}});
    ASSERT_EQ(outputs.size(), 3U);
    for (int64_t i = 0; i < 6; ++i)
    {
        double const v = x.at(i);
        EXPECT_EQ(outputs["pos"].at(i) != 0.0, std::isinf(v) && v > 0) << i;
        EXPECT_EQ(outputs["neg"].at(i) != 0.0, std::isinf(v) && v < 0) << i;
        EXPECT_EQ(outputs["both"].at(i) != 0.0, std::isinf(v)) << i;
    }
}

TEST_F(ActivationImportersTest, CastTruncatesTowardZeroAndDoubleIsFloat)
{
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({20}), mRng, -50.0, 50.0);
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {20});
    model.addNode("Cast", {"x"}, {"i"}, {intAttr("to", ::onnx::TensorProto::INT32)});
    model.addNode("Cast", {"x"}, {"d"}, {intAttr("to", ::onnx::TensorProto::DOUBLE)});
    model.addNode("Cast", {"x"}, {"h"}, {intAttr("to", ::onnx::TensorProto::FLOAT16)});
    model.addOutput("i", DataType::kINT32);
    model.addOutput("d", DataType::kFLOAT);
    model.addOutput("h", DataType::kHALF);
    auto outputs = runOnnxModel(model, {{"x", x}});
    ASSERT_EQ(outputs.size(), 3U);
    EXPECT_EQ(outputs["d"].type, DataType::kFLOAT);
    EXPECT_EQ(outputs["h"].type, DataType::kHALF);
    HostTensor half(DataType::kHALF, x.dims);
    for (int64_t i = 0; i < 20; ++i)
    {
        float const v = static_cast<float>(x.at(i));
        EXPECT_EQ(outputs["i"].at(i), std::trunc(v)) << v;
        EXPECT_EQ(outputs["d"].at(i), v);
        half.set(i, v); // HostTensor::set rounds to nearest even
    }
    EXPECT_TRUE(sameBits(outputs["h"], half));
}

TEST_F(ActivationImportersTest, CastToStringIsUnsupported)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2});
    model.addNode("Cast", {"x"}, {"y"}, {intAttr("to", ::onnx::TensorProto::STRING)}).set_name("toText");
    model.addOutput("y", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model);
    EXPECT_FALSE(outcome.ok);
    ASSERT_FALSE(outcome.errors.empty());
    EXPECT_EQ(outcome.errors[0].code, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE);
    EXPECT_TRUE(outcome.hasError("node 'toText' (Cast): Cast to STRING is not supported")) << outcome.allErrors();
}

TEST_F(ActivationImportersTest, DropoutMaskIsAllTrue)
{
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({3, 4}), mRng, -2.0, 2.0);
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {3, 4});
    model.addInitializer("ratio", OnnxConstant::fromFloat({0.25F}, {}));
    model.addNode("Dropout", {"x", "ratio"}, {"y", "mask"});
    model.addOutput("y", DataType::kFLOAT);
    model.addOutput("mask", DataType::kBOOL);
    auto outputs = runOnnxModel(model, {{"x", x}});
    ASSERT_EQ(outputs.size(), 2U);
    EXPECT_TRUE(allClose(outputs["y"], x, 0.0, 0.0));
    EXPECT_EQ(outputs["mask"].type, DataType::kBOOL);
    for (int64_t i = 0; i < 12; ++i)
    {
        EXPECT_NE(outputs["mask"].at(i), 0.0);
    }
}

TEST_F(ActivationImportersTest, DropoutOpset7MaskHasTheDataType)
{
    HostTensor const x = HostTensor::random(DataType::kHALF, makeDims({2, 5}), mRng, -2.0, 2.0);
    OnnxModelBuilder model(7);
    model.addInput("x", DataType::kHALF, {2, 5});
    model.addNode("Dropout", {"x"}, {"y", "mask"}, {floatAttr("ratio", 0.3F)});
    model.addOutput("y", DataType::kHALF);
    model.addOutput("mask", DataType::kHALF);
    auto outputs = runOnnxModel(model, {{"x", x}});
    ASSERT_EQ(outputs.size(), 2U);
    EXPECT_TRUE(sameBits(outputs["y"], x));
    EXPECT_EQ(outputs["mask"].type, DataType::kHALF);
    for (int64_t i = 0; i < 10; ++i)
    {
        EXPECT_EQ(outputs["mask"].at(i), 1.0);
    }
}

TEST_F(ActivationImportersTest, DropoutInTrainingModeIsUnsupported)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {3});
    model.addInitializer("ratio", OnnxConstant::fromFloat({0.5F}, {}));
    OnnxConstant training;
    training.type = DataType::kBOOL;
    training.bytes = {1};
    model.addInitializer("training", training);
    model.addNode("Dropout", {"x", "ratio", "training"}, {"y"}).set_name("drop");
    model.addOutput("y", DataType::kFLOAT);
    expectParseError(model, "node 'drop' (Dropout): Dropout with training_mode = true");
}

TEST_F(ActivationImportersTest, GeluBadApproximationIsAnError)
{
    OnnxModelBuilder model(20);
    model.addInput("x", DataType::kFLOAT, {3});
    model.addNode("Gelu", {"x"}, {"y"}, {stringAttr("approximate", "fast")}).set_name("g");
    model.addOutput("y", DataType::kFLOAT);
    expectParseError(model, "node 'g' (Gelu): attribute 'approximate' must be \"none\" or \"tanh\", got \"fast\"");
}

TEST_F(ActivationImportersTest, FloatActivationOnIntegerInputIsUnsupported)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kINT32, {3});
    model.addNode("Sigmoid", {"x"}, {"y"}).set_name("s");
    model.addOutput("y", DataType::kINT32);
    expectParseError(model, "node 's' (Sigmoid): input X has type INT32; Sigmoid is supported on FP32, FP16 and "
                            "BF16");
}

TEST_F(ActivationImportersTest, UnaryOpsOnIntegersGoThroughWiderTypes)
{
    HostTensor const x = HostTensor::random(DataType::kUINT8, makeDims({9}), mRng, 0.0, 255.0);
    HostTensor const y = HostTensor::random(DataType::kINT32, makeDims({9}), mRng, -100.0, 100.0);
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kUINT8, {9});
    model.addInput("v", DataType::kINT32, {9});
    model.addNode("Neg", {"x"}, {"negU8"});
    model.addNode("Abs", {"v"}, {"absI32"});
    model.addNode("Sign", {"v"}, {"signI32"});
    model.addOutput("negU8", DataType::kUINT8);
    model.addOutput("absI32", DataType::kINT32);
    model.addOutput("signI32", DataType::kINT32);
    auto outputs = runOnnxModel(model, {{"x", x}, {"v", y}});
    ASSERT_EQ(outputs.size(), 3U);
    for (int64_t i = 0; i < 9; ++i)
    {
        auto const u = static_cast<uint32_t>(x.at(i));
        EXPECT_EQ(static_cast<uint32_t>(outputs["negU8"].at(i)), (0U - u) & 0xFFU);
        EXPECT_EQ(outputs["absI32"].at(i), std::fabs(y.at(i)));
        EXPECT_EQ(outputs["signI32"].at(i), (y.at(i) > 0) - (y.at(i) < 0));
    }
}

} // namespace
} // namespace kiln::test
