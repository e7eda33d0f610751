// Indexing importers beyond the ONNX node tests: Gather with negative (constant and run-time) indices, GatherND with
// batch_dims, ScatterElements / ScatterND reductions composed from select + reduce (duplicates, max/min in opset 18,
// indices smaller than the data), and error paths naming the node.
#include "onnxTestModels.h"

#include "onnx/onnxConstant.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

class IndexingImportersTest : public ::testing::Test
{
protected:
    std::mt19937 mRng{777};
};

TEST_F(IndexingImportersTest, GatherNegativeConstantIndicesOnAxis1)
{
    std::vector<int64_t> const idx{-1, 0, -4, 2};
    OnnxModelBuilder model(13);
    model.addInput("data", DataType::kFLOAT, {3, 4});
    model.addInitializer("indices", OnnxConstant::fromInt64(idx, {2, 2}));
    model.addNode("Gather", {"data", "indices"}, {"y"}, {intAttr("axis", -1)});
    model.addOutput("y", DataType::kFLOAT);
    HostTensor const data = HostTensor::random(DataType::kFLOAT, makeDims({3, 4}), mRng, -9.0, 9.0);
    auto out = runOnnxModel(model, {{"data", data}});
    ASSERT_EQ(out.count("y"), 1U);
    HostTensor expected(DataType::kFLOAT, makeDims({3, 2, 2}));
    for (int64_t r = 0; r < 3; ++r)
    {
        for (int64_t k = 0; k < 4; ++k)
        {
            int64_t const col = idx[static_cast<size_t>(k)] < 0 ? idx[static_cast<size_t>(k)] + 4 : idx[static_cast<size_t>(k)];
            expected.set(r * 4 + k, data.at(r * 4 + col));
        }
    }
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
}

TEST_F(IndexingImportersTest, GatherNegativeRuntimeInt32Indices)
{
    OnnxModelBuilder model(13);
    model.addInput("data", DataType::kINT64, {5, 2});
    model.addInput("indices", DataType::kINT32, {3});
    model.addNode("Gather", {"data", "indices"}, {"y"});
    model.addOutput("y", DataType::kINT64);
    HostTensor const data = HostTensor::random(DataType::kINT64, makeDims({5, 2}), mRng, -1000, 1000);
    HostTensor const indices = HostTensor::fromValues(DataType::kINT32, makeDims({3}), {-5, 4, -2});
    auto out = runOnnxModel(model, {{"data", data}, {"indices", indices}});
    HostTensor expected(DataType::kINT64, makeDims({3, 2}));
    std::vector<int64_t> const rows{0, 4, 3};
    for (int64_t i = 0; i < 3; ++i)
    {
        for (int64_t j = 0; j < 2; ++j)
        {
            expected.set(i * 2 + j, data.at(rows[static_cast<size_t>(i)] * 2 + j));
        }
    }
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
}

TEST_F(IndexingImportersTest, GatherNDWithBatchDims)
{
    OnnxModelBuilder model(13);
    model.addInput("data", DataType::kFLOAT, {2, 3, 4});
    model.addInput("indices", DataType::kINT64, {2, 2, 1});
    model.addNode("GatherND", {"data", "indices"}, {"y"}, {intAttr("batch_dims", 1)});
    model.addOutput("y", DataType::kFLOAT);
    HostTensor const data = HostTensor::random(DataType::kFLOAT, makeDims({2, 3, 4}), mRng);
    HostTensor const indices = HostTensor::fromValues(DataType::kINT64, makeDims({2, 2, 1}), {2, 0, 1, 1});
    auto out = runOnnxModel(model, {{"data", data}, {"indices", indices}});
    HostTensor expected(DataType::kFLOAT, makeDims({2, 2, 4}));
    for (int64_t b = 0; b < 2; ++b)
    {
        for (int64_t i = 0; i < 2; ++i)
        {
            int64_t const row = static_cast<int64_t>(indices.at(b * 2 + i));
            for (int64_t c = 0; c < 4; ++c)
            {
                expected.set((b * 2 + i) * 4 + c, data.at((b * 3 + row) * 4 + c));
            }
        }
    }
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
}

