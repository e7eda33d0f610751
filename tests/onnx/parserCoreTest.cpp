// Parser core: small models that parse, build and run end to end (Constant + Add, broadcasting against dynamic
// dims, constants as graph outputs with the declared-type cast), layer naming, getLayerOutputTensor, flags, and the
// first model-level errors (unknown op, dangling input, opset range).
#include "onnxTestModels.h"

#include "onnx/onnxConstant.h"

#include <gtest/gtest.h>

#include <random>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

class ParserCoreTest : public ::testing::Test
{
protected:
    std::mt19937 mRng{20261121};
};

TEST_F(ParserCoreTest, ConstantPlusAddRuns)
{
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, 3}), mRng, -2.0, 2.0);
    HostTensor const c = HostTensor::random(DataType::kFLOAT, makeDims({2, 3}), mRng, -2.0, 2.0);
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2, 3});
    model.addNode("Constant", {}, {"c"}, {tensorAttr("value", toConstant(c))});
    model.addNode("Add", {"x", "c"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);

    auto outputs = runOnnxModel(model, {{"x", x}});
    ASSERT_EQ(outputs.count("y"), 1U);
    HostTensor expected(DataType::kFLOAT, makeDims({2, 3}));
    for (int64_t i = 0; i < 6; ++i)
    {
        expected.set(i, static_cast<float>(x.at(i)) + static_cast<float>(c.at(i)));
    }
    EXPECT_TRUE(allClose(outputs["y"], expected, 0.0, 0.0));
}

TEST_F(ParserCoreTest, BroadcastAgainstDynamicBatch)
{
    HostTensor const b = HostTensor::random(DataType::kFLOAT, makeDims({3}), mRng, -1.0, 1.0);
    OnnxModelBuilder model(17);
    model.addInput("x", DataType::kFLOAT, {-1, 3});
    model.addInitializer("b", toConstant(b));
    model.addNode("Add", {"x", "b"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);

    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    EXPECT_EQ(runner.network().getInput(0)->getDimensions().d[0], -1);
    runner.runner().setProfileDims("x", {1, 3}, {4, 3}, {8, 3});
    ASSERT_TRUE(runner.build());
    for (int64_t batch : {1, 5})
    {
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({batch, 3}), mRng, -1.0, 1.0);
        auto outputs = runner.run({{"x", x}});
        ASSERT_EQ(outputs.count("y"), 1U);
        HostTensor expected(DataType::kFLOAT, makeDims({batch, 3}));
        for (int64_t i = 0; i < batch * 3; ++i)
        {
            expected.set(i, static_cast<float>(x.at(i)) + static_cast<float>(b.at(i % 3)));
        }
        EXPECT_TRUE(allClose(outputs["y"], expected, 0.0, 0.0)) << "batch " << batch;
    }
}

TEST_F(ParserCoreTest, ConstantGraphOutputIsCastToDeclaredType)
{
    // value_ints is INT64 in ONNX; the output declares INT32, so the parser inserts a cast.
    std::uniform_int_distribution<int64_t> dist(-1000, 1000);
    std::vector<int64_t> values{dist(mRng), dist(mRng), dist(mRng), dist(mRng)};
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2}), mRng);
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2});
    model.addNode("Constant", {}, {"k"}, {intsAttr("value_ints", values)});
    model.addNode("Add", {"x", "x"}, {"twice"});
    model.addOutput("k", DataType::kINT32);
    model.addOutput("twice", DataType::kFLOAT);

    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    ASSERT_TRUE(runner.build());
    auto outputs = runner.run({{"x", x}});
    ASSERT_EQ(outputs.count("k"), 1U);
    EXPECT_EQ(outputs["k"].type, DataType::kINT32);
    ASSERT_EQ(outputs["k"].volume(), 4);
    for (int64_t i = 0; i < 4; ++i)
    {
        EXPECT_EQ(outputs["k"].at(i), static_cast<double>(values[static_cast<size_t>(i)]));
    }
    for (int64_t i = 0; i < 2; ++i)
    {
        EXPECT_EQ(outputs["twice"].at(i), 2.0 * static_cast<double>(static_cast<float>(x.at(i))));
    }
}

