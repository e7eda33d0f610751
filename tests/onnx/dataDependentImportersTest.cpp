// Importers of Einsum, GridSample, NonZero, NonMaxSuppression and Compress beyond the ONNX node tests: ellipsis
// rewriting, opset-20 GridSample names, dynamic shapes, data-dependent outputs through an IOutputAllocator, optional
// NonMaxSuppression inputs left out, and every error path with its message.
#include "layers/dataDependentRun.h"
#include "onnxTestModels.h"

#include "onnx/onnxConstant.h"

#include <gtest/gtest.h>

#include <random>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

class DataDependentImportersTest : public ::testing::Test
{
protected:
    std::mt19937 mRng{6061};
};

TEST_F(DataDependentImportersTest, EinsumEllipsisDiagonalAndBatchMatmul)
{
    {
        OnnxModelBuilder model(12);
        model.addInput("x", DataType::kFLOAT, {2, 3, 4, 4});
        model.addNode("Einsum", {"x"}, {"y"}, {stringAttr("equation", "...ii ->...i")});
        model.addOutput("y", DataType::kFLOAT);
        HostTensor x = HostTensor::random(DataType::kFLOAT, makeDims({2, 3, 4, 4}), mRng);
        auto out = runOnnxModel(model, {{"x", x}});
        HostTensor expected(DataType::kFLOAT, makeDims({2, 3, 4}));
        for (int64_t b = 0; b < 6; ++b)
        {
            for (int64_t i = 0; i < 4; ++i)
            {
                expected.set(b * 4 + i, x.at(b * 16 + i * 5));
            }
        }
        EXPECT_TRUE(allClose(out["y"], expected, 0, 0));
    }
    {
        // Implicit output with an ellipsis: the ellipsis dimensions come first, then "ik".
        OnnxModelBuilder model(12);
        model.addInput("a", DataType::kFLOAT, {2, 3, 4});
        model.addInput("b", DataType::kFLOAT, {2, 4, 5});
        model.addNode("Einsum", {"a", "b"}, {"y"}, {stringAttr("equation", "...ij,...jk")});
        model.addOutput("y", DataType::kFLOAT);
        HostTensor a = HostTensor::random(DataType::kFLOAT, makeDims({2, 3, 4}), mRng);
        HostTensor b = HostTensor::random(DataType::kFLOAT, makeDims({2, 4, 5}), mRng);
        auto out = runOnnxModel(model, {{"a", a}, {"b", b}});
        HostTensor expected(DataType::kFLOAT, makeDims({2, 3, 5}));
        for (int64_t e = 0; e < 2 * 3 * 5; ++e)
        {
            int64_t const n = e / 15;
            int64_t const i = e / 5 % 3;
            int64_t const k = e % 5;
            double s = 0;
            for (int64_t j = 0; j < 4; ++j)
            {
                s += a.at((n * 3 + i) * 4 + j) * b.at((n * 4 + j) * 5 + k);
            }
            expected.set(e, s);
        }
        EXPECT_TRUE(allClose(out["y"], expected, 1e-5, 1e-5));
    }
}

TEST_F(DataDependentImportersTest, EinsumErrors)
{
    {
        OnnxModelBuilder model(12);
        model.addInput("x", DataType::kINT32, {2, 3});
        model.addNode("Einsum", {"x"}, {"y"}, {stringAttr("equation", "ij->ji")});
        model.addOutput("y", DataType::kINT32);
        ParseOutcome const o = parseOnly(model);
        EXPECT_FALSE(o.ok);
        EXPECT_TRUE(o.hasError("IEinsumLayer supports FP32, FP16 and BF16 only")) << o.allErrors();
    }
    {
        OnnxModelBuilder model(12);
        model.addInput("x", DataType::kFLOAT, {2, 3});
        model.addNode("Einsum", {"x"}, {"y"});
        model.addOutput("y", DataType::kFLOAT);
        ParseOutcome const o = parseOnly(model);
        EXPECT_FALSE(o.ok);
        EXPECT_TRUE(o.hasError("attribute 'equation' is missing")) << o.allErrors();
    }
}

