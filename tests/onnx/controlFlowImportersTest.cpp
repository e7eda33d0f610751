// Control-flow importers: If with a run-time condition on random data (both outcomes; an IIfConditional that runs
// only the taken branch), Loop unrolled for a constant trip count with carried state and scan outputs, Loop stopped
// by a data-dependent condition, Loop with a run-time M or no M (an ILoop), Scan forward and reverse, and the error
// paths (branches of different types or shapes, ...), and a loop beyond the unrolling limit (an ILoop). References
// are computed in the test.
#include "onnxTestModels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

::onnx::AttributeProto graphAttr(std::string const& name, ::onnx::GraphProto const& g)
{
    ::onnx::AttributeProto a;
    a.set_name(name);
    a.set_type(::onnx::AttributeProto::GRAPH);
    *a.mutable_g() = g;
    return a;
}

HostTensor boolScalar(bool value)
{
    return HostTensor::fromValues(DataType::kBOOL, makeDims({}), {value ? 1.0 : 0.0});
}

class IfRunTimeTest : public ::testing::TestWithParam<bool>
{
};

TEST_P(IfRunTimeTest, SelectsTheBranchChosenAtRunTime)
{
    std::mt19937 rng(GetParam() ? 11 : 12);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, 3}), rng);
    HostTensor const k = HostTensor::random(DataType::kFLOAT, makeDims({3}), rng);
    OnnxModelBuilder thenB(13, "then");
    thenB.addNode("Mul", {"x", "x"}, {"thenOut"});
    thenB.addOutput("thenOut", DataType::kFLOAT);
    OnnxModelBuilder elseB(13, "else");
    elseB.addInitializer("k", toConstant(k));
    elseB.addNode("Sub", {"x", "k"}, {"elseOut"});
    elseB.addOutput("elseOut", DataType::kFLOAT);
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2, 3});
    model.addInput("cond", DataType::kBOOL, {});
    model.addNode("If", {"cond"}, {"y"},
        {graphAttr("then_branch", thenB.model().graph()), graphAttr("else_branch", elseB.model().graph())});
    model.addOutput("y", DataType::kFLOAT);
    auto outputs = runOnnxModel(model, {{"x", x}, {"cond", boolScalar(GetParam())}});
    ASSERT_EQ(outputs.count("y"), 1U);
    for (int64_t i = 0; i < 6; ++i)
    {
        float const xv = static_cast<float>(x.at(i));
        float const expected = GetParam() ? xv * xv : xv - static_cast<float>(k.at(i % 3));
        EXPECT_EQ(static_cast<float>(outputs["y"].at(i)), expected) << i;
    }
}

INSTANTIATE_TEST_SUITE_P(Outcomes, IfRunTimeTest, ::testing::Values(true, false));

TEST(ControlFlowImportersTest, IfBranchesOfDifferentTypesAreAnError)
{
    OnnxModelBuilder thenB(13, "then");
    thenB.addNode("Identity", {"x"}, {"t"});
    thenB.addOutput("t", DataType::kFLOAT);
    OnnxModelBuilder elseB(13, "else");
    elseB.addNode("Cast", {"x"}, {"e"}, {intAttr("to", ::onnx::TensorProto::INT32)});
    elseB.addOutput("e", DataType::kINT32);
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {3});
    model.addInput("cond", DataType::kBOOL, {});
    model.addNode("If", {"cond"}, {"y"},
        {graphAttr("then_branch", thenB.model().graph()), graphAttr("else_branch", elseB.model().graph())})
        .set_name("typed");
    model.addOutput("y", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model);
    ASSERT_FALSE(outcome.ok);
    EXPECT_EQ(outcome.errors[0].code, nvonnxparser::ErrorCode::kINVALID_NODE);
    EXPECT_TRUE(outcome.hasError("node 'typed' (If): output 0 ('y'): then_branch and else_branch produce different "
                                 "element types"))
        << outcome.allErrors();
}

