// Shape importers beyond the ONNX node tests: run-time shape tensors (Reshape from Shape→Gather→Concat on a dynamic
// batch, Expand/Tile/Range/Trilu with dynamic inputs, Squeeze/Unsqueeze with run-time axes), opset variants
// (allowzero, attribute axes before opset 13) and error paths naming the node.
#include "onnxTestModels.h"
#include "shapeTestUtils.h"

#include "onnx/onnxConstant.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <tuple>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

class ShapeImportersTest : public ::testing::Test
{
protected:
    std::mt19937 mRng{4242};
};

TEST_F(ShapeImportersTest, ReshapeFromShapeGatherConcatOnDynamicBatch)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {-1, 6});
    model.addInitializer("zero", OnnxConstant::fromInt64({0}, {1}));
    model.addInitializer("tail", OnnxConstant::fromInt64({2, 3}, {2}));
    model.addNode("Shape", {"x"}, {"s"});
    model.addNode("Gather", {"s", "zero"}, {"b"}, {intAttr("axis", 0)});
    model.addNode("Concat", {"b", "tail"}, {"target"}, {intAttr("axis", 0)});
    model.addNode("Reshape", {"x", "target"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);

    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileDims("x", {1, 6}, {3, 6}, {8, 6});
    ASSERT_TRUE(runner.build());
    for (int64_t batch : {1, 5})
    {
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({batch, 6}), mRng, -3.0, 3.0);
        auto out = runner.run({{"x", x}});
        ASSERT_EQ(out.count("y"), 1U);
        HostTensor expected(DataType::kFLOAT, makeDims({batch, 2, 3}));
        for (int64_t i = 0; i < batch * 6; ++i)
        {
            expected.set(i, x.at(i));
        }
        EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0)) << "batch " << batch;
    }
}

TEST_F(ShapeImportersTest, ReshapeAllowZeroKeepsLiteralZero)
{
    OnnxModelBuilder model(14);
    model.addInput("x", DataType::kFLOAT, {0, 3, 4});
    model.addInitializer("shape", OnnxConstant::fromInt64({3, 4, 0}, {3}));
    model.addNode("Reshape", {"x", "shape"}, {"y"}, {intAttr("allowzero", 1)});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    nvinfer1::Dims const d = runner.network().getOutput(0)->getDimensions();
    ASSERT_EQ(d.nbDims, 3);
    EXPECT_EQ(d.d[0], 3);
    EXPECT_EQ(d.d[1], 4);
    EXPECT_EQ(d.d[2], 0);
}

TEST_F(ShapeImportersTest, ReshapeWithTwoMinusOnesIsRejected)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2, 3, 4});
    model.addInitializer("shape", OnnxConstant::fromInt64({-1, 2, -1}, {3}));
    model.addNode("Reshape", {"x", "shape"}, {"y"}).set_name("bad_reshape");
    model.addOutput("y", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model);
    EXPECT_FALSE(outcome.ok);
    EXPECT_TRUE(outcome.hasError("bad_reshape")) << outcome.allErrors();
    EXPECT_TRUE(outcome.hasError("more than one -1")) << outcome.allErrors();
}

// A shape whose element count overflows int64 (2^32 x 2^32 x 2) was multiplied without a check: its wrapped count
// (0) made an empty constant. It is an error naming the node.
TEST_F(ShapeImportersTest, ConstantOfShapeWithOverflowingCountIsRejected)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2});
    model.addInitializer("shape", OnnxConstant::fromInt64({int64_t{1} << 32, int64_t{1} << 32, 2}, {3}));
    model.addNode("ConstantOfShape", {"shape"}, {"c"}).set_name("huge_fill");
    model.addNode("Add", {"x", "c"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model);
    EXPECT_FALSE(outcome.ok);
    EXPECT_TRUE(outcome.hasError("huge_fill")) << outcome.allErrors();
    EXPECT_TRUE(outcome.hasError("more elements than int64 counts")) << outcome.allErrors();
}

