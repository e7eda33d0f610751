// Importers of the elementwise and comparison families beyond the ONNX node tests: broadcasting against dynamic
// dims, Mod sign rules, Where over three ranks, UINT8 arithmetic, mixed-type Pow, BitShift, NaN in
// GreaterOrEqual, legacy (opset 6) broadcasting, and the error paths with their messages.
#include "onnxTestModels.h"

#include "onnx/onnxConstant.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

class ElementwiseImportersTest : public ::testing::Test
{
protected:
    std::mt19937 mRng{4041};

    //! Random integers in [lo, hi] with no zero (divisors).
    HostTensor nonZeroInts(DataType type, std::vector<int64_t> const& dims, int64_t lo, int64_t hi)
    {
        HostTensor t = HostTensor::random(type, makeDims(dims), mRng, static_cast<double>(lo), static_cast<double>(hi));
        for (int64_t i = 0; i < t.volume(); ++i)
        {
            if (t.at(i) == 0.0)
            {
                t.set(i, hi);
            }
        }
        return t;
    }
};

TEST_F(ElementwiseImportersTest, BroadcastWithDynamicDimsAndProfile)
{
    // y = (a + b) * c with a [N, 3, 4], b [4] (initializer), c [N, 3, 1]; N dynamic.
    HostTensor const b = HostTensor::random(DataType::kFLOAT, makeDims({4}), mRng, -2.0, 2.0);
    OnnxModelBuilder model(14);
    model.addInput("a", DataType::kFLOAT, {-1, 3, 4});
    model.addInput("c", DataType::kFLOAT, {-1, 3, 1});
    model.addInitializer("b", toConstant(b));
    model.addNode("Add", {"a", "b"}, {"s"});
    model.addNode("Mul", {"s", "c"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);

    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileDims("a", {1, 3, 4}, {2, 3, 4}, {6, 3, 4});
    runner.runner().setProfileDims("c", {1, 3, 1}, {2, 3, 1}, {6, 3, 1});
    ASSERT_TRUE(runner.build());
    for (int64_t n : {1, 5})
    {
        HostTensor const a = HostTensor::random(DataType::kFLOAT, makeDims({n, 3, 4}), mRng, -2.0, 2.0);
        HostTensor const c = HostTensor::random(DataType::kFLOAT, makeDims({n, 3, 1}), mRng, -2.0, 2.0);
        auto outputs = runner.run({{"a", a}, {"c", c}});
        ASSERT_EQ(outputs.count("y"), 1U);
        HostTensor expected(DataType::kFLOAT, makeDims({n, 3, 4}));
        for (int64_t i = 0; i < n * 12; ++i)
        {
            float const sum = static_cast<float>(a.at(i)) + static_cast<float>(b.at(i % 4));
            expected.set(i, sum * static_cast<float>(c.at(i / 4)));
        }
        EXPECT_TRUE(allClose(outputs["y"], expected, 0.0, 0.0)) << "N = " << n;
    }
}

TEST_F(ElementwiseImportersTest, ModFmod0FollowsTheDivisorSign)
{
    HostTensor const a = HostTensor::random(DataType::kINT32, makeDims({4, 6}), mRng, -50.0, 50.0);
    HostTensor const b = nonZeroInts(DataType::kINT32, {4, 6}, -9, 9);
    OnnxModelBuilder model(13);
    model.addInput("a", DataType::kINT32, {4, 6});
    model.addInput("b", DataType::kINT32, {4, 6});
    model.addNode("Mod", {"a", "b"}, {"y"});
    model.addOutput("y", DataType::kINT32);
    auto outputs = runOnnxModel(model, {{"a", a}, {"b", b}});
    ASSERT_EQ(outputs.count("y"), 1U);
    for (int64_t i = 0; i < 24; ++i)
    {
        auto const x = static_cast<int64_t>(a.at(i));
        auto const d = static_cast<int64_t>(b.at(i));
        int64_t const want = ((x % d) + d) % d; // Python's sign rule
        EXPECT_EQ(static_cast<int64_t>(outputs["y"].at(i)), want) << x << " mod " << d;
    }
}

TEST_F(ElementwiseImportersTest, ModFmod1FollowsTheDividendSign)
{
    HostTensor const ai = HostTensor::random(DataType::kINT64, makeDims({10}), mRng, -50.0, 50.0);
    HostTensor const bi = nonZeroInts(DataType::kINT64, {10}, -9, 9);
    HostTensor const af = HostTensor::random(DataType::kFLOAT, makeDims({10}), mRng, -20.0, 20.0);
    HostTensor const bf = HostTensor::random(DataType::kFLOAT, makeDims({10}), mRng, 0.5, 4.0);
    HostTensor bfSigned = bf;
    for (int64_t i = 0; i < 10; i += 2)
    {
        bfSigned.set(i, -bf.at(i));
    }
    OnnxModelBuilder model(13);
    model.addInput("ai", DataType::kINT64, {10});
    model.addInput("bi", DataType::kINT64, {10});
    model.addInput("af", DataType::kFLOAT, {10});
    model.addInput("bf", DataType::kFLOAT, {10});
    model.addNode("Mod", {"ai", "bi"}, {"yi"}, {intAttr("fmod", 1)});
    model.addNode("Mod", {"af", "bf"}, {"yf"}, {intAttr("fmod", 1)});
    model.addOutput("yi", DataType::kINT64);
    model.addOutput("yf", DataType::kFLOAT);
    auto outputs = runOnnxModel(model, {{"ai", ai}, {"bi", bi}, {"af", af}, {"bf", bfSigned}});
    ASSERT_EQ(outputs.count("yi"), 1U);
    ASSERT_EQ(outputs.count("yf"), 1U);
    HostTensor expected(DataType::kFLOAT, makeDims({10}));
    for (int64_t i = 0; i < 10; ++i)
    {
        auto const x = static_cast<int64_t>(ai.at(i));
        auto const d = static_cast<int64_t>(bi.at(i));
        EXPECT_EQ(static_cast<int64_t>(outputs["yi"].at(i)), x % d) << x << " fmod " << d;
        expected.set(i, std::fmod(static_cast<float>(af.at(i)), static_cast<float>(bfSigned.at(i))));
    }
    EXPECT_TRUE(allClose(outputs["yf"], expected, 1e-5, 1e-5));
}

TEST_F(ElementwiseImportersTest, ModFmod1OnHalfIsComputedInFloat)
{
    HostTensor const a = HostTensor::random(DataType::kHALF, makeDims({12}), mRng, -30.0, 30.0);
    HostTensor b = HostTensor::random(DataType::kHALF, makeDims({12}), mRng, 0.5, 7.0);
    for (int64_t i = 1; i < 12; i += 2)
    {
        b.set(i, -b.at(i));
    }
    OnnxModelBuilder model(13);
    model.addInput("a", DataType::kHALF, {12});
    model.addInput("b", DataType::kHALF, {12});
    model.addNode("Mod", {"a", "b"}, {"y"}, {intAttr("fmod", 1)});
    model.addOutput("y", DataType::kHALF);
    auto outputs = runOnnxModel(model, {{"a", a}, {"b", b}});
    ASSERT_EQ(outputs.count("y"), 1U);
    EXPECT_EQ(outputs["y"].type, DataType::kHALF);
    HostTensor expected(DataType::kHALF, makeDims({12}));
    for (int64_t i = 0; i < 12; ++i)
    {
        expected.set(i, std::fmod(a.at(i), b.at(i))); // exact in double, then rounded to half
    }
    EXPECT_TRUE(allClose(outputs["y"], expected, 1e-3, 1e-3));
}

TEST_F(ElementwiseImportersTest, ModFmod0OnFloatsIsAnError)
{
    OnnxModelBuilder model(13);
    model.addInput("a", DataType::kFLOAT, {3});
    model.addInput("b", DataType::kFLOAT, {3});
    model.addNode("Mod", {"a", "b"}, {"y"}).set_name("floatMod");
    model.addOutput("y", DataType::kFLOAT);
    expectSingleParserError(parseOnly(model), nvonnxparser::ErrorCode::kINVALID_NODE,
        "node 'floatMod' (Mod): attribute 'fmod' is 0 but the inputs have floating-point type");
}

TEST_F(ElementwiseImportersTest, WhereBroadcastsThreeDifferentRanks)
{
    // condition [2, 1, 4], X [4], Y [3, 1] -> [2, 3, 4].
    HostTensor const cond = HostTensor::random(DataType::kBOOL, makeDims({2, 1, 4}), mRng);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({4}), mRng, -5.0, 5.0);
    HostTensor const y = HostTensor::random(DataType::kFLOAT, makeDims({3, 1}), mRng, -5.0, 5.0);
    OnnxModelBuilder model(16);
    model.addInput("cond", DataType::kBOOL, {2, 1, 4});
    model.addInput("x", DataType::kFLOAT, {4});
    model.addInput("y", DataType::kFLOAT, {3, 1});
    model.addNode("Where", {"cond", "x", "y"}, {"out"});
    model.addOutput("out", DataType::kFLOAT);
    auto outputs = runOnnxModel(model, {{"cond", cond}, {"x", x}, {"y", y}});
    ASSERT_EQ(outputs.count("out"), 1U);
    HostTensor expected(DataType::kFLOAT, makeDims({2, 3, 4}));
    for (int64_t i = 0; i < 2; ++i)
    {
        for (int64_t j = 0; j < 3; ++j)
        {
            for (int64_t k = 0; k < 4; ++k)
            {
                expected.set((i * 3 + j) * 4 + k, cond.at(i * 4 + k) != 0.0 ? x.at(k) : y.at(j));
            }
        }
    }
    EXPECT_TRUE(allClose(outputs["out"], expected, 0.0, 0.0));
}

