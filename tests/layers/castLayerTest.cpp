// Tests of ICastLayer: every conversion between FP32, FP16, BF16, INT8, UINT8, INT32, INT64 and BOOL against an
// independent oracle, dynamic shapes, shape-value propagation and the error paths.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <cmath>
#include <cstring>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

std::vector<DataType> const kTYPES = {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8,
    DataType::kUINT8, DataType::kINT32, DataType::kINT64, DataType::kBOOL};

bool isFloat(DataType t)
{
    return t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
}

char const* name(DataType t)
{
    switch (t)
    {
    case DataType::kFLOAT: return "FP32";
    case DataType::kHALF: return "FP16";
    case DataType::kBF16: return "BF16";
    case DataType::kINT8: return "INT8";
    case DataType::kUINT8: return "UINT8";
    case DataType::kINT32: return "INT32";
    case DataType::kINT64: return "INT64";
    case DataType::kBOOL: return "BOOL";
    default: return "?";
    }
}

//! Source values that both types represent (after truncation for float -> integer); includes zeros.
HostTensor sourceData(DataType from, DataType to, Dims dims, std::mt19937& rng)
{
    double lo = -100;
    double hi = 100;
    if (from == DataType::kUINT8 || to == DataType::kUINT8)
    {
        lo = 0;
        hi = 250;
    }
    if (from == DataType::kINT8 || to == DataType::kINT8)
    {
        hi = std::min(hi, 127.0);
        lo = std::max(lo, -128.0);
    }
    HostTensor t = HostTensor::random(from, dims, rng, lo, hi);
    if (isFloat(from) && !isFloat(to) && to != DataType::kBOOL)
    {
        // Keep truncated values inside the target range.
        for (int64_t i = 0; i < t.volume(); ++i)
        {
            double const v = t.at(i);
            if (std::trunc(v) > hi || std::trunc(v) < lo)
            {
                t.set(i, 0.5);
            }
        }
    }
    for (int64_t i = 0; i < t.volume(); i += 5)
    {
        t.set(i, 0); // exercise the zero case (e.g. -> BOOL)
    }
    return t;
}

HostTensor reference(HostTensor const& in, DataType to)
{
    HostTensor out(to, in.dims);
    for (int64_t i = 0; i < in.volume(); ++i)
    {
        double const v = in.at(i);
        if (to == DataType::kBOOL)
        {
            out.set(i, v != 0 ? 1 : 0);
        }
        else if (!isFloat(to))
        {
            out.set(i, std::trunc(v));
        }
        else
        {
            out.set(i, v);
        }
    }
    return out;
}

class CastLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(CastLayerTest);

TEST_P(CastLayerTest, EveryPairOfTypes)
{
    std::mt19937 rng(4321);
    for (DataType from : kTYPES)
    {
        for (DataType to : kTYPES)
        {
            SCOPED_TRACE(std::string(name(from)) + " -> " + name(to));
            NetworkRunner r;
            ITensor* x = r.addInput("x", from, {3, 7});
            ICastLayer* layer = r.network().addCast(*x, to);
            ASSERT_NE(layer, nullptr) << r.logger().allErrors();
            EXPECT_EQ(layer->getToType(), to);
            r.markOutput(layer->getOutput(0), "out");
            ASSERT_TRUE(r.build()) << r.logger().allErrors();
            HostTensor in = sourceData(from, to, makeDims({3, 7}), rng);
            HostTensor out = r.run({{"x", in}})["out"];
            EXPECT_EQ(out.type, to);
            // Float targets round to their precision; the oracle's set() does the same rounding.
            EXPECT_TRUE(kiln::test::allClose(out, reference(in, to), 0, 0));
        }
    }
}

