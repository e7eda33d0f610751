// The importers' shared helpers (importerHelpers.h) on a real network through the parser's ImporterContextImpl:
// unsqueeze / squeeze / flatten2D with dynamic dimensions (including the shape-arithmetic path), transpose,
// broadcasting, casts, small constants, and the messages of their argument errors.
#include "onnxTestModels.h"

#include "onnx/importerContextImpl.h"
#include "onnx/importerHelpers.h"

#include <gtest/gtest.h>

#include <random>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::ITensor;

class ParserHelpersTest : public ::testing::Test
{
protected:
    ParserHelpersTest()
        : mCtx(mRunner.network(), &mRunner.logger(), mWeights)
    {
        mNode.set_name("helper");
        mNode.set_op_type("Test");
    }

    ITensor* must(StatusOr<ITensor*> t)
    {
        EXPECT_TRUE(t.isOk()) << t.status().message();
        return t.isOk() ? t.value() : nullptr;
    }

    NetworkRunner mRunner;
    WeightStore mWeights;
    ImporterContextImpl mCtx;
    ::onnx::NodeProto mNode;
    std::mt19937 mRng{31};
};

TEST_F(ParserHelpersTest, UnsqueezeAndSqueezeWithDynamicDims)
{
    ITensor* x = mRunner.addInput("x", DataType::kFLOAT, {-1, 3});
    ITensor* u = must(unsqueeze(mCtx, mNode, x, {0, 2}));
    ASSERT_NE(u, nullptr);
    EXPECT_EQ(u->getDimensions().nbDims, 4);
    ITensor* s = must(squeeze(mCtx, mNode, u, {0, 2}));
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->getDimensions().nbDims, 2);
    mRunner.markOutput(u, "u");
    mRunner.markOutput(s, "s");
    mRunner.setProfileDims("x", {1, 3}, {2, 3}, {5, 3});
    ASSERT_TRUE(mRunner.build()) << mRunner.logger().allErrors();
    HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({4, 3}), mRng);
    auto out = mRunner.run({{"x", in}});
    EXPECT_EQ(dimsString(out["u"].dims), dimsString(makeDims({1, 4, 1, 3})));
    HostTensor expectedU = in;
    expectedU.dims = makeDims({1, 4, 1, 3});
    EXPECT_TRUE(sameBits(out["u"], expectedU));
    EXPECT_TRUE(sameBits(out["s"], in));
}

TEST_F(ParserHelpersTest, Flatten2DAllPaths)
{
    ITensor* x = mRunner.addInput("x", DataType::kFLOAT, {-1, 3, -1, 2});
    ITensor* middle = must(flatten2D(mCtx, mNode, x, 2)); // both sides dynamic: shape arithmetic
    ITensor* first = must(flatten2D(mCtx, mNode, x, 0));
    ITensor* last = must(flatten2D(mCtx, mNode, x, 4));
    ITensor* one = must(flatten2D(mCtx, mNode, x, 1)); // outer dynamic, inner dynamic too
    ASSERT_TRUE(middle && first && last && one);
    mRunner.markOutput(middle, "middle");
    mRunner.markOutput(first, "first");
    mRunner.markOutput(last, "last");
    mRunner.markOutput(one, "one");
    mRunner.setProfileDims("x", {1, 3, 1, 2}, {2, 3, 4, 2}, {4, 3, 8, 2});
    ASSERT_TRUE(mRunner.build()) << mRunner.logger().allErrors();
    HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({2, 3, 4, 2}), mRng);
    auto out = mRunner.run({{"x", in}});
    EXPECT_EQ(dimsString(out["middle"].dims), dimsString(makeDims({6, 8})));
    EXPECT_EQ(dimsString(out["first"].dims), dimsString(makeDims({1, 48})));
    EXPECT_EQ(dimsString(out["last"].dims), dimsString(makeDims({48, 1})));
    EXPECT_EQ(dimsString(out["one"].dims), dimsString(makeDims({2, 24})));
    HostTensor expected = in;
    expected.dims = makeDims({6, 8});
    EXPECT_TRUE(sameBits(out["middle"], expected));
}

TEST_F(ParserHelpersTest, TransposeMatchesOnnxPermSemantics)
{
    ITensor* x = mRunner.addInput("x", DataType::kFLOAT, {2, 3, 4});
    ITensor* t = must(transpose(mCtx, mNode, x, {2, 0, 1}));
    ASSERT_NE(t, nullptr);
    mRunner.markOutput(t, "t");
    ASSERT_TRUE(mRunner.build());
    HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({2, 3, 4}), mRng);
    auto out = mRunner.run({{"x", in}});
    ASSERT_EQ(dimsString(out["t"].dims), dimsString(makeDims({4, 2, 3})));
    for (int64_t a = 0; a < 2; ++a)
    {
        for (int64_t b = 0; b < 3; ++b)
        {
            for (int64_t c = 0; c < 4; ++c)
            {
                EXPECT_EQ(out["t"].at(c * 6 + a * 3 + b), in.at(a * 12 + b * 4 + c));
            }
        }
    }
}