TEST_F(ElementwiseImportersTest, Uint8ArithmeticWrapsAndComparesInRange)
{
    HostTensor const a = HostTensor::random(DataType::kUINT8, makeDims({3, 5}), mRng, 0.0, 255.0);
    HostTensor const b = HostTensor::random(DataType::kUINT8, makeDims({3, 5}), mRng, 0.0, 255.0);
    OnnxModelBuilder model(14);
    model.addInput("a", DataType::kUINT8, {3, 5});
    model.addInput("b", DataType::kUINT8, {3, 5});
    model.addNode("Sub", {"a", "b"}, {"d"});
    model.addNode("Mul", {"a", "b"}, {"p"});
    model.addNode("Greater", {"a", "b"}, {"g"});
    model.addOutput("d", DataType::kUINT8);
    model.addOutput("p", DataType::kUINT8);
    model.addOutput("g", DataType::kBOOL);
    auto outputs = runOnnxModel(model, {{"a", a}, {"b", b}});
    ASSERT_EQ(outputs.size(), 3U);
    for (int64_t i = 0; i < 15; ++i)
    {
        auto const x = static_cast<uint32_t>(a.at(i));
        auto const y = static_cast<uint32_t>(b.at(i));
        EXPECT_EQ(static_cast<uint32_t>(outputs["d"].at(i)), (x - y) & 0xFFU);
        EXPECT_EQ(static_cast<uint32_t>(outputs["p"].at(i)), (x * y) & 0xFFU);
        EXPECT_EQ(outputs["g"].at(i) != 0.0, x > y);
    }
}

