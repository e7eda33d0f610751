// Tests of IFillLayer: linspace values against a naive oracle (static, int64, tensor alpha/beta, runtime
// dimensions from a shape tensor, shape-tensor values), random fills checked by distribution (bounds, mean,
// variance) rather than by value, and the error paths.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

struct Moments
{
    double mean{0.0};
    double variance{0.0};
    double min{0.0};
    double max{0.0};
};

Moments momentsOf(HostTensor const& t)
{
    Moments m;
    int64_t const n = t.volume();
    m.min = m.max = t.at(0);
    for (int64_t i = 0; i < n; ++i)
    {
        m.mean += t.at(i);
        m.min = std::min(m.min, t.at(i));
        m.max = std::max(m.max, t.at(i));
    }
    m.mean /= static_cast<double>(n);
    for (int64_t i = 0; i < n; ++i)
    {
        m.variance += (t.at(i) - m.mean) * (t.at(i) - m.mean);
    }
    m.variance /= static_cast<double>(n - 1);
    return m;
}

class FillLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(FillLayerTest);

TEST_P(FillLayerTest, StaticLinspaceEveryOutputType)
{
    std::mt19937 rng(5);
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT32, DataType::kINT64})
    {
        bool const isInt = t == DataType::kINT32 || t == DataType::kINT64;
        int64_t const n = std::uniform_int_distribution<int64_t>(3, 20)(rng);
        double const alpha = isInt ? std::uniform_int_distribution<int>(-50, 50)(rng) : -1.25;
        double const beta = isInt ? std::uniform_int_distribution<int>(-7, 7)(rng) : 0.375;
        NetworkRunner r;
        IFillLayer* f = r.network().addFill(makeDims({n}), FillOperation::kLINSPACE, t);
        ASSERT_NE(f, nullptr);
        EXPECT_EQ(f->getToType(), t);
        EXPECT_EQ(f->getOperation(), FillOperation::kLINSPACE);
        f->setAlpha(alpha);
        f->setBeta(beta);
        EXPECT_EQ(f->getAlpha(), alpha);
        EXPECT_EQ(f->getBeta(), beta);
        EXPECT_FALSE(f->isAlphaBetaInt64());
        r.markOutput(f->getOutput(0), "y");
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        auto out = r.run({});
        HostTensor expected(t, makeDims({n}));
        for (int64_t i = 0; i < n; ++i)
        {
            expected.set(i, alpha + beta * static_cast<double>(i));
        }
        EXPECT_EQ(out["y"].type, t);
        EXPECT_TRUE(kiln::test::allClose(out["y"], expected, 0.0, 0.0)) << "type " << static_cast<int>(t);
    }
}

TEST_P(FillLayerTest, DeprecatedOverloadIsFloat)
{
    NetworkRunner r;
    IFillLayer* f = r.network().addFill(makeDims({4}), FillOperation::kLINSPACE);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->getToType(), DataType::kFLOAT);
    EXPECT_EQ(f->getOutput(0)->getType(), DataType::kFLOAT);
    EXPECT_EQ(f->getAlpha(), 0.0);
    EXPECT_EQ(f->getBeta(), 1.0);
    r.markOutput(f->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    auto out = r.run({});
    EXPECT_TRUE(kiln::test::allClose(out["y"], HostTensor::fromValues(DataType::kFLOAT, makeDims({4}), {0, 1, 2, 3}), 0, 0));
}