// Expand whose shape input is a computed 1-D tensor of 2^31 values (onnxStructureFuzz: the length did not fit ShapeVec's
// int32 and the rank arithmetic overflowed): a clear error naming the node, not a wrapped length.
TEST_F(ShapeImportersTest, ExpandWithAHugeShapeVectorIsRejected)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2});
    model.addInput("shape", DataType::kINT64, {int64_t{1} << 31});
    model.addNode("Expand", {"x", "shape"}, {"y"}).set_name("huge_expand");
    model.addOutput("y", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model);
    EXPECT_FALSE(outcome.ok);
    EXPECT_TRUE(outcome.hasError("huge_expand")) << outcome.allErrors();
    EXPECT_TRUE(outcome.hasError("shape vectors of more than")) << outcome.allErrors();
}

// An empty constant with a huge extent split into one piece ([2^31, 0]: onnxStructureFuzz's edit, folded at parse
// time by the CPU backend's slice kernel) stays empty and allocates nothing per element of the huge extent (the
// kernel built a 2^31-entry coordinate table: 16 GiB, out of memory).
TEST_F(ShapeImportersTest, SliceOfAnEmptyTensorWithAHugeExtentAllocatesNothing)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {0});
    OnnxConstant empty;
    empty.type = DataType::kFLOAT;
    empty.shape = {int64_t{1} << 31, 0};
    model.addInitializer("w", empty);
    model.addNode("Split", {"w"}, {"piece"}, {intAttr("axis", 0)});
    model.addNode("Add", {"x", "piece"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    ASSERT_TRUE(runner.build());
    auto out = runner.run({{"x", HostTensor(DataType::kFLOAT, makeDims({0}))}});
    ASSERT_EQ(out.count("y"), 1U);
    EXPECT_EQ(out["y"].dims.nbDims, 2);
    EXPECT_EQ(out["y"].dims.d[0], int64_t{1} << 31);
    EXPECT_EQ(out["y"].dims.d[1], 0);
}

// An elementwise sum of empty tensors whose other extents multiply past int64 ([0, 0, 2^62, 4, 2]: onnxStructureFuzz's
// edit, folded at parse time): the broadcast walker forms no volume or stride for an empty output (it overflowed).
// UBSan's fuzz build replays the input (tests/fuzz/regressions); here the sum must keep its shape.
TEST_F(ShapeImportersTest, SumOfEmptyTensorsWithHugeExtentsKeepsItsShape)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {0, 0, int64_t{1} << 62, 4, 2});
    OnnxConstant empty;
    empty.type = DataType::kFLOAT;
    empty.shape = {0, 0, int64_t{1} << 62, 4, 2};
    model.addInitializer("w", empty);
    model.addNode("Add", {"w", "w"}, {"ww"});
    model.addNode("Add", {"x", "ww"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    ASSERT_TRUE(runner.build());
    auto out = runner.run({{"x", HostTensor(DataType::kFLOAT, makeDims({0, 0, int64_t{1} << 62, 4, 2}))}});
    ASSERT_EQ(out.count("y"), 1U);
    EXPECT_EQ(out["y"].dims.d[2], int64_t{1} << 62);
    EXPECT_EQ(out["y"].volume(), 0);
}

// Softmax and TopK of empty tensors with a huge axis ([0, 2^40]: onnxStructureFuzz's edit, folded at parse time): the
// CPU kernels size no per-row scratch for a tensor without rows (Softmax asked for 2^40 floats per thread).
TEST_F(ShapeImportersTest, SoftmaxOfAnEmptyTensorWithAHugeAxisAllocatesNothing)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {0, int64_t{1} << 40});
    OnnxConstant empty;
    empty.type = DataType::kFLOAT;
    empty.shape = {0, int64_t{1} << 40};
    model.addInitializer("w", empty);
    model.addNode("Softmax", {"w"}, {"s"}, {intAttr("axis", 1)});
    model.addNode("Add", {"x", "s"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    ASSERT_TRUE(runner.build());
    auto out = runner.run({{"x", HostTensor(DataType::kFLOAT, makeDims({0, int64_t{1} << 40}))}});
    ASSERT_EQ(out.count("y"), 1U);
    EXPECT_EQ(out["y"].dims.d[1], int64_t{1} << 40);
    EXPECT_EQ(out["y"].volume(), 0);
}

TEST_F(ShapeImportersTest, ExpandDynamicInputToConstantShape)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {-1, 1});
    model.addInitializer("shape", OnnxConstant::fromInt64({2, 1, 5}, {3}));
    model.addNode("Expand", {"x", "shape"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileDims("x", {1, 1}, {3, 1}, {6, 1});
    ASSERT_TRUE(runner.build());
    for (int64_t n : {1, 4})
    {
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({n, 1}), mRng, -2.0, 2.0);
        auto out = runner.run({{"x", x}});
        // Output [2, n, 5]: y[a, i, c] = x[i, 0]; with n == 1 the middle dimension broadcasts too.
        HostTensor expected(DataType::kFLOAT, makeDims({2, n, 5}));
        forEachIndex({2, n, 5}, [&](int64_t o, std::vector<int64_t> const& c) { expected.set(o, x.at(c[1])); });
        EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0)) << "n " << n;
    }
}

