// Tests of ICumulativeLayer: forward/reverse x inclusive/exclusive sums on every axis (positive and negative axis
// values), FP32/FP16/BF16/INT32/INT64, long lines and many short ones, the axis from a constant and from a runtime tensor, dynamic shapes, the
// getters/setters and the error paths.
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
        s.push_back(std::uniform_int_distribution<int64_t>(1, 6)(rng));
    }
    return s;
}

//! Reference by definition: y[j] = sum of x[k] over the k that the direction and mode select (quadratic, in double).
HostTensor cumulativeOracle(HostTensor const& x, int32_t axis, bool exclusive, bool reverse)
{
    HostTensor y(x.type, x.dims);
    int32_t const rank = x.dims.nbDims;
    int32_t const a = axis < 0 ? axis + rank : axis;
    int64_t stride = 1;
    for (int32_t d = rank - 1; d > a; --d)
    {
        stride *= x.dims.d[d];
    }
    int64_t const n = x.dims.d[a];
    for (int64_t e = 0; e < x.volume(); ++e)
    {
        int64_t const j = (e / stride) % n;
        int64_t const base = e - j * stride;
        double sum = 0;
        for (int64_t k = 0; k < n; ++k)
        {
            bool const take = reverse ? (exclusive ? k > j : k >= j) : (exclusive ? k < j : k <= j);
            if (take)
            {
                sum += x.at(base + k * stride);
            }
        }
        y.set(e, sum);
    }
    return y;
}

//! Reference for long lines: the same sums as cumulativeOracle, as one running double sum per line (linear time).
HostTensor runningSumOracle(HostTensor const& x, int32_t axis, bool exclusive, bool reverse)
{
    HostTensor y(x.type, x.dims);
    int32_t const a = axis < 0 ? axis + x.dims.nbDims : axis;
    int64_t inner = 1;
    for (int32_t d = x.dims.nbDims - 1; d > a; --d)
    {
        inner *= x.dims.d[d];
    }
    int64_t const n = x.dims.d[a];
    int64_t const outer = n == 0 ? 0 : x.volume() / (n * inner);
    for (int64_t line = 0; line < outer * inner; ++line)
    {
        int64_t const base = (line / inner) * n * inner + line % inner;
        double sum = 0;
        for (int64_t step = 0; step < n; ++step)
        {
            int64_t const at = base + (reverse ? n - 1 - step : step) * inner;
            double const v = x.at(at);
            y.set(at, exclusive ? sum : sum + v);
            sum += v;
        }
    }
    return y;
}

double toleranceFor(DataType t, int64_t n)
{
    switch (t)
    {
    case DataType::kFLOAT: return 1e-5;
    case DataType::kHALF: return 2e-3 * static_cast<double>(n);
    case DataType::kBF16: return 1.6e-2 * static_cast<double>(n);
    default: return 0;
    }
}

void runCase(std::mt19937& rng, DataType type, std::vector<int64_t> const& shape, int32_t axis, bool exclusive,
    bool reverse, DataType axisType, bool longLines = false)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", type, shape);
    static int64_t axis64 = 0;
    static int32_t axis32 = 0;
    axis64 = axis;
    axis32 = axis;
    Weights w{axisType, axisType == DataType::kINT64 ? static_cast<void const*>(&axis64) : &axis32, 1};
    IConstantLayer* ax = r.network().addConstant(Dims{0, {}}, w);
    ASSERT_NE(ax, nullptr);
    ICumulativeLayer* layer
        = r.network().addCumulative(*in, *ax->getOutput(0), CumulativeOperation::kSUM, exclusive, reverse);
    ASSERT_NE(layer, nullptr) << r.logger().allErrors();
    EXPECT_EQ(layer->getOperation(), CumulativeOperation::kSUM);
    EXPECT_EQ(layer->getExclusive(), exclusive);
    EXPECT_EQ(layer->getReverse(), reverse);
    r.markOutput(layer->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    bool const isInt = type == DataType::kINT32 || type == DataType::kINT64;
    HostTensor x = HostTensor::random(type, kiln::test::makeDims(shape), rng, isInt ? -1000 : -2, isInt ? 1000 : 2);
    auto out = r.run({{"x", x}});
    HostTensor const want
        = longLines ? runningSumOracle(x, axis, exclusive, reverse) : cumulativeOracle(x, axis, exclusive, reverse);
    int32_t const a = axis < 0 ? axis + static_cast<int32_t>(shape.size()) : axis;
    // Long float lines: the sums grow to about sqrt(n); FP32 keeps 1e-5 relative, FP16/BF16 one unit of the value's
    // last place per rounding step is what toleranceFor allows at n = 8 (the scan order differs from the CPU's).
    double const tol = longLines && type != DataType::kFLOAT ? toleranceFor(type, 8)
                                                              : toleranceFor(type, shape[static_cast<size_t>(a)]);
    EXPECT_TRUE(kiln::test::allClose(out["y"], want, tol, tol))
        << "axis " << axis << (exclusive ? " exclusive" : " inclusive") << (reverse ? " reverse" : " forward")
        << " shape " << kiln::test::dimsString(x.dims);
}

class CumulativeLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(CumulativeLayerTest);

TEST_P(CumulativeLayerTest, EveryAxisDirectionAndMode)
{
    std::mt19937 rng(211);
    for (int32_t rank = 1; rank <= 4; ++rank)
    {
        for (int32_t axis = -rank; axis < rank; ++axis)
        {
            for (int32_t mode = 0; mode < 4; ++mode)
            {
                runCase(rng, DataType::kFLOAT, randomShape(rng, rank), axis, (mode & 1) != 0, (mode & 2) != 0,
                    axis % 2 == 0 ? DataType::kINT32 : DataType::kINT64);
            }
        }
    }
}

TEST_P(CumulativeLayerTest, HalfBFloatAndIntegerTypes)
{
    std::mt19937 rng(223);
    for (DataType t : {DataType::kHALF, DataType::kBF16, DataType::kINT32, DataType::kINT64})
    {
        for (int32_t mode = 0; mode < 4; ++mode)
        {
            runCase(rng, t, {3, 7, 2}, 1, (mode & 1) != 0, (mode & 2) != 0, DataType::kINT32);
        }
    }
}

//! Long lines (a block per line on the CUDA backend) and many short ones (a thread per line): GPT-2's position ids
//! ([8, 512] int64 along axis 1), lines of 4096 and 100000 values, an inner stride > 1, every mode and direction.
TEST_P(CumulativeLayerTest, LongAndManyLines)
{
    std::mt19937 rng(233);
    struct Case
    {
        DataType type;
        std::vector<int64_t> shape;
        int32_t axis;
    };
    std::vector<Case> const cases{
        {DataType::kINT64, {8, 512}, 1},
        {DataType::kINT32, {3, 4096}, -1},
        {DataType::kFLOAT, {2, 4096}, 1},
        {DataType::kFLOAT, {100000}, 0},
        {DataType::kINT64, {100000}, 0},
        {DataType::kFLOAT, {4096, 3}, 0},  // inner stride 3
        {DataType::kINT32, {2, 2100, 5}, 1}, // inner stride 5, a partial second tile of 2048
        {DataType::kFLOAT, {1, 700}, 1},     // one partial tile
        {DataType::kHALF, {4, 600}, 1},
        {DataType::kBF16, {2, 3000}, 1},
        {DataType::kFLOAT, {40000, 5}, 1}, // many short lines
        {DataType::kINT32, {3, 70000}, 0}, // many lines of 3 (inner 70000)
        {DataType::kINT64, {33000, 65}, 1}, // many long lines: a thread per line
    };
    for (Case const& c : cases)
    {
        for (int32_t mode = 0; mode < 4; ++mode)
        {
            runCase(rng, c.type, c.shape, c.axis, (mode & 1) != 0, (mode & 2) != 0, DataType::kINT32, true);
        }
    }
}

TEST_P(CumulativeLayerTest, SettersChangeTheResultAndRoundTrip)
{
    std::mt19937 rng(227);
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {4, 5});
    static int32_t const kAxis = 1;
    IConstantLayer* ax = r.network().addConstant(Dims{0, {}}, Weights{DataType::kINT32, &kAxis, 1});
    ICumulativeLayer* layer = r.network().addCumulative(*in, *ax->getOutput(0), CumulativeOperation::kSUM, false, false);
    ASSERT_NE(layer, nullptr);
    layer->setExclusive(true);
    layer->setReverse(true);
    EXPECT_TRUE(layer->getExclusive());
    EXPECT_TRUE(layer->getReverse());
    EXPECT_TRUE(layer->setOperation(CumulativeOperation::kSUM));
    r.markOutput(layer->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({4, 5}), rng, -3, 3);
    auto out = r.run({{"x", x}});
    EXPECT_TRUE(kiln::test::allClose(out["y"], cumulativeOracle(x, 1, true, true), 1e-5, 1e-5));
}