TEST_F(DataDependentImportersTest, GridSampleOpset20NamesAndErrors)
{
    {
        // Opset 20 spells the modes linear/cubic; an identity grid (align_corners) reproduces the input.
        OnnxModelBuilder model(20);
        model.addInput("x", DataType::kFLOAT, {1, 2, 3, 4});
        model.addInput("grid", DataType::kFLOAT, {1, 3, 4, 2});
        model.addNode("GridSample", {"x", "grid"}, {"y"},
            {stringAttr("mode", "cubic"), stringAttr("padding_mode", "border"), intAttr("align_corners", 1)});
        model.addOutput("y", DataType::kFLOAT);
        HostTensor x = HostTensor::random(DataType::kFLOAT, makeDims({1, 2, 3, 4}), mRng);
        HostTensor g(DataType::kFLOAT, makeDims({1, 3, 4, 2}));
        for (int64_t i = 0; i < 3; ++i)
        {
            for (int64_t j = 0; j < 4; ++j)
            {
                g.set((i * 4 + j) * 2, -1.0 + 2.0 * static_cast<double>(j) / 3.0);
                g.set((i * 4 + j) * 2 + 1, -1.0 + static_cast<double>(i));
            }
        }
        auto out = runOnnxModel(model, {{"x", x}, {"grid", g}});
        EXPECT_TRUE(allClose(out["y"], x, 1e-5, 1e-5));
    }
    struct Bad
    {
        std::vector<int64_t> x;
        std::vector<::onnx::AttributeProto> attrs;
        char const* message;
    };
    for (Bad const& bad : {Bad{{1, 1, 2, 2, 2}, {}, "only 4-D GridSample"},
             Bad{{1, 1, 2, 2}, {stringAttr("mode", "area")}, "attribute 'mode' is 'area'"},
             Bad{{1, 1, 2, 2}, {stringAttr("padding_mode", "wrap")}, "attribute 'padding_mode' is 'wrap'"}})
    {
        OnnxModelBuilder model(16);
        model.addInput("x", DataType::kFLOAT, bad.x);
        std::vector<int64_t> grid{1, 2, 2, 2};
        if (bad.x.size() == 5)
        {
            grid = {1, 2, 2, 2, 3};
        }
        model.addInput("grid", DataType::kFLOAT, grid);
        model.addNode("GridSample", {"x", "grid"}, {"y"}, bad.attrs);
        model.addOutput("y", DataType::kFLOAT);
        ParseOutcome const o = parseOnly(model);
        EXPECT_FALSE(o.ok);
        EXPECT_TRUE(o.hasError(bad.message)) << bad.message << ": " << o.allErrors();
    }
}

TEST_F(DataDependentImportersTest, NonZeroWithDynamicShapes)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {-1, 3});
    model.addNode("NonZero", {"x"}, {"y"});
    model.addOutput("y", DataType::kINT64);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileDims("x", {1, 3}, {2, 3}, {5, 3});
    ASSERT_TRUE(runner.build());
    for (int64_t rows : {5, 2})
    {
        HostTensor x = HostTensor::random(DataType::kFLOAT, makeDims({rows, 3}), mRng, 1, 2);
        std::vector<std::pair<int64_t, int64_t>> hits;
        for (int64_t i = 0; i < x.volume(); ++i)
        {
            if (i % 3 == 1 || i == 0)
            {
                x.set(i, 0.0);
            }
            else
            {
                hits.emplace_back(i / 3, i % 3);
            }
        }
        std::map<std::string, HostTensor> out;
        ASSERT_TRUE(runDataDependent(runner.runner(), {{"x", x}}, out)) << runner.runner().logger().allErrors();
        auto const n = static_cast<int64_t>(hits.size());
        HostTensor expected(DataType::kINT64, makeDims({2, n}));
        for (int64_t k = 0; k < n; ++k)
        {
            expected.set(k, static_cast<double>(hits[static_cast<size_t>(k)].first));
            expected.set(n + k, static_cast<double>(hits[static_cast<size_t>(k)].second));
        }
        EXPECT_TRUE(sameBits(out["y"], expected));
    }
}

//! [1, n, 4] boxes where boxes 0 and 1 overlap heavily (IoU 0.81) and box 2 is apart; scores [1, 1, n].
OnnxModelBuilder nmsModel(std::vector<std::string> const& inputs, int64_t centerPointBox)
{
    OnnxModelBuilder model(11);
    model.addInput("boxes", DataType::kFLOAT, {1, 3, 4});
    model.addInput("scores", DataType::kFLOAT, {1, 1, 3});
    model.addInitializer("max", OnnxConstant::fromInt64({5}, {1}));
    model.addInitializer("iou", OnnxConstant::fromFloat({0.5F}, {1}));
    model.addInitializer("score", OnnxConstant::fromFloat({0.0F}, {}));
    model.addNode("NonMaxSuppression", inputs, {"selected"}, {intAttr("center_point_box", centerPointBox)});
    model.addOutput("selected", DataType::kINT64);
    return model;
}

std::map<std::string, HostTensor> runNms(OnnxModelBuilder const& model, std::vector<double> const& scores)
{
    HostTensor boxes = HostTensor::fromValues(
        DataType::kFLOAT, makeDims({1, 3, 4}), {0, 0, 1, 1, 0, 0, 0.9, 0.9, 5, 5, 6, 6});
    HostTensor s = HostTensor::fromValues(DataType::kFLOAT, makeDims({1, 1, 3}), scores);
    OnnxRunner runner;
    std::map<std::string, HostTensor> out;
    if (!runner.parse(model) || !runner.build())
    {
        return out;
    }
    EXPECT_TRUE(runDataDependent(runner.runner(), {{"boxes", boxes}, {"scores", s}}, out))
        << runner.runner().logger().allErrors();
    return out;
}

