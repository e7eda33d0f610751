// Tests of IUnaryLayer: every operation against a double-precision oracle, the integer and boolean operations,
// half/bfloat16 storage, dynamic shapes and the error paths.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <cmath>
#include <limits>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;
using Op = UnaryOperation;

struct FloatCase
{
    Op op;
    double lo;
    double hi;
    double (*fn)(double);
};

double roundHalfEven(double v)
{
    double const f = std::floor(v);
    double const diff = v - f;
    if (diff > 0.5)
    {
        return f + 1.0;
    }
    if (diff < 0.5)
    {
        return f;
    }
    return std::fmod(f, 2.0) == 0.0 ? f : f + 1.0;
}

std::vector<FloatCase> const kFLOAT_CASES = {
    {Op::kEXP, -3, 3, [](double v) { return std::exp(v); }},
    {Op::kLOG, 0.05, 5, [](double v) { return std::log(v); }},
    {Op::kSQRT, 0, 9, [](double v) { return std::sqrt(v); }},
    {Op::kRECIP, 0.5, 4, [](double v) { return 1.0 / v; }},
    {Op::kABS, -3, 3, [](double v) { return std::fabs(v); }},
    {Op::kNEG, -3, 3, [](double v) { return -v; }},
    {Op::kSIN, -4, 4, [](double v) { return std::sin(v); }},
    {Op::kCOS, -4, 4, [](double v) { return std::cos(v); }},
    {Op::kTAN, -1.2, 1.2, [](double v) { return std::tan(v); }},
    {Op::kSINH, -3, 3, [](double v) { return std::sinh(v); }},
    {Op::kCOSH, -3, 3, [](double v) { return std::cosh(v); }},
    {Op::kASIN, -0.95, 0.95, [](double v) { return std::asin(v); }},
    {Op::kACOS, -0.95, 0.95, [](double v) { return std::acos(v); }},
    {Op::kATAN, -5, 5, [](double v) { return std::atan(v); }},
    {Op::kASINH, -5, 5, [](double v) { return std::asinh(v); }},
    {Op::kACOSH, 1.05, 6, [](double v) { return std::acosh(v); }},
    {Op::kATANH, -0.9, 0.9, [](double v) { return std::atanh(v); }},
    {Op::kCEIL, -5, 5, [](double v) { return std::ceil(v); }},
    {Op::kFLOOR, -5, 5, [](double v) { return std::floor(v); }},
    {Op::kERF, -3, 3, [](double v) { return std::erf(v); }},
    {Op::kSIGN, -3, 3, [](double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0); }},
    {Op::kROUND, -5, 5, roundHalfEven},
};

HostTensor applyReference(HostTensor const& in, DataType outType, double (*fn)(double))
{
    HostTensor out(outType, in.dims);
    for (int64_t i = 0; i < in.volume(); ++i)
    {
        out.set(i, fn(in.at(i)));
    }
    return out;
}

HostTensor runUnary(Op op, HostTensor const& input, uint32_t flags = 0)
{
    NetworkRunner r(flags);
    std::vector<int64_t> dims(input.dims.d, input.dims.d + input.dims.nbDims);
    ITensor* x = r.addInput("x", input.type, dims);
    IUnaryLayer* layer = r.network().addUnary(*x, op);
    EXPECT_NE(layer, nullptr) << r.logger().allErrors();
    if (layer == nullptr)
    {
        return {};
    }
    EXPECT_EQ(layer->getOperation(), op);
    r.markOutput(layer->getOutput(0), "out");
    EXPECT_TRUE(r.build()) << r.logger().allErrors();
    return r.run({{"x", input}})["out"];
}

std::vector<int64_t> randomShape(std::mt19937& rng)
{
    int32_t const rank = std::uniform_int_distribution<int32_t>(0, 4)(rng);
    std::vector<int64_t> d;
    for (int32_t i = 0; i < rank; ++i)
    {
        d.push_back(std::uniform_int_distribution<int64_t>(1, 6)(rng));
    }
    return d;
}

class UnaryLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(UnaryLayerTest);