TEST_P(FillLayerTest, Int64ParametersAreExact)
{
    NetworkRunner r;
    IFillLayer* f = r.network().addFill(makeDims({5}), FillOperation::kLINSPACE, DataType::kINT64);
    int64_t const alpha = (int64_t{1} << 53) + 1; // not representable as a double
    f->setAlphaInt64(alpha);
    f->setBetaInt64(-3);
    EXPECT_TRUE(f->isAlphaBetaInt64());
    EXPECT_EQ(f->getAlphaInt64(), alpha);
    EXPECT_EQ(f->getBetaInt64(), -3);
    r.markOutput(f->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    auto out = r.run({});
    auto const* v = static_cast<int64_t const*>(out["y"].data());
    for (int64_t i = 0; i < 5; ++i)
    {
        EXPECT_EQ(v[i], alpha - 3 * i);
    }
}

TEST_P(FillLayerTest, TensorAlphaBetaForRankTwo)
{
    // TensorRT's documented example: dims [2,3], alpha 0, beta [3, 1] -> [[0,1,2],[3,4,5]].
    std::mt19937 rng(8);
    NetworkRunner r;
    ITensor* alpha = r.addInput("alpha", DataType::kFLOAT, {});
    ITensor* beta = r.addInput("beta", DataType::kFLOAT, {2});
    IFillLayer* f = r.network().addFill(makeDims({2, 3}), FillOperation::kLINSPACE, DataType::kFLOAT);
    f->setInput(1, *alpha);
    f->setInput(2, *beta);
    EXPECT_EQ(f->getNbInputs(), 3);
    EXPECT_EQ(f->getInput(0), nullptr);
    EXPECT_EQ(f->getAlpha(), -1.0);
    EXPECT_EQ(f->getBeta(), -1.0);
    r.markOutput(f->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    auto out = r.run({{"alpha", HostTensor::fromValues(DataType::kFLOAT, makeDims({}), {0.0})},
        {"beta", HostTensor::fromValues(DataType::kFLOAT, makeDims({2}), {3.0, 1.0})}});
    EXPECT_TRUE(kiln::test::allClose(
        out["y"], HostTensor::fromValues(DataType::kFLOAT, makeDims({2, 3}), {0, 1, 2, 3, 4, 5}), 0, 0));
    for (int32_t iter = 0; iter < 3; ++iter)
    {
        double const a = std::uniform_real_distribution<double>(-4, 4)(rng);
        double const b0 = std::uniform_real_distribution<double>(-2, 2)(rng);
        double const b1 = std::uniform_real_distribution<double>(-2, 2)(rng);
        HostTensor const at = HostTensor::fromValues(DataType::kFLOAT, makeDims({}), {a});
        HostTensor const bt = HostTensor::fromValues(DataType::kFLOAT, makeDims({2}), {b0, b1});
        auto o = r.run({{"alpha", at}, {"beta", bt}});
        HostTensor expected(DataType::kFLOAT, makeDims({2, 3}));
        for (int64_t i = 0; i < 2; ++i)
        {
            for (int64_t j = 0; j < 3; ++j)
            {
                expected.set(i * 3 + j, at.at(0) + bt.at(0) * double(i) + bt.at(1) * double(j));
            }
        }
        EXPECT_TRUE(kiln::test::allClose(o["y"], expected, 1e-6, 1e-6));
    }
}

TEST_P(FillLayerTest, FloatParametersComputedByLayers)
{
    // Float alpha/beta produced by other layers are ordinary data (not shape tensors).
    NetworkRunner r;
    ITensor* a = r.addInput("a", DataType::kFLOAT, {});
    ITensor* b = r.addInput("b", DataType::kFLOAT, {1});
    IFillLayer* f = r.network().addFill(makeDims({4}), FillOperation::kLINSPACE, DataType::kFLOAT);
    f->setInput(1, *r.network().addIdentity(*a)->getOutput(0));
    f->setInput(2, *r.network().addIdentity(*b)->getOutput(0));
    r.markOutput(f->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    auto out = r.run({{"a", HostTensor::fromValues(DataType::kFLOAT, makeDims({}), {0.5})},
        {"b", HostTensor::fromValues(DataType::kFLOAT, makeDims({1}), {-2.0})}});
    EXPECT_TRUE(kiln::test::allClose(
        out["y"], HostTensor::fromValues(DataType::kFLOAT, makeDims({4}), {0.5, -1.5, -3.5, -5.5}), 0, 0));
}

TEST_P(FillLayerTest, RuntimeDimensionsFromShapeTensor)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1});
    ITensor* shape = r.network().addShape(*x)->getOutput(0);
    IFillLayer* f = r.network().addFill(makeDims({1}), FillOperation::kLINSPACE, DataType::kFLOAT);
    f->setInput(0, *shape);
    EXPECT_EQ(f->getDimensions().nbDims, -1);
    f->setAlpha(1.0);
    f->setBeta(0.5);
    r.markOutput(f->getOutput(0), "y");
    r.markOutput(r.network().addIdentity(*x)->getOutput(0), "copy");
    r.setProfileDims("x", {1}, {4}, {16});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(1);
    for (int64_t n : {3, 16, 1})
    {
        auto out = r.run({{"x", HostTensor::random(DataType::kFLOAT, makeDims({n}), rng)}});
        HostTensor expected(DataType::kFLOAT, makeDims({n}));
        for (int64_t i = 0; i < n; ++i)
        {
            expected.set(i, 1.0 + 0.5 * double(i));
        }
        EXPECT_TRUE(kiln::test::allClose(out["y"], expected, 0, 0)) << "n = " << n;
    }
}

