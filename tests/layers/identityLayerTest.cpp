// Tests of IIdentityLayer: bit-exact copies of every storage type, dynamic shapes, conversions requested with
// setOutputType in weakly typed networks, and shape-value propagation.
#include "common/backendTest.h"
#include "common/networkRunner.h"

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

class IdentityLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(IdentityLayerTest);

TEST_P(IdentityLayerTest, CopiesEveryTypeBitForBit)
{
    std::mt19937 rng(600);
    for (DataType type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kUINT8,
             DataType::kINT32, DataType::kINT64, DataType::kBOOL})
    {
        SCOPED_TRACE("type " + std::to_string(static_cast<int>(type)));
        NetworkRunner r;
        ITensor* x = r.addInput("x", type, {2, 3, 5});
        IIdentityLayer* layer = r.network().addIdentity(*x);
        ASSERT_NE(layer, nullptr) << r.logger().allErrors();
        EXPECT_EQ(layer->getType(), LayerType::kIDENTITY);
        r.markOutput(layer->getOutput(0), "out");
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        HostTensor in = HostTensor::random(type, makeDims({2, 3, 5}), rng, type == DataType::kUINT8 ? 0 : -100, 100);
        HostTensor out = r.run({{"x", in}})["out"];
        EXPECT_TRUE(kiln::test::sameBits(out, in));
    }
}

TEST_P(IdentityLayerTest, DynamicShapes)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, -1});
    r.markOutput(r.network().addIdentity(*x)->getOutput(0), "out");
    r.setProfileDims("x", {1, 1}, {4, 4}, {8, 8});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(601);
    for (auto const& shape : {std::vector<int64_t>{8, 1}, std::vector<int64_t>{3, 7}})
    {
        HostTensor in = HostTensor::random(DataType::kFLOAT, makeDims(shape), rng);
        EXPECT_TRUE(kiln::test::sameBits(r.run({{"x", in}})["out"], in));
    }
}

TEST_P(IdentityLayerTest, SetOutputTypeConvertsInWeaklyTypedNetworks)
{
    struct Case
    {
        DataType from;
        DataType to;
    };
    std::mt19937 rng(602);
    for (Case c : {Case{DataType::kFLOAT, DataType::kHALF}, Case{DataType::kHALF, DataType::kFLOAT},
             Case{DataType::kINT32, DataType::kFLOAT}, Case{DataType::kUINT8, DataType::kFLOAT},
             Case{DataType::kFLOAT, DataType::kUINT8}, Case{DataType::kBF16, DataType::kFLOAT}})
    {
        SCOPED_TRACE(std::to_string(static_cast<int>(c.from)) + " -> " + std::to_string(static_cast<int>(c.to)));
        NetworkRunner r;
        ITensor* x = r.addInput("x", c.from, {4, 5});
        IIdentityLayer* layer = r.network().addIdentity(*x);
        ASSERT_NE(layer, nullptr);
        layer->setOutputType(0, c.to);
        ITensor* out = layer->getOutput(0);
        r.markOutput(out, "out");
        out->setType(c.to);
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        bool const unsignedSide = c.from == DataType::kUINT8 || c.to == DataType::kUINT8;
        HostTensor in = HostTensor::random(c.from, makeDims({4, 5}), rng, unsignedSide ? 0 : -50, 200);
        HostTensor result = r.run({{"x", in}})["out"];
        ASSERT_EQ(result.type, c.to);
        HostTensor expected(c.to, in.dims);
        for (int64_t i = 0; i < in.volume(); ++i)
        {
            double const v = in.at(i);
            expected.set(i, c.to == DataType::kUINT8 ? std::trunc(v) : v);
        }
        EXPECT_TRUE(kiln::test::allClose(result, expected, 0, 0));
    }
}

TEST_P(IdentityLayerTest, ShapeValuesPassThrough)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 2});
    ITensor* shape = r.network().addShape(*x)->getOutput(0);
    ITensor* copy = r.network().addIdentity(*shape)->getOutput(0);
    IShuffleLayer* reshape = r.network().addShuffle(*x);
    ASSERT_NE(reshape, nullptr);
    reshape->setInput(1, *copy);
    r.markOutput(reshape->getOutput(0), "out");
    r.setProfileDims("x", {1, 2}, {2, 2}, {4, 2});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(603);
    HostTensor tx = HostTensor::random(DataType::kFLOAT, makeDims({3, 2}), rng);
    EXPECT_TRUE(kiln::test::sameBits(r.run({{"x", tx}})["out"], tx));
}

TEST_P(IdentityLayerTest, SetOutputTypeIsRejectedInStronglyTypedNetworks)
{
    NetworkRunner r(1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED));
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2});
    IIdentityLayer* layer = r.network().addIdentity(*x);
    layer->setName("ident");
    layer->setOutputType(0, DataType::kHALF);
    r.markOutput(layer->getOutput(0), "out");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("ident")) << r.logger().allErrors();
}

} // namespace
