// Tests of IReverseSequenceLayer: every (batch, sequence) axis pair on random 2-D..4-D shapes, lengths 0..T, many
// data types (bit-exact copies), INT32/INT64 lengths, TensorRT's documented example, dynamic shapes, the getters/
// setters and the error paths (axes, types, length count, out-of-range lengths at run time).
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::NetworkRunner;

//! Reference: per output coordinate, mirror the sequence coordinate inside the first len[b] positions.
HostTensor reverseOracle(HostTensor const& x, HostTensor const& lens, int32_t batchAxis, int32_t seqAxis)
{
    HostTensor y(x.type, x.dims);
    int32_t const rank = x.dims.nbDims;
    std::vector<int64_t> coord(static_cast<size_t>(rank));
    for (int64_t e = 0; e < x.volume(); ++e)
    {
        int64_t rem = e;
        for (int32_t d = rank - 1; d >= 0; --d)
        {
            coord[static_cast<size_t>(d)] = rem % x.dims.d[d];
            rem /= x.dims.d[d];
        }
        auto const len = static_cast<int64_t>(lens.at(coord[static_cast<size_t>(batchAxis)]));
        int64_t& t = coord[static_cast<size_t>(seqAxis)];
        if (t < len)
        {
            t = len - 1 - t;
        }
        int64_t src = 0;
        for (int32_t d = 0; d < rank; ++d)
        {
            src = src * x.dims.d[d] + coord[static_cast<size_t>(d)];
        }
        y.set(e, x.at(src));
    }
    return y;
}

void runCase(std::mt19937& rng, DataType type, DataType lensType, std::vector<int64_t> const& shape, int32_t batchAxis,
    int32_t seqAxis)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", type, shape);
    int64_t const batch = shape[static_cast<size_t>(batchAxis)];
    ITensor* lensIn = r.addInput("lens", lensType, {batch});
    IReverseSequenceLayer* layer = r.network().addReverseSequence(*in, *lensIn);
    ASSERT_NE(layer, nullptr) << r.logger().allErrors();
    EXPECT_EQ(layer->getBatchAxis(), 1);
    EXPECT_EQ(layer->getSequenceAxis(), 0);
    layer->setBatchAxis(batchAxis);
    layer->setSequenceAxis(seqAxis);
    EXPECT_EQ(layer->getBatchAxis(), batchAxis);
    EXPECT_EQ(layer->getSequenceAxis(), seqAxis);
    r.markOutput(layer->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor x = HostTensor::random(type, kiln::test::makeDims(shape), rng, -100, 100);
    HostTensor lens = HostTensor::random(lensType, kiln::test::makeDims({batch}), rng, 0,
        static_cast<double>(shape[static_cast<size_t>(seqAxis)]));
    auto out = r.run({{"x", x}, {"lens", lens}});
    EXPECT_TRUE(kiln::test::sameBits(out["y"], reverseOracle(x, lens, batchAxis, seqAxis)))
        << "batch axis " << batchAxis << " sequence axis " << seqAxis << " shape " << kiln::test::dimsString(x.dims);
}

class ReverseSequenceLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(ReverseSequenceLayerTest);

TEST_P(ReverseSequenceLayerTest, EveryAxisPair)
{
    std::mt19937 rng(401);
    for (int32_t rank = 2; rank <= 4; ++rank)
    {
        for (int32_t b = 0; b < rank; ++b)
        {
            for (int32_t s = 0; s < rank; ++s)
            {
                if (b == s)
                {
                    continue;
                }
                std::vector<int64_t> shape;
                for (int32_t d = 0; d < rank; ++d)
                {
                    shape.push_back(std::uniform_int_distribution<int64_t>(1, 5)(rng));
                }
                runCase(rng, DataType::kFLOAT, (b + s) % 2 == 0 ? DataType::kINT32 : DataType::kINT64, shape, b, s);
            }
        }
    }
}

TEST_P(ReverseSequenceLayerTest, DataTypes)
{
    std::mt19937 rng(409);
    for (DataType t : {DataType::kHALF, DataType::kBF16, DataType::kINT32, DataType::kINT64, DataType::kINT8,
             DataType::kBOOL})
    {
        runCase(rng, t, DataType::kINT64, {6, 3, 2}, 1, 0);
    }
}

TEST_P(ReverseSequenceLayerTest, TensorRTDocumentedExample)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {4, 4});
    ITensor* lens = r.addInput("lens", DataType::kINT32, {4});
    IReverseSequenceLayer* layer = r.network().addReverseSequence(*in, *lens);
    ASSERT_NE(layer, nullptr);
    r.markOutput(layer->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor x = HostTensor::fromValues(DataType::kFLOAT, kiln::test::makeDims({4, 4}),
        {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15});
    HostTensor l = HostTensor::fromValues(DataType::kINT32, kiln::test::makeDims({4}), {4, 3, 2, 1});
    auto out = r.run({{"x", x}, {"lens", l}});
    std::vector<double> const want{3, 6, 9, 12, 2, 5, 8, 13, 1, 4, 10, 14, 0, 7, 11, 15};
    for (int64_t i = 0; i < 16; ++i)
    {
        EXPECT_EQ(out["y"].at(i), want[static_cast<size_t>(i)]) << i;
    }
}

