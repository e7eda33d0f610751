// Tests of IIfConditional on the CPU backend: a run-time condition with both outcomes against references written
// here, proof that only the taken branch runs (the other branch holds a gather whose indices are out of range
// for that run, which would fail the run if it executed), a build-time condition that keeps one branch (whose
// shapes may then differ), and every validation error.
#include "common/networkRunner.h"

#include <cmath>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

// if (c) out = gather(x, idx, axis 0) * 2  else out = x[0:2] - y
struct Conditional
{
    NetworkRunner r;
    IIfConditional* cond{nullptr};
    IIfConditionalOutputLayer* out{nullptr};

    Conditional()
    {
        ITensor* c = r.addInput("c", DataType::kBOOL, {});
        ITensor* x = r.addInput("x", DataType::kFLOAT, {4, 3});
        ITensor* y = r.addInput("y", DataType::kFLOAT, {2, 3});
        ITensor* idx = r.addInput("idx", DataType::kINT32, {2});
        cond = r.network().addIfConditional();
        cond->setName("choose");
        IConditionLayer* cl = cond->setCondition(*c);
        EXPECT_NE(cl, nullptr);
        EXPECT_EQ(cl->getConditional(), cond);
        IIfConditionalInputLayer* xin = cond->addInput(*x);
        IIfConditionalInputLayer* idxIn = cond->addInput(*idx);
        IGatherLayer* g = r.network().addGather(*xin->getOutput(0), *idxIn->getOutput(0), 0);
        g->setName("trueGather");
        IElementWiseLayer* twice
            = r.network().addElementWise(*g->getOutput(0), *g->getOutput(0), ElementWiseOperation::kSUM);
        ISliceLayer* head = r.network().addSlice(*xin->getOutput(0), makeDims({0, 0}), makeDims({2, 3}), makeDims({1, 1}));
        IElementWiseLayer* diff = r.network().addElementWise(*head->getOutput(0), *y, ElementWiseOperation::kSUB);
        out = cond->addOutput(*twice->getOutput(0), *diff->getOutput(0));
        EXPECT_NE(out, nullptr);
        EXPECT_EQ(out->getNbInputs(), 2);
        r.markOutput(out->getOutput(0), "out");
    }
};

TEST(IfConditionalLayerTest, RunTimeConditionRunsOnlyTheTakenBranch)
{
    std::mt19937 rng(31);
    Conditional t;
    ASSERT_TRUE(t.r.build()) << t.r.logger().allErrors();
    EXPECT_EQ(t.r.network().getNbLayers() > 0, true);
    auto const xs = HostTensor::random(DataType::kFLOAT, makeDims({4, 3}), rng);
    auto const ys = HostTensor::random(DataType::kFLOAT, makeDims({2, 3}), rng);
    for (int32_t trial = 0; trial < 2; ++trial)
    {
        // True: valid indices. False: indices out of range, so running the true branch would fail the run.
        int32_t const i0 = std::uniform_int_distribution<int32_t>(0, 3)(rng);
        int32_t const i1 = std::uniform_int_distribution<int32_t>(0, 3)(rng);
        auto const good = HostTensor::fromValues(DataType::kINT32, makeDims({2}), {double(i0), double(i1)});
        auto const bad = HostTensor::fromValues(DataType::kINT32, makeDims({2}), {100.0, -50.0});
        auto const yes = HostTensor::fromValues(DataType::kBOOL, makeDims({}), {1.0});
        auto const no = HostTensor::fromValues(DataType::kBOOL, makeDims({}), {0.0});

        auto outTrue = t.r.run({{"c", yes}, {"x", xs}, {"y", ys}, {"idx", good}});
        HostTensor expectTrue(DataType::kFLOAT, makeDims({2, 3}));
        for (int64_t e = 0; e < 6; ++e)
        {
            int32_t const row = e < 3 ? i0 : i1;
            float const v = static_cast<float>(xs.at(row * 3 + e % 3));
            expectTrue.set(e, v + v);
        }
        EXPECT_TRUE(kiln::test::allClose(outTrue.at("out"), expectTrue, 0, 0));

        auto outFalse = t.r.run({{"c", no}, {"x", xs}, {"y", ys}, {"idx", bad}});
        HostTensor expectFalse(DataType::kFLOAT, makeDims({2, 3}));
        for (int64_t e = 0; e < 6; ++e)
        {
            expectFalse.set(e, static_cast<float>(xs.at(e)) - static_cast<float>(ys.at(e)));
        }
        EXPECT_TRUE(kiln::test::allClose(outFalse.at("out"), expectFalse, 0, 0));
        // The same bad indices with the true branch taken do fail: the check above is meaningful.
        EXPECT_TRUE(t.r.runFails({{"c", yes}, {"x", xs}, {"y", ys}, {"idx", bad}}));
    }
}