TEST_F(ParserHelpersTest, BroadcastingElementWiseAndScalars)
{
    ITensor* x = mRunner.addInput("x", DataType::kFLOAT, {2, -1, 3});
    ITensor* b = mRunner.addInput("b", DataType::kFLOAT, {3});
    ITensor* sum = must(addElementWise(mCtx, mNode, x, b, nvinfer1::ElementWiseOperation::kSUM));
    ITensor* two = must(scalarLike(mCtx, mNode, 2.0, DataType::kFLOAT, 3));
    ITensor* scaled = must(addElementWise(mCtx, mNode, sum, two, nvinfer1::ElementWiseOperation::kPROD));
    ITensor* asInt = must(castTo(mCtx, mNode, scaled, DataType::kINT32));
    EXPECT_EQ(must(castTo(mCtx, mNode, asInt, DataType::kINT32)), asInt);
    ASSERT_NE(asInt, nullptr);
    mRunner.markOutput(scaled, "scaled");
    mRunner.setProfileDims("x", {2, 1, 3}, {2, 2, 3}, {2, 4, 3});
    ASSERT_TRUE(mRunner.build()) << mRunner.logger().allErrors();
    HostTensor const xin = HostTensor::random(DataType::kFLOAT, makeDims({2, 2, 3}), mRng);
    HostTensor const bin = HostTensor::random(DataType::kFLOAT, makeDims({3}), mRng);
    auto out = mRunner.run({{"x", xin}, {"b", bin}});
    for (int64_t i = 0; i < 12; ++i)
    {
        float const expected = (static_cast<float>(xin.at(i)) + static_cast<float>(bin.at(i % 3))) * 2.0F;
        EXPECT_EQ(static_cast<float>(out["scaled"].at(i)), expected);
    }
}

TEST_F(ParserHelpersTest, ShapeArithmetic)
{
    ITensor* x = mRunner.addInput("x", DataType::kFLOAT, {-1, 4});
    ITensor* shape = must(shapeOf(mCtx, mNode, x));
    ITensor* head = must(shapeSlice(mCtx, mNode, shape, 0, 1));
    ITensor* prod = must(shapeProduct(mCtx, mNode, shape));
    ITensor* newShape = must(concatShapes(mCtx, mNode, {prod, must(int64Vector(mCtx, mNode, {1}))}));
    ITensor* r = must(reshapeTo(mCtx, mNode, x, newShape));
    ASSERT_TRUE(head && r);
    mRunner.markOutput(r, "r");
    mRunner.setProfileDims("x", {1, 4}, {2, 4}, {8, 4});
    ASSERT_TRUE(mRunner.build()) << mRunner.logger().allErrors();
    HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({3, 4}), mRng);
    auto out = mRunner.run({{"x", in}});
    HostTensor expected = in;
    expected.dims = makeDims({12, 1});
    EXPECT_TRUE(sameBits(out["r"], expected));
}

TEST_F(ParserHelpersTest, ArgumentErrorsNameTheNode)
{
    ITensor* x = mRunner.addInput("x", DataType::kFLOAT, {2, 3});
    auto axis = normalizeAxis(mNode, 2, 2);
    ASSERT_FALSE(axis.isOk());
    EXPECT_EQ(axis.status().message(),
        "node 'helper' (Test): axis 2 is out of range for a tensor of rank 2 (expected [-2, 2))");
    EXPECT_EQ(normalizeAxis(mNode, -1, 2).value(), 1);
    auto dup = normalizeAxes(mNode, {0, -2}, 2);
    ASSERT_FALSE(dup.isOk());
    EXPECT_EQ(dup.status().message(), "node 'helper' (Test): axis -2 appears more than once");
    auto perm = transpose(mCtx, mNode, x, {0, 0});
    ASSERT_FALSE(perm.isOk());
    EXPECT_EQ(perm.status().message(), "node 'helper' (Test): perm [0,0] is not a permutation of the 2 input dimensions");
    auto sq = squeeze(mCtx, mNode, x, {1});
    ASSERT_FALSE(sq.isOk());
    EXPECT_EQ(sq.status().message(), "node 'helper' (Test): cannot squeeze axis 1 of extent 3 (it must be 1)");
    auto check = checkLayer(mCtx, mNode, nullptr, "addFoo");
    EXPECT_EQ(check.message(), "node 'helper' (Test): INetworkDefinition::addFoo refused the layer (see the logged "
                               "network error)");
}

TEST_F(ParserHelpersTest, LayerNamesAreUnique)
{
    ITensor* x = mRunner.addInput("x", DataType::kFLOAT, {2, 3});
    must(unsqueeze(mCtx, mNode, x, {0}));
    must(unsqueeze(mCtx, mNode, x, {0}));
    std::set<std::string> names;
    for (int32_t i = 0; i < mRunner.network().getNbLayers(); ++i)
    {
        EXPECT_TRUE(names.insert(mRunner.network().getLayer(i)->getName()).second);
    }
    EXPECT_EQ(names.count("helper_unsqueeze"), 1U);
    EXPECT_EQ(names.count("helper_unsqueeze_1"), 1U);
}

} // namespace
} // namespace kiln::test