TEST_P(CumulativeLayerTest, RuntimeAxisAndDynamicShapes)
{
    KILN_SKIP_ON_BACKEND(kiln::BackendKind::kCUDA, "docs/gpu.md: the cumulative axis input must have a host value");
    std::mt19937 rng(229);
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {-1, -1, 3});
    ITensor* ax = r.addInput("axis", DataType::kINT64, {});
    ICumulativeLayer* layer = r.network().addCumulative(*in, *ax, CumulativeOperation::kSUM, false, true);
    ASSERT_NE(layer, nullptr);
    r.markOutput(layer->getOutput(0), "y");
    r.setProfileDims("x", {1, 1, 3}, {2, 4, 3}, {5, 8, 3});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (auto const& [shape, axis] : std::vector<std::pair<std::vector<int64_t>, int64_t>>{
             {{2, 4, 3}, 1}, {{5, 8, 3}, -3}, {{1, 1, 3}, 2}, {{3, 7, 3}, -1}})
    {
        HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims(shape), rng, -2, 2);
        HostTensor a = HostTensor::fromValues(DataType::kINT64, Dims{0, {}}, {static_cast<double>(axis)});
        auto out = r.run({{"x", x}, {"axis", a}});
        EXPECT_TRUE(kiln::test::allClose(out["y"], cumulativeOracle(x, static_cast<int32_t>(axis), false, true), 1e-5,
            1e-5))
            << "axis " << axis;
    }
    // An out-of-range runtime axis fails execution with a message, it does not crash.
    HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({2, 2, 3}), rng);
    HostTensor a = HostTensor::fromValues(DataType::kINT64, Dims{0, {}}, {3});
    r.logger().clear();
    EXPECT_TRUE(r.runFails({{"x", x}, {"axis", a}}));
    EXPECT_TRUE(r.logger().hasError("axis 3 (input 1) is out of range [-3, 2]")) << r.logger().allErrors();
}

TEST_P(CumulativeLayerTest, InvalidOperationIsRejected)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {4});
    ITensor* ax = r.addInput("axis", DataType::kINT32, {});
    EXPECT_EQ(r.network().addCumulative(*in, *ax, static_cast<CumulativeOperation>(3), false, false), nullptr);
    EXPECT_TRUE(r.logger().hasError("addCumulative: operation 3 is not kSUM")) << r.logger().allErrors();
    ICumulativeLayer* layer = r.network().addCumulative(*in, *ax, CumulativeOperation::kSUM, false, false);
    ASSERT_NE(layer, nullptr);
    layer->setName("cum");
    r.logger().clear();
    EXPECT_FALSE(layer->setOperation(static_cast<CumulativeOperation>(-1)));
    EXPECT_TRUE(r.logger().hasError("ICumulativeLayer::setOperation on layer 'cum'")) << r.logger().allErrors();
    EXPECT_EQ(layer->getOperation(), CumulativeOperation::kSUM);
}

void expectBuildError(DataType type, std::vector<int64_t> const& shape, DataType axisType,
    std::vector<int64_t> const& axisShape, int32_t axisValue, std::string const& message)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", type, shape);
    static int32_t values32[2];
    static float valuesF[2];
    values32[0] = values32[1] = axisValue;
    valuesF[0] = valuesF[1] = static_cast<float>(axisValue);
    Dims const axisDims = kiln::test::makeDims(axisShape);
    Weights w{axisType, axisType == DataType::kFLOAT ? static_cast<void const*>(valuesF) : values32,
        kiln::test::volume(axisDims)};
    IConstantLayer* ax = r.network().addConstant(axisDims, w);
    ASSERT_NE(ax, nullptr);
    ICumulativeLayer* layer = r.network().addCumulative(*in, *ax->getOutput(0), CumulativeOperation::kSUM, false, false);
    ASSERT_NE(layer, nullptr);
    layer->setName("cum");
    r.markOutput(layer->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("layer 'cum' (Cumulative)")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError(message)) << r.logger().allErrors();
}

TEST_P(CumulativeLayerTest, BadInputsFailTheBuild)
{
    expectBuildError(DataType::kFLOAT, {2, 3}, DataType::kINT32, {}, 2, "axis 2 (input 1) is out of range [-2, 1]");
    expectBuildError(DataType::kFLOAT, {2, 3}, DataType::kINT32, {}, -3, "out of range");
    expectBuildError(DataType::kFLOAT, {2, 3}, DataType::kFLOAT, {}, 0, "axis (input 1)");
    expectBuildError(DataType::kFLOAT, {2, 3}, DataType::kINT32, {1}, 0, "input 1");
    expectBuildError(DataType::kBOOL, {2, 3}, DataType::kINT32, {}, 0, "Cumulative supports");
    expectBuildError(DataType::kFLOAT, {}, DataType::kINT32, {}, 0, "input 0");
}

} // namespace