TEST_F(ShapeImportersTest, ExpandWithRuntimeShapeTensor)
{
    std::vector<int64_t> const shape{3, 1, 4};
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kINT64, {2, 1});
    model.addInput("shape", DataType::kINT64, {3});
    model.addNode("Expand", {"x", "shape"}, {"y"});
    model.addOutput("y", DataType::kINT64);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileValues("shape", shape, shape, shape);
    ASSERT_TRUE(runner.build());
    HostTensor const x = HostTensor::random(DataType::kINT64, makeDims({2, 1}), mRng, -50, 50);
    auto out = runner.run({{"x", x}, {"shape", int64Tensor(shape)}});
    HostTensor expected(DataType::kINT64, makeDims({3, 2, 4}));
    forEachIndex({3, 2, 4}, [&](int64_t o, std::vector<int64_t> const& c) { expected.set(o, x.at(c[1])); });
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
}

// EyeLike folds a small static matrix into a constant and computes a large one in the network (an edited model's
// 100001 x 5.8e17 matrix overflowed the element count of the folded constant); both give the identity shifted by k.
TEST_F(ShapeImportersTest, EyeLikeSmallFoldedAndLargeComputed)
{
    // k beyond the matrix (as extreme as int64 allows) gives zeros.
    for (auto const& [rows, cols, k] : {std::tuple<int64_t, int64_t, int64_t>{5, 7, 2}, {300, 260, -3},
             {4, 6, std::numeric_limits<int64_t>::max()}, {4, 6, std::numeric_limits<int64_t>::min()}})
    {
        SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + " k " + std::to_string(k));
        OnnxModelBuilder model(13);
        model.addInput("x", DataType::kFLOAT, {rows, cols});
        model.addNode("EyeLike", {"x"}, {"y"}, {intAttr("k", k)});
        model.addOutput("y", DataType::kFLOAT);
        OnnxRunner runner;
        ASSERT_TRUE(runner.parse(model));
        ASSERT_TRUE(runner.build());
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({rows, cols}), mRng);
        auto out = runner.run({{"x", x}});
        HostTensor expected(DataType::kFLOAT, makeDims({rows, cols}));
        forEachIndex({rows, cols}, [&](int64_t o, std::vector<int64_t> const& c) {
            expected.set(o, c[1] - c[0] == k ? 1.0 : 0.0);
        });
        EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
    }
}

// An empty matrix with a huge extent (2^62 x 0: onnxStructureFuzz's edit) folds to an empty constant at once; the
// diagonal loop once ran over all 2^62 rows (a libFuzzer timeout).
TEST_F(ShapeImportersTest, EyeLikeOfAnEmptyMatrixWithAHugeExtentFoldsAtOnce)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {int64_t{1} << 62, 0});
    model.addNode("EyeLike", {"x"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model); // before the fix this did not return (ctest's timeout fails it)
    EXPECT_TRUE(outcome.ok) << outcome.allErrors();
}

