// Tests of ITopKLayer: kMAX/kMIN on every axis, ties (lower index first), integer and 16-bit float types, INT64
// indices, k from a shape tensor (constant and network input), dynamic shapes and the error paths.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::NetworkRunner;

std::vector<int64_t> randomShape(std::mt19937& rng, int32_t rank, int64_t lo = 1, int64_t hi = 6)
{
    std::vector<int64_t> s;
    for (int32_t i = 0; i < rank; ++i)
    {
        s.push_back(std::uniform_int_distribution<int64_t>(lo, hi)(rng));
    }
    return s;
}

//! Whether shape resolution and execution both succeed on `inputs` (a failure here is an expected outcome, not a
//! test failure).
bool runsSuccessfully(NetworkRunner& r, std::map<std::string, HostTensor> const& inputs)
{
    std::map<std::string, HostTensor> outputs;
    return NetworkRunner::runEngine(r.engine(), inputs, outputs);
}

//! Stable sort of each slice by value (descending for kMAX, ascending for kMIN); the first k are kept.
void topKOracle(HostTensor const& x, TopKOperation op, int32_t axis, int64_t k, DataType indicesType,
    HostTensor& values, HostTensor& indices)
{
    nvinfer1::Dims outDims = x.dims;
    outDims.d[axis] = k;
    values = HostTensor(x.type, outDims);
    indices = HostTensor(indicesType, outDims);
    int64_t outer = 1;
    int64_t inner = 1;
    for (int32_t d = 0; d < axis; ++d)
    {
        outer *= x.dims.d[d];
    }
    for (int32_t d = axis + 1; d < x.dims.nbDims; ++d)
    {
        inner *= x.dims.d[d];
    }
    int64_t const n = x.dims.d[axis];
    for (int64_t o = 0; o < outer; ++o)
    {
        for (int64_t i = 0; i < inner; ++i)
        {
            std::vector<int64_t> order(static_cast<size_t>(n));
            std::iota(order.begin(), order.end(), 0);
            auto value = [&](int64_t j) { return x.at((o * n + j) * inner + i); };
            std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
                return op == TopKOperation::kMAX ? value(a) > value(b) : value(a) < value(b);
            });
            for (int64_t j = 0; j < k; ++j)
            {
                values.set((o * k + j) * inner + i, value(order[static_cast<size_t>(j)]));
                indices.set((o * k + j) * inner + i, static_cast<double>(order[static_cast<size_t>(j)]));
            }
        }
    }
}

void runCase(std::mt19937& rng, DataType type, std::vector<int64_t> const& shape, TopKOperation op, int32_t axis,
    int32_t k, DataType indicesType, bool fewDistinctValues)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", type, shape);
    ITopKLayer* layer = r.network().addTopK(*in, op, k, 1U << axis, indicesType);
    ASSERT_NE(layer, nullptr) << r.logger().allErrors();
    EXPECT_EQ(layer->getK(), k);
    EXPECT_EQ(layer->getIndicesType(), indicesType);
    r.markOutput(layer->getOutput(0), "values");
    r.markOutput(layer->getOutput(1), "indices");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    bool const isInt = type == DataType::kINT32 || type == DataType::kINT64;
    double const range = fewDistinctValues ? 3 : (isInt ? 1000 : 10);
    HostTensor x = HostTensor::random(type, kiln::test::makeDims(shape), rng, -range, range);
    if (fewDistinctValues && !isInt)
    {
        for (int64_t i = 0; i < x.volume(); ++i)
        {
            x.set(i, std::round(x.at(i))); // many ties
        }
    }
    auto out = r.run({{"x", x}});
    HostTensor values;
    HostTensor indices;
    topKOracle(x, op, axis, k, indicesType, values, indices);
    std::string const what = std::string(op == TopKOperation::kMAX ? "kMAX" : "kMIN") + " axis " + std::to_string(axis)
        + " k " + std::to_string(k) + " shape " + kiln::test::dimsString(x.dims);
    EXPECT_TRUE(kiln::test::sameBits(out["values"], values)) << what;
    EXPECT_TRUE(kiln::test::sameBits(out["indices"], indices)) << what;
}

class TopKLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(TopKLayerTest);

