// Tests of IConcatenationLayer: any number of inputs on every axis, TensorRT's default axis, every storable type,
// dynamic shapes with a runtime mismatch, shape-tensor value propagation (concatenated gathered dimensions driving a
// reshape) and the error paths.
#include "common/backendTest.h"
#include "common/networkRunner.h"
#include "layers/layerTestShapes.h"

#include <memory>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::NetworkRunner;

using kiln::test::randomShape;

//! Whether shape resolution and execution both succeed on `inputs` (a failure here is an expected outcome, not a
//! test failure).
bool runsSuccessfully(NetworkRunner& r, std::map<std::string, HostTensor> const& inputs)
{
    std::map<std::string, HostTensor> outputs;
    return NetworkRunner::runEngine(r.engine(), inputs, outputs);
}

//! Output element at coordinate c comes from the input whose slab along `axis` holds c[axis].
HostTensor concatOracle(std::vector<HostTensor> const& xs, int32_t axis)
{
    nvinfer1::Dims outDims = xs[0].dims;
    outDims.d[axis] = 0;
    for (HostTensor const& x : xs)
    {
        outDims.d[axis] += x.dims.d[axis];
    }
    HostTensor y(xs[0].type, outDims);
    int32_t const rank = outDims.nbDims;
    for (int64_t flat = 0; flat < y.volume(); ++flat)
    {
        std::vector<int64_t> c(static_cast<size_t>(rank));
        int64_t rem = flat;
        for (int32_t d = rank - 1; d >= 0; --d)
        {
            c[static_cast<size_t>(d)] = rem % outDims.d[d];
            rem /= outDims.d[d];
        }
        size_t which = 0;
        while (c[static_cast<size_t>(axis)] >= xs[which].dims.d[axis])
        {
            c[static_cast<size_t>(axis)] -= xs[which].dims.d[axis];
            ++which;
        }
        int64_t src = 0;
        for (int32_t d = 0; d < rank; ++d)
        {
            src = src * xs[which].dims.d[d] + c[static_cast<size_t>(d)];
        }
        y.set(flat, xs[which].at(src));
    }
    return y;
}