TEST_F(ElementwiseImportersTest, PowMixesBaseAndExponentTypes)
{
    HostTensor const base = HostTensor::random(DataType::kINT32, makeDims({6}), mRng, 1.0, 9.0);
    HostTensor const expo = HostTensor::random(DataType::kFLOAT, makeDims({6}), mRng, 0.0, 2.5);
    HostTensor const fbase = HostTensor::random(DataType::kFLOAT, makeDims({6}), mRng, -3.0, 3.0);
    HostTensor const iexpo = HostTensor::random(DataType::kINT64, makeDims({6}), mRng, 0.0, 4.0);
    OnnxModelBuilder model(15);
    model.addInput("base", DataType::kINT32, {6});
    model.addInput("expo", DataType::kFLOAT, {6});
    model.addInput("fbase", DataType::kFLOAT, {6});
    model.addInput("iexpo", DataType::kINT64, {6});
    model.addNode("Pow", {"base", "expo"}, {"yi"});
    model.addNode("Pow", {"fbase", "iexpo"}, {"yf"});
    model.addOutput("yi", DataType::kINT32);
    model.addOutput("yf", DataType::kFLOAT);
    auto outputs = runOnnxModel(model, {{"base", base}, {"expo", expo}, {"fbase", fbase}, {"iexpo", iexpo}});
    ASSERT_EQ(outputs.size(), 2U);
    EXPECT_EQ(outputs["yi"].type, DataType::kINT32);
    HostTensor expectedF(DataType::kFLOAT, makeDims({6}));
    for (int64_t i = 0; i < 6; ++i)
    {
        float const p = std::pow(static_cast<float>(base.at(i)), static_cast<float>(expo.at(i)));
        EXPECT_EQ(static_cast<int64_t>(outputs["yi"].at(i)), static_cast<int64_t>(p)) << base.at(i) << "^" << expo.at(i);
        expectedF.set(i, std::pow(static_cast<float>(fbase.at(i)), static_cast<float>(iexpo.at(i))));
    }
    EXPECT_TRUE(allClose(outputs["yf"], expectedF, 1e-6, 1e-6));
}

