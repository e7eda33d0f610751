// Tests of IAssertionLayer: passes when every element holds (random shapes, given or computed BOOL conditions),
// fails the run with the layer's message and name when one element is false (dynamic shapes through a profile,
// and on an engine deserialized again from its bytes), fails the build when the condition is known at build time,
// becomes a shape check for shape-tensor conditions, setMessage/getMessage, and the non-BOOL error paths.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <cmath>
#include <memory>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

std::vector<int64_t> randomShape(std::mt19937& rng)
{
    int32_t const rank = std::uniform_int_distribution<int32_t>(1, 4)(rng);
    std::vector<int64_t> s;
    for (int32_t i = 0; i < rank; ++i)
    {
        s.push_back(std::uniform_int_distribution<int64_t>(1, 5)(rng));
    }
    return s;
}

HostTensor allTrue(std::vector<int64_t> const& shape)
{
    HostTensor t(DataType::kBOOL, makeDims(shape));
    for (int64_t i = 0; i < t.volume(); ++i)
    {
        t.set(i, 1.0);
    }
    return t;
}

//! Network: out = |d|, plus an assertion on the BOOL input "c" (same shape as d) named "check".
IAssertionLayer* buildChecked(NetworkRunner& r, std::vector<int64_t> const& dims, char const* message)
{
    ITensor* c = r.addInput("c", DataType::kBOOL, dims);
    ITensor* d = r.addInput("d", DataType::kFLOAT, dims);
    IAssertionLayer* a = r.network().addAssertion(*c, message);
    if (a != nullptr)
    {
        a->setName("check");
    }
    r.markOutput(r.network().addUnary(*d, UnaryOperation::kABS)->getOutput(0), "out");
    return a;
}

void expectAbs(HostTensor const& d, HostTensor const& out)
{
    ASSERT_EQ(out.volume(), d.volume());
    for (int64_t i = 0; i < d.volume(); ++i)
    {
        EXPECT_EQ(out.at(i), std::fabs(d.at(i))) << i;
    }
}

//! Enqueues `inputs` on a fresh context of `engine`; false when shape resolution or execution fails.
bool enqueueOn(ICudaEngine& engine, std::map<std::string, HostTensor> const& inputs)
{
    std::map<std::string, HostTensor> outputs;
    return NetworkRunner::runEngine(engine, inputs, outputs);
}

class AssertionLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(AssertionLayerTest);