//! Loop body: y_out = y_in * a + iter, scan_out = y_out; cond_out = Less(ReduceSum(y_out), limit) when `limit`
//! is set, otherwise cond_in.
::onnx::GraphProto loopBody(bool dataDependentCond)
{
    OnnxModelBuilder body(13, "body");
    body.addInput("iter", DataType::kINT64, {});
    body.addInput("cond_in", DataType::kBOOL, {});
    body.addInput("y_in", DataType::kFLOAT, {3});
    body.addNode("Mul", {"y_in", "a"}, {"scaled"});
    body.addNode("Cast", {"iter"}, {"iter_f"}, {intAttr("to", ::onnx::TensorProto::FLOAT)});
    body.addNode("Add", {"scaled", "iter_f"}, {"y_out"});
    body.addNode("Identity", {"y_out"}, {"scan_out"});
    if (dataDependentCond)
    {
        body.addNode("ReduceSum", {"y_out"}, {"sum"}, {intAttr("keepdims", 0)});
        body.addNode("Less", {"sum", "limit"}, {"cond_out"});
    }
    else
    {
        body.addNode("Identity", {"cond_in"}, {"cond_out"});
    }
    body.addOutput("cond_out", DataType::kBOOL);
    body.addOutput("y_out", DataType::kFLOAT);
    if (!dataDependentCond)
    {
        body.addOutput("scan_out", DataType::kFLOAT);
    }
    return body.model().graph();
}

TEST(ControlFlowImportersTest, LoopWithConstantTripCountCarriesStateAndStacksScans)
{
    std::mt19937 rng(21);
    int64_t const trips = 5;
    HostTensor const y0 = HostTensor::random(DataType::kFLOAT, makeDims({3}), rng);
    HostTensor const a = HostTensor::random(DataType::kFLOAT, makeDims({3}), rng);
    OnnxModelBuilder model(13);
    model.addInput("y0", DataType::kFLOAT, {3});
    model.addInput("a", DataType::kFLOAT, {3});
    model.addInitializer("m", OnnxConstant::fromInt64({trips}, {}));
    OnnxConstant t;
    t.type = DataType::kBOOL;
    t.bytes = {1};
    model.addInitializer("go", t);
    model.addNode("Loop", {"m", "go", "y0"}, {"y", "scans"}, {graphAttr("body", loopBody(false))});
    model.addOutput("y", DataType::kFLOAT);
    model.addOutput("scans", DataType::kFLOAT);
    auto outputs = runOnnxModel(model, {{"y0", y0}, {"a", a}});
    ASSERT_EQ(outputs.count("y"), 1U);
    ASSERT_EQ(outputs.count("scans"), 1U);
    std::vector<float> y{static_cast<float>(y0.at(0)), static_cast<float>(y0.at(1)), static_cast<float>(y0.at(2))};
    std::vector<float> scans;
    for (int64_t i = 0; i < trips; ++i)
    {
        for (int64_t j = 0; j < 3; ++j)
        {
            y[j] = y[j] * static_cast<float>(a.at(j)) + static_cast<float>(i);
            scans.push_back(y[j]);
        }
    }
    ASSERT_EQ(outputs["scans"].dims.nbDims, 2);
    EXPECT_EQ(outputs["scans"].dims.d[0], trips);
    for (size_t i = 0; i < scans.size(); ++i)
    {
        EXPECT_EQ(static_cast<float>(outputs["scans"].at(static_cast<int64_t>(i))), scans[i]) << i;
    }
    for (int64_t j = 0; j < 3; ++j)
    {
        EXPECT_EQ(static_cast<float>(outputs["y"].at(j)), y[static_cast<size_t>(j)]);
    }
}