TEST_F(ParserCoreTest, ConstantAndInitializerOutputsAreCopiedByIdentityLayers)
{
    HostTensor const w = HostTensor::random(DataType::kFLOAT, makeDims({2, 2}), mRng);
    std::uniform_int_distribution<int64_t> dist(-50, 50);
    std::vector<int64_t> const ints{dist(mRng), dist(mRng), dist(mRng)};
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2}), mRng);
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2});
    model.addInitializer("w", toConstant(w));
    model.addNode("Constant", {}, {"k"}, {intsAttr("value_ints", ints)});
    model.addNode("Add", {"x", "x"}, {"y"});
    model.addOutput("w", DataType::kFLOAT);
    model.addOutput("k", DataType::kINT64);
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    auto& network = runner.network();
    ASSERT_EQ(network.getNbOutputs(), 3);
    for (int32_t o = 0; o < 2; ++o)
    {
        nvinfer1::ITensor* out = network.getOutput(o);
        bool fromIdentity = false;
        for (int32_t i = 0; i < network.getNbLayers(); ++i)
        {
            auto* layer = network.getLayer(i);
            fromIdentity = fromIdentity
                || (layer->getType() == nvinfer1::LayerType::kIDENTITY && layer->getOutput(0) == out);
        }
        EXPECT_TRUE(fromIdentity) << out->getName();
    }
    ASSERT_TRUE(runner.build());
    auto outputs = runner.run({{"x", x}});
    EXPECT_TRUE(allClose(outputs["w"], w, 0.0, 0.0));
    ASSERT_EQ(outputs["k"].volume(), 3);
    for (int64_t i = 0; i < 3; ++i)
    {
        EXPECT_EQ(outputs["k"].at(i), static_cast<double>(ints[static_cast<size_t>(i)]));
    }
}

TEST_F(ParserCoreTest, ScalarConstantsFromFloatAndInt)
{
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({3}), mRng);
    float const f = std::uniform_real_distribution<float>(0.5F, 2.0F)(mRng);
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {3});
    model.addNode("Constant", {}, {"f"}, {floatAttr("value_float", f)});
    model.addNode("Add", {"x", "f"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);
    auto outputs = runOnnxModel(model, {{"x", x}});
    ASSERT_EQ(outputs.count("y"), 1U);
    for (int64_t i = 0; i < 3; ++i)
    {
        EXPECT_FLOAT_EQ(static_cast<float>(outputs["y"].at(i)), static_cast<float>(x.at(i)) + f);
    }
}

TEST_F(ParserCoreTest, LayersAreNamedAfterNodesAndOutputsAreReachable)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2, 2});
    model.addNode("Add", {"x", "x"}, {"y"}).set_name("myAdd");
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    bool found = false;
    for (int32_t i = 0; i < runner.network().getNbLayers(); ++i)
    {
        found = found || std::string(runner.network().getLayer(i)->getName()) == "myAdd";
    }
    EXPECT_TRUE(found);
    nvinfer1::ITensor const* y = runner.parser().getLayerOutputTensor("myAdd", 0);
    ASSERT_NE(y, nullptr);
    EXPECT_STREQ(y->getName(), "y");
    EXPECT_EQ(runner.parser().getLayerOutputTensor("myAdd", 1), nullptr);
    EXPECT_EQ(runner.parser().getLayerOutputTensor("nope", 0), nullptr);
    ASSERT_EQ(runner.network().getNbOutputs(), 1);
    EXPECT_STREQ(runner.network().getOutput(0)->getName(), "y");
}

TEST_F(ParserCoreTest, FlagsDefaultAndToggle)
{
    OnnxRunner runner;
    auto& parser = runner.parser();
    EXPECT_EQ(parser.getFlags(), 1U << static_cast<uint32_t>(nvonnxparser::OnnxParserFlag::kNATIVE_INSTANCENORM));
    parser.setFlag(nvonnxparser::OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE);
    EXPECT_TRUE(parser.getFlag(nvonnxparser::OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE));
    parser.clearFlag(nvonnxparser::OnnxParserFlag::kNATIVE_INSTANCENORM);
    EXPECT_FALSE(parser.getFlag(nvonnxparser::OnnxParserFlag::kNATIVE_INSTANCENORM));
    parser.setFlags(0);
    EXPECT_EQ(parser.getFlags(), 0U);
}

