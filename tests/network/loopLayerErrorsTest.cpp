// Validation errors of ILoop, each naming the loop and the layer: no trip limit, two trip limits of one kind, a
// recurrence without a next value, a next value of another shape or type, a body tensor used outside the loop,
// iterator axis out of range, a concatenation length that is not a 0-D INT32/INT64 shape tensor, a bad trip limit
// type, nested loops, and a corrupt loop in an engine.
#include "common/networkRunner.h"
#include "engine/engineReader.h"
#include "engine/engineWriter.h"
#include "engine/planValidation.h"

#include <memory>

namespace
{
using namespace nvinfer1;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

//! A 0-D INT32 constant (the storage must outlive the build).
ITensor* scalarInt(NetworkRunner& r, int32_t const* value)
{
    IConstantLayer* c = r.network().addConstant(Dims{0, {}}, Weights{DataType::kINT32, value, 1});
    return c == nullptr ? nullptr : c->getOutput(0);
}

struct SimpleLoop
{
    ILoop* loop{nullptr};
    IRecurrenceLayer* rec{nullptr};
    ITensor* next{nullptr};
};

SimpleLoop simpleLoop(NetworkRunner& r, bool withLimit = true)
{
    static int32_t const kTrips = 3;
    SimpleLoop s;
    ITensor* x = r.network().getNbInputs() > 0 ? r.network().getInput(0) : r.addInput("x", DataType::kFLOAT, {2, 2});
    s.loop = r.network().addLoop();
    s.loop->setName("simple");
    if (withLimit)
    {
        s.loop->addTripLimit(*scalarInt(r, &kTrips), TripLimit::kCOUNT);
    }
    s.rec = s.loop->addRecurrence(*x);
    s.next = r.network().addUnary(*s.rec->getOutput(0), UnaryOperation::kNEG)->getOutput(0);
    return s;
}

TEST(LoopLayerErrorsTest, MissingTripLimit)
{
    NetworkRunner r;
    SimpleLoop s = simpleLoop(r, false);
    s.rec->setInput(1, *s.next);
    r.markOutput(s.loop->addLoopOutput(*s.rec->getOutput(0), LoopOutput::kLAST_VALUE)->getOutput(0));
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("loop 'simple' has no trip limit")) << r.logger().allErrors();
}

TEST(LoopLayerErrorsTest, SecondTripLimitOfOneKind)
{
    static int32_t const kTrips = 2;
    NetworkRunner r;
    SimpleLoop s = simpleLoop(r);
    EXPECT_EQ(s.loop->addTripLimit(*scalarInt(r, &kTrips), TripLimit::kCOUNT), nullptr);
    EXPECT_TRUE(r.logger().hasError("loop 'simple': addTripLimit: the loop already has a kCOUNT trip limit"))
        << r.logger().allErrors();
}

TEST(LoopLayerErrorsTest, RecurrenceWithoutNextValue)
{
    NetworkRunner r;
    SimpleLoop s = simpleLoop(r);
    s.rec->setName("state");
    r.markOutput(s.loop->addLoopOutput(*s.rec->getOutput(0), LoopOutput::kLAST_VALUE)->getOutput(0));
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("loop 'simple': recurrence layer 'state' (Recurrence) has no next value"))
        << r.logger().allErrors();
}

TEST(LoopLayerErrorsTest, NextValueShapeOrTypeDiffers)
{
    for (bool typeCase : {false, true})
    {
        NetworkRunner r;
        SimpleLoop s = simpleLoop(r);
        ITensor* bad = nullptr;
        if (typeCase)
        {
            bad = r.network().addCast(*s.next, DataType::kINT32)->getOutput(0);
        }
        else
        {
            ISliceLayer* sl = r.network().addSlice(*s.next, makeDims({0, 0}), makeDims({1, 2}), makeDims({1, 1}));
            bad = sl->getOutput(0);
        }
        s.rec->setInput(1, *bad);
        r.markOutput(s.loop->addLoopOutput(*s.rec->getOutput(0), LoopOutput::kLAST_VALUE)->getOutput(0));
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("differs from the initial value")) << r.logger().allErrors();
        EXPECT_TRUE(r.logger().hasError("loop 'simple'")) << r.logger().allErrors();
    }
}