TEST_P(UnaryLayerTest, FloatOperationsFp32)
{
    std::mt19937 rng(42);
    for (FloatCase const& c : kFLOAT_CASES)
    {
        for (int32_t rep = 0; rep < 2; ++rep)
        {
            SCOPED_TRACE("op " + std::to_string(static_cast<int>(c.op)));
            HostTensor x = HostTensor::random(DataType::kFLOAT, makeDims(randomShape(rng)), rng, c.lo, c.hi);
            HostTensor out = runUnary(c.op, x);
            EXPECT_TRUE(kiln::test::allClose(out, applyReference(x, DataType::kFLOAT, c.fn), 1e-5, 1e-5));
        }
    }
}

TEST_P(UnaryLayerTest, RoundIsHalfToEven)
{
    HostTensor x = HostTensor::fromValues(
        DataType::kFLOAT, makeDims({8}), {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 2.4999});
    HostTensor out = runUnary(Op::kROUND, x);
    EXPECT_TRUE(kiln::test::allClose(
        out, HostTensor::fromValues(DataType::kFLOAT, makeDims({8}), {-2, -2, 0, 0, 2, 2, 4, 2}), 0, 0));
}

TEST_P(UnaryLayerTest, IsInfAndIsNanGiveBool)
{
    double const inf = std::numeric_limits<double>::infinity();
    double const nan = std::numeric_limits<double>::quiet_NaN();
    for (DataType type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        HostTensor x = HostTensor::fromValues(type, makeDims({2, 3}), {1.0, inf, -inf, nan, 0.0, -2.0});
        HostTensor isInf = runUnary(Op::kISINF, x);
        HostTensor isNan = runUnary(Op::kISNAN, x);
        EXPECT_EQ(isInf.type, DataType::kBOOL);
        EXPECT_EQ(isNan.type, DataType::kBOOL);
        EXPECT_TRUE(kiln::test::allClose(
            isInf, HostTensor::fromValues(DataType::kBOOL, makeDims({2, 3}), {0, 1, 1, 0, 0, 0}), 0, 0));
        EXPECT_TRUE(kiln::test::allClose(
            isNan, HostTensor::fromValues(DataType::kBOOL, makeDims({2, 3}), {0, 0, 0, 1, 0, 0}), 0, 0));
    }
}

TEST_P(UnaryLayerTest, NotOnBool)
{
    std::mt19937 rng(5);
    HostTensor x = HostTensor::random(DataType::kBOOL, makeDims({3, 7}), rng);
    HostTensor out = runUnary(Op::kNOT, x);
    EXPECT_TRUE(kiln::test::allClose(out, applyReference(x, DataType::kBOOL, [](double v) { return v == 0 ? 1.0 : 0.0; }),
        0, 0));
}

TEST_P(UnaryLayerTest, IntegerAbsNegSign)
{
    std::mt19937 rng(77);
    for (DataType type : {DataType::kINT32, DataType::kINT64, DataType::kINT8})
    {
        double const range = type == DataType::kINT8 ? 100 : 100000;
        for (Op op : {Op::kABS, Op::kNEG, Op::kSIGN})
        {
            SCOPED_TRACE("type " + std::to_string(static_cast<int>(type)) + " op " + std::to_string(static_cast<int>(op)));
            HostTensor x = HostTensor::random(type, makeDims(randomShape(rng)), rng, -range, range);
            if (x.volume() > 0)
            {
                x.set(0, 0);
            }
            HostTensor out = runUnary(op, x);
            double (*fn)(double) = op == Op::kABS ? [](double v) { return std::fabs(v); }
                : op == Op::kNEG                  ? [](double v) { return -v; }
                                                  : [](double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0); };
            EXPECT_EQ(out.type, type);
            EXPECT_TRUE(kiln::test::allClose(out, applyReference(x, type, fn), 0, 0));
        }
    }
}

