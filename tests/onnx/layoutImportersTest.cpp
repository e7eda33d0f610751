// Layout importers beyond the ONNX node tests: Slice with run-time starts, negative steps and dynamic dimensions,
// the opset-9 attribute form; Split num_outputs (opset 18); Pad modes with run-time pads and axes, the opset-2
// attribute form; Concat of BOOL/INT64; DepthToSpace CRD and ConstantOfShape on dynamic shapes.
#include "onnxTestModels.h"
#include "shapeTestUtils.h"

#include "onnx/onnxConstant.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

class LayoutImportersTest : public ::testing::Test
{
protected:
    std::mt19937 mRng{9001};
};

TEST_F(LayoutImportersTest, SliceWithRuntimeStartsAndNegativeSteps)
{
    std::vector<int64_t> const xd{5, 7};
    std::vector<int64_t> const starts{-1, 100};
    std::vector<int64_t> const ends{std::numeric_limits<int64_t>::min(), -6};
    std::vector<int64_t> const steps{-2, -3};
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, xd);
    model.addInput("starts", DataType::kINT64, {2});
    model.addInitializer("ends", OnnxConstant::fromInt64(ends, {2}));
    model.addInitializer("axes", OnnxConstant::fromInt64({0, -1}, {2}));
    model.addInitializer("steps", OnnxConstant::fromInt64(steps, {2}));
    model.addNode("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);

    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileValues("starts", starts, starts, starts);
    ASSERT_TRUE(runner.build());
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims(xd), mRng, -5.0, 5.0);
    auto out = runner.run({{"x", x}, {"starts", int64Tensor(starts)}});
    ASSERT_EQ(out.count("y"), 1U);
    // Rows 4, 2, 0 (start -1 -> 4, to the beginning, step -2); columns 6, 3 (start clamped to 6, end -6 -> 1).
    std::vector<int64_t> const rows{4, 2, 0};
    std::vector<int64_t> const cols{6, 3};
    HostTensor expected(DataType::kFLOAT, makeDims({3, 2}));
    for (size_t i = 0; i < rows.size(); ++i)
    {
        for (size_t j = 0; j < cols.size(); ++j)
        {
            expected.set(static_cast<int64_t>(i * cols.size() + j), x.at(rows[i] * xd[1] + cols[j]));
        }
    }
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
}

TEST_F(LayoutImportersTest, SliceOnDynamicDimsClampsPerRun)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {-1, 4});
    model.addInitializer("starts", OnnxConstant::fromInt64({1}, {1}));
    model.addInitializer("ends", OnnxConstant::fromInt64({std::numeric_limits<int64_t>::max()}, {1}));
    model.addInitializer("axes", OnnxConstant::fromInt64({0}, {1}));
    model.addNode("Slice", {"x", "starts", "ends", "axes"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileDims("x", {1, 4}, {4, 4}, {9, 4});
    ASSERT_TRUE(runner.build());
    for (int64_t n : {1, 3, 9})
    {
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({n, 4}), mRng);
        auto out = runner.run({{"x", x}});
        HostTensor expected(DataType::kFLOAT, makeDims({n - 1, 4}));
        for (int64_t i = 0; i < (n - 1) * 4; ++i)
        {
            expected.set(i, x.at(i + 4));
        }
        EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0)) << "n " << n;
    }
}

TEST_F(LayoutImportersTest, SliceOpset9Attributes)
{
    OnnxModelBuilder model(9);
    model.addInput("x", DataType::kINT32, {3, 8});
    model.addNode("Slice", {"x"}, {"y"},
        {intsAttr("starts", {-6}), intsAttr("ends", {1000}), intsAttr("axes", {1})});
    model.addOutput("y", DataType::kINT32);
    HostTensor const x = HostTensor::random(DataType::kINT32, makeDims({3, 8}), mRng, -100, 100);
    auto out = runOnnxModel(model, {{"x", x}});
    ASSERT_EQ(out.count("y"), 1U);
    HostTensor expected(DataType::kINT32, makeDims({3, 6}));
    for (int64_t i = 0; i < 3; ++i)
    {
        for (int64_t j = 0; j < 6; ++j)
        {
            expected.set(i * 6 + j, x.at(i * 8 + 2 + j));
        }
    }
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
}