TEST_F(ElementwiseImportersTest, VariadicMaxMinSumMeanBroadcast)
{
    HostTensor const a = HostTensor::random(DataType::kFLOAT, makeDims({2, 3}), mRng, -4.0, 4.0);
    HostTensor const b = HostTensor::random(DataType::kFLOAT, makeDims({3}), mRng, -4.0, 4.0);
    HostTensor const c = HostTensor::random(DataType::kFLOAT, makeDims({2, 1}), mRng, -4.0, 4.0);
    OnnxModelBuilder model(13);
    model.addInput("a", DataType::kFLOAT, {2, 3});
    model.addInput("b", DataType::kFLOAT, {3});
    model.addInput("c", DataType::kFLOAT, {2, 1});
    model.addNode("Max", {"a", "b", "c"}, {"mx"});
    model.addNode("Min", {"a", "b", "c"}, {"mn"});
    model.addNode("Sum", {"a", "b", "c"}, {"sm"});
    model.addNode("Mean", {"a", "b", "c"}, {"me"});
    for (char const* name : {"mx", "mn", "sm", "me"})
    {
        model.addOutput(name, DataType::kFLOAT);
    }
    auto outputs = runOnnxModel(model, {{"a", a}, {"b", b}, {"c", c}});
    ASSERT_EQ(outputs.size(), 4U);
    HostTensor mx(DataType::kFLOAT, makeDims({2, 3}));
    HostTensor mn = mx;
    HostTensor sm = mx;
    HostTensor me = mx;
    for (int64_t i = 0; i < 2; ++i)
    {
        for (int64_t j = 0; j < 3; ++j)
        {
            float const x = static_cast<float>(a.at(i * 3 + j));
            float const y = static_cast<float>(b.at(j));
            float const z = static_cast<float>(c.at(i));
            mx.set(i * 3 + j, std::max({x, y, z}));
            mn.set(i * 3 + j, std::min({x, y, z}));
            sm.set(i * 3 + j, x + y + z);
            me.set(i * 3 + j, (x + y + z) / 3.F);
        }
    }
    EXPECT_TRUE(allClose(outputs["mx"], mx, 0.0, 0.0));
    EXPECT_TRUE(allClose(outputs["mn"], mn, 0.0, 0.0));
    EXPECT_TRUE(allClose(outputs["sm"], sm, 1e-6, 1e-6));
    EXPECT_TRUE(allClose(outputs["me"], me, 1e-6, 1e-6));
}

