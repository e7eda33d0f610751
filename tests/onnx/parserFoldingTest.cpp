// Constant folding in the ONNX parser: nodes fed only by initializers / Constant outputs are computed at parse time
// (a Shape -> Gather -> Concat -> Reshape chain, a Transpose of a weight) so the main network has no layers for
// them, and the results still match a reference computed here.
#include "onnxTestModels.h"

#include <gtest/gtest.h>

#include <random>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::LayerType;

TEST(ParserFoldingTest, ShapeChainOnAnInitializerIsFolded)
{
    std::mt19937 rng(5);
    // w [2,3,4] (only its shape matters); shape = concat(gather(shape(w), 0), [-1]) = [2, -1]; y = reshape(x, shape).
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {4, 6});
    HostTensor const w = HostTensor::random(DataType::kFLOAT, makeDims({2, 3, 4}), rng);
    model.addInitializer("w", toConstant(w));
    model.addInitializer("zero", OnnxConstant::fromInt64({0}, {1}));
    model.addInitializer("minusOne", OnnxConstant::fromInt64({-1}, {1}));
    model.addNode("Shape", {"w"}, {"wShape"});
    model.addNode("Gather", {"wShape", "zero"}, {"first"}, {intAttr("axis", 0)});
    model.addNode("Concat", {"first", "minusOne"}, {"newShape"}, {intAttr("axis", 0)});
    model.addNode("Reshape", {"x", "newShape"}, {"y"}).set_name("reshape");
    model.addOutput("y", DataType::kFLOAT);

    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    auto& network = runner.network();
    EXPECT_EQ(countLayers(network, LayerType::kSHAPE), 0);
    EXPECT_EQ(countLayers(network, LayerType::kGATHER), 0);
    EXPECT_EQ(countLayers(network, LayerType::kCONCATENATION), 0);
    ASSERT_TRUE(runner.build());
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({4, 6}), rng);
    auto outputs = runner.run({{"x", x}});
    ASSERT_EQ(outputs["y"].dims.nbDims, 2);
    EXPECT_EQ(outputs["y"].dims.d[0], 2);
    EXPECT_EQ(outputs["y"].dims.d[1], 12);
    HostTensor expected = x;
    expected.dims = makeDims({2, 12});
    EXPECT_TRUE(allClose(outputs["y"], expected, 0.0, 0.0));
}

TEST(ParserFoldingTest, TransposeOfAWeightIsFolded)
{
    std::mt19937 rng(6);
    HostTensor const w = HostTensor::random(DataType::kFLOAT, makeDims({2, 3}), rng);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({3, 2}), rng);
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {3, 2});
    model.addInitializer("w", toConstant(w));
    model.addNode("Transpose", {"w"}, {"wT"}, {intsAttr("perm", {1, 0})});
    model.addNode("Add", {"x", "wT"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);

    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    EXPECT_EQ(countLayers(runner.network(), LayerType::kSHUFFLE), 0);
    EXPECT_EQ(countLayers(runner.network(), LayerType::kELEMENTWISE), 1);
    ASSERT_TRUE(runner.build());
    auto outputs = runner.run({{"x", x}});
    HostTensor expected(DataType::kFLOAT, makeDims({3, 2}));
    for (int64_t i = 0; i < 3; ++i)
    {
        for (int64_t j = 0; j < 2; ++j)
        {
            expected.set(i * 2 + j, static_cast<float>(x.at(i * 2 + j)) + static_cast<float>(w.at(j * 3 + i)));
        }
    }
    EXPECT_TRUE(allClose(outputs["y"], expected, 0.0, 0.0));
}

TEST(ParserFoldingTest, FoldedValueCanBeAGraphOutput)
{
    std::mt19937 rng(8);
    HostTensor const a = HostTensor::random(DataType::kFLOAT, makeDims({3}), rng);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({3}), rng);
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {3});
    model.addInitializer("a", toConstant(a));
    model.addNode("Add", {"a", "a"}, {"twiceA"});
    model.addNode("Add", {"x", "twiceA"}, {"y"});
    model.addOutput("twiceA", DataType::kFLOAT);
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    EXPECT_EQ(countLayers(runner.network(), LayerType::kELEMENTWISE), 1);
    ASSERT_TRUE(runner.build());
    auto outputs = runner.run({{"x", x}});
    for (int64_t i = 0; i < 3; ++i)
    {
        float const twice = static_cast<float>(a.at(i)) + static_cast<float>(a.at(i));
        EXPECT_EQ(static_cast<float>(outputs["twiceA"].at(i)), twice);
        EXPECT_EQ(static_cast<float>(outputs["y"].at(i)), static_cast<float>(x.at(i)) + twice);
    }
}

// A BOOL mask folded from int64 comparisons and logic (GPT-2's causal mask: Equal/Greater/Not/And over initializers)
// selects between x and -x as the mask says, element by element.
TEST(ParserFoldingTest, FoldedBoolMaskSelects)
{
    std::mt19937 rng(31);
    FoldedMaskModel const m = foldedMaskModel(rng);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(m.bytes));
    EXPECT_EQ(countLayers(runner.network(), LayerType::kELEMENTWISE), 0);
    ASSERT_TRUE(runner.build());
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({64}), rng);
    auto outputs = runner.run({{"x", x}});
    for (int64_t i = 0; i < 64; ++i)
    {
        float const xv = static_cast<float>(x.at(i));
        EXPECT_EQ(static_cast<float>(outputs["y"].at(i)), m.mask(static_cast<size_t>(i)) ? xv : -xv) << "element " << i;
    }
}

} // namespace
} // namespace kiln::test