TEST_F(DataDependentImportersTest, NonMaxSuppressionOptionalInputs)
{
    auto rows = [](std::vector<int64_t> boxes) {
        HostTensor t(DataType::kINT64, makeDims({static_cast<int64_t>(boxes.size()), 3}));
        for (size_t i = 0; i < boxes.size(); ++i)
        {
            t.set(static_cast<int64_t>(i * 3 + 2), static_cast<double>(boxes[i]));
        }
        return t;
    };
    // All inputs: box 1 is suppressed by box 0; box 2 has a negative score (below the threshold 0).
    auto out = runNms(nmsModel({"boxes", "scores", "max", "iou", "score"}, 0), {0.9, 0.8, -0.3});
    EXPECT_TRUE(sameBits(out["selected"], rows({0})));
    // No score_threshold: nothing is filtered by score, so box 2 is selected too (after box 0).
    out = runNms(nmsModel({"boxes", "scores", "max", "iou"}, 0), {0.9, 0.8, -0.3});
    EXPECT_TRUE(sameBits(out["selected"], rows({0, 2})));
    // No iou_threshold (0): any overlap suppresses.
    out = runNms(nmsModel({"boxes", "scores", "max", "", "score"}, 0), {0.7, 0.8, 0.3});
    EXPECT_TRUE(sameBits(out["selected"], rows({1, 2})));
    // No max_output_boxes_per_class: no box at all.
    out = runNms(nmsModel({"boxes", "scores"}, 0), {0.7, 0.8, 0.3});
    EXPECT_TRUE(sameBits(out["selected"], rows({})));
}

TEST_F(DataDependentImportersTest, NonMaxSuppressionErrors)
{
    ParseOutcome const o = parseOnly(nmsModel({"boxes", "scores", "max"}, 2));
    EXPECT_FALSE(o.ok);
    EXPECT_TRUE(o.hasError("'center_point_box' is 2")) << o.allErrors();
    OnnxModelBuilder model(11);
    model.addInput("boxes", DataType::kFLOAT, {1, 3, 4});
    model.addInput("scores", DataType::kFLOAT, {1, 1, 3});
    model.addInitializer("max", OnnxConstant::fromInt64({5, 6}, {2}));
    model.addNode("NonMaxSuppression", {"boxes", "scores", "max"}, {"selected"});
    model.addOutput("selected", DataType::kINT64);
    ParseOutcome const p = parseOnly(model);
    EXPECT_FALSE(p.ok);
    EXPECT_TRUE(p.hasError("max_output_boxes_per_class) must hold one value")) << p.allErrors();
}

TEST_F(DataDependentImportersTest, CompressWithAndWithoutAxis)
{
    HostTensor x = HostTensor::random(DataType::kFLOAT, makeDims({3, 4}), mRng);
    HostTensor cond = HostTensor::fromValues(DataType::kBOOL, makeDims({3}), {1, 0, 1});
    {
        OnnxModelBuilder model(11);
        model.addInput("x", DataType::kFLOAT, {3, 4});
        model.addInput("c", DataType::kBOOL, {3});
        model.addNode("Compress", {"x", "c"}, {"y"}, {intAttr("axis", -2)});
        model.addOutput("y", DataType::kFLOAT);
        OnnxRunner runner;
        ASSERT_TRUE(runner.parse(model));
        ASSERT_TRUE(runner.build());
        std::map<std::string, HostTensor> out;
        ASSERT_TRUE(runDataDependent(runner.runner(), {{"x", x}, {"c", cond}}, out))
            << runner.runner().logger().allErrors();
        HostTensor expected(DataType::kFLOAT, makeDims({2, 4}));
        for (int64_t j = 0; j < 4; ++j)
        {
            expected.set(j, x.at(j));
            expected.set(4 + j, x.at(8 + j));
        }
        EXPECT_TRUE(sameBits(out["y"], expected));
    }
    {
        // No axis: the flattened input; a condition shorter than the input drops the rest.
        OnnxModelBuilder model(11);
        model.addInput("x", DataType::kFLOAT, {3, 4});
        model.addInput("c", DataType::kBOOL, {3});
        model.addNode("Compress", {"x", "c"}, {"y"});
        model.addOutput("y", DataType::kFLOAT);
        OnnxRunner runner;
        ASSERT_TRUE(runner.parse(model));
        ASSERT_TRUE(runner.build());
        std::map<std::string, HostTensor> out;
        ASSERT_TRUE(runDataDependent(runner.runner(), {{"x", x}, {"c", cond}}, out))
            << runner.runner().logger().allErrors();
        HostTensor expected(DataType::kFLOAT, makeDims({2}));
        expected.set(0, x.at(0));
        expected.set(1, x.at(2));
        EXPECT_TRUE(sameBits(out["y"], expected));
    }
}

} // namespace
} // namespace kiln::test
