// Misc importers: If with a condition known at parse time (a Constant, or a value constant folding computes) imports
// the chosen branch inline, with outer-scope values and branch initializers (run-time conditions: controlFlowImportersTest).
#include "onnxTestModels.h"

#include <gtest/gtest.h>

#include <random>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

::onnx::AttributeProto graphAttr(std::string const& name, ::onnx::GraphProto const& g)
{
    ::onnx::AttributeProto a;
    a.set_name(name);
    a.set_type(::onnx::AttributeProto::GRAPH);
    *a.mutable_g() = g;
    return a;
}

//! then: x + x; else: x - k (k a branch initializer).
std::vector<::onnx::AttributeProto> branches(OnnxConstant const& k)
{
    OnnxModelBuilder thenB(13, "then");
    thenB.addNode("Add", {"x", "x"}, {"thenOut"});
    thenB.addOutput("thenOut", DataType::kFLOAT);
    OnnxModelBuilder elseB(13, "else");
    elseB.addInitializer("k", k);
    elseB.addNode("Sub", {"x", "k"}, {"elseOut"});
    elseB.addOutput("elseOut", DataType::kFLOAT);
    return {graphAttr("then_branch", thenB.model().graph()), graphAttr("else_branch", elseB.model().graph())};
}

class MiscImportersTest : public ::testing::TestWithParam<bool>
{
protected:
    std::mt19937 mRng{77};
};

TEST_P(MiscImportersTest, IfWithConstantConditionImportsOneBranch)
{
    bool const cond = GetParam();
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({3}), mRng);
    HostTensor const k = HostTensor::random(DataType::kFLOAT, makeDims({3}), mRng);
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {3});
    OnnxConstant c;
    c.type = DataType::kBOOL;
    c.bytes = {static_cast<uint8_t>(cond ? 1 : 0)};
    model.addNode("Constant", {}, {"cond"}, {tensorAttr("value", c)});
    model.addNode("If", {"cond"}, {"y"}, branches(toConstant(k))).set_name("if");
    model.addOutput("y", DataType::kFLOAT);
    auto outputs = runOnnxModel(model, {{"x", x}});
    ASSERT_EQ(outputs.count("y"), 1U);
    for (int64_t i = 0; i < 3; ++i)
    {
        float const xv = static_cast<float>(x.at(i));
        float const expected = cond ? xv + xv : xv - static_cast<float>(k.at(i));
        EXPECT_EQ(static_cast<float>(outputs["y"].at(i)), expected);
    }
}

INSTANTIATE_TEST_SUITE_P(Branches, MiscImportersTest, ::testing::Values(true, false));

TEST(MiscImportersIfTest, ConditionFromConstantFolding)
{
    std::mt19937 rng(78);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({3}), rng);
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {3});
    model.addInitializer("zero", OnnxConstant::fromInt64({0}, {}));
    model.addNode("Cast", {"zero"}, {"cond"}, {intAttr("to", ::onnx::TensorProto::BOOL)});
    model.addNode("If", {"cond"}, {"y"}, branches(OnnxConstant::fromFloat({1, 2, 3}, {3})));
    model.addOutput("y", DataType::kFLOAT);
    auto outputs = runOnnxModel(model, {{"x", x}});
    ASSERT_EQ(outputs.count("y"), 1U);
    for (int64_t i = 0; i < 3; ++i)
    {
        EXPECT_EQ(static_cast<float>(outputs["y"].at(i)), static_cast<float>(x.at(i)) - static_cast<float>(i + 1));
    }
}

TEST(MiscImportersIfTest, BranchWithAnUnknownOpNamesBoth)
{
    OnnxModelBuilder thenB(13, "then");
    thenB.addNode("KilnNoSuchOp", {"x"}, {"t"}).set_name("inner");
    thenB.addOutput("t", DataType::kFLOAT);
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {3});
    OnnxConstant c;
    c.type = DataType::kBOOL;
    c.bytes = {1};
    model.addNode("Constant", {}, {"cond"}, {tensorAttr("value", c)});
    model.addNode("If", {"cond"}, {"y"}, {graphAttr("then_branch", thenB.model().graph()),
                                              graphAttr("else_branch", thenB.model().graph())})
        .set_name("outer");
    model.addOutput("y", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model);
    ASSERT_EQ(outcome.errors.size(), 1U);
    EXPECT_TRUE(outcome.hasError("node 'outer' (If): then_branch: node 'inner' (KilnNoSuchOp): no importer for op"))
        << outcome.allErrors();
}

} // namespace
} // namespace kiln::test
