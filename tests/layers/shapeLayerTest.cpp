// Tests of IShapeLayer: INT64 output of length rank(input) holding the input's dimensions, for static and
// runtime dimensions and any input type, plus the error path for a foreign tensor.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <gtest/gtest.h>

#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

class ShapeLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(ShapeLayerTest);

TEST_P(ShapeLayerTest, StaticDimensionsOfEveryInputType)
{
    std::mt19937 rng(4);
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kINT8, DataType::kINT32, DataType::kBOOL})
    {
        std::vector<int64_t> shape(static_cast<size_t>(std::uniform_int_distribution<int>(1, 5)(rng)));
        for (auto& d : shape)
        {
            d = std::uniform_int_distribution<int64_t>(1, 4)(rng);
        }
        NetworkRunner r;
        ITensor* x = r.addInput("x", t, shape);
        IShapeLayer* s = r.network().addShape(*x);
        ASSERT_NE(s, nullptr);
        EXPECT_EQ(s->getType(), LayerType::kSHAPE);
        ITensor* out = s->getOutput(0);
        EXPECT_EQ(out->getType(), DataType::kINT64);
        Dims const d = out->getDimensions();
        ASSERT_EQ(d.nbDims, 1);
        EXPECT_EQ(d.d[0], static_cast<int64_t>(shape.size()));
        r.markOutput(out, "shape");
        // Keep x used as an execution tensor too.
        r.markOutput(r.network().addIdentity(*x)->getOutput(0), "copy");
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        HostTensor const in = HostTensor::random(t, makeDims(shape), rng, 0.0, 1.0);
        auto outs = r.run({{"x", in}});
        HostTensor const& got = outs["shape"];
        EXPECT_EQ(got.type, DataType::kINT64);
        ASSERT_EQ(got.volume(), static_cast<int64_t>(shape.size()));
        for (size_t i = 0; i < shape.size(); ++i)
        {
            EXPECT_EQ(got.at(static_cast<int64_t>(i)), static_cast<double>(shape[i]));
        }
    }
}

TEST_P(ShapeLayerTest, RuntimeDimensions)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 3, -1});
    r.markOutput(r.network().addShape(*x)->getOutput(0), "shape");
    r.markOutput(r.network().addIdentity(*x)->getOutput(0), "copy");
    r.setProfileDims("x", {1, 3, 1}, {2, 3, 4}, {5, 3, 9});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(9);
    for (auto const& shape : {std::vector<int64_t>{1, 3, 9}, std::vector<int64_t>{5, 3, 2}, std::vector<int64_t>{3, 3, 3}})
    {
        auto outs = r.run({{"x", HostTensor::random(DataType::kFLOAT, makeDims(shape), rng)}});
        ASSERT_EQ(outs["shape"].volume(), 3);
        for (int64_t i = 0; i < 3; ++i)
        {
            EXPECT_EQ(outs["shape"].at(i), static_cast<double>(shape[static_cast<size_t>(i)]));
        }
    }
}

TEST_P(ShapeLayerTest, ScalarInputHasEmptyShape)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {});
    Dims const d = r.network().addShape(*x)->getOutput(0)->getDimensions();
    ASSERT_EQ(d.nbDims, 1);
    EXPECT_EQ(d.d[0], 0);
}

TEST_P(ShapeLayerTest, ForeignTensorIsRejected)
{
    NetworkRunner a;
    NetworkRunner b;
    ITensor* x = a.addInput("x", DataType::kFLOAT, {2});
    EXPECT_EQ(b.network().addShape(*x), nullptr);
    EXPECT_TRUE(b.logger().hasError("addShape input")) << b.logger().allErrors();
}

} // namespace
