// Tests of ISqueezeLayer and IUnsqueezeLayer: positive/negative/unsorted axes from INT32/INT64 constants, the data
// (bit-exact) and output shapes, dynamic shapes with a runtime extent-1 check, shape-tensor values passing through
// (Shape -> Squeeze/Unsqueeze -> Shuffle reshape), and the error paths.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <algorithm>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::NetworkRunner;

ITensor* axesConstant(NetworkRunner& r, std::vector<int64_t> const& axes, DataType type)
{
    static std::vector<std::vector<int64_t>> storage64;
    static std::vector<std::vector<int32_t>> storage32;
    Weights w{type, nullptr, static_cast<int64_t>(axes.size())};
    if (type == DataType::kINT64)
    {
        storage64.push_back(axes);
        w.values = storage64.back().data();
    }
    else
    {
        storage32.emplace_back(axes.begin(), axes.end());
        w.values = storage32.back().data();
    }
    IConstantLayer* c = r.network().addConstant(kiln::test::makeDims({static_cast<int64_t>(axes.size())}), w);
    return c != nullptr ? c->getOutput(0) : nullptr;
}

class SqueezeLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(SqueezeLayerTest);

TEST_P(SqueezeLayerTest, SqueezeAndUnsqueezeRandomAxes)
{
    std::mt19937 rng(503);
    for (int32_t trial = 0; trial < 12; ++trial)
    {
        int32_t const rank = std::uniform_int_distribution<int32_t>(1, 5)(rng);
        std::vector<int64_t> shape;
        std::vector<int64_t> ones;
        for (int32_t d = 0; d < rank; ++d)
        {
            bool const one = std::uniform_int_distribution<int32_t>(0, 1)(rng) == 1;
            shape.push_back(one ? 1 : std::uniform_int_distribution<int64_t>(2, 4)(rng));
            if (one)
            {
                ones.push_back(trial % 2 == 0 ? d : d - rank); // negative axes on odd trials
            }
        }
        std::shuffle(ones.begin(), ones.end(), rng);
        NetworkRunner r;
        ITensor* in = r.addInput("x", DataType::kFLOAT, shape);
        ISqueezeLayer* sq = r.network().addSqueeze(*in, *axesConstant(r, ones, trial % 3 == 0 ? DataType::kINT32 : DataType::kINT64));
        ASSERT_NE(sq, nullptr) << r.logger().allErrors();
        // Unsqueeze back at the same (output-rank) positions.
        IUnsqueezeLayer* un = r.network().addUnsqueeze(*sq->getOutput(0), *axesConstant(r, ones, DataType::kINT64));
        ASSERT_NE(un, nullptr);
        r.markOutput(sq->getOutput(0), "squeezed");
        r.markOutput(un->getOutput(0), "restored");
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims(shape), rng, -9, 9);
        auto out = r.run({{"x", x}});
        std::vector<int64_t> squeezedShape;
        for (int32_t d = 0; d < rank; ++d)
        {
            if (shape[static_cast<size_t>(d)] != 1)
            {
                squeezedShape.push_back(shape[static_cast<size_t>(d)]);
            }
        }
        HostTensor wantSqueezed = x;
        wantSqueezed.dims = kiln::test::makeDims(squeezedShape);
        EXPECT_TRUE(kiln::test::sameBits(out["squeezed"], wantSqueezed)) << kiln::test::dimsString(x.dims);
        EXPECT_TRUE(kiln::test::sameBits(out["restored"], x)) << kiln::test::dimsString(x.dims);
    }
}

TEST_P(SqueezeLayerTest, UnsqueezeAtNewPositions)
{
    std::mt19937 rng(509);
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kINT32, {3, 4});
    IUnsqueezeLayer* un = r.network().addUnsqueeze(*in, *axesConstant(r, {-1, 0, 2}, DataType::kINT32));
    ASSERT_NE(un, nullptr);
    r.markOutput(un->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor x = HostTensor::random(DataType::kINT32, kiln::test::makeDims({3, 4}), rng, -50, 50);
    auto out = r.run({{"x", x}});
    HostTensor want = x;
    want.dims = kiln::test::makeDims({1, 3, 1, 4, 1});
    EXPECT_TRUE(kiln::test::sameBits(out["y"], want));
}