TEST_P(TopKLayerTest, EveryAxisMaxAndMin)
{
    std::mt19937 rng(17);
    for (int32_t rank = 1; rank <= 4; ++rank)
    {
        for (int32_t axis = 0; axis < rank; ++axis)
        {
            for (TopKOperation op : {TopKOperation::kMAX, TopKOperation::kMIN})
            {
                std::vector<int64_t> shape = randomShape(rng, rank);
                int32_t const k = std::uniform_int_distribution<int32_t>(1, static_cast<int32_t>(shape[axis]))(rng);
                runCase(rng, DataType::kFLOAT, shape, op, axis, k, DataType::kINT32, false);
            }
        }
    }
}

TEST_P(TopKLayerTest, TiesKeepTheLowerIndexFirst)
{
    std::mt19937 rng(23);
    for (TopKOperation op : {TopKOperation::kMAX, TopKOperation::kMIN})
    {
        runCase(rng, DataType::kFLOAT, {4, 12}, op, 1, 7, DataType::kINT32, true);
        runCase(rng, DataType::kINT32, {12, 3}, op, 0, 12, DataType::kINT64, true);
    }
}

TEST_P(TopKLayerTest, IntegerAndHalfTypesWithInt64Indices)
{
    std::mt19937 rng(29);
    for (DataType t : {DataType::kINT32, DataType::kINT64, DataType::kHALF, DataType::kBF16})
    {
        for (TopKOperation op : {TopKOperation::kMAX, TopKOperation::kMIN})
        {
            runCase(rng, t, {3, 9, 2}, op, 1, 4, DataType::kINT64, false);
        }
    }
}

TEST_P(TopKLayerTest, DeprecatedOverloadDefaultsToInt32Indices)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {2, 5});
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    ITopKLayer* layer = r.network().addTopK(*in, TopKOperation::kMAX, 2, 2U);
#pragma GCC diagnostic pop
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getIndicesType(), DataType::kINT32);
    EXPECT_TRUE(layer->setIndicesType(DataType::kINT64));
    EXPECT_EQ(layer->getIndicesType(), DataType::kINT64);
    EXPECT_FALSE(layer->setIndicesType(DataType::kFLOAT));
    EXPECT_EQ(layer->getIndicesType(), DataType::kINT64);
}

TEST_P(TopKLayerTest, NaNCountsAsLargest)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {5});
    ITopKLayer* maxLayer = r.network().addTopK(*in, TopKOperation::kMAX, 2, 1U, DataType::kINT32);
    ITopKLayer* minLayer = r.network().addTopK(*in, TopKOperation::kMIN, 5, 1U, DataType::kINT32);
    ASSERT_NE(maxLayer, nullptr);
    ASSERT_NE(minLayer, nullptr);
    r.markOutput(maxLayer->getOutput(1), "maxIdx");
    r.markOutput(minLayer->getOutput(1), "minIdx");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor x = HostTensor::fromValues(DataType::kFLOAT, kiln::test::makeDims({5}), {1.0, NAN, 3.0, -2.0, 3.0});
    auto out = r.run({{"x", x}});
    EXPECT_EQ(out["maxIdx"].at(0), 1);
    EXPECT_EQ(out["maxIdx"].at(1), 2);
    std::vector<double> const minOrder{3, 0, 2, 4, 1};
    for (int64_t i = 0; i < 5; ++i)
    {
        EXPECT_EQ(out["minIdx"].at(i), minOrder[static_cast<size_t>(i)]) << i;
    }
}

TEST_P(TopKLayerTest, KFromAConstantShapeTensor)
{
    std::mt19937 rng(41);
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {3, 10});
    ITopKLayer* layer = r.network().addTopK(*in, TopKOperation::kMAX, 1, 2U, DataType::kINT32);
    ASSERT_NE(layer, nullptr);
    static int32_t const kValue = 6;
    IConstantLayer* k = r.network().addConstant(nvinfer1::Dims{0, {}}, Weights{DataType::kINT32, &kValue, 1});
    ASSERT_NE(k, nullptr);
    layer->setInput(1, *k->getOutput(0));
    EXPECT_EQ(layer->getK(), -1);
    r.markOutput(layer->getOutput(0), "values");
    r.markOutput(layer->getOutput(1), "indices");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({3, 10}), rng, -5, 5);
    auto out = r.run({{"x", x}});
    HostTensor values;
    HostTensor indices;
    topKOracle(x, TopKOperation::kMAX, 1, kValue, DataType::kINT32, values, indices);
    EXPECT_TRUE(kiln::test::sameBits(out["values"], values));
    EXPECT_TRUE(kiln::test::sameBits(out["indices"], indices));
    // setK() drops the k tensor again.
    layer->setK(2);
    EXPECT_EQ(layer->getK(), 2);
    EXPECT_EQ(layer->getNbInputs(), 1);
}