TEST_F(ParserCoreTest, UnknownOpIsUnsupportedNodeNamingTheNode)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2});
    model.addNode("Add", {"x", "x"}, {"a"});
    model.addNode("KilnNoSuchOp", {"a"}, {"y"}).set_name("mystery");
    model.addOutput("y", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model);
    EXPECT_FALSE(outcome.ok);
    ASSERT_EQ(outcome.errors.size(), 1U);
    EXPECT_EQ(outcome.errors[0].code, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE);
    EXPECT_EQ(outcome.errors[0].node, 1);
    EXPECT_EQ(outcome.errors[0].nodeName, "mystery");
    EXPECT_EQ(outcome.errors[0].nodeOperator, "KilnNoSuchOp");
    EXPECT_TRUE(outcome.hasError("KilnNoSuchOp")) << outcome.allErrors();
    ASSERT_EQ(outcome.loggedErrors.size(), 1U);
    EXPECT_EQ(outcome.loggedErrors[0].rfind("ONNX node 'mystery' (KilnNoSuchOp): ", 0), 0U) << outcome.loggedErrors[0];
}

TEST_F(ParserCoreTest, UnnamedNodeIsDescribedByIndex)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2});
    model.addNode("KilnNoSuchOp", {"x"}, {"y"}).clear_name();
    model.addOutput("y", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model);
    ASSERT_EQ(outcome.errors.size(), 1U);
    EXPECT_TRUE(outcome.hasError("node #0 (KilnNoSuchOp)")) << outcome.allErrors();
}

TEST_F(ParserCoreTest, DanglingInputIsInvalidGraph)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2});
    model.addNode("Add", {"x", "ghost"}, {"y"}).set_name("adder");
    model.addOutput("y", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model);
    ASSERT_EQ(outcome.errors.size(), 1U);
    EXPECT_EQ(outcome.errors[0].code, nvonnxparser::ErrorCode::kINVALID_GRAPH);
    EXPECT_TRUE(outcome.hasError("node 'adder' (Add): input 1 'ghost' is not")) << outcome.allErrors();
}

TEST_F(ParserCoreTest, OpsetRange)
{
    {
        OnnxModelBuilder model(24);
        model.addInput("x", DataType::kFLOAT, {2});
        model.addNode("Add", {"x", "x"}, {"y"});
        model.addOutput("y", DataType::kFLOAT);
        ParseOutcome const outcome = parseOnly(model);
        ASSERT_EQ(outcome.errors.size(), 1U);
        EXPECT_EQ(outcome.errors[0].code, nvonnxparser::ErrorCode::kUNSUPPORTED_GRAPH);
        EXPECT_TRUE(outcome.hasError("opset 24")) << outcome.allErrors();
    }
    {
        OnnxModelBuilder model(7);
        model.addInput("x", DataType::kFLOAT, {2});
        model.addNode("Add", {"x", "x"}, {"y"});
        model.addOutput("y", DataType::kFLOAT);
        ParseOutcome const outcome = parseOnly(model);
        EXPECT_TRUE(outcome.ok) << outcome.allErrors();
        ASSERT_EQ(outcome.loggedWarnings.size(), 1U);
        EXPECT_NE(outcome.loggedWarnings[0].find("opsets before 9 are imported best-effort"), std::string::npos);
    }
    {
        OnnxModelBuilder model(13);
        // Only ops of the default domain need its opset: a node using it makes the model invalid.
        model.model().mutable_opset_import(0)->set_domain("com.example");
        model.addInput("x", DataType::kFLOAT, {2});
        model.addNode("Add", {"x", "x"}, {"y"});
        model.addOutput("y", DataType::kFLOAT);
        ParseOutcome const outcome = parseOnly(model);
        ASSERT_EQ(outcome.errors.size(), 1U);
        EXPECT_EQ(outcome.errors[0].code, nvonnxparser::ErrorCode::kINVALID_GRAPH);
        EXPECT_TRUE(outcome.hasError("no opset for the default ONNX domain")) << outcome.allErrors();
        EXPECT_TRUE(outcome.hasError("(Add)")) << outcome.allErrors();
    }
}

TEST_F(ParserCoreTest, ConstantWithUnsupportedAttribute)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2});
    model.addNode("Constant", {}, {"s"}, {stringAttr("value_string", "hello")}).set_name("str");
    model.addOutput("s", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model);
    ASSERT_EQ(outcome.errors.size(), 1U);
    EXPECT_EQ(outcome.errors[0].code, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE);
    EXPECT_TRUE(outcome.hasError("node 'str' (Constant): attribute 'value_string' is not supported"))
        << outcome.allErrors();
}

TEST_F(ParserCoreTest, ParserVersionAndRefitter)
{
    EXPECT_EQ(getNvOnnxParserVersion(), NV_ONNX_PARSER_VERSION);
}

} // namespace
} // namespace kiln::test