TEST_F(ShapeImportersTest, TileOnDynamicInput)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {-1, 3});
    model.addInitializer("repeats", OnnxConstant::fromInt64({2, 3}, {2}));
    model.addNode("Tile", {"x", "repeats"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileDims("x", {1, 3}, {2, 3}, {4, 3});
    ASSERT_TRUE(runner.build());
    int64_t const n = 3;
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({n, 3}), mRng);
    auto out = runner.run({{"x", x}});
    HostTensor expected(DataType::kFLOAT, makeDims({2 * n, 9}));
    forEachIndex({2 * n, 9}, [&](int64_t o, std::vector<int64_t> const& c) {
        expected.set(o, x.at((c[0] % n) * 3 + c[1] % 3));
    });
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
}

TEST_F(ShapeImportersTest, RangeWithRuntimeIntegerInputs)
{
    OnnxModelBuilder model(11);
    model.addInput("start", DataType::kINT32, {});
    model.addInput("limit", DataType::kINT32, {});
    model.addInput("delta", DataType::kINT32, {});
    model.addNode("Range", {"start", "limit", "delta"}, {"y"});
    model.addOutput("y", DataType::kINT32);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileValues("start", {17}, {17}, {17});
    runner.runner().setProfileValues("limit", {-4}, {-4}, {-4});
    runner.runner().setProfileValues("delta", {-5}, {-5}, {-5});
    ASSERT_TRUE(runner.build());
    auto scalar = [](int32_t v) { return HostTensor::fromValues(DataType::kINT32, makeDims({}), {double(v)}); };
    auto out = runner.run({{"start", scalar(17)}, {"limit", scalar(-4)}, {"delta", scalar(-5)}});
    // 17, 12, 7, 2, -3 (ceil(21 / 5) = 5 elements)
    HostTensor const expected = HostTensor::fromValues(DataType::kINT32, makeDims({5}), {17, 12, 7, 2, -3});
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
}

TEST_F(ShapeImportersTest, RangeWithRuntimeFloatInputsIsUnsupported)
{
    OnnxModelBuilder model(11);
    for (char const* name : {"start", "limit", "delta"})
    {
        model.addInput(name, DataType::kFLOAT, {});
    }
    model.addNode("Range", {"start", "limit", "delta"}, {"y"}).set_name("float_range");
    model.addOutput("y", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model);
    EXPECT_FALSE(outcome.ok);
    EXPECT_TRUE(outcome.hasError("float_range")) << outcome.allErrors();
    EXPECT_TRUE(outcome.hasError("give start, limit and delta as constants")) << outcome.allErrors();
}

