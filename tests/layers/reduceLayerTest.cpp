// Tests of IReduceLayer: every operation over every axes mask with keepDims both ways, integer and 16-bit float
// types, dynamic shapes, shape-tensor value propagation (volume of a shape vector) and the error paths.
#include "common/backendTest.h"
#include "common/networkRunner.h"
#include "layers/layerTestShapes.h"

#include <cmath>
#include <limits>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::NetworkRunner;

using kiln::test::randomShape;

//! Naive reduction: visit every input element, find its output element by zeroing the reduced coordinates.
HostTensor reduceOracle(HostTensor const& x, ReduceOperation op, uint32_t mask, bool keepDims, DataType outType)
{
    int32_t const rank = x.dims.nbDims;
    std::vector<int64_t> outShape;
    for (int32_t d = 0; d < rank; ++d)
    {
        if ((mask >> d) & 1U)
        {
            if (keepDims)
            {
                outShape.push_back(1);
            }
        }
        else
        {
            outShape.push_back(x.dims.d[d]);
        }
    }
    HostTensor y(outType, kiln::test::makeDims(outShape));
    bool const isInt = outType == DataType::kINT32 || outType == DataType::kINT64;
    int64_t const n = y.volume();
    std::vector<double> acc(static_cast<size_t>(n));
    std::vector<int64_t> count(static_cast<size_t>(n), 0);
    for (int64_t flat = 0; flat < x.volume(); ++flat)
    {
        int64_t rem = flat;
        std::vector<int64_t> coord(static_cast<size_t>(rank));
        for (int32_t d = rank - 1; d >= 0; --d)
        {
            coord[static_cast<size_t>(d)] = rem % x.dims.d[d];
            rem /= x.dims.d[d];
        }
        int64_t o = 0;
        for (int32_t d = 0; d < rank; ++d)
        {
            if (((mask >> d) & 1U) == 0)
            {
                o = o * x.dims.d[d] + coord[static_cast<size_t>(d)];
            }
        }
        double const v = x.at(flat);
        double& a = acc[static_cast<size_t>(o)];
        if (count[static_cast<size_t>(o)]++ == 0)
        {
            a = v;
            continue;
        }
        switch (op)
        {
        case ReduceOperation::kSUM:
        case ReduceOperation::kAVG: a += v; break;
        case ReduceOperation::kPROD: a *= v; break;
        case ReduceOperation::kMAX: a = std::max(a, v); break;
        case ReduceOperation::kMIN: a = std::min(a, v); break;
        default: break;
        }
    }
    for (int64_t i = 0; i < n; ++i)
    {
        double v = acc[static_cast<size_t>(i)];
        if (op == ReduceOperation::kAVG)
        {
            v = isInt ? std::trunc(v / static_cast<double>(count[static_cast<size_t>(i)]))
                      : v / static_cast<double>(count[static_cast<size_t>(i)]);
        }
        y.set(i, v);
    }
    return y;
}

char const* opName(ReduceOperation op)
{
    switch (op)
    {
    case ReduceOperation::kSUM: return "SUM";
    case ReduceOperation::kPROD: return "PROD";
    case ReduceOperation::kMAX: return "MAX";
    case ReduceOperation::kMIN: return "MIN";
    case ReduceOperation::kAVG: return "AVG";
    default: return "?";
    }
}

void runCase(std::mt19937& rng, DataType type, std::vector<int64_t> const& shape, ReduceOperation op, uint32_t mask,
    bool keepDims, double lo, double hi, double tol)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", type, shape);
    IReduceLayer* layer = r.network().addReduce(*in, op, mask, keepDims);
    ASSERT_NE(layer, nullptr) << r.logger().allErrors();
    EXPECT_EQ(layer->getOperation(), op);
    EXPECT_EQ(layer->getReduceAxes(), mask);
    EXPECT_EQ(layer->getKeepDimensions(), keepDims);
    r.markOutput(layer->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor x = HostTensor::random(type, kiln::test::makeDims(shape), rng, lo, hi);
    auto out = r.run({{"x", x}});
    HostTensor const expected = reduceOracle(x, op, mask, keepDims, type);
    EXPECT_TRUE(kiln::test::allClose(out["y"], expected, tol, tol))
        << opName(op) << " mask " << mask << " keepDims " << keepDims << " shape " << kiln::test::dimsString(x.dims);
}

constexpr ReduceOperation kOPS[] = {ReduceOperation::kSUM, ReduceOperation::kPROD, ReduceOperation::kMAX,
    ReduceOperation::kMIN, ReduceOperation::kAVG};

class ReduceLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(ReduceLayerTest);