//! Reference ScatterElements with a reduction along `axis` for 2-D tensors.
HostTensor scatterElements2D(HostTensor const& data, HostTensor const& indices, HostTensor const& updates, int64_t axis,
    std::string const& reduction)
{
    HostTensor out = data;
    int64_t const rows = indices.dims.d[0];
    int64_t const cols = indices.dims.d[1];
    int64_t const dataCols = data.dims.d[1];
    for (int64_t i = 0; i < rows; ++i)
    {
        for (int64_t j = 0; j < cols; ++j)
        {
            int64_t t = static_cast<int64_t>(indices.at(i * cols + j));
            int64_t const extent = data.dims.d[axis];
            t = t < 0 ? t + extent : t;
            int64_t const pos = axis == 0 ? t * dataCols + j : i * dataCols + t;
            double const u = updates.at(i * cols + j);
            double const cur = out.at(pos);
            double v = u;
            if (reduction == "add")
            {
                v = cur + u;
            }
            else if (reduction == "mul")
            {
                v = cur * u;
            }
            else if (reduction == "max")
            {
                v = std::max(cur, u);
            }
            else if (reduction == "min")
            {
                v = std::min(cur, u);
            }
            out.set(pos, v);
        }
    }
    return out;
}

TEST_F(IndexingImportersTest, ScatterElementsReductionsWithDuplicatesAndSmallerIndices)
{
    for (std::string const reduction : {"add", "mul", "max", "min"})
    {
        OnnxModelBuilder model(18);
        model.addInput("data", DataType::kFLOAT, {3, 5});
        model.addInput("indices", DataType::kINT64, {2, 3});
        model.addInput("updates", DataType::kFLOAT, {2, 3});
        model.addNode("ScatterElements", {"data", "indices", "updates"}, {"y"},
            {intAttr("axis", 1), stringAttr("reduction", reduction)});
        model.addOutput("y", DataType::kFLOAT);
        HostTensor const data = HostTensor::random(DataType::kFLOAT, makeDims({3, 5}), mRng, -2.0, 2.0);
        HostTensor const updates = HostTensor::random(DataType::kFLOAT, makeDims({2, 3}), mRng, -2.0, 2.0);
        // Duplicates in row 0 (1 and -4 both hit column 1); row 2 of the data gets no update.
        HostTensor const indices = HostTensor::fromValues(DataType::kINT64, makeDims({2, 3}), {1, -4, 4, 0, 3, -1});
        auto out = runOnnxModel(model, {{"data", data}, {"indices", indices}, {"updates", updates}});
        ASSERT_EQ(out.count("y"), 1U) << reduction;
        EXPECT_TRUE(allClose(out["y"], scatterElements2D(data, indices, updates, 1, reduction), 1e-6, 1e-6))
            << reduction;
    }
}

TEST_F(IndexingImportersTest, ScatterElementsInt32AddOnAxis0)
{
    OnnxModelBuilder model(16);
    model.addInput("data", DataType::kINT32, {4, 2});
    model.addInput("indices", DataType::kINT32, {3, 2});
    model.addInput("updates", DataType::kINT32, {3, 2});
    model.addNode("ScatterElements", {"data", "indices", "updates"}, {"y"}, {stringAttr("reduction", "add")});
    model.addOutput("y", DataType::kINT32);
    HostTensor const data = HostTensor::random(DataType::kINT32, makeDims({4, 2}), mRng, -100, 100);
    HostTensor const updates = HostTensor::random(DataType::kINT32, makeDims({3, 2}), mRng, -100, 100);
    HostTensor const indices = HostTensor::fromValues(DataType::kINT32, makeDims({3, 2}), {3, 0, 3, -4, 1, 2});
    auto out = runOnnxModel(model, {{"data", data}, {"indices", indices}, {"updates", updates}});
    EXPECT_TRUE(allClose(out["y"], scatterElements2D(data, indices, updates, 0, "add"), 0.0, 0.0));
}

