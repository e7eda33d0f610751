// Tests of ILoop (recurrences, trip limits, iterators, loop outputs) on the CPU backend: counted and while loops
// against reference loops written here, iterators forward/reverse on axes 0 and 1, the three loop output kinds,
// a trip count from a shape-tensor network input set at run time, a conditional inside a body and per-layer
// profiles (the validation errors are in loopLayerErrorsTest.cpp). NetworkRunner::run also deserializes the engine
// a second time and checks that it gives the same bits.
#include "common/networkRunner.h"

#include <cmath>
#include <map>
#include <memory>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

//! A 0-D INT32 constant (the storage must outlive the build).
ITensor* scalarInt(NetworkRunner& r, int32_t const* value)
{
    IConstantLayer* c = r.network().addConstant(Dims{0, {}}, Weights{DataType::kINT32, value, 1});
    return c == nullptr ? nullptr : c->getOutput(0);
}

HostTensor slice(HostTensor const& x, int32_t axis, int64_t index)
{
    std::vector<int64_t> shape;
    for (int32_t i = 0; i < x.dims.nbDims; ++i)
    {
        if (i != axis)
        {
            shape.push_back(x.dims.d[i]);
        }
    }
    HostTensor out(x.type, makeDims(shape));
    int64_t outer = 1;
    int64_t inner = 1;
    for (int32_t i = 0; i < axis; ++i)
    {
        outer *= x.dims.d[i];
    }
    for (int32_t i = axis + 1; i < x.dims.nbDims; ++i)
    {
        inner *= x.dims.d[i];
    }
    int64_t const extent = x.dims.d[axis];
    for (int64_t o = 0; o < outer; ++o)
    {
        for (int64_t k = 0; k < inner; ++k)
        {
            out.set(o * inner + k, x.at((o * extent + index) * inner + k));
        }
    }
    return out;
}

//! Stack `parts` (equal shapes) along a new axis `axis`.
HostTensor stack(std::vector<HostTensor> const& parts, int32_t axis)
{
    std::vector<int64_t> shape;
    for (int32_t i = 0; i < parts[0].dims.nbDims; ++i)
    {
        shape.push_back(parts[0].dims.d[i]);
    }
    shape.insert(shape.begin() + axis, static_cast<int64_t>(parts.size()));
    HostTensor out(parts[0].type, makeDims(shape));
    int64_t outer = 1;
    for (int32_t i = 0; i < axis; ++i)
    {
        outer *= shape[static_cast<size_t>(i)];
    }
    int64_t const inner = parts[0].volume() / outer;
    for (size_t p = 0; p < parts.size(); ++p)
    {
        for (int64_t o = 0; o < outer; ++o)
        {
            for (int64_t k = 0; k < inner; ++k)
            {
                out.set((o * static_cast<int64_t>(parts.size()) + static_cast<int64_t>(p)) * inner + k,
                    parts[p].at(o * inner + k));
            }
        }
    }
    return out;
}

HostTensor affine(HostTensor const& s, HostTensor const& a, HostTensor const& b)
{
    HostTensor out(s.type, s.dims);
    for (int64_t i = 0; i < s.volume(); ++i)
    {
        out.set(i, static_cast<double>(static_cast<float>(static_cast<float>(s.at(i)) * static_cast<float>(a.at(i)))
                       + static_cast<float>(b.at(i))));
    }
    return out;
}