TEST_P(TopKLayerTest, KFromAShapeTensorInputAndDynamicShapes)
{
    std::mt19937 rng(43);
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {-1, -1});
    ITensor* k = r.addInput("k", DataType::kINT32, {});
    ITopKLayer* layer = r.network().addTopK(*in, TopKOperation::kMIN, 1, 2U, DataType::kINT64);
    ASSERT_NE(layer, nullptr);
    layer->setInput(1, *k);
    r.markOutput(layer->getOutput(0), "values");
    r.markOutput(layer->getOutput(1), "indices");
    r.setProfileDims("x", {1, 1}, {2, 8}, {4, 20});
    r.setProfileValues("k", {1}, {3}, {20});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (auto const& [shape, kv] : std::vector<std::pair<std::vector<int64_t>, int32_t>>{{{2, 8}, 3}, {{4, 20}, 17}})
    {
        HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims(shape), rng, -5, 5);
        HostTensor kt = HostTensor::fromValues(DataType::kINT32, nvinfer1::Dims{0, {}}, {static_cast<double>(kv)});
        auto out = r.run({{"x", x}, {"k", kt}});
        HostTensor values;
        HostTensor indices;
        topKOracle(x, TopKOperation::kMIN, 1, kv, DataType::kINT64, values, indices);
        EXPECT_TRUE(kiln::test::sameBits(out["values"], values));
        EXPECT_TRUE(kiln::test::sameBits(out["indices"], indices));
    }
    // k larger than the axis extent is a runtime error, not a crash.
    HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({2, 4}), rng);
    HostTensor kt = HostTensor::fromValues(DataType::kINT32, nvinfer1::Dims{0, {}}, {9});
    r.logger().clear();
    EXPECT_FALSE(runsSuccessfully(r, {{"x", x}, {"k", kt}}));
    EXPECT_TRUE(r.logger().hasError("k must not exceed")) << r.logger().allErrors();
}

TEST_P(TopKLayerTest, InvalidArgumentsAreRejected)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {2, 5});
    EXPECT_EQ(r.network().addTopK(*in, TopKOperation::kMAX, 0, 2U, DataType::kINT32), nullptr);
    EXPECT_TRUE(r.logger().hasError("k = 0")) << r.logger().allErrors();
    EXPECT_EQ(r.network().addTopK(*in, TopKOperation::kMAX, 4000, 2U, DataType::kINT32), nullptr);
    EXPECT_EQ(r.network().addTopK(*in, TopKOperation::kMAX, 1, 3U, DataType::kINT32), nullptr);
    EXPECT_TRUE(r.logger().hasError("exactly one bit")) << r.logger().allErrors();
    EXPECT_EQ(r.network().addTopK(*in, TopKOperation::kMAX, 1, 0U, DataType::kINT32), nullptr);
    EXPECT_EQ(r.network().addTopK(*in, TopKOperation::kMAX, 1, 1U, DataType::kFLOAT), nullptr);
    EXPECT_TRUE(r.logger().hasError("indicesType")) << r.logger().allErrors();
    ITopKLayer* layer = r.network().addTopK(*in, TopKOperation::kMAX, 1, 2U, DataType::kINT32);
    ASSERT_NE(layer, nullptr);
    layer->setName("topk");
    r.logger().clear();
    layer->setK(-3);
    layer->setReduceAxes(6);
    EXPECT_TRUE(r.logger().hasError("'topk'")) << r.logger().allErrors();
    EXPECT_EQ(layer->getK(), 1);
    EXPECT_EQ(layer->getReduceAxes(), 2U);
}

TEST_P(TopKLayerTest, KBeyondTheAxisExtentFailsTheBuild)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {2, 5});
    ITopKLayer* layer = r.network().addTopK(*in, TopKOperation::kMAX, 6, 2U, DataType::kINT32);
    ASSERT_NE(layer, nullptr);
    layer->setName("topk");
    r.markOutput(layer->getOutput(0), "values");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("'topk'")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("exceeds the extent")) << r.logger().allErrors();
}

TEST_P(TopKLayerTest, BoolInputFailsTheBuild)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kBOOL, {2, 5});
    ITopKLayer* layer = r.network().addTopK(*in, TopKOperation::kMAX, 1, 2U, DataType::kINT32);
    ASSERT_NE(layer, nullptr);
    r.markOutput(layer->getOutput(0), "values");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("TopK supports")) << r.logger().allErrors();
}

} // namespace
