// Tests of ISoftMaxLayer: every axis and TensorRT's default axis, FP32/FP16/BF16, large inputs (stability),
// dynamic shapes, and the error paths, against a naive double-precision oracle.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <cmath>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::NetworkRunner;

constexpr uint32_t kSTRONGLY_TYPED = 1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED);

std::vector<int64_t> randomShape(std::mt19937& rng, int32_t rank, int64_t lo = 1, int64_t hi = 5)
{
    std::vector<int64_t> s;
    for (int32_t i = 0; i < rank; ++i)
    {
        s.push_back(std::uniform_int_distribution<int64_t>(lo, hi)(rng));
    }
    return s;
}

//! softmax along `axis`, computed directly from the definition exp(x_i) / sum_j exp(x_j) with a max shift.
HostTensor softMaxOracle(HostTensor const& x, int32_t axis)
{
    HostTensor y(DataType::kFLOAT, x.dims);
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
            double m = -INFINITY;
            for (int64_t j = 0; j < n; ++j)
            {
                m = std::max(m, x.at((o * n + j) * inner + i));
            }
            double sum = 0.0;
            for (int64_t j = 0; j < n; ++j)
            {
                sum += std::exp(x.at((o * n + j) * inner + i) - m);
            }
            for (int64_t j = 0; j < n; ++j)
            {
                y.set((o * n + j) * inner + i, std::exp(x.at((o * n + j) * inner + i) - m) / sum);
            }
        }
    }
    return y;
}

double tolerance(DataType t)
{
    return t == DataType::kFLOAT ? 1e-6 : (t == DataType::kHALF ? 2e-3 : 1.6e-2);
}

void runCase(std::mt19937& rng, DataType type, std::vector<int64_t> const& shape, int32_t axis, bool setAxis,
    uint32_t flags = 0, double scale = 3.0)
{
    NetworkRunner r(flags);
    ITensor* in = r.addInput("x", type, shape);
    ISoftMaxLayer* layer = r.network().addSoftMax(*in);
    ASSERT_NE(layer, nullptr) << r.logger().allErrors();
    int32_t const rank = static_cast<int32_t>(shape.size());
    EXPECT_EQ(layer->getAxes(), 1U << (rank >= 3 ? rank - 3 : 0)) << "TensorRT's default axis";
    if (setAxis)
    {
        layer->setAxes(1U << axis);
        EXPECT_EQ(layer->getAxes(), 1U << axis);
    }
    r.markOutput(layer->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor x = HostTensor::random(type, kiln::test::makeDims(shape), rng, -scale, scale);
    auto out = r.run({{"x", x}});
    HostTensor const expected = softMaxOracle(x, axis);
    double const tol = tolerance(type);
    EXPECT_TRUE(kiln::test::allClose(out["y"], expected, tol, tol))
        << "shape " << kiln::test::dimsString(x.dims) << " axis " << axis;
}

class SoftMaxLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(SoftMaxLayerTest);

TEST_P(SoftMaxLayerTest, EveryAxisFp32)
{
    std::mt19937 rng(1234);
    for (int32_t rank = 1; rank <= 5; ++rank)
    {
        for (int32_t axis = 0; axis < rank; ++axis)
        {
            runCase(rng, DataType::kFLOAT, randomShape(rng, rank), axis, true);
        }
    }
}

TEST_P(SoftMaxLayerTest, DefaultAxisIsRankMinusThree)
{
    std::mt19937 rng(99);
    for (int32_t rank = 1; rank <= 5; ++rank)
    {
        runCase(rng, DataType::kFLOAT, randomShape(rng, rank, 2, 4), rank >= 3 ? rank - 3 : 0, false);
    }
}

TEST_P(SoftMaxLayerTest, HalfAndBFloat16)
{
    std::mt19937 rng(7);
    for (DataType t : {DataType::kHALF, DataType::kBF16})
    {
        for (int32_t axis = 0; axis < 3; ++axis)
        {
            runCase(rng, t, randomShape(rng, 3, 2, 6), axis, true);
            runCase(rng, t, randomShape(rng, 3, 2, 6), axis, true, kSTRONGLY_TYPED);
        }
    }
}

//! Softmax over the innermost axis (the CUDA kernel runs one warp per row): rows held in registers (128) and rows
//! longer than its register cache (300).
TEST_P(SoftMaxLayerTest, LongInnermostRows)
{
    std::mt19937 rng(11);
    for (DataType t : {DataType::kFLOAT, DataType::kHALF})
    {
        for (int64_t length : {int64_t{128}, int64_t{300}})
        {
            runCase(rng, t, {3, 5, length}, 2, true);
        }
    }
}

TEST_P(SoftMaxLayerTest, LargeInputsStayFinite)
{
    std::mt19937 rng(5);
    // exp(1000) overflows float and double: a correct kernel subtracts the maximum first.
    runCase(rng, DataType::kFLOAT, {3, 17}, 1, true, 0, 1000.0);
    runCase(rng, DataType::kHALF, {2, 33}, 1, true, 0, 60000.0);
}

TEST_P(SoftMaxLayerTest, DynamicShapes)
{
    std::mt19937 rng(42);
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {-1, 4, -1});
    ISoftMaxLayer* layer = r.network().addSoftMax(*in);
    ASSERT_NE(layer, nullptr);
    layer->setAxes(1U << 2);
    r.markOutput(layer->getOutput(0), "y");
    r.setProfileDims("x", {1, 4, 1}, {2, 4, 8}, {6, 4, 16});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (auto const& shape : std::vector<std::vector<int64_t>>{{2, 4, 8}, {5, 4, 13}, {1, 4, 1}})
    {
        HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims(shape), rng, -4, 4);
        auto out = r.run({{"x", x}});
        EXPECT_TRUE(kiln::test::allClose(out["y"], softMaxOracle(x, 2), 1e-6, 1e-6));
    }
}

TEST_P(SoftMaxLayerTest, SetAxesRejectsMasksWithoutExactlyOneBit)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {2, 3});
    ISoftMaxLayer* layer = r.network().addSoftMax(*in);
    ASSERT_NE(layer, nullptr);
    layer->setName("sm");
    layer->setAxes(2);
    layer->setAxes(0);
    EXPECT_TRUE(r.logger().hasError("exactly one bit")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("'sm'")) << r.logger().allErrors();
    layer->setAxes(3);
    EXPECT_EQ(layer->getAxes(), 2U);
}

TEST_P(SoftMaxLayerTest, AxisBeyondRankFailsTheBuild)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {2, 3});
    ISoftMaxLayer* layer = r.network().addSoftMax(*in);
    ASSERT_NE(layer, nullptr);
    layer->setName("sm");
    layer->setAxes(1U << 4);
    r.markOutput(layer->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("'sm'")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("out of range")) << r.logger().allErrors();
}

TEST_P(SoftMaxLayerTest, IntegerInputFailsTheBuild)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kINT32, {2, 3});
    ISoftMaxLayer* layer = r.network().addSoftMax(*in);
    ASSERT_NE(layer, nullptr);
    r.markOutput(layer->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("softmax needs FP32, FP16 or BF16")) << r.logger().allErrors();
}

TEST_P(SoftMaxLayerTest, ForeignTensorIsRejected)
{
    NetworkRunner a;
    NetworkRunner b;
    ITensor* in = b.addInput("x", DataType::kFLOAT, {2, 3});
    EXPECT_EQ(a.network().addSoftMax(*in), nullptr);
    EXPECT_TRUE(a.logger().hasError("addSoftMax")) << a.logger().allErrors();
}

} // namespace