// state' = state * a + b, counted; outputs: last value, concatenation (axis 0 and 1) and reverse of the next values.
TEST(LoopLayerTest, CountedLoopWithRecurrenceAndAllOutputs)
{
    std::mt19937 rng(11);
    static int32_t const kTrips = 5;
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {3, 4});
    ITensor* a = r.addInput("a", DataType::kFLOAT, {3, 4});
    ITensor* b = r.addInput("b", DataType::kFLOAT, {3, 4});
    ILoop* loop = r.network().addLoop();
    ASSERT_NE(loop, nullptr) << r.logger().allErrors();
    loop->setName("affine");
    EXPECT_STREQ(loop->getName(), "affine");
    ITensor* count = scalarInt(r, &kTrips);
    ITripLimitLayer* limit = loop->addTripLimit(*count, TripLimit::kCOUNT);
    ASSERT_NE(limit, nullptr);
    EXPECT_EQ(limit->getTripLimit(), TripLimit::kCOUNT);
    EXPECT_EQ(limit->getLoop(), loop);
    IRecurrenceLayer* rec = loop->addRecurrence(*x);
    ASSERT_NE(rec, nullptr);
    EXPECT_EQ(rec->getType(), LayerType::kRECURRENCE);
    IElementWiseLayer* mul = r.network().addElementWise(*rec->getOutput(0), *a, ElementWiseOperation::kPROD);
    IElementWiseLayer* add = r.network().addElementWise(*mul->getOutput(0), *b, ElementWiseOperation::kSUM);
    rec->setInput(1, *add->getOutput(0));
    ILoopOutputLayer* last = loop->addLoopOutput(*rec->getOutput(0), LoopOutput::kLAST_VALUE);
    ILoopOutputLayer* cat0 = loop->addLoopOutput(*add->getOutput(0), LoopOutput::kCONCATENATE, 0);
    ILoopOutputLayer* cat1 = loop->addLoopOutput(*add->getOutput(0), LoopOutput::kCONCATENATE);
    cat1->setAxis(1);
    EXPECT_EQ(cat1->getAxis(), 1);
    ILoopOutputLayer* rev = loop->addLoopOutput(*add->getOutput(0), LoopOutput::kREVERSE, 2);
    EXPECT_EQ(rev->getLoopOutput(), LoopOutput::kREVERSE);
    for (ILoopOutputLayer* o : {cat0, cat1, rev})
    {
        o->setInput(1, *count);
    }
    r.markOutput(last->getOutput(0), "last");
    r.markOutput(cat0->getOutput(0), "cat0");
    r.markOutput(cat1->getOutput(0), "cat1");
    r.markOutput(rev->getOutput(0), "rev");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();

    auto const xs = HostTensor::random(DataType::kFLOAT, makeDims({3, 4}), rng);
    auto const as = HostTensor::random(DataType::kFLOAT, makeDims({3, 4}), rng, -1.2, 1.2);
    auto const bs = HostTensor::random(DataType::kFLOAT, makeDims({3, 4}), rng);
    auto out = r.run({{"x", xs}, {"a", as}, {"b", bs}});
    std::vector<HostTensor> nexts;
    HostTensor state = xs;
    for (int32_t i = 0; i < kTrips; ++i)
    {
        state = affine(state, as, bs);
        nexts.push_back(state);
    }
    std::vector<HostTensor> reversed(nexts.rbegin(), nexts.rend());
    EXPECT_TRUE(kiln::test::allClose(out.at("last"), state, 1e-6, 1e-6));
    EXPECT_TRUE(kiln::test::allClose(out.at("cat0"), stack(nexts, 0), 1e-6, 1e-6));
    EXPECT_TRUE(kiln::test::allClose(out.at("cat1"), stack(nexts, 1), 1e-6, 1e-6));
    EXPECT_TRUE(kiln::test::allClose(out.at("rev"), stack(reversed, 2), 1e-6, 1e-6));
    // The engine inspector lists the loop's boundary layers with the body.
    std::unique_ptr<IEngineInspector> inspector(r.engine().createEngineInspector());
    ASSERT_NE(inspector, nullptr);
    std::string const info = inspector->getEngineInformation(LayerInformationFormat::kJSON);
    EXPECT_NE(info.find("[Recurrence]"), std::string::npos) << info;
    EXPECT_NE(info.find("[LoopOutput]"), std::string::npos) << info;
}

