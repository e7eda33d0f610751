// Tests of INonZeroLayer: random sparse inputs of every supported type and rank 1-4, INT32 and INT64 indices, the
// data-dependent [rank, count] output through an IOutputAllocator (including an all-zero input and dynamic input
// shapes), the count feeding a later layer, and the error paths.
#include "common/backendTest.h"
#include "common/networkRunner.h"
#include "layers/dataDependentRun.h"

#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

HostTensor sparse(std::mt19937& rng, DataType type, std::vector<int64_t> const& shape, double density)
{
    HostTensor x = HostTensor::random(type, makeDims(shape), rng, 1.0, 5.0);
    std::bernoulli_distribution keep(density);
    for (int64_t i = 0; i < x.volume(); ++i)
    {
        x.set(i, keep(rng) ? (i % 2 == 0 ? x.at(i) : -x.at(i)) : 0.0);
        if (type == DataType::kBOOL)
        {
            x.set(i, x.at(i) != 0.0 ? 1.0 : 0.0);
        }
    }
    return x;
}

//! [rank, count] indices of the non-zero elements, in row-major order.
HostTensor nonZeroOracle(HostTensor const& x, DataType indicesType)
{
    std::vector<int64_t> hits;
    for (int64_t i = 0; i < x.volume(); ++i)
    {
        if (x.at(i) != 0.0)
        {
            hits.push_back(i);
        }
    }
    int32_t const rank = x.dims.nbDims;
    auto const count = static_cast<int64_t>(hits.size());
    HostTensor out(indicesType, makeDims({rank, count}));
    for (int64_t k = 0; k < count; ++k)
    {
        int64_t rest = hits[static_cast<size_t>(k)];
        for (int32_t d = rank - 1; d >= 0; --d)
        {
            out.set(d * count + k, static_cast<double>(rest % x.dims.d[d]));
            rest /= x.dims.d[d];
        }
    }
    return out;
}

void runCase(std::mt19937& rng, DataType type, std::vector<int64_t> const& shape, DataType indicesType, double density)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", type, shape);
    INonZeroLayer* layer = r.network().addNonZero(*in, indicesType);
    ASSERT_NE(layer, nullptr) << r.logger().allErrors();
    EXPECT_EQ(layer->getIndicesType(), indicesType);
    ASSERT_EQ(layer->getNbOutputs(), 1);
    EXPECT_EQ(layer->getOutput(1), nullptr);
    Dims const declared = layer->getOutput(0)->getDimensions();
    ASSERT_EQ(declared.nbDims, 2);
    EXPECT_EQ(declared.d[0], static_cast<int64_t>(shape.size()));
    EXPECT_EQ(declared.d[1], -1); // known only after the run
    r.markOutput(layer->getOutput(0), "indices");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor const x = sparse(rng, type, shape, density);
    std::map<std::string, HostTensor> out;
    ASSERT_TRUE(kiln::test::runDataDependent(r, {{"x", x}}, out)) << r.logger().allErrors();
    EXPECT_TRUE(kiln::test::sameBits(out["indices"], nonZeroOracle(x, indicesType)))
        << "type " << static_cast<int>(type) << " shape " << kiln::test::dimsString(x.dims) << " got "
        << kiln::test::dimsString(out["indices"].dims);
}

class NonZeroLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(NonZeroLayerTest);

TEST_P(NonZeroLayerTest, EveryTypeAndRank)
{
    std::mt19937 rng(307);
    for (DataType type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kINT32,
             DataType::kINT64, DataType::kBOOL})
    {
        for (int32_t rank = 1; rank <= 4; ++rank)
        {
            std::vector<int64_t> shape;
            for (int32_t d = 0; d < rank; ++d)
            {
                shape.push_back(std::uniform_int_distribution<int64_t>(1, 5)(rng));
            }
            runCase(rng, type, shape, rank % 2 == 0 ? DataType::kINT64 : DataType::kINT32, 0.4);
        }
    }
}

TEST_P(NonZeroLayerTest, AllZeroAndAllNonZeroInputs)
{
    std::mt19937 rng(311);
    runCase(rng, DataType::kFLOAT, {3, 4}, DataType::kINT64, 0.0);
    runCase(rng, DataType::kINT32, {2, 3, 2}, DataType::kINT32, 1.0);
}

TEST_P(NonZeroLayerTest, DynamicShapesAndTheCountFeedingAnotherLayer)
{
    std::mt19937 rng(313);
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {-1, 4});
    INonZeroLayer* layer = r.network().addNonZero(*in, DataType::kINT32);
    ASSERT_NE(layer, nullptr);
    // A downstream layer consumes the data-dependent tensor: indices + 1.
    static int32_t const kOne = 1;
    ITensor* one = r.network().addConstant(makeDims({1, 1}), Weights{DataType::kINT32, &kOne, 1})->getOutput(0);
    IElementWiseLayer* plus = r.network().addElementWise(*layer->getOutput(0), *one, ElementWiseOperation::kSUM);
    ASSERT_NE(plus, nullptr);
    r.markOutput(layer->getOutput(0), "indices");
    r.markOutput(plus->getOutput(0), "plusOne");
    r.setProfileDims("x", {1, 4}, {3, 4}, {6, 4});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (int64_t rows : {1, 6, 3})
    {
        HostTensor const x = sparse(rng, DataType::kFLOAT, {rows, 4}, 0.5);
        std::map<std::string, HostTensor> out;
        ASSERT_TRUE(kiln::test::runDataDependent(r, {{"x", x}}, out)) << r.logger().allErrors();
        HostTensor const expected = nonZeroOracle(x, DataType::kINT32);
        EXPECT_TRUE(kiln::test::sameBits(out["indices"], expected));
        HostTensor plusOne = expected;
        for (int64_t i = 0; i < plusOne.volume(); ++i)
        {
            plusOne.set(i, expected.at(i) + 1);
        }
        EXPECT_TRUE(kiln::test::sameBits(out["plusOne"], plusOne));
    }
}