TEST_P(FillLayerTest, IntegerLinspaceFeedsShapeTensors)
{
    // Fill INT32 [2, 5] then use it as reshape dimensions.
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {10});
    IFillLayer* f = r.network().addFill(makeDims({2}), FillOperation::kLINSPACE, DataType::kINT32);
    f->setAlpha(2.0);
    f->setBeta(3.0);
    IShuffleLayer* s = r.network().addShuffle(*x);
    s->setInput(1, *f->getOutput(0));
    Dims const d = s->getOutput(0)->getDimensions();
    ASSERT_EQ(d.nbDims, 2);
    EXPECT_EQ(d.d[0], 2);
    EXPECT_EQ(d.d[1], 5);
    r.markOutput(s->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(6);
    HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({10}), rng);
    auto out = r.run({{"x", in}});
    EXPECT_EQ(kiln::test::dimsString(out["y"].dims), "[2,5]");
}

TEST_P(FillLayerTest, RandomUniformDistribution)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF})
    {
        NetworkRunner r;
        IFillLayer* f = r.network().addFill(makeDims({64, 64}), FillOperation::kRANDOM_UNIFORM, t);
        ASSERT_NE(f, nullptr);
        f->setAlpha(-2.0);
        f->setBeta(3.0);
        r.markOutput(f->getOutput(0), "y");
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        auto out = r.run({});
        Moments const m = momentsOf(out["y"]);
        EXPECT_GE(m.min, -2.0);
        EXPECT_LE(m.max, 3.0);
        EXPECT_NEAR(m.mean, 0.5, 0.1);                 // standard error ~0.023
        EXPECT_NEAR(m.variance, 25.0 / 12.0, 0.15);    // uniform variance (b - a)^2 / 12
        EXPECT_LT(m.min, -1.9);                        // the whole interval is covered
        EXPECT_GT(m.max, 2.9);
    }
}

TEST_P(FillLayerTest, RandomNormalDistribution)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF})
    {
        NetworkRunner r;
        IFillLayer* f = r.network().addFill(makeDims({64, 64}), FillOperation::kRANDOM_NORMAL, t);
        f->setAlpha(1.5);
        f->setBeta(2.0);
        r.markOutput(f->getOutput(0), "y");
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        auto out = r.run({});
        Moments const m = momentsOf(out["y"]);
        EXPECT_NEAR(m.mean, 1.5, 0.15);     // standard error ~0.031
        EXPECT_NEAR(m.variance, 4.0, 0.4); // standard error ~0.09
        // Roughly 68% within one standard deviation.
        int64_t within = 0;
        for (int64_t i = 0; i < out["y"].volume(); ++i)
        {
            within += std::fabs(out["y"].at(i) - 1.5) <= 2.0 ? 1 : 0;
        }
        EXPECT_NEAR(static_cast<double>(within) / 4096.0, 0.6827, 0.03);
    }
}

TEST_P(FillLayerTest, RandomWithTensorParametersAndRuntimeShape)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 32});
    ITensor* lo = r.addInput("lo", DataType::kFLOAT, {});
    ITensor* hi = r.addInput("hi", DataType::kFLOAT, {});
    IFillLayer* f = r.network().addFill(makeDims({}), FillOperation::kRANDOM_UNIFORM, DataType::kFLOAT);
    f->setInput(0, *r.network().addShape(*x)->getOutput(0));
    f->setInput(1, *lo);
    f->setInput(2, *hi);
    r.markOutput(f->getOutput(0), "y");
    r.markOutput(r.network().addIdentity(*x)->getOutput(0), "copy");
    r.setProfileDims("x", {1, 32}, {32, 32}, {64, 32});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(3);
    for (int64_t n : {64, 48})
    {
        auto out = r.run({{"x", HostTensor::random(DataType::kFLOAT, makeDims({n, 32}), rng)},
            {"lo", HostTensor::fromValues(DataType::kFLOAT, makeDims({}), {10.0})},
            {"hi", HostTensor::fromValues(DataType::kFLOAT, makeDims({}), {11.0})}});
        ASSERT_EQ(kiln::test::dimsString(out["y"].dims), "[" + std::to_string(n) + ",32]");
        Moments const m = momentsOf(out["y"]);
        EXPECT_GE(m.min, 10.0);
        EXPECT_LE(m.max, 11.0);
        EXPECT_NEAR(m.mean, 10.5, 0.05);
    }
}

