// Malformed and unsupported models: every one must give a parser error with the right ErrorCode and a message naming
// the cause, never a crash (truncated/garbage/empty bytes, missing or too new opsets, dangling inputs, missing graph
// outputs, short or huge initializers, unsupported input types, unknown ops, random byte flips).
#include "onnxTestModels.h"

#include <gtest/gtest.h>

#include <random>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvonnxparser::ErrorCode;

OnnxModelBuilder addModel(int64_t opset = 13)
{
    OnnxModelBuilder model(opset);
    model.addInput("x", DataType::kFLOAT, {2, 3});
    model.addInitializer("w", OnnxConstant::fromFloat({1, 2, 3, 4, 5, 6}, {2, 3}));
    model.addNode("Add", {"x", "w"}, {"y"}).set_name("add");
    model.addOutput("y", DataType::kFLOAT);
    return model;
}

void expectSingleError(ParseOutcome const& outcome, ErrorCode code, std::string const& text)
{
    expectSingleParserError(outcome, code, text);
    EXPECT_EQ(outcome.loggedErrors.size(), 1U);
}

TEST(ParserMalformedTest, ValidModelParses)
{
    ParseOutcome const outcome = parseOnly(addModel());
    EXPECT_TRUE(outcome.ok) << outcome.allErrors();
    EXPECT_TRUE(outcome.errors.empty());
}

TEST(ParserMalformedTest, EmptyBuffer)
{
    expectSingleError(parseOnly(std::string()), ErrorCode::kMODEL_DESERIALIZE_FAILED, "the serialized model is empty");
}

TEST(ParserMalformedTest, GarbageBytes)
{
    std::string garbage(64, '\xff');
    expectSingleError(parseOnly(garbage), ErrorCode::kMODEL_DESERIALIZE_FAILED, "not a valid ONNX model");
}

TEST(ParserMalformedTest, TruncatedModel)
{
    std::string const bytes = addModel().serialize();
    ParseOutcome const outcome = parseOnly(bytes.substr(0, bytes.size() - 7));
    EXPECT_FALSE(outcome.ok);
    ASSERT_FALSE(outcome.errors.empty());
    EXPECT_EQ(outcome.errors[0].code, ErrorCode::kMODEL_DESERIALIZE_FAILED) << outcome.allErrors();
}

TEST(ParserMalformedTest, MissingOpsetImport)
{
    OnnxModelBuilder model = addModel();
    model.model().clear_opset_import();
    expectSingleError(parseOnly(model), ErrorCode::kINVALID_GRAPH, "opset");
}

TEST(ParserMalformedTest, OpsetTooNew)
{
    expectSingleError(parseOnly(addModel(99)), ErrorCode::kUNSUPPORTED_GRAPH, "Kiln supports opsets 1 to 23");
}

TEST(ParserMalformedTest, DanglingNodeInput)
{
    OnnxModelBuilder model = addModel();
    model.model().mutable_graph()->mutable_node(0)->set_input(1, "nowhere");
    ParseOutcome const outcome = parseOnly(model);
    expectSingleError(outcome, ErrorCode::kINVALID_GRAPH, "node 'add' (Add): input 1 'nowhere' is not");
    EXPECT_EQ(outcome.errors[0].node, 0);
}

TEST(ParserMalformedTest, GraphOutputNeverProduced)
{
    OnnxModelBuilder model = addModel();
    model.addOutput("phantom", DataType::kFLOAT);
    expectSingleError(parseOnly(model), ErrorCode::kINVALID_GRAPH,
        "graph output 'phantom' is not produced by any node, input or initializer");
}

TEST(ParserMalformedTest, InitializerShorterThanItsDims)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2, 3});
    ::onnx::TensorProto w = makeTensorProto("w", OnnxConstant::fromFloat({1, 2, 3, 4}, {4}));
    w.clear_dims();
    w.add_dims(2);
    w.add_dims(3);
    model.addInitializer("w", w);
    model.addNode("Add", {"x", "w"}, {"y"}).set_name("add");
    model.addOutput("y", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model);
    expectSingleError(outcome, ErrorCode::kINVALID_NODE,
        "initializer 'w' holds 16 bytes of FLOAT data but its dims declare 6 elements (24 bytes)");
    EXPECT_EQ(outcome.errors[0].nodeName, "add");
}

TEST(ParserMalformedTest, TypedFieldShorterThanItsDims)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kINT64, {3});
    ::onnx::TensorProto w;
    w.set_data_type(::onnx::TensorProto::INT64);
    w.add_dims(3);
    w.add_int64_data(1);
    model.addInitializer("w", w);
    model.addNode("Add", {"x", "w"}, {"y"}).set_name("add");
    model.addOutput("y", DataType::kINT64);
    expectSingleError(parseOnly(model), ErrorCode::kINVALID_NODE,
        "initializer 'w' holds 1 elements in int64_data but its dims declare 3");
}