void runCase(std::mt19937& rng, DataType type, std::vector<int64_t> const& base, int32_t axis, int32_t nbInputs,
    bool setAxis, int64_t minAxisExtent = 1)
{
    NetworkRunner r;
    std::vector<ITensor*> ins;
    std::vector<HostTensor> xs;
    std::map<std::string, HostTensor> feeds;
    for (int32_t i = 0; i < nbInputs; ++i)
    {
        std::vector<int64_t> shape = base;
        shape[static_cast<size_t>(axis)] = std::uniform_int_distribution<int64_t>(minAxisExtent, 3)(rng);
        std::string const name = "x" + std::to_string(i);
        ins.push_back(r.addInput(name.c_str(), type, shape));
        xs.push_back(HostTensor::random(type, kiln::test::makeDims(shape), rng, -100, 100));
        feeds[name] = xs.back();
    }
    IConcatenationLayer* layer = r.network().addConcatenation(ins.data(), nbInputs);
    ASSERT_NE(layer, nullptr) << r.logger().allErrors();
    int32_t const rank = static_cast<int32_t>(base.size());
    EXPECT_EQ(layer->getAxis(), rank >= 3 ? rank - 3 : 0);
    if (setAxis)
    {
        layer->setAxis(axis);
        EXPECT_EQ(layer->getAxis(), axis);
    }
    r.markOutput(layer->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    auto out = r.run(feeds);
    EXPECT_TRUE(kiln::test::sameBits(out["y"], concatOracle(xs, axis)))
        << "axis " << axis << " inputs " << nbInputs << " rank " << rank;
}

class ConcatenationLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(ConcatenationLayerTest);

TEST_P(ConcatenationLayerTest, EveryAxisAndInputCount)
{
    std::mt19937 rng(101);
    for (int32_t rank = 1; rank <= 4; ++rank)
    {
        for (int32_t axis = 0; axis < rank; ++axis)
        {
            for (int32_t nb = 1; nb <= 4; ++nb)
            {
                runCase(rng, DataType::kFLOAT, randomShape(rng, rank), axis, nb, true);
            }
        }
    }
}

TEST_P(ConcatenationLayerTest, EmptyInputsAlongTheAxis)
{
    std::mt19937 rng(102);
    for (int32_t i = 0; i < 4; ++i)
    {
        runCase(rng, DataType::kFLOAT, {2, 3, 2}, 1, 3, true, 0);
    }
}

TEST_P(ConcatenationLayerTest, DefaultAxisIsRankMinusThree)
{
    std::mt19937 rng(103);
    for (int32_t rank = 1; rank <= 5; ++rank)
    {
        runCase(rng, DataType::kFLOAT, randomShape(rng, rank), rank >= 3 ? rank - 3 : 0, 3, false);
    }
}

TEST_P(ConcatenationLayerTest, EveryStorableType)
{
    std::mt19937 rng(107);
    for (DataType t : {DataType::kHALF, DataType::kBF16, DataType::kINT32, DataType::kINT64, DataType::kBOOL})
    {
        runCase(rng, t, {2, 3, 2}, 1, 3, true);
        runCase(rng, t, {4, 2}, 0, 2, true);
    }
}

TEST_P(ConcatenationLayerTest, DynamicShapesAndRuntimeMismatch)
{
    std::mt19937 rng(109);
    NetworkRunner r;
    ITensor* a = r.addInput("a", DataType::kFLOAT, {-1, 3});
    ITensor* b = r.addInput("b", DataType::kFLOAT, {-1, -1});
    ITensor* ins[] = {a, b};
    IConcatenationLayer* layer = r.network().addConcatenation(ins, 2);
    ASSERT_NE(layer, nullptr);
    layer->setAxis(1);
    layer->setName("cat");
    r.markOutput(layer->getOutput(0), "y");
    r.setProfileDims("a", {1, 3}, {2, 3}, {6, 3});
    r.setProfileDims("b", {1, 1}, {2, 2}, {6, 5});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (auto const& [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{2, 2}, {6, 5}, {1, 1}})
    {
        HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({rows, 3}), rng);
        HostTensor z = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({rows, cols}), rng);
        auto out = r.run({{"a", x}, {"b", z}});
        EXPECT_TRUE(kiln::test::sameBits(out["y"], concatOracle({x, z}, 1)));
    }
    // Different row counts violate the concatenation constraint at run time.
    HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({2, 3}), rng);
    HostTensor z = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({3, 2}), rng);
    r.logger().clear();
    EXPECT_FALSE(runsSuccessfully(r, {{"a", x}, {"b", z}}));
    EXPECT_TRUE(r.logger().hasError("'cat'")) << r.logger().allErrors();
}