TEST(ControlFlowImportersTest, LoopWithDataDependentConditionFreezesState)
{
    std::mt19937 rng(22);
    std::uniform_real_distribution<float> dist(0.5F, 1.0F);
    int64_t const trips = 8;
    for (int32_t stopAfter : {1, 3, 8})
    {
        std::vector<double> y0v{dist(rng), dist(rng), dist(rng)};
        std::vector<double> av{1.0 + dist(rng), 1.0 + dist(rng), 1.0 + dist(rng)};
        // Sums after each iteration; the limit lies midway between two so rounding cannot flip the decision.
        std::vector<float> y{static_cast<float>(y0v[0]), static_cast<float>(y0v[1]), static_cast<float>(y0v[2])};
        std::vector<float> sums;
        for (int64_t i = 0; i < trips; ++i)
        {
            for (size_t j = 0; j < 3; ++j)
            {
                y[j] = y[j] * static_cast<float>(av[j]) + static_cast<float>(i);
            }
            sums.push_back(y[0] + y[1] + y[2]);
        }
        float const limit = stopAfter < trips
            ? 0.5F * (sums[static_cast<size_t>(stopAfter - 1)] + sums[static_cast<size_t>(stopAfter)])
            : 1e30F;
        OnnxModelBuilder model(13);
        model.addInput("y0", DataType::kFLOAT, {3});
        model.addInput("a", DataType::kFLOAT, {3});
        model.addInput("limit", DataType::kFLOAT, {});
        model.addInitializer("m", OnnxConstant::fromInt64({trips}, {}));
        model.addNode("Loop", {"m", "", "y0"}, {"y"}, {graphAttr("body", loopBody(true))});
        model.addOutput("y", DataType::kFLOAT);
        auto outputs = runOnnxModel(model,
            {{"y0", HostTensor::fromValues(DataType::kFLOAT, makeDims({3}), y0v)},
                {"a", HostTensor::fromValues(DataType::kFLOAT, makeDims({3}), av)},
                {"limit", HostTensor::fromValues(DataType::kFLOAT, makeDims({}), {limit})}});
        ASSERT_EQ(outputs.count("y"), 1U);
        // Reference loop: ONNX checks cond_out after each iteration, so the iteration that crosses the limit runs.
        std::vector<float> expected{static_cast<float>(y0v[0]), static_cast<float>(y0v[1]), static_cast<float>(y0v[2])};
        int64_t ran = 0;
        for (int64_t i = 0; i < trips; ++i)
        {
            for (size_t j = 0; j < 3; ++j)
            {
                expected[j] = expected[j] * static_cast<float>(av[j]) + static_cast<float>(i);
            }
            ++ran;
            if (!(expected[0] + expected[1] + expected[2] < limit))
            {
                break;
            }
        }
        EXPECT_EQ(ran, std::min<int64_t>(stopAfter + 1, trips));
        for (int64_t j = 0; j < 3; ++j)
        {
            EXPECT_EQ(static_cast<float>(outputs["y"].at(j)), expected[static_cast<size_t>(j)])
                << "stop after " << stopAfter << ", element " << j;
        }
    }
}

//! Reference of loopBody(false) over `trips` iterations: the final y and the stacked scan outputs.
std::pair<std::vector<float>, std::vector<float>> loopReference(HostTensor const& y0, HostTensor const& a, int64_t trips)
{
    std::vector<float> y{static_cast<float>(y0.at(0)), static_cast<float>(y0.at(1)), static_cast<float>(y0.at(2))};
    std::vector<float> scans;
    for (int64_t i = 0; i < trips; ++i)
    {
        for (size_t j = 0; j < 3; ++j)
        {
            y[j] = y[j] * static_cast<float>(a.at(static_cast<int64_t>(j))) + static_cast<float>(i);
            scans.push_back(y[j]);
        }
    }
    return {y, scans};
}