TEST_F(IndexingImportersTest, ScatterNDMultiplyAndMaxWithDuplicates)
{
    for (std::string const reduction : {"mul", "max"})
    {
        OnnxModelBuilder model(18);
        model.addInput("data", DataType::kFLOAT, {4, 3});
        model.addInput("indices", DataType::kINT64, {3, 1});
        model.addInput("updates", DataType::kFLOAT, {3, 3});
        model.addNode("ScatterND", {"data", "indices", "updates"}, {"y"}, {stringAttr("reduction", reduction)});
        model.addOutput("y", DataType::kFLOAT);
        HostTensor const data = HostTensor::random(DataType::kFLOAT, makeDims({4, 3}), mRng, -2.0, 2.0);
        HostTensor const updates = HostTensor::random(DataType::kFLOAT, makeDims({3, 3}), mRng, -2.0, 2.0);
        HostTensor const indices = HostTensor::fromValues(DataType::kINT64, makeDims({3, 1}), {2, -2, 0});
        auto out = runOnnxModel(model, {{"data", data}, {"indices", indices}, {"updates", updates}});
        HostTensor expected = data;
        for (int64_t u = 0; u < 3; ++u)
        {
            int64_t row = static_cast<int64_t>(indices.at(u));
            row = row < 0 ? row + 4 : row;
            for (int64_t c = 0; c < 3; ++c)
            {
                double const cur = expected.at(row * 3 + c);
                double const v = updates.at(u * 3 + c);
                expected.set(row * 3 + c, reduction == "mul" ? cur * v : std::max(cur, v));
            }
        }
        EXPECT_TRUE(allClose(out["y"], expected, 1e-6, 1e-6)) << reduction;
    }
}

TEST_F(IndexingImportersTest, ScatterNDFullIndexAdd)
{
    OnnxModelBuilder model(16);
    model.addInput("data", DataType::kFLOAT, {2, 3});
    model.addInput("indices", DataType::kINT64, {4, 2});
    model.addInput("updates", DataType::kFLOAT, {4});
    model.addNode("ScatterND", {"data", "indices", "updates"}, {"y"}, {stringAttr("reduction", "add")});
    model.addOutput("y", DataType::kFLOAT);
    HostTensor const data = HostTensor::random(DataType::kFLOAT, makeDims({2, 3}), mRng);
    HostTensor const updates = HostTensor::random(DataType::kFLOAT, makeDims({4}), mRng);
    HostTensor const indices = HostTensor::fromValues(DataType::kINT64, makeDims({4, 2}), {1, 2, 0, 0, -1, -1, 0, 1});
    auto out = runOnnxModel(model, {{"data", data}, {"indices", indices}, {"updates", updates}});
    HostTensor expected = data;
    std::vector<int64_t> const targets{5, 0, 5, 1};
    for (int64_t u = 0; u < 4; ++u)
    {
        int64_t const t = targets[static_cast<size_t>(u)];
        expected.set(t, expected.at(t) + updates.at(u));
    }
    EXPECT_TRUE(allClose(out["y"], expected, 1e-6, 1e-6));
}

TEST_F(IndexingImportersTest, ScatterReductionMaxBeforeOpset18IsRejected)
{
    OnnxModelBuilder model(16);
    model.addInput("data", DataType::kFLOAT, {3});
    model.addInput("indices", DataType::kINT64, {1});
    model.addInput("updates", DataType::kFLOAT, {1});
    model.addNode("ScatterElements", {"data", "indices", "updates"}, {"y"}, {stringAttr("reduction", "max")})
        .set_name("early_max");
    model.addOutput("y", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model);
    EXPECT_FALSE(outcome.ok);
    EXPECT_TRUE(outcome.hasError("early_max")) << outcome.allErrors();
    EXPECT_TRUE(outcome.hasError("attribute 'reduction' 'max' is not valid in opset 16")) << outcome.allErrors();
}

TEST_F(IndexingImportersTest, GatherFloatIndicesAreRejected)
{
    OnnxModelBuilder model(13);
    model.addInput("data", DataType::kFLOAT, {3});
    model.addInput("indices", DataType::kFLOAT, {1});
    model.addNode("Gather", {"data", "indices"}, {"y"}).set_name("float_gather");
    model.addOutput("y", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model);
    EXPECT_FALSE(outcome.ok);
    EXPECT_TRUE(outcome.hasError("float_gather")) << outcome.allErrors();
    EXPECT_TRUE(outcome.hasError("input 'indices' must be INT32 or INT64")) << outcome.allErrors();
}

} // namespace
} // namespace kiln::test
