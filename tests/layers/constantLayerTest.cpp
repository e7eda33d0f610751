// Tests of IConstantLayer: every storage type as a network output and as an operand, rank 0, setters and
// getters, dynamic use next to runtime inputs, shape values from integer constants and the error paths.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <cstring>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

class ConstantLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(ConstantLayerTest);

TEST_P(ConstantLayerTest, EveryTypeAsOutput)
{
    std::mt19937 rng(700);
    for (DataType type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kUINT8,
             DataType::kINT32, DataType::kINT64, DataType::kBOOL})
    {
        SCOPED_TRACE("type " + std::to_string(static_cast<int>(type)));
        HostTensor values = HostTensor::random(type, makeDims({2, 3, 4}), rng, type == DataType::kUINT8 ? 0 : -100, 100);
        NetworkRunner r;
        // An unused input keeps the network shaped like a real one (TensorRT networks usually have inputs).
        r.addInput("unused", DataType::kFLOAT, {1});
        IConstantLayer* layer
            = r.network().addConstant(makeDims({2, 3, 4}), Weights{type, values.data(), values.volume()});
        ASSERT_NE(layer, nullptr) << r.logger().allErrors();
        EXPECT_EQ(layer->getWeights().count, 24);
        EXPECT_EQ(layer->getWeights().values, values.data());
        EXPECT_EQ(layer->getDimensions().nbDims, 3);
        r.markOutput(layer->getOutput(0), "out");
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        HostTensor out = r.run({{"unused", HostTensor(DataType::kFLOAT, makeDims({1}))}})["out"];
        EXPECT_TRUE(kiln::test::sameBits(out, values));
    }
}

TEST_P(ConstantLayerTest, OperandOfElementWiseWithDynamicInput)
{
    std::mt19937 rng(701);
    HostTensor bias = HostTensor::random(DataType::kFLOAT, makeDims({1, 5}), rng);
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 5});
    ITensor* c = r.network().addConstant(makeDims({1, 5}), Weights{DataType::kFLOAT, bias.data(), 5})->getOutput(0);
    r.markOutput(r.network().addElementWise(*x, *c, ElementWiseOperation::kSUM)->getOutput(0), "out");
    r.setProfileDims("x", {1, 5}, {3, 5}, {6, 5});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (int64_t n : {6, 2})
    {
        HostTensor tx = HostTensor::random(DataType::kFLOAT, makeDims({n, 5}), rng);
        HostTensor expected(DataType::kFLOAT, tx.dims);
        for (int64_t i = 0; i < tx.volume(); ++i)
        {
            expected.set(i, tx.at(i) + bias.at(i % 5));
        }
        EXPECT_TRUE(kiln::test::allClose(r.run({{"x", tx}})["out"], expected, 1e-6, 1e-6));
    }
}

TEST_P(ConstantLayerTest, RankZeroAndSetters)
{
    float const scalar = 2.5F;
    float const pair[2] = {-1.F, 4.F};
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2});
    IConstantLayer* layer = r.network().addConstant(makeDims({}), Weights{DataType::kFLOAT, &scalar, 1});
    ASSERT_NE(layer, nullptr) << r.logger().allErrors();
    EXPECT_EQ(layer->getOutput(0)->getDimensions().nbDims, 0);
    r.markOutput(layer->getOutput(0), "scalar");
    IConstantLayer* second = r.network().addConstant(makeDims({1}), Weights{DataType::kFLOAT, &scalar, 1});
    ASSERT_NE(second, nullptr);
    second->setDimensions(makeDims({2}));
    second->setWeights(Weights{DataType::kFLOAT, pair, 2});
    EXPECT_EQ(second->getDimensions().d[0], 2);
    r.markOutput(r.network().addElementWise(*x, *second->getOutput(0), ElementWiseOperation::kPROD)->getOutput(0), "prod");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    auto outs = r.run({{"x", HostTensor::fromValues(DataType::kFLOAT, makeDims({2}), {3, 0.5})}});
    EXPECT_TRUE(kiln::test::allClose(outs["scalar"], HostTensor::fromValues(DataType::kFLOAT, makeDims({}), {2.5}), 0, 0));
    EXPECT_TRUE(kiln::test::allClose(outs["prod"], HostTensor::fromValues(DataType::kFLOAT, makeDims({2}), {-3, 2}), 0, 0));
}

TEST_P(ConstantLayerTest, IntegerConstantsAreShapeValues)
{
    int32_t const dims[2] = {3, -1};
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 6});
    ITensor* newShape = r.network().addConstant(makeDims({2}), Weights{DataType::kINT32, dims, 2})->getOutput(0);
    IShuffleLayer* reshape = r.network().addShuffle(*x);
    ASSERT_NE(reshape, nullptr);
    reshape->setInput(1, *newShape);
    Dims const d = reshape->getOutput(0)->getDimensions();
    ASSERT_EQ(d.nbDims, 2) << r.logger().allErrors();
    EXPECT_EQ(d.d[0], 3);
    EXPECT_EQ(d.d[1], 4);
    r.markOutput(reshape->getOutput(0), "out");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(702);
    HostTensor tx = HostTensor::random(DataType::kFLOAT, makeDims({2, 6}), rng);
    HostTensor expected = tx;
    expected.dims = makeDims({3, 4});
    EXPECT_TRUE(kiln::test::sameBits(r.run({{"x", tx}})["out"], expected));
}

TEST_P(ConstantLayerTest, Errors)
{
    float const values[4] = {1, 2, 3, 4};
    NetworkRunner r;
    EXPECT_EQ(r.network().addConstant(makeDims({3}), Weights{DataType::kFLOAT, values, 4}), nullptr);
    EXPECT_TRUE(r.logger().hasError("does not match")) << r.logger().allErrors();
    r.logger().clear();
    EXPECT_EQ(r.network().addConstant(makeDims({-1, 4}), Weights{DataType::kFLOAT, values, 4}), nullptr);
    EXPECT_TRUE(r.logger().hasError("addConstant")) << r.logger().allErrors();
    r.logger().clear();
    EXPECT_EQ(r.network().addConstant(makeDims({4}), Weights{DataType::kFLOAT, nullptr, 4}), nullptr);
    EXPECT_TRUE(r.logger().hasError("no values")) << r.logger().allErrors();

    IConstantLayer* layer = r.network().addConstant(makeDims({4}), Weights{DataType::kFLOAT, values, 4});
    ASSERT_NE(layer, nullptr);
    layer->setName("konst");
    r.logger().clear();
    layer->setDimensions(makeDims({-2}));
    EXPECT_TRUE(r.logger().hasError("konst")) << r.logger().allErrors();
    EXPECT_EQ(layer->getDimensions().d[0], 4);
    // A count that no longer matches the dimensions fails the build, naming the layer.
    layer->setDimensions(makeDims({2, 3}));
    r.markOutput(layer->getOutput(0), "out");
    r.logger().clear();
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("konst")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("does not match")) << r.logger().allErrors();
}

} // namespace