TEST_P(ConcatenationLayerTest, GatheredDimensionsDriveAReshape)
{
    // y = reshape(x, concat(gather(shape(x), [1, 0]), [4])): x [d0, d1, 4] read as [d1, d0, 4].
    std::mt19937 rng(113);
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {-1, -1, 4});
    IShapeLayer* shape = r.network().addShape(*in);
    ASSERT_NE(shape, nullptr);
    static int64_t const kSwap[] = {1, 0};
    static int64_t const kFour[] = {4};
    IConstantLayer* swap = r.network().addConstant(kiln::test::makeDims({2}), Weights{DataType::kINT64, kSwap, 2});
    IConstantLayer* four = r.network().addConstant(kiln::test::makeDims({1}), Weights{DataType::kINT64, kFour, 1});
    ASSERT_NE(swap, nullptr);
    ASSERT_NE(four, nullptr);
    IGatherLayer* dims = r.network().addGather(*shape->getOutput(0), *swap->getOutput(0), 0);
    ASSERT_NE(dims, nullptr);
    ITensor* parts[] = {dims->getOutput(0), four->getOutput(0)};
    IConcatenationLayer* newShape = r.network().addConcatenation(parts, 2);
    ASSERT_NE(newShape, nullptr);
    newShape->setAxis(0);
    IShuffleLayer* reshape = r.network().addShuffle(*in);
    ASSERT_NE(reshape, nullptr);
    reshape->setInput(1, *newShape->getOutput(0));
    r.markOutput(reshape->getOutput(0), "y");
    r.markOutput(newShape->getOutput(0), "shape"); // also computed as an execution tensor
    r.setProfileDims("x", {1, 1, 4}, {2, 3, 4}, {5, 6, 4});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (auto const& s : std::vector<std::vector<int64_t>>{{2, 3, 4}, {5, 6, 4}})
    {
        HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims(s), rng);
        auto out = r.run({{"x", x}});
        HostTensor expected = x;
        expected.dims = kiln::test::makeDims({s[1], s[0], 4});
        EXPECT_TRUE(kiln::test::sameBits(out["y"], expected));
        HostTensor const expectedShape
            = HostTensor::fromValues(DataType::kINT64, kiln::test::makeDims({3}), {double(s[1]), double(s[0]), 4});
        EXPECT_TRUE(kiln::test::sameBits(out["shape"], expectedShape));
    }
}

TEST_P(ConcatenationLayerTest, InvalidArgumentsAreRejected)
{
    NetworkRunner r;
    EXPECT_EQ(r.network().addConcatenation(nullptr, 0), nullptr);
    EXPECT_TRUE(r.logger().hasError("addConcatenation")) << r.logger().allErrors();
    ITensor* a = r.addInput("a", DataType::kFLOAT, {2, 3});
    ITensor* ins[] = {a, nullptr};
    r.logger().clear();
    EXPECT_EQ(r.network().addConcatenation(ins, 2), nullptr);
    EXPECT_TRUE(r.logger().hasError("input 1 is null")) << r.logger().allErrors();
    IConcatenationLayer* layer = r.network().addConcatenation(ins, 1);
    ASSERT_NE(layer, nullptr);
    layer->setName("cat");
    r.logger().clear();
    layer->setAxis(-1);
    EXPECT_TRUE(r.logger().hasError("'cat'")) << r.logger().allErrors();
    EXPECT_EQ(layer->getAxis(), 0);
}

TEST_P(ConcatenationLayerTest, MismatchedTypesOrDimsFailTheBuild)
{
    {
        NetworkRunner r;
        ITensor* ins[] = {r.addInput("a", DataType::kFLOAT, {2, 3}), r.addInput("b", DataType::kINT32, {2, 3})};
        IConcatenationLayer* layer = r.network().addConcatenation(ins, 2);
        ASSERT_NE(layer, nullptr);
        layer->setName("cat");
        r.markOutput(layer->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("same type")) << r.logger().allErrors();
        EXPECT_TRUE(r.logger().hasError("'cat'")) << r.logger().allErrors();
    }
    {
        NetworkRunner r;
        ITensor* ins[] = {r.addInput("a", DataType::kFLOAT, {2, 3}), r.addInput("b", DataType::kFLOAT, {3, 3})};
        IConcatenationLayer* layer = r.network().addConcatenation(ins, 2);
        ASSERT_NE(layer, nullptr);
        layer->setAxis(1);
        r.markOutput(layer->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("must match")) << r.logger().allErrors();
    }
    {
        NetworkRunner r;
        ITensor* ins[] = {r.addInput("a", DataType::kFLOAT, {2, 3}), r.addInput("b", DataType::kFLOAT, {2, 3, 1})};
        IConcatenationLayer* layer = r.network().addConcatenation(ins, 2);
        ASSERT_NE(layer, nullptr);
        r.markOutput(layer->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("rank")) << r.logger().allErrors();
    }
}

} // namespace