// while (i < n) { i += 1; acc = acc * 0.5 + x }: the condition is computed in the loop and checked before each
// iteration; n is a data input (not a shape tensor), so one engine runs different trip counts.
TEST(LoopLayerTest, WhileLoop)
{
    std::mt19937 rng(12);
    static int32_t const kZero = 0;
    static int32_t const kOne = 1;
    static float const kHalf = 0.5F;
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 3});
    ITensor* n = r.addInput("n", DataType::kINT32, {});
    ILoop* loop = r.network().addLoop();
    IRecurrenceLayer* i = loop->addRecurrence(*scalarInt(r, &kZero));
    IRecurrenceLayer* acc = loop->addRecurrence(*x);
    IElementWiseLayer* less = r.network().addElementWise(*i->getOutput(0), *n, ElementWiseOperation::kLESS);
    ASSERT_NE(loop->addTripLimit(*less->getOutput(0), TripLimit::kWHILE), nullptr);
    IElementWiseLayer* inc = r.network().addElementWise(*i->getOutput(0), *scalarInt(r, &kOne), ElementWiseOperation::kSUM);
    i->setInput(1, *inc->getOutput(0));
    IConstantLayer* half = r.network().addConstant(makeDims({1, 1}), Weights{DataType::kFLOAT, &kHalf, 1});
    IElementWiseLayer* scaled = r.network().addElementWise(*acc->getOutput(0), *half->getOutput(0), ElementWiseOperation::kPROD);
    IElementWiseLayer* sum = r.network().addElementWise(*scaled->getOutput(0), *x, ElementWiseOperation::kSUM);
    acc->setInput(1, *sum->getOutput(0));
    r.markOutput(loop->addLoopOutput(*acc->getOutput(0), LoopOutput::kLAST_VALUE)->getOutput(0), "acc");
    r.markOutput(loop->addLoopOutput(*i->getOutput(0), LoopOutput::kLAST_VALUE)->getOutput(0), "count");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    auto const xs = HostTensor::random(DataType::kFLOAT, makeDims({2, 3}), rng);
    for (int32_t trips : {4, 0, 7})
    {
        auto out = r.run({{"x", xs}, {"n", HostTensor::fromValues(DataType::kINT32, makeDims({}), {double(trips)})}});
        HostTensor expected = xs;
        for (int32_t k = 0; k < trips; ++k)
        {
            for (int64_t e = 0; e < expected.volume(); ++e)
            {
                expected.set(e, static_cast<float>(static_cast<float>(expected.at(e)) * 0.5F) + static_cast<float>(xs.at(e)));
            }
        }
        EXPECT_TRUE(kiln::test::allClose(out.at("acc"), expected, 1e-6, 1e-6)) << "trips " << trips;
        EXPECT_EQ(out.at("count").at(0), trips);
    }
}

// Iterators over axis 0 and 1, forward and reverse: a running sum of the slices (recurrence) and the slices
// times 2 concatenated back (loop output on the same axis).
class LoopIteratorTest : public ::testing::TestWithParam<std::tuple<int32_t, bool>>
{
};