TEST_F(LayoutImportersTest, SplitNumOutputsUnevenOpset18)
{
    OnnxModelBuilder model(18);
    model.addInput("x", DataType::kFLOAT, {2, 7});
    model.addNode("Split", {"x"}, {"a", "b", "c"}, {intAttr("axis", -1), intAttr("num_outputs", 3)});
    for (char const* name : {"a", "b", "c"})
    {
        model.addOutput(name, DataType::kFLOAT);
    }
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, 7}), mRng);
    auto out = runOnnxModel(model, {{"x", x}});
    // ceil(7 / 3) = 3: widths 3, 3, 1
    std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> const parts{
        {"a", {0, 3}}, {"b", {3, 3}}, {"c", {6, 1}}};
    for (auto const& [name, range] : parts)
    {
        ASSERT_EQ(out.count(name), 1U) << name;
        HostTensor expected(DataType::kFLOAT, makeDims({2, range.second}));
        for (int64_t i = 0; i < 2; ++i)
        {
            for (int64_t j = 0; j < range.second; ++j)
            {
                expected.set(i * range.second + j, x.at(i * 7 + range.first + j));
            }
        }
        EXPECT_TRUE(allClose(out[name], expected, 0.0, 0.0)) << name;
    }
}

TEST_F(LayoutImportersTest, PadReflectWithRuntimePadsAndAxes)
{
    std::vector<int64_t> const pads{2, -1, 1, 2};
    OnnxModelBuilder model(18);
    model.addInput("x", DataType::kFLOAT, {3, 4, 5});
    model.addInput("pads", DataType::kINT64, {4});
    model.addInitializer("axes", OnnxConstant::fromInt64({-1, 1}, {2}));
    model.addNode("Pad", {"x", "pads", "", "axes"}, {"y"}, {stringAttr("mode", "reflect")});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileValues("pads", pads, pads, pads);
    ASSERT_TRUE(runner.build());
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({3, 4, 5}), mRng);
    auto out = runner.run({{"x", x}, {"pads", int64Tensor(pads)}});
    // axis 2: begin 2, end 1 -> 8 wide; axis 1: begin -1 (crop), end 2 -> 5 tall.
    auto reflect = [](int64_t i, int64_t n) {
        while (i < 0 || i >= n)
        {
            i = i < 0 ? -i : 2 * (n - 1) - i;
        }
        return i;
    };
    HostTensor expected(DataType::kFLOAT, makeDims({3, 5, 8}));
    forEachIndex({3, 5, 8}, [&](int64_t o, std::vector<int64_t> const& c) {
        int64_t const h = reflect(c[1] + 1, 4);
        int64_t const w = reflect(c[2] - 2, 5);
        expected.set(o, x.at(offsetOf({3, 4, 5}, {c[0], h, w})));
    });
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
}

TEST_F(LayoutImportersTest, PadConstantValueOpset2Attributes)
{
    OnnxModelBuilder model(2);
    model.addInput("x", DataType::kFLOAT, {2, 3});
    model.addNode("Pad", {"x"}, {"y"}, {intsAttr("pads", {1, 0, 0, 2}), floatAttr("value", 1.5F)});
    model.addOutput("y", DataType::kFLOAT);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, 3}), mRng);
    auto out = runOnnxModel(model, {{"x", x}});
    HostTensor expected(DataType::kFLOAT, makeDims({3, 5}));
    forEachIndex({3, 5}, [&](int64_t o, std::vector<int64_t> const& c) {
        bool const inside = c[0] >= 1 && c[1] < 3;
        expected.set(o, inside ? x.at((c[0] - 1) * 3 + c[1]) : 1.5);
    });
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
}