TEST_P(FillLayerTest, TwoRandomLayersDiffer)
{
    NetworkRunner r;
    IFillLayer* a = r.network().addFill(makeDims({16}), FillOperation::kRANDOM_UNIFORM, DataType::kFLOAT);
    IFillLayer* b = r.network().addFill(makeDims({16}), FillOperation::kRANDOM_UNIFORM, DataType::kFLOAT);
    r.markOutput(a->getOutput(0), "a");
    r.markOutput(b->getOutput(0), "b");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    auto out = r.run({});
    EXPECT_FALSE(kiln::test::sameBits(out["a"], out["b"]));
    // The same engine gives the same values on every run (Kiln's documented behaviour).
    auto again = r.run({});
    EXPECT_TRUE(kiln::test::sameBits(out["a"], again["a"]));
}

TEST_P(FillLayerTest, Errors)
{
    {
        NetworkRunner r;
        EXPECT_EQ(r.network().addFill(makeDims({4}), FillOperation::kRANDOM_UNIFORM, DataType::kINT32), nullptr);
        EXPECT_TRUE(r.logger().hasError("not supported by random fills")) << r.logger().allErrors();
        r.logger().clear();
        EXPECT_EQ(r.network().addFill(makeDims({-1}), FillOperation::kLINSPACE, DataType::kFLOAT), nullptr);
        EXPECT_TRUE(r.logger().hasError("negative")) << r.logger().allErrors();
        r.logger().clear();
        EXPECT_EQ(r.network().addFill(makeDims({2}), static_cast<FillOperation>(9), DataType::kFLOAT), nullptr);
        EXPECT_TRUE(r.logger().hasError("invalid FillOperation")) << r.logger().allErrors();
    }
    {
        // Changing the operation makes the output type invalid.
        NetworkRunner r;
        IFillLayer* f = r.network().addFill(makeDims({4}), FillOperation::kLINSPACE, DataType::kINT32);
        f->setName("filler");
        f->setOperation(FillOperation::kRANDOM_NORMAL);
        r.markOutput(f->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("filler")) << r.logger().allErrors();
        EXPECT_TRUE(r.logger().hasError("INT32"));
    }
    {
        // Alpha as a tensor without beta.
        NetworkRunner r;
        ITensor* a = r.addInput("a", DataType::kFLOAT, {});
        IFillLayer* f = r.network().addFill(makeDims({4}), FillOperation::kLINSPACE, DataType::kFLOAT);
        f->setInput(1, *a);
        r.markOutput(f->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("must both be tensors")) << r.logger().allErrors();
    }
    {
        // A static beta cannot describe a rank-2 linspace.
        NetworkRunner r;
        IFillLayer* f = r.network().addFill(makeDims({2, 2}), FillOperation::kLINSPACE, DataType::kFLOAT);
        r.markOutput(f->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("static beta")) << r.logger().allErrors();
    }
    {
        NetworkRunner r;
        IFillLayer* f = r.network().addFill(makeDims({2}), FillOperation::kLINSPACE, DataType::kFLOAT);
        ITensor* a = r.addInput("a", DataType::kFLOAT, {});
        f->setInput(3, *a);
        EXPECT_TRUE(r.logger().hasError("out of range")) << r.logger().allErrors();
        f->setDimensions(makeDims({-3}));
        EXPECT_TRUE(r.logger().hasError("negative")) << r.logger().allErrors();
        EXPECT_EQ(f->getDimensions().d[0], 2);
    }
}

} // namespace