TEST_F(ShapeImportersTest, RangeOverIntegerCastToFloat)
{
    // Window-function pattern: Range(0.0, Cast<float>(n), 2.0) with n a run-time INT64 scalar.
    OnnxModelBuilder model(17);
    model.addInput("n", DataType::kINT64, {});
    model.addInitializer("zero", OnnxConstant::fromFloat({0.0F}, {}));
    model.addInitializer("two", OnnxConstant::fromFloat({2.0F}, {}));
    model.addNode("Cast", {"n"}, {"nf"}, {intAttr("to", 1)});
    model.addNode("Range", {"zero", "nf", "two"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileValues("n", {7}, {7}, {7});
    ASSERT_TRUE(runner.build());
    auto out = runner.run({{"n", HostTensor::fromValues(DataType::kINT64, makeDims({}), {7})}});
    HostTensor const expected = HostTensor::fromValues(DataType::kFLOAT, makeDims({4}), {0, 2, 4, 6});
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
}

TEST_F(ShapeImportersTest, RangeWithRuntimeInputAndFractionalDeltaIsUnsupported)
{
    OnnxModelBuilder model(17);
    model.addInput("n", DataType::kINT64, {});
    model.addInitializer("zero", OnnxConstant::fromFloat({0.0F}, {}));
    model.addInitializer("half", OnnxConstant::fromFloat({0.5F}, {}));
    model.addNode("Cast", {"n"}, {"nf"}, {intAttr("to", 1)});
    model.addNode("Range", {"zero", "nf", "half"}, {"y"}).set_name("half_steps");
    model.addOutput("y", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model);
    EXPECT_FALSE(outcome.ok);
    EXPECT_TRUE(outcome.hasError("half_steps")) << outcome.allErrors();
    EXPECT_TRUE(outcome.hasError("needs integral values, but input 'delta' is 0.5")) << outcome.allErrors();
}

TEST_F(ShapeImportersTest, SqueezeAndUnsqueezeAttributeFormsBeforeOpset13)
{
    OnnxModelBuilder model(11);
    model.addInput("x", DataType::kFLOAT, {1, 3, 1, 2});
    model.addNode("Squeeze", {"x"}, {"s"}, {intsAttr("axes", {-2, 0})});
    model.addNode("Unsqueeze", {"s"}, {"y"}, {intsAttr("axes", {3, 0})});
    model.addOutput("y", DataType::kFLOAT);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({1, 3, 1, 2}), mRng);
    auto out = runOnnxModel(model, {{"x", x}});
    ASSERT_EQ(out.count("y"), 1U);
    HostTensor expected(DataType::kFLOAT, makeDims({1, 3, 2, 1}));
    for (int64_t i = 0; i < 6; ++i)
    {
        expected.set(i, x.at(i));
    }
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
}

TEST_F(ShapeImportersTest, SqueezeAndUnsqueezeWithRuntimeAxes)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {1, 3, 1, 2});
    model.addInput("sq", DataType::kINT64, {1});
    model.addInput("unsq", DataType::kINT64, {2});
    model.addNode("Squeeze", {"x", "sq"}, {"s"});
    model.addNode("Unsqueeze", {"s", "unsq"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileValues("sq", {-2}, {-2}, {-2});
    runner.runner().setProfileValues("unsq", {-1, 1}, {-1, 1}, {-1, 1});
    ASSERT_TRUE(runner.build());
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({1, 3, 1, 2}), mRng);
    auto out = runner.run({{"x", x}, {"sq", int64Tensor({-2})}, {"unsq", int64Tensor({-1, 1})}});
    // [1, 3, 1, 2] -> squeeze axis 2 -> [1, 3, 2] -> unsqueeze output axes 4 and 1 -> [1, 1, 3, 2, 1]
    HostTensor expected(DataType::kFLOAT, makeDims({1, 1, 3, 2, 1}));
    for (int64_t i = 0; i < 6; ++i)
    {
        expected.set(i, x.at(i));
    }
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
}

TEST_F(ShapeImportersTest, TriluOnDynamicShapeWithRuntimeK)
{
    OnnxModelBuilder model(14);
    model.addInput("x", DataType::kFLOAT, {2, -1, 5});
    model.addInput("k", DataType::kINT64, {});
    model.addNode("Trilu", {"x", "k"}, {"y"}, {intAttr("upper", 0)});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileDims("x", {2, 1, 5}, {2, 4, 5}, {2, 6, 5});
    runner.runner().setProfileValues("k", {-1}, {-1}, {-1});
    ASSERT_TRUE(runner.build());
    int64_t const n = 4;
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, n, 5}), mRng, 0.5, 2.0);
    HostTensor const k = HostTensor::fromValues(DataType::kINT64, makeDims({}), {-1});
    auto out = runner.run({{"x", x}, {"k", k}});
    HostTensor expected(DataType::kFLOAT, makeDims({2, n, 5}));
    forEachIndex({2, n, 5}, [&](int64_t o, std::vector<int64_t> const& c) {
        expected.set(o, c[2] - c[1] <= -1 ? x.at(o) : 0.0);
    });
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
}

TEST_F(ShapeImportersTest, FlattenAxisOutOfRangeNamesTheAttribute)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2, 3});
    model.addNode("Flatten", {"x"}, {"y"}, {intAttr("axis", 3)}).set_name("flat");
    model.addOutput("y", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model);
    EXPECT_FALSE(outcome.ok);
    EXPECT_TRUE(outcome.hasError("flat")) << outcome.allErrors();
    EXPECT_TRUE(outcome.hasError("attribute 'axis' 3 is out of range")) << outcome.allErrors();
}

} // namespace
} // namespace kiln::test