TEST_P(LoopIteratorTest, SlicesInOrder)
{
    auto const [axis, reverse] = GetParam();
    std::mt19937 rng(20 + axis * 2 + (reverse ? 1 : 0));
    std::vector<int64_t> const shape{4, 5, 2};
    static int32_t trips = 0;
    trips = static_cast<int32_t>(shape[static_cast<size_t>(axis)]);
    std::vector<int64_t> sliceShape = shape;
    sliceShape.erase(sliceShape.begin() + axis);
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, shape);
    ITensor* init = r.addInput("init", DataType::kFLOAT, sliceShape);
    ILoop* loop = r.network().addLoop();
    ITensor* count = scalarInt(r, &trips);
    loop->addTripLimit(*count, TripLimit::kCOUNT);
    IIteratorLayer* it = loop->addIterator(*x);
    ASSERT_NE(it, nullptr);
    it->setAxis(axis);
    it->setReverse(reverse);
    EXPECT_EQ(it->getAxis(), axis);
    EXPECT_EQ(it->getReverse(), reverse);
    IRecurrenceLayer* rec = loop->addRecurrence(*init);
    IElementWiseLayer* sum = r.network().addElementWise(*rec->getOutput(0), *it->getOutput(0), ElementWiseOperation::kSUM);
    rec->setInput(1, *sum->getOutput(0));
    IElementWiseLayer* twice
        = r.network().addElementWise(*it->getOutput(0), *it->getOutput(0), ElementWiseOperation::kSUM);
    ILoopOutputLayer* cat = loop->addLoopOutput(*twice->getOutput(0), LoopOutput::kCONCATENATE, axis);
    cat->setInput(1, *count);
    r.markOutput(cat->getOutput(0), "cat");
    r.markOutput(loop->addLoopOutput(*rec->getOutput(0), LoopOutput::kLAST_VALUE)->getOutput(0), "sum");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    auto const xs = HostTensor::random(DataType::kFLOAT, makeDims(shape), rng);
    auto const inits = HostTensor::random(DataType::kFLOAT, makeDims(sliceShape), rng);
    auto out = r.run({{"x", xs}, {"init", inits}});
    HostTensor acc = inits;
    std::vector<HostTensor> doubled;
    for (int32_t i = 0; i < trips; ++i)
    {
        HostTensor s = slice(xs, axis, reverse ? trips - 1 - i : i);
        for (int64_t e = 0; e < acc.volume(); ++e)
        {
            acc.set(e, static_cast<float>(acc.at(e)) + static_cast<float>(s.at(e)));
            s.set(e, 2.0 * s.at(e));
        }
        doubled.push_back(s);
    }
    EXPECT_TRUE(kiln::test::allClose(out.at("sum"), acc, 1e-6, 1e-6));
    EXPECT_TRUE(kiln::test::allClose(out.at("cat"), stack(doubled, axis), 0, 0));
}

INSTANTIATE_TEST_SUITE_P(AxesAndDirections, LoopIteratorTest,
    ::testing::Combine(::testing::Values(0, 1), ::testing::Bool()));

// The trip count is a shape-tensor network input: two runs of one engine with different counts (the concatenated
// output's length follows the count).
TEST(LoopLayerTest, TripCountFromShapeTensorInput)
{
    std::mt19937 rng(13);
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {3});
    ITensor* n = r.addInput("n", DataType::kINT32, {});
    r.setProfileValues("n", {0}, {3}, {8});
    ILoop* loop = r.network().addLoop();
    loop->addTripLimit(*n, TripLimit::kCOUNT);
    IRecurrenceLayer* rec = loop->addRecurrence(*x);
    IElementWiseLayer* sq = r.network().addElementWise(*rec->getOutput(0), *x, ElementWiseOperation::kPROD);
    rec->setInput(1, *sq->getOutput(0));
    ILoopOutputLayer* cat = loop->addLoopOutput(*rec->getOutput(0), LoopOutput::kCONCATENATE, 0);
    cat->setInput(1, *n);
    r.markOutput(cat->getOutput(0), "powers");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    auto const xs = HostTensor::random(DataType::kFLOAT, makeDims({3}), rng, 0.5, 1.5);
    for (int32_t trips : {2, 6})
    {
        auto out = r.run({{"x", xs}, {"n", HostTensor::fromValues(DataType::kINT32, makeDims({}), {double(trips)})}});
        HostTensor expected(DataType::kFLOAT, makeDims({trips, 3}));
        for (int64_t e = 0; e < 3; ++e)
        {
            float v = static_cast<float>(xs.at(e));
            for (int32_t k = 0; k < trips; ++k)
            {
                expected.set(k * 3 + e, v); // the current value before each update: x^(k+1)
                v *= static_cast<float>(xs.at(e));
            }
        }
        EXPECT_TRUE(kiln::test::allClose(out.at("powers"), expected, 1e-6, 1e-6)) << "trips " << trips;
    }
}