TEST_P(AssertionLayerTest, AddAssertionMakesALayerWithOneInputAndNoOutputs)
{
    NetworkRunner r;
    IAssertionLayer* a = buildChecked(r, {2, 3}, "first message");
    ASSERT_NE(a, nullptr) << r.logger().allErrors();
    EXPECT_EQ(a->getType(), LayerType::kASSERTION);
    EXPECT_EQ(a->getNbInputs(), 1);
    EXPECT_EQ(a->getNbOutputs(), 0);
    EXPECT_STREQ(a->getMessage(), "first message");
    a->setMessage("second message");
    EXPECT_STREQ(a->getMessage(), "second message");
    a->setMessage(nullptr);
    EXPECT_STREQ(a->getMessage(), "");
    IAssertionLayer* b = r.network().addAssertion(*r.network().getInput(0), nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_STREQ(b->getMessage(), "");
}

TEST_P(AssertionLayerTest, PassesWhenEveryElementHoldsOnRandomShapes)
{
    std::mt19937 rng(41);
    for (int32_t trial = 0; trial < 6; ++trial)
    {
        std::vector<int64_t> const shape = randomShape(rng);
        NetworkRunner r;
        ASSERT_NE(buildChecked(r, shape, "never fails"), nullptr) << r.logger().allErrors();
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        HostTensor const d = HostTensor::random(DataType::kFLOAT, makeDims(shape), rng);
        auto outs = r.run({{"c", allTrue(shape)}, {"d", d}});
        expectAbs(d, outs["out"]);
        EXPECT_FALSE(r.logger().hasError("never fails"));
    }
}

TEST_P(AssertionLayerTest, FailsAtRunTimeWithTheMessageAndNameOnADynamicInput)
{
    std::mt19937 rng(42);
    NetworkRunner r;
    IAssertionLayer* a = buildChecked(r, {-1, -1}, "stale message");
    ASSERT_NE(a, nullptr) << r.logger().allErrors();
    a->setMessage("the mask must be all true");
    r.setProfileDims("c", {1, 1}, {3, 3}, {6, 6});
    r.setProfileDims("d", {1, 1}, {3, 3}, {6, 6});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (int32_t trial = 0; trial < 5; ++trial)
    {
        std::vector<int64_t> const shape{std::uniform_int_distribution<int64_t>(1, 6)(rng),
            std::uniform_int_distribution<int64_t>(1, 6)(rng)};
        HostTensor const d = HostTensor::random(DataType::kFLOAT, makeDims(shape), rng);
        HostTensor c = allTrue(shape);
        expectAbs(d, r.run({{"c", c}, {"d", d}})["out"]);
        EXPECT_FALSE(r.logger().hasError("must be all true")) << r.logger().allErrors();

        int64_t const bad = std::uniform_int_distribution<int64_t>(0, c.volume() - 1)(rng);
        c.set(bad, 0.0);
        r.logger().clear();
        EXPECT_TRUE(r.runFails({{"c", c}, {"d", d}}));
        EXPECT_TRUE(r.logger().hasError("the mask must be all true")) << r.logger().allErrors();
        EXPECT_TRUE(r.logger().hasError("'check'")) << r.logger().allErrors();
        EXPECT_TRUE(r.logger().hasError("element " + std::to_string(bad) + " ")) << r.logger().allErrors();
        EXPECT_FALSE(r.logger().hasError("stale message"));
        r.logger().clear();
    }
}

TEST_P(AssertionLayerTest, DeserializedEngineKeepsTheAssertion)
{
    std::mt19937 rng(43);
    NetworkRunner r;
    ASSERT_NE(buildChecked(r, {4, 2}, "kept across serialization"), nullptr);
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::unique_ptr<IRuntime> runtime(createInferRuntime(r.logger()));
    ASSERT_NE(runtime, nullptr);
    std::unique_ptr<ICudaEngine> again(runtime->deserializeCudaEngine(r.engineBytes().data(), r.engineBytes().size()));
    ASSERT_NE(again, nullptr) << r.logger().allErrors();
    HostTensor const d = HostTensor::random(DataType::kFLOAT, makeDims({4, 2}), rng);
    HostTensor c = allTrue({4, 2});
    EXPECT_TRUE(enqueueOn(*again, {{"c", c}, {"d", d}})) << r.logger().allErrors();
    c.set(5, 0.0);
    r.logger().clear();
    EXPECT_FALSE(enqueueOn(*again, {{"c", c}, {"d", d}}));
    EXPECT_TRUE(r.logger().hasError("kept across serialization")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("'check'")) << r.logger().allErrors();
}

TEST_P(AssertionLayerTest, ComputedConditionFeedingNoOutputIsStillEvaluated)
{
    std::mt19937 rng(44);
    NetworkRunner r;
    ITensor* d = r.addInput("d", DataType::kFLOAT, {3, 4});
    // |d| < 2 holds for random data in [-1, 1]; the comparison's only consumer is the assertion.
    static float const two = 2.0F;
    ITensor* limit = r.network().addConstant(makeDims({1, 1}), Weights{DataType::kFLOAT, &two, 1})->getOutput(0);
    ITensor* absD = r.network().addUnary(*d, UnaryOperation::kABS)->getOutput(0);
    ITensor* ok = r.network().addElementWise(*absD, *limit, ElementWiseOperation::kLESS)->getOutput(0);
    IAssertionLayer* a = r.network().addAssertion(*ok, "values must stay below 2");
    ASSERT_NE(a, nullptr) << r.logger().allErrors();
    a->setName("range_check");
    r.markOutput(r.network().addUnary(*d, UnaryOperation::kNEG)->getOutput(0), "out");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor x = HostTensor::random(DataType::kFLOAT, makeDims({3, 4}), rng);
    auto outs = r.run({{"d", x}});
    for (int64_t i = 0; i < x.volume(); ++i)
    {
        EXPECT_EQ(outs["out"].at(i), -x.at(i));
    }
    x.set(7, -3.5);
    r.logger().clear();
    EXPECT_TRUE(r.runFails({{"d", x}}));
    EXPECT_TRUE(r.logger().hasError("values must stay below 2")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("'range_check'")) << r.logger().allErrors();
}

//! d's shape compared with `expected` (kEQUAL on the shape tensor, then kNOT when `negate`): a condition whose
//! values shape inference knows.
void addShapeAssertion(
    NetworkRunner& r, ITensor* d, std::vector<int64_t> const& expected, char const* message, bool negate = false)
{
    static std::vector<int64_t> storage;
    storage = expected;
    ITensor* shape = r.network().addShape(*d)->getOutput(0);
    ITensor* want = r.network()
                        .addConstant(makeDims({static_cast<int64_t>(storage.size())}),
                            Weights{DataType::kINT64, storage.data(), static_cast<int64_t>(storage.size())})
                        ->getOutput(0);
    ITensor* same = r.network().addElementWise(*shape, *want, ElementWiseOperation::kEQUAL)->getOutput(0);
    if (negate)
    {
        same = r.network().addUnary(*same, UnaryOperation::kNOT)->getOutput(0);
    }
    IAssertionLayer* a = r.network().addAssertion(*same, message);
    ASSERT_NE(a, nullptr) << r.logger().allErrors();
    a->setName("shape_check");
}

TEST_P(AssertionLayerTest, ConditionKnownAtBuildTimeFailsTheBuild)
{
    NetworkRunner r;
    ITensor* d = r.addInput("d", DataType::kFLOAT, {2, 3});
    addShapeAssertion(r, d, {2, 5}, "d must be 2x5");
    r.markOutput(r.network().addUnary(*d, UnaryOperation::kABS)->getOutput(0), "out");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("d must be 2x5")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("'shape_check'")) << r.logger().allErrors();
}

