// Tests of IOneHotLayer: every axis (positive and negative), negative and out-of-range indices, INT32/INT64 indices,
// float and integer values types, depth from a constant and from a shape-tensor input with dynamic shapes, and the
// error paths (bad axis, bad types, non-scalar depth, depth <= 0).
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::NetworkRunner;

std::vector<int64_t> randomShape(std::mt19937& rng, int32_t rank)
{
    std::vector<int64_t> s;
    for (int32_t i = 0; i < rank; ++i)
    {
        s.push_back(std::uniform_int_distribution<int64_t>(1, 5)(rng));
    }
    return s;
}

//! Independent reference: walk every output coordinate and decide on/off from the indices element it maps to.
HostTensor oneHotOracle(HostTensor const& indices, HostTensor const& values, int64_t depth, int32_t axis)
{
    int32_t const rank = indices.dims.nbDims;
    int32_t const a = axis < 0 ? axis + rank + 1 : axis;
    Dims outDims{};
    outDims.nbDims = rank + 1;
    for (int32_t d = 0, s = 0; d <= rank; ++d)
    {
        outDims.d[d] = d == a ? depth : indices.dims.d[s++];
    }
    HostTensor out(values.type, outDims);
    std::vector<int64_t> coord(static_cast<size_t>(rank + 1), 0);
    for (int64_t e = 0; e < out.volume(); ++e)
    {
        int64_t rem = e;
        for (int32_t d = rank; d >= 0; --d)
        {
            coord[static_cast<size_t>(d)] = rem % outDims.d[d];
            rem /= outDims.d[d];
        }
        int64_t flat = 0;
        for (int32_t d = 0; d <= rank; ++d)
        {
            if (d != a)
            {
                flat = flat * outDims.d[d] + coord[static_cast<size_t>(d)];
            }
        }
        auto const index = static_cast<int64_t>(indices.at(flat));
        int64_t const wrapped = index < 0 ? index + depth : index;
        bool const on = index >= -depth && index < depth && wrapped == coord[static_cast<size_t>(a)];
        out.set(e, values.at(on ? 1 : 0));
    }
    return out;
}

HostTensor randomIndices(std::mt19937& rng, DataType type, std::vector<int64_t> const& shape, int64_t depth)
{
    // Includes negative indices and a few out of range on both sides.
    return HostTensor::random(type, kiln::test::makeDims(shape), rng, static_cast<double>(-depth - 2),
        static_cast<double>(depth + 1));
}

void runConstantDepthCase(std::mt19937& rng, DataType indicesType, DataType valuesType,
    std::vector<int64_t> const& shape, int32_t depth, int32_t axis)
{
    NetworkRunner r;
    ITensor* indices = r.addInput("indices", indicesType, shape);
    ITensor* values = r.addInput("values", valuesType, {2});
    static int32_t depthValue = 0;
    depthValue = depth;
    IConstantLayer* d = r.network().addConstant(Dims{0, {}}, Weights{DataType::kINT32, &depthValue, 1});
    ASSERT_NE(d, nullptr);
    IOneHotLayer* layer = r.network().addOneHot(*indices, *values, *d->getOutput(0), axis);
    ASSERT_NE(layer, nullptr) << r.logger().allErrors();
    EXPECT_EQ(layer->getAxis(), axis);
    r.markOutput(layer->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor idx = randomIndices(rng, indicesType, shape, depth);
    bool const isInt = valuesType == DataType::kINT32 || valuesType == DataType::kINT64;
    HostTensor vals = HostTensor::random(valuesType, kiln::test::makeDims({2}), rng, isInt ? -100 : -5, isInt ? 100 : 5);
    if (vals.at(0) == vals.at(1))
    {
        vals.set(1, vals.at(0) + 1);
    }
    auto out = r.run({{"indices", idx}, {"values", vals}});
    EXPECT_TRUE(kiln::test::sameBits(out["y"], oneHotOracle(idx, vals, depth, axis)))
        << "axis " << axis << " depth " << depth << " shape " << kiln::test::dimsString(idx.dims);
}

class OneHotLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(OneHotLayerTest);

TEST_P(OneHotLayerTest, EveryAxisPositiveAndNegative)
{
    std::mt19937 rng(101);
    for (int32_t rank = 0; rank <= 3; ++rank)
    {
        for (int32_t axis = -rank - 1; axis <= rank; ++axis)
        {
            int32_t const depth = std::uniform_int_distribution<int32_t>(1, 6)(rng);
            runConstantDepthCase(rng, DataType::kINT32, DataType::kFLOAT, randomShape(rng, rank), depth, axis);
        }
    }
}

TEST_P(OneHotLayerTest, ValuesTypesAndInt64Indices)
{
    std::mt19937 rng(103);
    for (DataType vt : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT32, DataType::kINT64})
    {
        runConstantDepthCase(rng, DataType::kINT64, vt, {3, 4}, 5, -1);
        runConstantDepthCase(rng, DataType::kINT32, vt, {2, 3}, 4, 1);
    }
}