TEST_P(SqueezeLayerTest, DynamicShapesAndTheExtentConstraint)
{
    std::mt19937 rng(521);
    {
        NetworkRunner r;
        ITensor* in = r.addInput("x", DataType::kFLOAT, {-1, -1, 3});
        ISqueezeLayer* sq = r.network().addSqueeze(*in, *axesConstant(r, {1}, DataType::kINT64));
        ASSERT_NE(sq, nullptr);
        r.markOutput(sq->getOutput(0), "y");
        r.setProfileDims("x", {1, 1, 3}, {2, 1, 3}, {5, 1, 3});
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        for (int64_t n : {1, 4, 5})
        {
            HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({n, 1, 3}), rng);
            auto out = r.run({{"x", x}});
            HostTensor want = x;
            want.dims = kiln::test::makeDims({n, 3});
            EXPECT_TRUE(kiln::test::sameBits(out["y"], want));
        }
    }
    // A profile that allows extent 2 on the squeezed axis breaks the runtime constraint: the build says so.
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {-1, -1, 3});
    ISqueezeLayer* sq = r.network().addSqueeze(*in, *axesConstant(r, {1}, DataType::kINT64));
    ASSERT_NE(sq, nullptr);
    r.markOutput(sq->getOutput(0), "y");
    r.setProfileDims("x", {1, 1, 3}, {2, 1, 3}, {5, 2, 3});
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("must have extent 1 to be squeezed")) << r.logger().allErrors();
}

TEST_P(SqueezeLayerTest, ShapeTensorValuesPassThrough)
{
    // y = reshape(z, squeeze(unsqueeze(shape(x), [0]), [0])): the reshape dims stay known without running kernels.
    std::mt19937 rng(523);
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 6});
    ITensor* z = r.addInput("z", DataType::kFLOAT, {-1});
    IShapeLayer* shape = r.network().addShape(*x);
    IUnsqueezeLayer* un = r.network().addUnsqueeze(*shape->getOutput(0), *axesConstant(r, {0}, DataType::kINT64));
    ISqueezeLayer* sq = r.network().addSqueeze(*un->getOutput(0), *axesConstant(r, {0}, DataType::kINT64));
    IShuffleLayer* reshape = r.network().addShuffle(*z);
    reshape->setInput(1, *sq->getOutput(0));
    r.markOutput(reshape->getOutput(0), "y");
    r.setProfileDims("x", {1, 6}, {2, 6}, {4, 6});
    r.setProfileDims("z", {6}, {12}, {24});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor xv = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({3, 6}), rng);
    HostTensor zv = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({18}), rng);
    auto out = r.run({{"x", xv}, {"z", zv}});
    HostTensor want = zv;
    want.dims = kiln::test::makeDims({3, 6});
    EXPECT_TRUE(kiln::test::sameBits(out["y"], want));
}

void expectBuildError(bool squeeze, std::vector<int64_t> const& shape, std::vector<int64_t> const& axes,
    std::string const& message, DataType axesType = DataType::kINT64)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, shape);
    ITensor* ax = nullptr;
    if (axesType == DataType::kFLOAT)
    {
        static float const kAxis = 0.0F;
        ax = r.network().addConstant(kiln::test::makeDims({1}), Weights{DataType::kFLOAT, &kAxis, 1})->getOutput(0);
    }
    else
    {
        ax = axesConstant(r, axes, axesType);
    }
    ILayer* layer = squeeze ? static_cast<ILayer*>(r.network().addSqueeze(*in, *ax))
                            : static_cast<ILayer*>(r.network().addUnsqueeze(*in, *ax));
    ASSERT_NE(layer, nullptr);
    layer->setName("sq");
    r.markOutput(layer->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError(squeeze ? "layer 'sq' (Squeeze)" : "layer 'sq' (Unsqueeze)"))
        << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError(message)) << r.logger().allErrors();
}

TEST_P(SqueezeLayerTest, BadAxesFailTheBuild)
{
    expectBuildError(true, {2, 1, 3}, {0}, "dimension 0 of input 'x' must have extent 1 to be squeezed (it has 2)");
    expectBuildError(true, {2, 1, 3}, {3}, "axis 3 is out of range [-3, 2]");
    expectBuildError(true, {1, 1, 3}, {0, -3}, "axis 0 is listed twice");
    expectBuildError(false, {2, 3}, {3}, "axis 3 is out of range [-3, 2]");
    expectBuildError(false, {2, 3, 4, 5, 6, 7, 8}, {0, 1}, "more than 8");
    expectBuildError(true, {1, 3}, {0}, "axes (input 1)", DataType::kFLOAT);
}

TEST_P(SqueezeLayerTest, AxesMustBeKnownAtBuildTime)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {1, 3});
    ITensor* axesData = r.addInput("a", DataType::kFLOAT, {1});
    ICastLayer* cast = r.network().addCast(*axesData, DataType::kINT64);
    ISqueezeLayer* sq = r.network().addSqueeze(*in, *cast->getOutput(0));
    ASSERT_NE(sq, nullptr);
    r.markOutput(sq->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("must be a shape tensor")) << r.logger().allErrors();
}

} // namespace