TEST_P(AssertionLayerTest, ConditionKnownAtBuildTimeThatHoldsBuildsAndRuns)
{
    std::mt19937 rng(45);
    NetworkRunner r;
    ITensor* d = r.addInput("d", DataType::kFLOAT, {2, 3});
    addShapeAssertion(r, d, {2, 3}, "d must be 2x3");
    r.markOutput(r.network().addUnary(*d, UnaryOperation::kABS)->getOutput(0), "out");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, 3}), rng);
    expectAbs(x, r.run({{"d", x}})["out"]);
}

TEST_P(AssertionLayerTest, ShapeConditionFailingAtAProfileShapeFailsTheBuild)
{
    NetworkRunner r;
    ITensor* d = r.addInput("d", DataType::kFLOAT, {-1, 3});
    addShapeAssertion(r, d, {4, 3}, "d must have 4 rows");
    r.markOutput(r.network().addUnary(*d, UnaryOperation::kABS)->getOutput(0), "out");
    r.setProfileDims("d", {1, 3}, {4, 3}, {8, 3});
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("d must have 4 rows")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("'shape_check'")) << r.logger().allErrors();
}

TEST_P(AssertionLayerTest, ShapeConditionIsCheckedWhenTheShapeIsKnownAtRunTime)
{
    std::mt19937 rng(46);
    NetworkRunner r;
    ITensor* d = r.addInput("d", DataType::kFLOAT, {-1, 3});
    // [rows != 3, 3 != 4]: holds at the profile's min/opt/max (1, 4, 8 rows), fails for 3 rows.
    addShapeAssertion(r, d, {3, 4}, "d must not have 3 rows", /*negate=*/true);
    r.markOutput(r.network().addUnary(*d, UnaryOperation::kABS)->getOutput(0), "out");
    r.setProfileDims("d", {1, 3}, {4, 3}, {8, 3});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (int64_t rows : {1, 2, 5, 8})
    {
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({rows, 3}), rng);
        expectAbs(x, r.run({{"d", x}})["out"]);
    }
    HostTensor const y = HostTensor::random(DataType::kFLOAT, makeDims({3, 3}), rng);
    r.logger().clear();
    EXPECT_TRUE(r.runFails({{"d", y}}));
    EXPECT_TRUE(r.logger().hasError("d must not have 3 rows")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("'shape_check'")) << r.logger().allErrors();
}

TEST_P(AssertionLayerTest, NonBoolConditionIsRejected)
{
    NetworkRunner r;
    ITensor* f = r.addInput("f", DataType::kFLOAT, {2});
    EXPECT_EQ(r.network().addAssertion(*f, "never added"), nullptr);
    EXPECT_TRUE(r.logger().hasError("addAssertion")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("'f' has type")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("must be BOOL")) << r.logger().allErrors();
}

TEST_P(AssertionLayerTest, ConditionRetypedAfterwardsFailsTheBuild)
{
    NetworkRunner r;
    ITensor* c = r.addInput("c", DataType::kBOOL, {3});
    IAssertionLayer* a = r.network().addAssertion(*c, "retyped");
    ASSERT_NE(a, nullptr);
    a->setName("retyped_check");
    c->setType(DataType::kINT32);
    r.markOutput(r.network().addIdentity(*c)->getOutput(0), "out");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("'retyped_check' (Assertion)")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("must be BOOL")) << r.logger().allErrors();
}

} // namespace