// An if-conditional inside a loop body: state = (i < 2) ? state * 2 : state - x, five times.
TEST(LoopLayerTest, ConditionalInsideTheBody)
{
    std::mt19937 rng(14);
    static int32_t const kTrips = 5;
    static int32_t const kZero = 0;
    static int32_t const kOne = 1;
    static int32_t const kTwo = 2;
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {3});
    ILoop* loop = r.network().addLoop();
    loop->addTripLimit(*scalarInt(r, &kTrips), TripLimit::kCOUNT);
    IRecurrenceLayer* i = loop->addRecurrence(*scalarInt(r, &kZero));
    i->setInput(1, *r.network().addElementWise(*i->getOutput(0), *scalarInt(r, &kOne), ElementWiseOperation::kSUM)->getOutput(0));
    IRecurrenceLayer* state = loop->addRecurrence(*x);
    ITensor* early = r.network().addElementWise(*i->getOutput(0), *scalarInt(r, &kTwo), ElementWiseOperation::kLESS)->getOutput(0);
    IIfConditional* cond = r.network().addIfConditional();
    cond->setCondition(*early);
    ITensor* in = cond->addInput(*state->getOutput(0))->getOutput(0);
    ITensor* twice = r.network().addElementWise(*in, *in, ElementWiseOperation::kSUM)->getOutput(0);
    ITensor* less = r.network().addElementWise(*in, *x, ElementWiseOperation::kSUB)->getOutput(0);
    state->setInput(1, *cond->addOutput(*twice, *less)->getOutput(0));
    r.markOutput(loop->addLoopOutput(*state->getOutput(0), LoopOutput::kLAST_VALUE)->getOutput(0), "s");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    auto const xs = HostTensor::random(DataType::kFLOAT, makeDims({3}), rng);
    auto out = r.run({{"x", xs}});
    HostTensor expected = xs;
    for (int32_t k = 0; k < kTrips; ++k)
    {
        for (int64_t e = 0; e < 3; ++e)
        {
            float const v = static_cast<float>(expected.at(e));
            expected.set(e, k < 2 ? v + v : v - static_cast<float>(xs.at(e)));
        }
    }
    EXPECT_TRUE(kiln::test::allClose(out.at("s"), expected, 0, 0));
}

class CollectingProfiler : public IProfiler
{
public:
    void reportLayerTime(char const* layerName, float ms) noexcept override
    {
        ++calls[layerName];
        total[layerName] += ms;
    }
    std::map<std::string, int32_t> calls;
    std::map<std::string, float> total;
};

// Per-layer profiles report a body layer once per run, with its time summed over the iterations.
TEST(LoopLayerTest, PerLayerProfileReportsBodyLayersOncePerRun)
{
    std::mt19937 rng(15);
    static int32_t const kTrips = 4;
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {64});
    ILoop* loop = r.network().addLoop();
    loop->addTripLimit(*scalarInt(r, &kTrips), TripLimit::kCOUNT);
    IRecurrenceLayer* rec = loop->addRecurrence(*x);
    IUnaryLayer* sine = r.network().addUnary(*rec->getOutput(0), UnaryOperation::kSIN);
    sine->setName("body_sin");
    rec->setInput(1, *sine->getOutput(0));
    r.markOutput(loop->addLoopOutput(*rec->getOutput(0), LoopOutput::kLAST_VALUE)->getOutput(0), "s");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::unique_ptr<IExecutionContext> ctx(r.engine().createExecutionContext());
    ASSERT_NE(ctx, nullptr);
    CollectingProfiler profiler;
    ctx->setProfiler(&profiler);
    HostTensor const xs = HostTensor::random(DataType::kFLOAT, makeDims({64}), rng);
    std::vector<float> out(64, -7.0F);
    ASSERT_TRUE(ctx->setTensorAddress("x", const_cast<void*>(xs.data())));
    ASSERT_TRUE(ctx->setTensorAddress("s", out.data()));
    ASSERT_TRUE(ctx->enqueueV3(nullptr)) << r.logger().allErrors();
    EXPECT_EQ(profiler.calls["body_sin"], 1);
    EXPECT_GE(profiler.total["body_sin"], 0.0F);
    for (int64_t e = 0; e < 64; ++e)
    {
        float v = static_cast<float>(xs.at(e));
        for (int32_t k = 0; k < kTrips; ++k)
        {
            v = std::sin(v);
        }
        EXPECT_NEAR(out[static_cast<size_t>(e)], v, 1e-6) << e;
    }
}

} // namespace