TEST(ParserMalformedTest, HugeDeclaredInitializerIsRefusedBeforeAllocating)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {1});
    ::onnx::TensorProto w;
    w.set_data_type(::onnx::TensorProto::FLOAT);
    w.add_dims(int64_t{1} << 20);
    w.add_dims(int64_t{1} << 20);
    model.addInitializer("w", w);
    model.addNode("Add", {"x", "w"}, {"y"}).set_name("add");
    model.addOutput("y", DataType::kFLOAT);
    expectSingleError(parseOnly(model), ErrorCode::kINVALID_NODE, "initializer 'w' declares more than");
}

TEST(ParserMalformedTest, NegativeInitializerDimension)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {1});
    ::onnx::TensorProto w;
    w.set_data_type(::onnx::TensorProto::FLOAT);
    w.add_dims(-3);
    model.addInitializer("w", w);
    model.addNode("Add", {"x", "w"}, {"y"}).set_name("add");
    model.addOutput("y", DataType::kFLOAT);
    expectSingleError(parseOnly(model), ErrorCode::kINVALID_NODE, "initializer 'w' has a negative dimension (-3)");
}

TEST(ParserMalformedTest, StringInputIsUnsupported)
{
    OnnxModelBuilder model(13);
    model.addInput("s", ::onnx::TensorProto::STRING, {2});
    model.addOutput("s", ::onnx::TensorProto::STRING);
    expectSingleError(parseOnly(model), ErrorCode::kUNSUPPORTED_GRAPH,
        "graph input 's': ONNX element type STRING is not supported by Kiln");
}

TEST(ParserMalformedTest, InputWithoutShapeIsUnsupported)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2});
    model.model().mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_shape();
    model.addOutput("x", DataType::kFLOAT);
    expectSingleError(parseOnly(model), ErrorCode::kUNSUPPORTED_GRAPH, "graph input 'x' has no shape");
}

TEST(ParserMalformedTest, UnknownOpWithoutCreator)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2});
    model.addNode("KilnFrobnicate", {"x"}, {"y"}).set_name("frob");
    model.addOutput("y", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model);
    expectSingleError(outcome, ErrorCode::kUNSUPPORTED_NODE, "node 'frob' (KilnFrobnicate): no importer for op");
    EXPECT_EQ(outcome.errors[0].nodeOperator, "KilnFrobnicate");
}

TEST(ParserMalformedTest, DuplicateOutputName)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2});
    model.addNode("Add", {"x", "x"}, {"y"});
    model.addNode("Add", {"x", "x"}, {"y"}).set_name("again");
    model.addOutput("y", DataType::kFLOAT);
    expectSingleError(parseOnly(model), ErrorCode::kINVALID_GRAPH,
        "node 'again' (Add): output 'y' is already defined earlier in the graph");
}

TEST(ParserMalformedTest, ConstantWithTwoValues)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {1});
    model.addNode("Constant", {}, {"c"}, {intAttr("value_int", 1), floatAttr("value_float", 2.0F)}).set_name("c2");
    model.addOutput("c", DataType::kINT64);
    expectSingleError(parseOnly(model), ErrorCode::kINVALID_NODE,
        "node 'c2' (Constant): Constant needs exactly one value attribute, got 2");
}

TEST(ParserMalformedTest, AttributeOfTheWrongType)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {1});
    ::onnx::AttributeProto a = stringAttr("value_int", "seven");
    model.addNode("Constant", {}, {"c"}, {a}).set_name("bad");
    model.addOutput("c", DataType::kINT64);
    expectSingleError(parseOnly(model), ErrorCode::kINVALID_NODE,
        "node 'bad' (Constant): attribute 'value_int' has type STRING, expected INT");
}

TEST(ParserMalformedTest, RandomCorruptionNeverCrashes)
{
    std::string const bytes = addModel().serialize();
    std::mt19937 rng(7);
    std::uniform_int_distribution<size_t> pos(0, bytes.size() - 1);
    std::uniform_int_distribution<int> value(0, 255);
    int failures = 0;
    for (int trial = 0; trial < 300; ++trial)
    {
        std::string mutated = bytes;
        for (int k = 0; k < 3; ++k)
        {
            mutated[pos(rng)] = static_cast<char>(value(rng));
        }
        ParseOutcome const outcome = parseOnly(mutated);
        if (!outcome.ok)
        {
            ++failures;
            ASSERT_FALSE(outcome.errors.empty()) << "a failed parse must record an error (trial " << trial << ")";
            EXPECT_FALSE(outcome.errors[0].desc.empty());
        }
    }
    EXPECT_GT(failures, 0);
}

} // namespace
} // namespace kiln::test