// M is a graph input known only at run time: the Loop becomes an ILoop, and one engine runs different trip counts
// (the scan output's length follows M).
TEST(ControlFlowImportersTest, LoopWithRunTimeTripCountUsesILoop)
{
    std::mt19937 rng(23);
    HostTensor const y0 = HostTensor::random(DataType::kFLOAT, makeDims({3}), rng);
    HostTensor const a = HostTensor::random(DataType::kFLOAT, makeDims({3}), rng);
    for (bool withScan : {true, false})
    {
        OnnxModelBuilder model(13);
        model.addInput("y0", DataType::kFLOAT, {3});
        model.addInput("a", DataType::kFLOAT, {3});
        model.addInput("m", DataType::kINT64, {});
        if (withScan)
        {
            model.addNode("Loop", {"m", "", "y0"}, {"y", "scans"}, {graphAttr("body", loopBody(false))});
            model.addOutput("y", DataType::kFLOAT);
            model.addOutput("scans", DataType::kFLOAT);
        }
        else
        {
            model.addNode("Loop", {"m", "", "y0"}, {"y"}, {graphAttr("body", loopBody(false))});
            model.addOutput("y", DataType::kFLOAT);
        }
        OnnxRunner runner;
        ASSERT_TRUE(runner.parse(model));
        bool hasLoop = false;
        for (int32_t i = 0; i < runner.runner().network().getNbLayers(); ++i)
        {
            hasLoop = hasLoop || runner.runner().network().getLayer(i)->getType() == nvinfer1::LayerType::kRECURRENCE;
        }
        EXPECT_TRUE(hasLoop);
        if (withScan)
        {
            runner.runner().setProfileValues("m", {0}, {4}, {16});
        }
        ASSERT_TRUE(runner.build()) << runner.runner().logger().allErrors();
        for (int64_t trips : {4, 2, 7})
        {
            auto outputs = runner.run({{"y0", y0}, {"a", a},
                {"m", HostTensor::fromValues(DataType::kINT64, makeDims({}), {static_cast<double>(trips)})}});
            auto const [y, scans] = loopReference(y0, a, trips);
            for (int64_t j = 0; j < 3; ++j)
            {
                EXPECT_EQ(static_cast<float>(outputs["y"].at(j)), y[static_cast<size_t>(j)]) << trips;
            }
            if (withScan)
            {
                ASSERT_EQ(outputs["scans"].dims.nbDims, 2);
                ASSERT_EQ(outputs["scans"].dims.d[0], trips);
                for (size_t i = 0; i < scans.size(); ++i)
                {
                    EXPECT_EQ(static_cast<float>(outputs["scans"].at(static_cast<int64_t>(i))), scans[i]) << trips;
                }
            }
        }
    }
}

// No trip count: the loop runs while its data-dependent condition holds (an ILoop with a kWHILE trip limit).
TEST(ControlFlowImportersTest, LoopEndedByItsConditionOnlyUsesILoop)
{
    std::mt19937 rng(24);
    std::uniform_real_distribution<float> dist(0.5F, 1.0F);
    for (int32_t stopAfter : {1, 4})
    {
        std::vector<double> y0v{dist(rng), dist(rng), dist(rng)};
        std::vector<double> av{1.0 + dist(rng), 1.0 + dist(rng), 1.0 + dist(rng)};
        std::vector<float> y{static_cast<float>(y0v[0]), static_cast<float>(y0v[1]), static_cast<float>(y0v[2])};
        std::vector<float> sums;
        for (int64_t i = 0; i <= stopAfter; ++i)
        {
            for (size_t j = 0; j < 3; ++j)
            {
                y[j] = y[j] * static_cast<float>(av[j]) + static_cast<float>(i);
            }
            sums.push_back(y[0] + y[1] + y[2]);
        }
        float const limit = 0.5F * (sums[static_cast<size_t>(stopAfter - 1)] + sums[static_cast<size_t>(stopAfter)]);
        OnnxModelBuilder model(13);
        model.addInput("y0", DataType::kFLOAT, {3});
        model.addInput("a", DataType::kFLOAT, {3});
        model.addInput("limit", DataType::kFLOAT, {});
        model.addInput("go", DataType::kBOOL, {});
        model.addNode("Loop", {"", "go", "y0"}, {"y"}, {graphAttr("body", loopBody(true))});
        model.addOutput("y", DataType::kFLOAT);
        for (bool go : {true, false})
        {
            auto outputs = runOnnxModel(model,
                {{"y0", HostTensor::fromValues(DataType::kFLOAT, makeDims({3}), y0v)},
                    {"a", HostTensor::fromValues(DataType::kFLOAT, makeDims({3}), av)},
                    {"limit", HostTensor::fromValues(DataType::kFLOAT, makeDims({}), {limit})}, {"go", boolScalar(go)}});
            ASSERT_EQ(outputs.count("y"), 1U);
            std::vector<float> expected{static_cast<float>(y0v[0]), static_cast<float>(y0v[1]), static_cast<float>(y0v[2])};
            for (int64_t i = 0; go; ++i)
            {
                for (size_t j = 0; j < 3; ++j)
                {
                    expected[j] = expected[j] * static_cast<float>(av[j]) + static_cast<float>(i);
                }
                go = expected[0] + expected[1] + expected[2] < limit;
            }
            for (int64_t j = 0; j < 3; ++j)
            {
                EXPECT_EQ(static_cast<float>(outputs["y"].at(j)), expected[static_cast<size_t>(j)]) << stopAfter;
            }
        }
    }
}