TEST(IfConditionalLayerTest, BuildTimeConditionKeepsOneBranch)
{
    std::mt19937 rng(32);
    for (bool value : {true, false})
    {
        static bool flag = false;
        flag = value;
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 3});
        IConstantLayer* c = r.network().addConstant(Dims{0, {}}, Weights{DataType::kBOOL, &flag, 1});
        IIfConditional* cond = r.network().addIfConditional();
        cond->setCondition(*c->getOutput(0));
        IIfConditionalInputLayer* in = cond->addInput(*x);
        ITensor* neg = r.network().addUnary(*in->getOutput(0), UnaryOperation::kNEG)->getOutput(0);
        // Different shapes are fine when the condition is known at build time.
        ITensor* sl = r.network().addSlice(*in->getOutput(0), makeDims({0, 1}), makeDims({2, 2}), makeDims({1, 1}))->getOutput(0);
        r.markOutput(cond->addOutput(*neg, *sl)->getOutput(0), "out");
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        auto const xs = HostTensor::random(DataType::kFLOAT, makeDims({2, 3}), rng);
        auto out = r.run({{"x", xs}});
        HostTensor expected(DataType::kFLOAT, makeDims(value ? std::vector<int64_t>{2, 3} : std::vector<int64_t>{2, 2}));
        for (int64_t e = 0; e < expected.volume(); ++e)
        {
            expected.set(e, value ? -xs.at(e) : xs.at((e / 2) * 3 + 1 + e % 2));
        }
        EXPECT_TRUE(kiln::test::allClose(out.at("out"), expected, 0, 0)) << value;
    }
}

// ---- Validation errors ----

TEST(IfConditionalLayerErrorsTest, MissingConditionOrOutputs)
{
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {2});
        IIfConditional* cond = r.network().addIfConditional();
        cond->setName("nocond");
        EXPECT_STREQ(cond->getName(), "nocond");
        IIfConditionalInputLayer* in = cond->addInput(*x);
        r.markOutput(cond->addOutput(*in->getOutput(0), *in->getOutput(0))->getOutput(0));
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("conditional 'nocond'")) << r.logger().allErrors();
        EXPECT_TRUE(r.logger().hasError("setCondition")) << r.logger().allErrors();
    }
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {2});
        ITensor* c = r.addInput("c", DataType::kBOOL, {});
        IIfConditional* cond = r.network().addIfConditional();
        cond->setName("noout");
        cond->setCondition(*c);
        r.markOutput(r.network().addUnary(*x, UnaryOperation::kNEG)->getOutput(0));
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("conditional 'noout' has no outputs")) << r.logger().allErrors();
    }
}

TEST(IfConditionalLayerErrorsTest, SetConditionTwice)
{
    NetworkRunner r;
    ITensor* c = r.addInput("c", DataType::kBOOL, {});
    IIfConditional* cond = r.network().addIfConditional();
    cond->setName("twice");
    ASSERT_NE(cond->setCondition(*c), nullptr);
    EXPECT_EQ(cond->setCondition(*c), nullptr);
    EXPECT_TRUE(r.logger().hasError("conditional 'twice': setCondition was already called")) << r.logger().allErrors();
}

TEST(IfConditionalLayerErrorsTest, ConditionMustBeZeroDBool)
{
    NetworkRunner r;
    ITensor* c = r.addInput("c", DataType::kBOOL, {1});
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2});
    IIfConditional* cond = r.network().addIfConditional();
    cond->setName("rank1");
    cond->setCondition(*c);
    IIfConditionalInputLayer* in = cond->addInput(*x);
    r.markOutput(cond->addOutput(*in->getOutput(0), *in->getOutput(0))->getOutput(0));
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("conditional 'rank1': the condition 'c' must be a 0-D BOOL tensor"))
        << r.logger().allErrors();
}

TEST(IfConditionalLayerErrorsTest, BranchOutputsMustAgreeWithARunTimeCondition)
{
    for (int32_t variant = 0; variant < 3; ++variant)
    {
        NetworkRunner r;
        ITensor* c = r.addInput("c", DataType::kBOOL, {});
        ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 3});
        IIfConditional* cond = r.network().addIfConditional();
        cond->setName("mismatch");
        cond->setCondition(*c);
        IIfConditionalInputLayer* in = cond->addInput(*x);
        ITensor* other = nullptr;
        if (variant == 0)
        {
            other = r.network().addSlice(*in->getOutput(0), makeDims({0, 0}), makeDims({2, 2}), makeDims({1, 1}))->getOutput(0);
        }
        else if (variant == 1)
        {
            other = r.network().addCast(*in->getOutput(0), DataType::kINT32)->getOutput(0);
        }
        else
        {
            IShuffleLayer* s = r.network().addShuffle(*in->getOutput(0));
            s->setReshapeDimensions(makeDims({6}));
            other = s->getOutput(0);
        }
        r.markOutput(cond->addOutput(*in->getOutput(0), *other)->getOutput(0));
        EXPECT_FALSE(r.build()) << variant;
        EXPECT_TRUE(r.logger().hasError("conditional 'mismatch'")) << r.logger().allErrors();
        EXPECT_TRUE(r.logger().hasError(variant == 1 ? "different types" : "TensorRT requires equal shapes"))
            << variant << ": " << r.logger().allErrors();
    }
}

} // namespace