TEST_F(LayoutImportersTest, PadEdgeAndWrapOpset19)
{
    for (std::string const mode : {"edge", "wrap"})
    {
        OnnxModelBuilder model(19);
        model.addInput("x", DataType::kINT64, {2, 3});
        model.addInitializer("pads", OnnxConstant::fromInt64({1, 2, 0, 4}, {4}));
        model.addNode("Pad", {"x", "pads"}, {"y"}, {stringAttr("mode", mode)});
        model.addOutput("y", DataType::kINT64);
        HostTensor const x = HostTensor::random(DataType::kINT64, makeDims({2, 3}), mRng, -1000, 1000);
        auto out = runOnnxModel(model, {{"x", x}});
        ASSERT_EQ(out.count("y"), 1U) << mode;
        HostTensor expected(DataType::kINT64, makeDims({3, 9}));
        forEachIndex({3, 9}, [&](int64_t o, std::vector<int64_t> const& c) {
            int64_t r = c[0] - 1;
            int64_t q = c[1] - 2;
            if (mode == "edge")
            {
                r = std::clamp<int64_t>(r, 0, 1);
                q = std::clamp<int64_t>(q, 0, 2);
            }
            else
            {
                r = (r % 2 + 2) % 2;
                q = (q % 3 + 3) % 3;
            }
            expected.set(o, x.at(r * 3 + q));
        });
        EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0)) << mode;
    }
}

TEST_F(LayoutImportersTest, ConcatBoolAndInt64WithNegativeAxis)
{
    for (DataType const type : {DataType::kBOOL, DataType::kINT64})
    {
        OnnxModelBuilder model(13);
        model.addInput("a", type, {2, 1});
        model.addInput("b", type, {2, 3});
        model.addNode("Concat", {"a", "b"}, {"y"}, {intAttr("axis", -1)});
        model.addOutput("y", type);
        HostTensor const a = HostTensor::random(type, makeDims({2, 1}), mRng, -50, 50);
        HostTensor const b = HostTensor::random(type, makeDims({2, 3}), mRng, -50, 50);
        auto out = runOnnxModel(model, {{"a", a}, {"b", b}});
        HostTensor expected(type, makeDims({2, 4}));
        forEachIndex({2, 4}, [&](int64_t o, std::vector<int64_t> const& c) {
            expected.set(o, c[1] == 0 ? a.at(c[0]) : b.at(c[0] * 3 + c[1] - 1));
        });
        EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
    }
}

TEST_F(LayoutImportersTest, ConstantOfShapeFromRuntimeShapeAndDepthToSpaceCrdOnDynamicBatch)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {-1, 8, 2, 3});
    model.addNode("DepthToSpace", {"x"}, {"y"}, {intAttr("blocksize", 2), stringAttr("mode", "CRD")});
    model.addNode("Shape", {"y"}, {"ys"});
    model.addNode("ConstantOfShape", {"ys"}, {"z"},
        {tensorAttr("value", OnnxConstant::fromInt32({7}, {1}))});
    model.addOutput("y", DataType::kFLOAT);
    model.addOutput("z", DataType::kINT32);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileDims("x", {1, 8, 2, 3}, {2, 8, 2, 3}, {3, 8, 2, 3});
    ASSERT_TRUE(runner.build());
    int64_t const n = 2;
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({n, 8, 2, 3}), mRng);
    auto out = runner.run({{"x", x}});
    // CRD: y[b, c, h*2 + i, w*2 + j] = x[b, c*4 + i*2 + j, h, w]
    HostTensor expected(DataType::kFLOAT, makeDims({n, 2, 4, 6}));
    forEachIndex({n, 2, 4, 6}, [&](int64_t o, std::vector<int64_t> const& c) {
        int64_t const i = c[2] % 2;
        int64_t const j = c[3] % 2;
        expected.set(o, x.at(offsetOf({n, 8, 2, 3}, {c[0], c[1] * 4 + i * 2 + j, c[2] / 2, c[3] / 2})));
    });
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
    HostTensor sevens(DataType::kINT32, makeDims({n, 2, 4, 6}));
    for (int64_t i = 0; i < sevens.volume(); ++i)
    {
        sevens.set(i, 7);
    }
    EXPECT_TRUE(allClose(out["z"], sevens, 0.0, 0.0));
}

} // namespace
} // namespace kiln::test