// A run-time condition with branch outputs of one shape becomes an IIfConditional, and only the taken branch runs:
// the else branch gathers with indices that are out of range whenever the condition is true.
TEST(ControlFlowImportersTest, IfWithRunTimeConditionRunsOnlyTheTakenBranch)
{
    std::mt19937 rng(25);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({4}), rng);
    OnnxModelBuilder thenB(13, "then");
    thenB.addNode("Neg", {"x"}, {"t"});
    thenB.addOutput("t", DataType::kFLOAT);
    OnnxModelBuilder elseB(13, "else");
    elseB.addNode("Gather", {"x", "idx"}, {"e"});
    elseB.addOutput("e", DataType::kFLOAT);
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {4});
    model.addInput("idx", DataType::kINT64, {4});
    model.addInput("cond", DataType::kBOOL, {});
    model.addNode("If", {"cond"}, {"y"},
        {graphAttr("then_branch", thenB.model().graph()), graphAttr("else_branch", elseB.model().graph())});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    bool hasConditional = false;
    for (int32_t i = 0; i < runner.runner().network().getNbLayers(); ++i)
    {
        hasConditional = hasConditional
            || runner.runner().network().getLayer(i)->getType() == nvinfer1::LayerType::kCONDITIONAL_OUTPUT;
    }
    EXPECT_TRUE(hasConditional);
    ASSERT_TRUE(runner.build()) << runner.runner().logger().allErrors();
    HostTensor const bad = HostTensor::fromValues(DataType::kINT64, makeDims({4}), {9, -9, 40, 7});
    std::vector<double> perm{3, 1, 0, 2};
    std::shuffle(perm.begin(), perm.end(), rng);
    HostTensor const good = HostTensor::fromValues(DataType::kINT64, makeDims({4}), perm);
    auto yes = runner.run({{"x", x}, {"idx", bad}, {"cond", boolScalar(true)}});
    auto no = runner.run({{"x", x}, {"idx", good}, {"cond", boolScalar(false)}});
    for (int64_t i = 0; i < 4; ++i)
    {
        EXPECT_EQ(static_cast<float>(yes["y"].at(i)), -static_cast<float>(x.at(i)));
        EXPECT_EQ(static_cast<float>(no["y"].at(i)), static_cast<float>(x.at(static_cast<int64_t>(perm[i]))));
    }
    EXPECT_TRUE(runner.runner().runFails({{"x", x}, {"idx", bad}, {"cond", boolScalar(false)}}));
}