TEST(LoopLayerErrorsTest, BodyTensorUsedOutsideTheLoop)
{
    {
        NetworkRunner r;
        SimpleLoop s = simpleLoop(r);
        s.rec->setInput(1, *s.next);
        r.markOutput(s.next, "leak");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("is a network output; values leave a loop only through ILoopOutputLayer"))
            << r.logger().allErrors();
    }
    {
        NetworkRunner r;
        SimpleLoop s = simpleLoop(r);
        s.rec->setInput(1, *s.next);
        r.markOutput(s.loop->addLoopOutput(*s.rec->getOutput(0), LoopOutput::kLAST_VALUE)->getOutput(0), "ok");
        IUnaryLayer* outside = r.network().addUnary(*s.next, UnaryOperation::kABS);
        outside->setName("outside");
        IElementWiseLayer* join = r.network().addElementWise(
            *outside->getOutput(0), *r.network().getInput(0), ElementWiseOperation::kSUM);
        join->setName("join");
        r.markOutput(join->getOutput(0), "bad");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("loop 'simple'")) << r.logger().allErrors();
        EXPECT_TRUE(r.logger().hasError("ILoopOutputLayer")) << r.logger().allErrors();
    }
}

TEST(LoopLayerErrorsTest, IteratorAxisOutOfRange)
{
    static int32_t const kTrips = 2;
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 2});
    ILoop* loop = r.network().addLoop();
    loop->setName("iter");
    loop->addTripLimit(*scalarInt(r, &kTrips), TripLimit::kCOUNT);
    IIteratorLayer* it = loop->addIterator(*x, 2);
    ILoopOutputLayer* out = loop->addLoopOutput(*it->getOutput(0), LoopOutput::kCONCATENATE);
    out->setInput(1, *scalarInt(r, &kTrips));
    r.markOutput(out->getOutput(0));
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("loop 'iter': iterator axis 2 is out of range")) << r.logger().allErrors();
}

TEST(LoopLayerErrorsTest, ConcatenationLengthMustBeAZeroDIntShapeTensor)
{
    static int32_t const kTrips = 2;
    static float const kLength = 2.0F;
    for (int32_t variant = 0; variant < 3; ++variant)
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 2});
        ILoop* loop = r.network().addLoop();
        loop->setName("cat");
        loop->addTripLimit(*scalarInt(r, &kTrips), TripLimit::kCOUNT);
        IIteratorLayer* it = loop->addIterator(*x);
        ILoopOutputLayer* out = loop->addLoopOutput(*it->getOutput(0), LoopOutput::kCONCATENATE);
        if (variant == 1)
        {
            out->setInput(1, *r.network().addConstant(Dims{0, {}}, Weights{DataType::kFLOAT, &kLength, 1})->getOutput(0));
        }
        else if (variant == 2)
        {
            // A value computed from data is not known before execution.
            ITensor* ints = r.network().addCast(*x, DataType::kINT32)->getOutput(0);
            out->setInput(1, *r.network().addReduce(*ints, ReduceOperation::kSUM, 3U, false)->getOutput(0));
        }
        r.markOutput(out->getOutput(0));
        EXPECT_FALSE(r.build()) << variant;
        EXPECT_TRUE(r.logger().hasError("loop 'cat'")) << r.logger().allErrors();
        EXPECT_TRUE(r.logger().hasError(variant == 0 ? "needs input 1" : "must be a 0-D INT32/INT64 shape tensor"))
            << variant << ": " << r.logger().allErrors();
    }
}