TEST_P(ReverseSequenceLayerTest, DynamicShapesAndRuntimeLengthChecks)
{
    std::mt19937 rng(419);
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {-1, -1, 2});
    ITensor* lens = r.addInput("lens", DataType::kINT64, {-1});
    IReverseSequenceLayer* layer = r.network().addReverseSequence(*in, *lens);
    ASSERT_NE(layer, nullptr);
    layer->setBatchAxis(0);
    layer->setSequenceAxis(1);
    r.markOutput(layer->getOutput(0), "y");
    r.setProfileDims("x", {1, 1, 2}, {3, 4, 2}, {6, 9, 2});
    r.setProfileDims("lens", {1}, {3}, {6});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (auto const& shape : std::vector<std::vector<int64_t>>{{3, 4, 2}, {6, 9, 2}, {1, 1, 2}})
    {
        HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims(shape), rng, -5, 5);
        HostTensor l = HostTensor::random(DataType::kINT64, kiln::test::makeDims({shape[0]}), rng, 0,
            static_cast<double>(shape[1]));
        auto out = r.run({{"x", x}, {"lens", l}});
        EXPECT_TRUE(kiln::test::sameBits(out["y"], reverseOracle(x, l, 0, 1)));
    }
    HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({2, 3, 2}), rng);
    r.logger().clear();
    EXPECT_TRUE(r.runFails({{"x", x}, {"lens", HostTensor::fromValues(DataType::kINT64, kiln::test::makeDims({3}),
                                                   {1, 1, 1})}}));
    EXPECT_TRUE(r.logger().hasError("one entry per batch element")) << r.logger().allErrors();
    KILN_SKIP_ON_BACKEND(kiln::BackendKind::kCUDA,
        "docs/gpu.md: out-of-range sequence lengths are reported only when the lengths have host values");
    r.logger().clear();
    EXPECT_TRUE(r.runFails(
        {{"x", x}, {"lens", HostTensor::fromValues(DataType::kINT64, kiln::test::makeDims({2}), {1, 4})}}));
    EXPECT_TRUE(r.logger().hasError("sequenceLens[1] = 4 is out of range [0, 3]")) << r.logger().allErrors();
}

TEST_P(ReverseSequenceLayerTest, InvalidAxesAreRejected)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {3, 4});
    ITensor* lens = r.addInput("lens", DataType::kINT32, {4});
    IReverseSequenceLayer* layer = r.network().addReverseSequence(*in, *lens);
    ASSERT_NE(layer, nullptr);
    layer->setName("rev");
    layer->setBatchAxis(2);
    EXPECT_TRUE(r.logger().hasError("IReverseSequenceLayer::setBatchAxis on layer 'rev': axis 2 is out of range [0, 1]"))
        << r.logger().allErrors();
    layer->setSequenceAxis(-1);
    EXPECT_TRUE(r.logger().hasError("IReverseSequenceLayer::setSequenceAxis on layer 'rev'")) << r.logger().allErrors();
    EXPECT_EQ(layer->getBatchAxis(), 1);
    EXPECT_EQ(layer->getSequenceAxis(), 0);
    // Equal axes are accepted by the setters but fail the build.
    layer->setSequenceAxis(1);
    r.markOutput(layer->getOutput(0), "y");
    r.logger().clear();
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("layer 'rev' (ReverseSequence): batch axis and sequence axis must differ"))
        << r.logger().allErrors();
}

TEST_P(ReverseSequenceLayerTest, BadInputsFailTheBuild)
{
    struct Case
    {
        DataType type;
        std::vector<int64_t> shape;
        DataType lensType;
        std::vector<int64_t> lensShape;
        std::string message;
    };
    for (Case const& c : std::vector<Case>{{DataType::kFLOAT, {3, 4}, DataType::kINT32, {3}, "one entry per batch"},
             {DataType::kFLOAT, {3, 4}, DataType::kFLOAT, {4}, "sequenceLens (input 1)"},
             {DataType::kFLOAT, {3, 4}, DataType::kINT32, {4, 1}, "input 1"},
             {DataType::kFLOAT, {4}, DataType::kINT32, {4}, "input 0"}})
    {
        NetworkRunner r;
        ITensor* in = r.addInput("x", c.type, c.shape);
        ITensor* lens = r.addInput("lens", c.lensType, c.lensShape);
        IReverseSequenceLayer* layer = r.network().addReverseSequence(*in, *lens);
        ASSERT_NE(layer, nullptr);
        layer->setName("rev");
        r.markOutput(layer->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("layer 'rev' (ReverseSequence)")) << r.logger().allErrors();
        EXPECT_TRUE(r.logger().hasError(c.message)) << r.logger().allErrors();
    }
}

} // namespace