TEST_P(NonZeroLayerTest, ErrorPaths)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {2, 3});
    EXPECT_EQ(r.network().addNonZero(*in, DataType::kFLOAT), nullptr);
    EXPECT_TRUE(r.logger().hasError("addNonZero: indicesType")) << r.logger().allErrors();
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    INonZeroLayer* layer = r.network().addNonZero(*in);
#pragma GCC diagnostic pop
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getIndicesType(), DataType::kINT32);
    r.logger().clear();
    EXPECT_FALSE(layer->setIndicesType(DataType::kHALF));
    EXPECT_TRUE(r.logger().hasError("INonZeroLayer::setIndicesType")) << r.logger().allErrors();
    EXPECT_TRUE(layer->setIndicesType(DataType::kINT64));
    EXPECT_EQ(layer->getIndicesType(), DataType::kINT64);
    r.markOutput(layer->getOutput(0), "indices");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    // Without an output allocator the data-dependent output needs an address (the application sizes the buffer).
    HostTensor const host = HostTensor::fromValues(DataType::kFLOAT, makeDims({2, 3}), {0.0, 1.5, 0.0, -2.0, 3.0, 0.0});
    kiln::test::TestBuffer x(NetworkRunner::onDevice(r.engine(), "x"), 6 * sizeof(float));
    ASSERT_TRUE(x.upload(host.data(), 6 * sizeof(float)));
    std::unique_ptr<IExecutionContext> unbound(r.engine().createExecutionContext());
    ASSERT_TRUE(unbound->setInputTensorAddress("x", x.data()));
    r.logger().clear();
    EXPECT_FALSE(unbound->enqueueV3(nullptr));
    EXPECT_TRUE(r.logger().hasError("'indices' has a data-dependent shape and neither an IOutputAllocator nor an address"))
        << r.logger().allErrors();
    // With a buffer of getMaxOutputSize bytes (poisoned), the run writes the [2, K] result into it.
    std::unique_ptr<IExecutionContext> ctx(r.engine().createExecutionContext());
    ASSERT_EQ(ctx->getMaxOutputSize("indices"), 2 * 6 * 8);
    std::vector<int64_t> sink(12, -99);
    kiln::test::TestBuffer out(NetworkRunner::onDevice(r.engine(), "indices"), sink.size() * sizeof(int64_t));
    ASSERT_TRUE(out.upload(sink.data(), sink.size() * sizeof(int64_t)));
    ASSERT_TRUE(ctx->setInputTensorAddress("x", x.data()));
    ASSERT_TRUE(ctx->setTensorAddress("indices", out.data()));
    ASSERT_TRUE(ctx->enqueueV3(nullptr)) << r.logger().allErrors();
    ASSERT_TRUE(out.download(sink.data(), sink.size() * sizeof(int64_t)));
    EXPECT_EQ(kiln::test::dimsString(ctx->getTensorShape("indices")), "[2,3]");
    std::vector<int64_t> const expected = {0, 1, 1, 1, 0, 1, -99, -99, -99, -99, -99, -99};
    EXPECT_EQ(sink, expected);

    NetworkRunner u;
    ITensor* bad = u.addInput("x", DataType::kUINT8, {4});
    ASSERT_NE(bad, nullptr) << u.logger().allErrors();
    u.markOutput(u.network().addNonZero(*bad, DataType::kINT64)->getOutput(0), "indices");
    EXPECT_FALSE(u.build());
    EXPECT_TRUE(u.logger().hasError("NonZero supports")) << u.logger().allErrors();
}

} // namespace

namespace
{

TEST_P(NonZeroLayerTest, ChainedNonZeroUsesTheFirstCountAsBound)
{
    std::mt19937 rng(317);
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {3, 4});
    INonZeroLayer* first = r.network().addNonZero(*in, DataType::kINT32);
    ASSERT_NE(first, nullptr);
    INonZeroLayer* second = r.network().addNonZero(*first->getOutput(0), DataType::kINT64);
    ASSERT_NE(second, nullptr);
    r.markOutput(second->getOutput(0), "indices");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor const x = sparse(rng, DataType::kFLOAT, {3, 4}, 0.5);
    std::map<std::string, HostTensor> out;
    ASSERT_TRUE(kiln::test::runDataDependent(r, {{"x", x}}, out)) << r.logger().allErrors();
    EXPECT_TRUE(kiln::test::sameBits(out["indices"], nonZeroOracle(nonZeroOracle(x, DataType::kINT32), DataType::kINT64)));
}

} // namespace