TEST_P(UnaryLayerTest, HalfAndBFloat16)
{
    std::mt19937 rng(9);
    for (DataType type : {DataType::kHALF, DataType::kBF16})
    {
        double const tol = type == DataType::kHALF ? 3e-3 : 2e-2;
        for (FloatCase const& c : kFLOAT_CASES)
        {
            SCOPED_TRACE("type " + std::to_string(static_cast<int>(type)) + " op " + std::to_string(static_cast<int>(c.op)));
            HostTensor x = HostTensor::random(type, makeDims({2, 5}), rng, c.lo, c.hi);
            HostTensor out = runUnary(c.op, x);
            EXPECT_TRUE(kiln::test::allClose(out, applyReference(x, type, c.fn), tol, tol));
        }
    }
}

TEST_P(UnaryLayerTest, DynamicShapes)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 4});
    IUnaryLayer* layer = r.network().addUnary(*x, Op::kEXP);
    ASSERT_NE(layer, nullptr);
    layer->setOperation(Op::kSIN);
    EXPECT_EQ(layer->getOperation(), Op::kSIN);
    r.markOutput(layer->getOutput(0), "out");
    r.setProfileDims("x", {1, 4}, {3, 4}, {9, 4});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(1);
    for (int64_t n : {2, 9})
    {
        HostTensor tx = HostTensor::random(DataType::kFLOAT, makeDims({n, 4}), rng, -3, 3);
        auto outs = r.run({{"x", tx}});
        EXPECT_TRUE(kiln::test::allClose(
            outs["out"], applyReference(tx, DataType::kFLOAT, [](double v) { return std::sin(v); }), 1e-6, 1e-6));
    }
}

TEST_P(UnaryLayerTest, NegOfShapeValuesFeedsReshape)
{
    // reshape(x, -(-shape(x))) is the identity reshape; checks kNEG propagates shape values.
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 3});
    ITensor* shape = r.network().addShape(*x)->getOutput(0);
    ITensor* neg = r.network().addUnary(*shape, Op::kNEG)->getOutput(0);
    ITensor* pos = r.network().addUnary(*neg, Op::kABS)->getOutput(0);
    IShuffleLayer* reshape = r.network().addShuffle(*x);
    ASSERT_NE(reshape, nullptr);
    reshape->setInput(1, *pos);
    r.markOutput(reshape->getOutput(0), "out");
    r.setProfileDims("x", {1, 3}, {2, 3}, {5, 3});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(2);
    HostTensor tx = HostTensor::random(DataType::kFLOAT, makeDims({4, 3}), rng);
    EXPECT_TRUE(kiln::test::allClose(r.run({{"x", tx}})["out"], tx, 0, 0));
}

TEST_P(UnaryLayerTest, Errors)
{
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {2});
        EXPECT_EQ(r.network().addUnary(*x, static_cast<Op>(25)), nullptr);
        EXPECT_TRUE(r.logger().hasError("addUnary")) << r.logger().allErrors();
        IUnaryLayer* layer = r.network().addUnary(*x, Op::kEXP);
        ASSERT_NE(layer, nullptr);
        layer->setName("expLayer");
        layer->setOperation(static_cast<Op>(-3));
        EXPECT_TRUE(r.logger().hasError("expLayer")) << r.logger().allErrors();
        EXPECT_EQ(layer->getOperation(), Op::kEXP);
    }
    {
        // kLOG on integers is not allowed.
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kINT32, {2});
        IUnaryLayer* layer = r.network().addUnary(*x, Op::kLOG);
        layer->setName("logInt");
        r.markOutput(layer->getOutput(0), "out");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("logInt")) << r.logger().allErrors();
        EXPECT_TRUE(r.logger().hasError("does not accept")) << r.logger().allErrors();
    }
    {
        // kNOT needs BOOL.
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {2});
        r.markOutput(r.network().addUnary(*x, Op::kNOT)->getOutput(0), "out");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("BOOL")) << r.logger().allErrors();
    }
    {
        // kABS on UINT8 is not allowed.
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kUINT8, {2});
        r.markOutput(r.network().addUnary(*x, Op::kABS)->getOutput(0), "out");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("does not accept")) << r.logger().allErrors();
    }
}

} // namespace