TEST_P(ReduceLayerTest, EveryOperationAndMaskFp32)
{
    std::mt19937 rng(2024);
    for (ReduceOperation op : kOPS)
    {
        for (uint32_t mask = 1; mask < 8; ++mask)
        {
            for (bool keep : {false, true})
            {
                // Products stay well conditioned with values near 1.
                double const lo = op == ReduceOperation::kPROD ? 0.5 : -2.0;
                double const hi = op == ReduceOperation::kPROD ? 1.5 : 2.0;
                runCase(rng, DataType::kFLOAT, randomShape(rng, 3), op, mask, keep, lo, hi, 1e-5);
            }
        }
    }
}

TEST_P(ReduceLayerTest, HigherRanksAndFullReduction)
{
    std::mt19937 rng(77);
    runCase(rng, DataType::kFLOAT, {2, 3, 2, 4, 3}, ReduceOperation::kSUM, 0b10110, false, -1, 1, 1e-5);
    runCase(rng, DataType::kFLOAT, {2, 3, 4}, ReduceOperation::kAVG, 0b111, false, -1, 1, 1e-5);
    runCase(rng, DataType::kFLOAT, {2, 3, 4}, ReduceOperation::kMAX, 0b111, true, -1, 1, 0);
    runCase(rng, DataType::kFLOAT, {7}, ReduceOperation::kMIN, 1, false, -1, 1, 0);
}

//! Long rows over the trailing axes (the CUDA warp-per-output kernel: a global average pool, a full reduction, a row
//! that is not a multiple of the warp) for every operation, FP32 and FP16.
TEST_P(ReduceLayerTest, LongTrailingRows)
{
    std::mt19937 rng(79);
    for (ReduceOperation op : kOPS)
    {
        double const lo = op == ReduceOperation::kPROD ? 0.9 : -2.0;
        double const hi = op == ReduceOperation::kPROD ? 1.1 : 2.0;
        runCase(rng, DataType::kFLOAT, {3, 5, 9, 13}, op, 0b1100, true, lo, hi, 1e-5);
        runCase(rng, DataType::kFLOAT, {4, 40, 3}, op, 0b111, false, lo, hi, 1e-5);
        runCase(rng, DataType::kHALF, {2, 300}, op, 0b10, false, lo, hi, 2e-3);
    }
}

//! A NaN in a reduced row makes that row's kMAX, kMIN, kSUM and kAVG NaN and leaves the other rows alone, in FP32 and
//! BF16 (the row kernels keep several accumulators; the NaN must not be lost in any of them or their merge).
TEST_P(ReduceLayerTest, NanPropagatesThroughRowReductions)
{
    for (DataType type : {DataType::kFLOAT, DataType::kBF16})
    {
        for (ReduceOperation op : {ReduceOperation::kMAX, ReduceOperation::kMIN, ReduceOperation::kSUM, ReduceOperation::kAVG})
        {
            std::mt19937 rng(81);
            NetworkRunner r;
            ITensor* in = r.addInput("x", type, {4, 3, 37});
            IReduceLayer* layer = r.network().addReduce(*in, op, 0b110, false);
            ASSERT_NE(layer, nullptr) << r.logger().allErrors();
            r.markOutput(layer->getOutput(0), "y");
            ASSERT_TRUE(r.build()) << r.logger().allErrors();
            HostTensor x = HostTensor::random(type, kiln::test::makeDims({4, 3, 37}), rng, -2.0, 2.0);
            x.set(1 * 111 + 50, std::nan("")); // row 1, neither the first element nor a multiple of 8
            auto out = r.run({{"x", x}});
            HostTensor const& y = out["y"];
            ASSERT_EQ(y.volume(), 4);
            HostTensor const expected = reduceOracle(x, op, 0b110, false, type);
            for (int64_t i = 0; i < 4; ++i)
            {
                if (i == 1)
                {
                    EXPECT_TRUE(std::isnan(y.at(i))) << opName(op) << " row 1 gave " << y.at(i);
                }
                else
                {
                    EXPECT_NEAR(y.at(i), expected.at(i), type == DataType::kBF16 ? 0.05 * (1 + std::fabs(expected.at(i))) : 1e-5)
                        << opName(op) << " row " << i;
                }
            }
        }
    }
}

TEST_P(ReduceLayerTest, IntegerTypes)
{
    std::mt19937 rng(31);
    for (DataType t : {DataType::kINT32, DataType::kINT64})
    {
        for (ReduceOperation op : kOPS)
        {
            for (uint32_t mask : {1U, 2U, 5U, 7U})
            {
                // At most 27 factors in [-2, 2]: products fit INT32 exactly.
                double const lo = op == ReduceOperation::kPROD ? -2 : -50;
                double const hi = op == ReduceOperation::kPROD ? 2 : 50;
                runCase(rng, t, randomShape(rng, 3, 1, 3), op, mask, mask == 5U, lo, hi, 0);
            }
        }
    }
}