// A parse-time trip count beyond the unrolling limit: an ILoop instead of 5000 body copies.
TEST(ControlFlowImportersTest, LoopBeyondTheUnrollingLimitUsesILoop)
{
    std::mt19937 rng(27);
    int64_t const trips = 5000;
    HostTensor const y0 = HostTensor::random(DataType::kFLOAT, makeDims({3}), rng);
    HostTensor const a = HostTensor::random(DataType::kFLOAT, makeDims({3}), rng, -0.5, 0.5);
    OnnxModelBuilder model(13);
    model.addInput("y0", DataType::kFLOAT, {3});
    model.addInput("a", DataType::kFLOAT, {3});
    model.addInitializer("m", OnnxConstant::fromInt64({trips}, {}));
    model.addNode("Loop", {"m", "", "y0"}, {"y", "s"}, {graphAttr("body", loopBody(false))});
    model.addOutput("y", DataType::kFLOAT);
    model.addOutput("s", DataType::kFLOAT);
    auto outputs = runOnnxModel(model, {{"y0", y0}, {"a", a}});
    auto const [y, scans] = loopReference(y0, a, trips);
    ASSERT_EQ(outputs["s"].dims.nbDims, 2);
    ASSERT_EQ(outputs["s"].dims.d[0], trips);
    for (size_t i = 0; i < scans.size(); ++i)
    {
        ASSERT_EQ(static_cast<float>(outputs["s"].at(static_cast<int64_t>(i))), scans[i]) << i;
    }
    for (int64_t j = 0; j < 3; ++j)
    {
        EXPECT_EQ(static_cast<float>(outputs["y"].at(j)), y[static_cast<size_t>(j)]);
    }
}

TEST(ControlFlowImportersTest, IfBranchesWithIncompatibleShapesAreUnsupported)
{
    OnnxModelBuilder thenB(13, "then");
    thenB.addNode("Identity", {"x"}, {"t"});
    thenB.addOutput("t", DataType::kFLOAT);
    OnnxModelBuilder elseB(13, "else");
    elseB.addInitializer("e", OnnxConstant::fromFloat({1, 2}, {2}));
    elseB.addOutput("e", DataType::kFLOAT);
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {3});
    model.addInput("cond", DataType::kBOOL, {});
    model.addNode("If", {"cond"}, {"y"},
        {graphAttr("then_branch", thenB.model().graph()), graphAttr("else_branch", elseB.model().graph())})
        .set_name("shapes");
    model.addOutput("y", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model);
    ASSERT_FALSE(outcome.ok);
    EXPECT_EQ(outcome.errors[0].code, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE);
    EXPECT_TRUE(outcome.hasError("node 'shapes' (If): output 0 ('y'): the branches produce shapes that do not "
                                 "broadcast"))
        << outcome.allErrors();
}

TEST(ControlFlowImportersTest, LoopWithRunTimeConditionAndUndeclaredScanLengthIsUnsupported)
{
    OnnxModelBuilder model(13);
    model.addInput("y0", DataType::kFLOAT, {3});
    model.addInput("a", DataType::kFLOAT, {3});
    model.addInput("go", DataType::kBOOL, {});
    model.addInitializer("m", OnnxConstant::fromInt64({3}, {}));
    model.addNode("Loop", {"m", "go", "y0"}, {"y", "s"}, {graphAttr("body", loopBody(false))}).set_name("early");
    model.addOutput("y", DataType::kFLOAT);
    model.addOutput("s", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model);
    ASSERT_FALSE(outcome.ok);
    EXPECT_EQ(outcome.errors[0].code, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE);
    EXPECT_TRUE(outcome.hasError("node 'early' (Loop): a Loop whose condition is computed at run time has scan "
                                 "outputs of a run-time length"))
        << outcome.allErrors();
}