TEST_P(OneHotLayerTest, NegativeIndicesWrapAndOutOfRangeIsAllOff)
{
    NetworkRunner r;
    ITensor* indices = r.addInput("indices", DataType::kINT32, {6});
    ITensor* values = r.addInput("values", DataType::kFLOAT, {2});
    static int32_t const kDepth = 3;
    IConstantLayer* d = r.network().addConstant(Dims{0, {}}, Weights{DataType::kINT32, &kDepth, 1});
    IOneHotLayer* layer = r.network().addOneHot(*indices, *values, *d->getOutput(0), -1);
    ASSERT_NE(layer, nullptr);
    r.markOutput(layer->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor idx = HostTensor::fromValues(DataType::kINT32, kiln::test::makeDims({6}), {0, 2, -1, -3, 3, -4});
    HostTensor vals = HostTensor::fromValues(DataType::kFLOAT, kiln::test::makeDims({2}), {-0.5, 7.25});
    auto out = r.run({{"indices", idx}, {"values", vals}});
    // Rows: 0 -> col 0; 2 -> col 2; -1 -> col 2; -3 -> col 0; 3 and -4 -> all off.
    std::vector<int32_t> const hot{0, 2, 2, 0, -1, -1};
    ASSERT_EQ(out["y"].volume(), 18);
    for (int64_t i = 0; i < 6; ++i)
    {
        for (int64_t j = 0; j < 3; ++j)
        {
            EXPECT_EQ(out["y"].at(i * 3 + j), hot[static_cast<size_t>(i)] == j ? 7.25 : -0.5) << i << "," << j;
        }
    }
}

TEST_P(OneHotLayerTest, DepthFromAShapeTensorInputWithDynamicShapes)
{
    std::mt19937 rng(107);
    NetworkRunner r;
    ITensor* indices = r.addInput("indices", DataType::kINT32, {-1, 3});
    ITensor* values = r.addInput("values", DataType::kFLOAT, {2});
    ITensor* depth = r.addInput("depth", DataType::kINT32, {});
    IOneHotLayer* layer = r.network().addOneHot(*indices, *values, *depth, 1);
    ASSERT_NE(layer, nullptr);
    r.markOutput(layer->getOutput(0), "y");
    r.setProfileDims("indices", {1, 3}, {2, 3}, {6, 3});
    r.setProfileValues("depth", {1}, {4}, {9});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (auto const& [rows, dv] : std::vector<std::pair<int64_t, int64_t>>{{2, 4}, {6, 9}, {1, 1}})
    {
        HostTensor idx = randomIndices(rng, DataType::kINT32, {rows, 3}, dv);
        HostTensor vals = HostTensor::fromValues(DataType::kFLOAT, kiln::test::makeDims({2}), {0.25, -3.0});
        HostTensor dt = HostTensor::fromValues(DataType::kINT32, Dims{0, {}}, {static_cast<double>(dv)});
        auto out = r.run({{"indices", idx}, {"values", vals}, {"depth", dt}});
        EXPECT_TRUE(kiln::test::sameBits(out["y"], oneHotOracle(idx, vals, dv, 1))) << rows << " rows, depth " << dv;
    }
}

TEST_P(OneHotLayerTest, InvalidAxisIsRejected)
{
    NetworkRunner r;
    ITensor* indices = r.addInput("indices", DataType::kINT32, {2, 3});
    ITensor* values = r.addInput("values", DataType::kFLOAT, {2});
    ITensor* depth = r.addInput("depth", DataType::kINT32, {});
    EXPECT_EQ(r.network().addOneHot(*indices, *values, *depth, 3), nullptr);
    EXPECT_TRUE(r.logger().hasError("addOneHot: axis 3 is out of range [-3, 2]")) << r.logger().allErrors();
    EXPECT_EQ(r.network().addOneHot(*indices, *values, *depth, -4), nullptr);
    IOneHotLayer* layer = r.network().addOneHot(*indices, *values, *depth, -3);
    ASSERT_NE(layer, nullptr);
    layer->setName("hot");
    r.logger().clear();
    layer->setAxis(5);
    EXPECT_TRUE(r.logger().hasError("IOneHotLayer::setAxis on layer 'hot': axis 5")) << r.logger().allErrors();
    EXPECT_EQ(layer->getAxis(), -3);
    layer->setAxis(2);
    EXPECT_EQ(layer->getAxis(), 2);
}

//! Builds indices -> OneHot with the given input types/shapes and expects the build to fail with `message`.
void expectBuildError(DataType indicesType, DataType valuesType, std::vector<int64_t> const& valuesShape,
    std::vector<int64_t> const& depthShape, DataType depthType, int32_t depthValue, std::string const& message)
{
    NetworkRunner r;
    ITensor* indices = r.addInput("indices", indicesType, {2, 3});
    ITensor* values = r.addInput("values", valuesType, valuesShape);
    static int64_t storage[2];
    storage[0] = depthValue;
    storage[1] = depthValue;
    Dims depthDims = kiln::test::makeDims(depthShape);
    int64_t const count = kiln::test::volume(depthDims);
    Weights w{depthType, storage, count};
    static int32_t storage32[2];
    storage32[0] = depthValue;
    storage32[1] = depthValue;
    if (depthType == DataType::kINT32)
    {
        w.values = storage32;
    }
    static float storageF[2];
    storageF[0] = static_cast<float>(depthValue);
    storageF[1] = static_cast<float>(depthValue);
    if (depthType == DataType::kFLOAT)
    {
        w.values = storageF;
    }
    IConstantLayer* d = r.network().addConstant(depthDims, w);
    ASSERT_NE(d, nullptr);
    IOneHotLayer* layer = r.network().addOneHot(*indices, *values, *d->getOutput(0), 0);
    ASSERT_NE(layer, nullptr);
    layer->setName("hot");
    r.markOutput(layer->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("layer 'hot' (OneHot)")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError(message)) << r.logger().allErrors();
}

TEST_P(OneHotLayerTest, BadInputsFailTheBuild)
{
    expectBuildError(DataType::kFLOAT, DataType::kFLOAT, {2}, {}, DataType::kINT32, 3, "indices (input 0)");
    expectBuildError(DataType::kINT32, DataType::kFLOAT, {3}, {}, DataType::kINT32, 3, "exactly 2 elements");
    expectBuildError(DataType::kINT32, DataType::kFLOAT, {2}, {2}, DataType::kINT32, 3, "must be a scalar");
    expectBuildError(DataType::kINT32, DataType::kFLOAT, {2}, {}, DataType::kFLOAT, 3, "depth (input 2)");
    expectBuildError(DataType::kINT32, DataType::kFLOAT, {2}, {}, DataType::kINT32, 0, "depth = 0");
    expectBuildError(DataType::kINT32, DataType::kFLOAT, {2}, {}, DataType::kINT64, -2, "must be positive");
}

TEST_P(OneHotLayerTest, DepthMustBeAShapeTensor)
{
    NetworkRunner r;
    ITensor* indices = r.addInput("indices", DataType::kINT32, {4});
    ITensor* values = r.addInput("values", DataType::kFLOAT, {2});
    ITensor* x = r.addInput("x", DataType::kFLOAT, {});
    ICastLayer* depth = r.network().addCast(*x, DataType::kINT32);
    ASSERT_NE(depth, nullptr);
    IOneHotLayer* layer = r.network().addOneHot(*indices, *values, *depth->getOutput(0), 0);
    ASSERT_NE(layer, nullptr);
    r.markOutput(layer->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("must be a shape tensor")) << r.logger().allErrors();
}

} // namespace