TEST_P(CastLayerTest, FloatToIntegerTruncatesTowardZero)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {6});
    r.markOutput(r.network().addCast(*x, DataType::kINT32)->getOutput(0), "out");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor in = HostTensor::fromValues(DataType::kFLOAT, makeDims({6}), {1.9, -1.9, 2.5, -2.5, 0.2, -0.7});
    EXPECT_TRUE(kiln::test::allClose(
        r.run({{"x", in}})["out"], HostTensor::fromValues(DataType::kINT32, makeDims({6}), {1, -1, 2, -2, 0, 0}), 0, 0));
}

TEST_P(CastLayerTest, Int64ToInt32WrapsAndLargeValuesStayExact)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kINT64, {3});
    r.markOutput(r.network().addCast(*x, DataType::kINT32)->getOutput(0), "narrow");
    r.markOutput(r.network().addIdentity(*x)->getOutput(0), "copy");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor in(DataType::kINT64, makeDims({3}));
    int64_t const values[3] = {(int64_t{1} << 32) + 5, -7, (int64_t{1} << 62) + 3};
    std::memcpy(in.data(), values, sizeof(values));
    auto outs = r.run({{"x", in}});
    EXPECT_TRUE(kiln::test::allClose(outs["narrow"], HostTensor::fromValues(DataType::kINT32, makeDims({3}), {5, -7, 3}), 0, 0));
    EXPECT_TRUE(kiln::test::sameBits(outs["copy"], in));
}

TEST_P(CastLayerTest, SetToTypeAndDynamicShapes)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kINT32, {-1, 2});
    ICastLayer* layer = r.network().addCast(*x, DataType::kFLOAT);
    ASSERT_NE(layer, nullptr);
    layer->setToType(DataType::kHALF);
    EXPECT_EQ(layer->getToType(), DataType::kHALF);
    r.markOutput(layer->getOutput(0), "out");
    r.setProfileDims("x", {1, 2}, {3, 2}, {10, 2});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(5);
    for (int64_t n : {10, 1})
    {
        HostTensor in = HostTensor::random(DataType::kINT32, makeDims({n, 2}), rng, -1000, 1000);
        HostTensor out = r.run({{"x", in}})["out"];
        EXPECT_EQ(out.type, DataType::kHALF);
        EXPECT_TRUE(kiln::test::allClose(out, reference(in, DataType::kHALF), 0, 0));
    }
}

TEST_P(CastLayerTest, ShapeValuesPropagate)
{
    // reshape(x, cast<INT32>(shape(x))) is the identity reshape.
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 4});
    ITensor* shape = r.network().addShape(*x)->getOutput(0);
    ITensor* shape32 = r.network().addCast(*shape, DataType::kINT32)->getOutput(0);
    IShuffleLayer* reshape = r.network().addShuffle(*x);
    ASSERT_NE(reshape, nullptr);
    reshape->setInput(1, *shape32);
    r.markOutput(reshape->getOutput(0), "out");
    r.setProfileDims("x", {1, 4}, {2, 4}, {3, 4});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(6);
    HostTensor tx = HostTensor::random(DataType::kFLOAT, makeDims({3, 4}), rng);
    EXPECT_TRUE(kiln::test::allClose(r.run({{"x", tx}})["out"], tx, 0, 0));
}

TEST_P(CastLayerTest, Errors)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2});
    EXPECT_EQ(r.network().addCast(*x, DataType::kINT4), nullptr);
    EXPECT_TRUE(r.logger().hasError("addCast")) << r.logger().allErrors();
    r.logger().clear();
    EXPECT_EQ(r.network().addCast(*x, static_cast<DataType>(77)), nullptr);
    EXPECT_TRUE(r.logger().hasError("addCast")) << r.logger().allErrors();
    ICastLayer* layer = r.network().addCast(*x, DataType::kINT32);
    ASSERT_NE(layer, nullptr);
    layer->setName("caster");
    r.logger().clear();
    layer->setToType(DataType::kFP8);
    EXPECT_TRUE(r.logger().hasError("caster")) << r.logger().allErrors();
    EXPECT_EQ(layer->getToType(), DataType::kINT32);
}

} // namespace