TEST(LoopLayerErrorsTest, TripLimitTypes)
{
    static float const kF = 1.0F;
    NetworkRunner r;
    SimpleLoop s = simpleLoop(r, false);
    s.rec->setInput(1, *s.next);
    s.loop->addTripLimit(*r.network().addConstant(Dims{0, {}}, Weights{DataType::kFLOAT, &kF, 1})->getOutput(0),
        TripLimit::kWHILE);
    r.markOutput(s.loop->addLoopOutput(*s.rec->getOutput(0), LoopOutput::kLAST_VALUE)->getOutput(0));
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("a kWHILE trip limit needs a 0-D BOOL tensor")) << r.logger().allErrors();
}

TEST(LoopLayerErrorsTest, NestedLoopsAreNotSupported)
{
    static int32_t const kTrips = 2;
    NetworkRunner r;
    SimpleLoop s = simpleLoop(r);
    ILoop* inner = r.network().addLoop();
    inner->setName("inner");
    inner->addTripLimit(*scalarInt(r, &kTrips), TripLimit::kCOUNT);
    IRecurrenceLayer* innerRec = inner->addRecurrence(*s.next);
    innerRec->setInput(1, *r.network().addUnary(*innerRec->getOutput(0), UnaryOperation::kABS)->getOutput(0));
    ITensor* innerOut = inner->addLoopOutput(*innerRec->getOutput(0), LoopOutput::kLAST_VALUE)->getOutput(0);
    s.rec->setInput(1, *innerOut);
    r.markOutput(s.loop->addLoopOutput(*s.rec->getOutput(0), LoopOutput::kLAST_VALUE)->getOutput(0));
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("nested loops are not supported by Kiln yet")) << r.logger().allErrors();
}

// A corrupt loop in an engine (broken cf.* attributes or boundary nodes) is a clear validation error of the engine
// reader (and writer), never a crash.
TEST(LoopLayerErrorsTest, CorruptLoopInTheEngineIsRejected)
{
    NetworkRunner r;
    SimpleLoop s = simpleLoop(r);
    s.rec->setInput(1, *s.next);
    r.markOutput(s.loop->addLoopOutput(*s.rec->getOutput(0), LoopOutput::kLAST_VALUE)->getOutput(0));
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    auto plan = kiln::readEngine(r.engineBytes().data(), r.engineBytes().size());
    ASSERT_TRUE(plan.isOk()) << plan.status().message();
    using Edit = void (*)(kiln::PlanNode&);
    std::vector<std::pair<nvinfer1::LayerType, Edit>> const edits{
        {LayerType::kRECURRENCE, [](kiln::PlanNode& n) { n.attrs.erase("cf.loop"); }},
        {LayerType::kRECURRENCE, [](kiln::PlanNode& n) { n.inputs.resize(1); }},
        {LayerType::kTRIP_LIMIT, [](kiln::PlanNode& n) { n.attrs.setInt("kind", 7); }},
        {LayerType::kLOOP_OUTPUT, [](kiln::PlanNode& n) { n.attrs.setInt("kind", -3); }},
        {LayerType::kUNARY, [](kiln::PlanNode& n) { n.attrs.setInt("cf.if", 0); }},
    };
    for (size_t e = 0; e < edits.size(); ++e)
    {
        kiln::Plan copy = *plan;
        bool edited = false;
        for (kiln::PlanNode& n : copy.nodes)
        {
            if (n.kind == edits[e].first && !edited)
            {
                edits[e].second(n);
                edited = true;
            }
        }
        ASSERT_TRUE(edited) << e;
        // The reader ends with validatePlan (the writer runs it too, so no such file is ever written).
        kiln::Status const valid = kiln::validatePlan(copy);
        EXPECT_FALSE(valid.isOk()) << e;
        EXPECT_NE(valid.message().find("corrupt control flow"), std::string::npos) << e << ": " << valid.message();
        EXPECT_FALSE(kiln::writeEngine(copy).isOk()) << e;
    }
}

} // namespace