TEST_F(ElementwiseImportersTest, OrEqualComparisonsAreFalseForNaN)
{
    HostTensor a = HostTensor::random(DataType::kFLOAT, makeDims({8}), mRng, -3.0, 3.0);
    HostTensor b = HostTensor::random(DataType::kFLOAT, makeDims({8}), mRng, -3.0, 3.0);
    a.set(1, std::numeric_limits<double>::quiet_NaN());
    b.set(2, std::numeric_limits<double>::quiet_NaN());
    b.set(3, a.at(3)); // an exact tie
    OnnxModelBuilder model(16);
    model.addInput("a", DataType::kFLOAT, {8});
    model.addInput("b", DataType::kFLOAT, {8});
    model.addNode("GreaterOrEqual", {"a", "b"}, {"ge"});
    model.addNode("LessOrEqual", {"a", "b"}, {"le"});
    model.addOutput("ge", DataType::kBOOL);
    model.addOutput("le", DataType::kBOOL);
    auto outputs = runOnnxModel(model, {{"a", a}, {"b", b}});
    ASSERT_EQ(outputs.size(), 2U);
    for (int64_t i = 0; i < 8; ++i)
    {
        float const x = static_cast<float>(a.at(i));
        float const y = static_cast<float>(b.at(i));
        EXPECT_EQ(outputs["ge"].at(i) != 0.0, x >= y) << i;
        EXPECT_EQ(outputs["le"].at(i) != 0.0, x <= y) << i;
    }
}

TEST_F(ElementwiseImportersTest, BitShiftUint8)
{
    HostTensor const x = HostTensor::random(DataType::kUINT8, makeDims({12}), mRng, 0.0, 255.0);
    HostTensor const s = HostTensor::random(DataType::kUINT8, makeDims({12}), mRng, 0.0, 9.0);
    OnnxModelBuilder model(11);
    model.addInput("x", DataType::kUINT8, {12});
    model.addInput("s", DataType::kUINT8, {12});
    model.addNode("BitShift", {"x", "s"}, {"l"}, {stringAttr("direction", "LEFT")});
    model.addNode("BitShift", {"x", "s"}, {"r"}, {stringAttr("direction", "RIGHT")});
    model.addOutput("l", DataType::kUINT8);
    model.addOutput("r", DataType::kUINT8);
    auto outputs = runOnnxModel(model, {{"x", x}, {"s", s}});
    ASSERT_EQ(outputs.size(), 2U);
    for (int64_t i = 0; i < 12; ++i)
    {
        auto const v = static_cast<uint32_t>(x.at(i));
        auto const n = static_cast<uint32_t>(s.at(i));
        EXPECT_EQ(static_cast<uint32_t>(outputs["l"].at(i)), (v << n) & 0xFFU) << v << " << " << n;
        EXPECT_EQ(static_cast<uint32_t>(outputs["r"].at(i)), v >> n) << v << " >> " << n;
    }
}

TEST_F(ElementwiseImportersTest, BitShiftBadDirectionIsAnError)
{
    OnnxModelBuilder model(11);
    model.addInput("x", DataType::kUINT8, {3});
    model.addNode("BitShift", {"x", "x"}, {"y"}, {stringAttr("direction", "UP")}).set_name("shifter");
    model.addOutput("y", DataType::kUINT8);
    expectParseError(model, "node 'shifter' (BitShift): attribute 'direction' must be \"LEFT\" or \"RIGHT\", "
                            "got \"UP\"");
}