TEST(ControlFlowImportersTest, IfInsideALoopBodyIsExpandedPerIteration)
{
    std::mt19937 rng(24);
    int64_t const trips = 3;
    HostTensor const y0 = HostTensor::random(DataType::kFLOAT, makeDims({3}), rng);
    HostTensor const a = HostTensor::random(DataType::kFLOAT, makeDims({3}), rng);
    OnnxModelBuilder thenB(13, "then");
    thenB.addNode("Add", {"y_in", "a"}, {"t"});
    thenB.addOutput("t", DataType::kFLOAT);
    OnnxModelBuilder elseB(13, "else");
    elseB.addNode("Mul", {"y_in", "a"}, {"e"});
    elseB.addOutput("e", DataType::kFLOAT);
    OnnxModelBuilder body(13, "body");
    body.addInput("iter", DataType::kINT64, {});
    body.addInput("cond_in", DataType::kBOOL, {});
    body.addInput("y_in", DataType::kFLOAT, {3});
    body.addNode("If", {"pick"}, {"y_out"},
        {graphAttr("then_branch", thenB.model().graph()), graphAttr("else_branch", elseB.model().graph())});
    body.addNode("Identity", {"cond_in"}, {"cond_out"});
    body.addOutput("cond_out", DataType::kBOOL);
    body.addOutput("y_out", DataType::kFLOAT);
    for (bool pick : {true, false})
    {
        OnnxModelBuilder model(13);
        model.addInput("y0", DataType::kFLOAT, {3});
        model.addInput("a", DataType::kFLOAT, {3});
        model.addInput("pick", DataType::kBOOL, {});
        model.addInitializer("m", OnnxConstant::fromInt64({trips}, {}));
        model.addNode("Loop", {"m", "", "y0"}, {"y"}, {graphAttr("body", body.model().graph())});
        model.addOutput("y", DataType::kFLOAT);
        auto outputs = runOnnxModel(model, {{"y0", y0}, {"a", a}, {"pick", boolScalar(pick)}});
        ASSERT_EQ(outputs.count("y"), 1U);
        for (int64_t j = 0; j < 3; ++j)
        {
            float y = static_cast<float>(y0.at(j));
            for (int64_t i = 0; i < trips; ++i)
            {
                y = pick ? y + static_cast<float>(a.at(j)) : y * static_cast<float>(a.at(j));
            }
            EXPECT_EQ(static_cast<float>(outputs["y"].at(j)), y) << "pick " << pick << ", element " << j;
        }
    }
}

class ScanTest : public ::testing::TestWithParam<bool>
{
};