TEST_P(ReduceLayerTest, HalfAndBFloat16)
{
    std::mt19937 rng(8);
    for (DataType t : {DataType::kHALF, DataType::kBF16})
    {
        double const tol = t == DataType::kHALF ? 4e-3 : 3e-2;
        for (ReduceOperation op : {ReduceOperation::kSUM, ReduceOperation::kMAX, ReduceOperation::kAVG})
        {
            runCase(rng, t, randomShape(rng, 3, 2, 5), op, 6, false, -1, 1, tol);
        }
    }
}

TEST_P(ReduceLayerTest, DynamicShapes)
{
    std::mt19937 rng(3);
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {-1, 3, -1});
    IReduceLayer* layer = r.network().addReduce(*in, ReduceOperation::kSUM, 0b101, true);
    ASSERT_NE(layer, nullptr);
    r.markOutput(layer->getOutput(0), "y");
    r.setProfileDims("x", {1, 3, 1}, {2, 3, 4}, {5, 3, 9});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (auto const& shape : std::vector<std::vector<int64_t>>{{2, 3, 4}, {5, 3, 9}})
    {
        HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims(shape), rng);
        auto out = r.run({{"x", x}});
        EXPECT_TRUE(kiln::test::allClose(
            out["y"], reduceOracle(x, ReduceOperation::kSUM, 0b101, true, DataType::kFLOAT), 1e-5, 1e-5));
    }
}

TEST_P(ReduceLayerTest, VolumeOfAShapeVectorDrivesAReshape)
{
    // y = reshape(x, [volume(shape(x))]): the reduce output is a shape tensor whose value is a product of
    // runtime dimensions.
    std::mt19937 rng(11);
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {-1, -1, 3});
    IShapeLayer* shape = r.network().addShape(*in);
    ASSERT_NE(shape, nullptr);
    IReduceLayer* volume = r.network().addReduce(*shape->getOutput(0), ReduceOperation::kPROD, 1, true);
    ASSERT_NE(volume, nullptr);
    IShuffleLayer* flat = r.network().addShuffle(*in);
    ASSERT_NE(flat, nullptr);
    flat->setInput(1, *volume->getOutput(0));
    r.markOutput(flat->getOutput(0), "y");
    // The same reduction also runs as an ordinary (execution) layer.
    IReduceLayer* sum = r.network().addReduce(*shape->getOutput(0), ReduceOperation::kSUM, 1, false);
    ASSERT_NE(sum, nullptr);
    r.markOutput(sum->getOutput(0), "dimSum");
    r.setProfileDims("x", {1, 1, 3}, {2, 2, 3}, {4, 5, 3});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (auto const& s : std::vector<std::vector<int64_t>>{{2, 2, 3}, {4, 5, 3}})
    {
        HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims(s), rng);
        auto out = r.run({{"x", x}});
        HostTensor expected = x;
        expected.dims = kiln::test::makeDims({x.volume()});
        EXPECT_TRUE(kiln::test::sameBits(out["y"], expected));
        ASSERT_EQ(out["dimSum"].volume(), 1);
        EXPECT_EQ(out["dimSum"].at(0), static_cast<double>(s[0] + s[1] + s[2]));
    }
}

TEST_P(ReduceLayerTest, InvalidArgumentsAreRejected)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {2, 3});
    EXPECT_EQ(r.network().addReduce(*in, ReduceOperation::kNONE, 1, false), nullptr);
    EXPECT_TRUE(r.logger().hasError("addReduce")) << r.logger().allErrors();
    r.logger().clear();
    EXPECT_EQ(r.network().addReduce(*in, ReduceOperation::kSUM, 1U << 9, false), nullptr);
    EXPECT_TRUE(r.logger().hasError("Dims::MAX_DIMS")) << r.logger().allErrors();
    IReduceLayer* layer = r.network().addReduce(*in, ReduceOperation::kSUM, 1, false);
    ASSERT_NE(layer, nullptr);
    layer->setName("red");
    r.logger().clear();
    layer->setOperation(ReduceOperation::kNONE);
    EXPECT_TRUE(r.logger().hasError("'red'")) << r.logger().allErrors();
    EXPECT_EQ(layer->getOperation(), ReduceOperation::kSUM);
}

TEST_P(ReduceLayerTest, AxisBeyondRankFailsTheBuild)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {2, 3});
    IReduceLayer* layer = r.network().addReduce(*in, ReduceOperation::kSUM, 0b100, false);
    ASSERT_NE(layer, nullptr);
    layer->setName("red");
    r.markOutput(layer->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("'red'")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("beyond the rank")) << r.logger().allErrors();
}

TEST_P(ReduceLayerTest, BoolInputFailsTheBuild)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kBOOL, {2, 3});
    IReduceLayer* layer = r.network().addReduce(*in, ReduceOperation::kMAX, 1, false);
    ASSERT_NE(layer, nullptr);
    r.markOutput(layer->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("reduce supports FP32")) << r.logger().allErrors();
}

} // namespace