TEST_F(ElementwiseImportersTest, MismatchedInputTypesAreAnError)
{
    OnnxModelBuilder model(14);
    model.addInput("a", DataType::kFLOAT, {3});
    model.addInput("b", DataType::kINT32, {3});
    model.addNode("Add", {"a", "b"}, {"y"}).set_name("mixed");
    model.addOutput("y", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model);
    EXPECT_FALSE(outcome.ok);
    EXPECT_TRUE(outcome.hasError("node 'mixed' (Add): input A has type FP32 but input B has type INT32")
        || outcome.hasError("node 'mixed' (Add): input A has type"))
        << outcome.allErrors();
}

TEST_F(ElementwiseImportersTest, LegacyBroadcastAlignsAtAxis)
{
    // Opset 6: B [3] aligned with A [2, 3, 4] at axis 1 (so B acts as [3, 1]).
    HostTensor const a = HostTensor::random(DataType::kFLOAT, makeDims({2, 3, 4}), mRng, -2.0, 2.0);
    HostTensor const b = HostTensor::random(DataType::kFLOAT, makeDims({3}), mRng, -2.0, 2.0);
    OnnxModelBuilder model(6);
    model.addInput("a", DataType::kFLOAT, {2, 3, 4});
    model.addInput("b", DataType::kFLOAT, {3});
    model.addNode("Sub", {"a", "b"}, {"y"}, {intAttr("broadcast", 1), intAttr("axis", 1)});
    model.addOutput("y", DataType::kFLOAT);
    auto outputs = runOnnxModel(model, {{"a", a}, {"b", b}});
    ASSERT_EQ(outputs.count("y"), 1U);
    HostTensor expected(DataType::kFLOAT, makeDims({2, 3, 4}));
    for (int64_t i = 0; i < 24; ++i)
    {
        expected.set(i, static_cast<float>(a.at(i)) - static_cast<float>(b.at((i / 4) % 3)));
    }
    EXPECT_TRUE(allClose(outputs["y"], expected, 0.0, 0.0));
}

TEST_F(ElementwiseImportersTest, IntegerPReluAndUnidirectionalSlope)
{
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, 3, 4}), mRng, -3.0, 3.0);
    HostTensor const slope = HostTensor::random(DataType::kFLOAT, makeDims({3, 1}), mRng, 0.1, 0.9);
    HostTensor const xi = HostTensor::random(DataType::kINT32, makeDims({5}), mRng, -20.0, 20.0);
    HostTensor const si = HostTensor::random(DataType::kINT32, makeDims({1}), mRng, 2.0, 5.0);
    OnnxModelBuilder model(16);
    model.addInput("x", DataType::kFLOAT, {2, 3, 4});
    model.addInitializer("slope", toConstant(slope));
    model.addInput("xi", DataType::kINT32, {5});
    model.addInput("si", DataType::kINT32, {1});
    model.addNode("PRelu", {"x", "slope"}, {"y"});
    model.addNode("PRelu", {"xi", "si"}, {"yi"});
    model.addOutput("y", DataType::kFLOAT);
    model.addOutput("yi", DataType::kINT32);
    auto outputs = runOnnxModel(model, {{"x", x}, {"xi", xi}, {"si", si}});
    ASSERT_EQ(outputs.size(), 2U);
    HostTensor expected(DataType::kFLOAT, makeDims({2, 3, 4}));
    for (int64_t i = 0; i < 24; ++i)
    {
        float const v = static_cast<float>(x.at(i));
        expected.set(i, v >= 0.F ? v : static_cast<float>(slope.at((i / 4) % 3)) * v);
    }
    EXPECT_TRUE(allClose(outputs["y"], expected, 1e-6, 1e-6));
    for (int64_t i = 0; i < 5; ++i)
    {
        double const v = xi.at(i);
        EXPECT_EQ(outputs["yi"].at(i), v < 0 ? v * si.at(0) : v);
    }
}

} // namespace
} // namespace kiln::test