TEST_P(ScanTest, UnrollsOverTheSequence)
{
    bool const reverse = GetParam();
    std::mt19937 rng(reverse ? 31 : 32);
    int64_t const steps = 4;
    HostTensor const s0 = HostTensor::random(DataType::kFLOAT, makeDims({2}), rng);
    // Sequence along axis 1: x is [2, steps].
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, steps}), rng);
    OnnxModelBuilder body(11, "body");
    body.addInput("s_in", DataType::kFLOAT, {2});
    body.addInput("x_t", DataType::kFLOAT, {2});
    body.addNode("Mul", {"s_in", "x_t"}, {"prod"});
    body.addNode("Add", {"prod", "x_t"}, {"s_out"});
    body.addNode("Sub", {"s_out", "s_in"}, {"scan_out"});
    body.addOutput("s_out", DataType::kFLOAT);
    body.addOutput("scan_out", DataType::kFLOAT);
    OnnxModelBuilder model(11);
    model.addInput("s0", DataType::kFLOAT, {2});
    model.addInput("x", DataType::kFLOAT, {2, steps});
    model.addNode("Scan", {"s0", "x"}, {"s", "z"},
        {graphAttr("body", body.model().graph()), intAttr("num_scan_inputs", 1), intsAttr("scan_input_axes", {1}),
            intsAttr("scan_input_directions", {reverse ? 1 : 0}), intsAttr("scan_output_axes", {-1}),
            intsAttr("scan_output_directions", {reverse ? 1 : 0})});
    model.addOutput("s", DataType::kFLOAT);
    model.addOutput("z", DataType::kFLOAT);
    auto outputs = runOnnxModel(model, {{"s0", s0}, {"x", x}});
    ASSERT_EQ(outputs.count("z"), 1U);
    std::vector<float> s{static_cast<float>(s0.at(0)), static_cast<float>(s0.at(1))};
    std::vector<std::vector<float>> z(static_cast<size_t>(steps), std::vector<float>(2));
    for (int64_t t = 0; t < steps; ++t)
    {
        int64_t const idx = reverse ? steps - 1 - t : t;
        for (int64_t j = 0; j < 2; ++j)
        {
            float const xv = static_cast<float>(x.at(j * steps + idx));
            float const next = s[j] * xv + xv;
            // Reverse scan outputs are prepended: step t lands at position steps - 1 - t.
            z[static_cast<size_t>(reverse ? steps - 1 - t : t)][static_cast<size_t>(j)] = next - s[j];
            s[j] = next;
        }
    }
    ASSERT_EQ(outputs["z"].dims.nbDims, 2);
    EXPECT_EQ(outputs["z"].dims.d[0], 2);
    EXPECT_EQ(outputs["z"].dims.d[1], steps);
    for (int64_t j = 0; j < 2; ++j)
    {
        EXPECT_EQ(static_cast<float>(outputs["s"].at(j)), s[static_cast<size_t>(j)]);
        for (int64_t t = 0; t < steps; ++t)
        {
            EXPECT_EQ(static_cast<float>(outputs["z"].at(j * steps + t)),
                z[static_cast<size_t>(t)][static_cast<size_t>(j)])
                << j << "," << t;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Directions, ScanTest, ::testing::Values(false, true));

// A sequence length known only at run time: the Scan's ILoop takes its trip count from the input's shape.
TEST(ControlFlowImportersTest, ScanWithRunTimeSequenceLengthUsesTheInputShape)
{
    std::mt19937 rng(26);
    OnnxModelBuilder body(11, "body");
    body.addInput("s_in", DataType::kFLOAT, {2});
    body.addInput("x_t", DataType::kFLOAT, {2});
    body.addNode("Add", {"s_in", "x_t"}, {"s_out"});
    body.addNode("Mul", {"s_out", "x_t"}, {"y_t"});
    body.addOutput("s_out", DataType::kFLOAT);
    body.addOutput("y_t", DataType::kFLOAT);
    OnnxModelBuilder model(11);
    model.addInput("s0", DataType::kFLOAT, {2});
    model.addInput("x", DataType::kFLOAT, {-1, 2});
    model.addNode("Scan", {"s0", "x"}, {"s", "y"},
        {graphAttr("body", body.model().graph()), intAttr("num_scan_inputs", 1)});
    model.addOutput("s", DataType::kFLOAT);
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileDims("x", {0, 2}, {3, 2}, {8, 2});
    ASSERT_TRUE(runner.build()) << runner.runner().logger().allErrors();
    HostTensor const s0 = HostTensor::random(DataType::kFLOAT, makeDims({2}), rng);
    for (int64_t length : {3, 6, 0})
    {
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({length, 2}), rng);
        auto outputs = runner.run({{"s0", s0}, {"x", x}});
        std::vector<float> s{static_cast<float>(s0.at(0)), static_cast<float>(s0.at(1))};
        ASSERT_EQ(outputs["y"].dims.d[0], length);
        for (int64_t t = 0; t < length; ++t)
        {
            for (int64_t j = 0; j < 2; ++j)
            {
                float const xv = static_cast<float>(x.at(t * 2 + j));
                s[static_cast<size_t>(j)] += xv;
                EXPECT_EQ(static_cast<float>(outputs["y"].at(t * 2 + j)), s[static_cast<size_t>(j)] * xv) << length;
            }
        }
        EXPECT_EQ(static_cast<float>(outputs["s"].at(0)), s[0]) << length;
        EXPECT_EQ(static_cast<float>(outputs["s"].at(1)), s[1]) << length;
    }
}

} // namespace
} // namespace kiln::test
