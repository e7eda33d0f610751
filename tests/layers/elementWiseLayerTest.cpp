// Tests of IElementWiseLayer: every operation against a naive double-precision oracle, broadcasting, dynamic
// shapes, every allowed storage type, shape-tensor value propagation and the error paths.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <cmath>
#include <functional>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;
using Op = ElementWiseOperation;

//! Element of `t` seen through broadcasting to `out`, for output linear index `i`.
double broadcastAt(HostTensor const& t, Dims const& out, int64_t i)
{
    int64_t offset = 0;
    int64_t stride = 1;
    for (int32_t d = out.nbDims - 1; d >= 0; --d)
    {
        int64_t const coord = i % out.d[d];
        i /= out.d[d];
        if (t.dims.d[d] != 1)
        {
            offset += coord * stride;
        }
        stride *= t.dims.d[d];
    }
    return t.at(offset);
}

Dims broadcastDims(Dims const& a, Dims const& b)
{
    Dims out = a;
    for (int32_t d = 0; d < a.nbDims; ++d)
    {
        out.d[d] = a.d[d] == 1 ? b.d[d] : a.d[d];
    }
    return out;
}

bool isComparison(Op op)
{
    return op == Op::kEQUAL || op == Op::kGREATER || op == Op::kLESS;
}

//! The reference result of `a op b` in double precision (integers exactly, with C++ truncating division).
double reference(Op op, double a, double b, bool integer)
{
    switch (op)
    {
    case Op::kSUM: return a + b;
    case Op::kPROD: return a * b;
    case Op::kMAX: return std::max(a, b);
    case Op::kMIN: return std::min(a, b);
    case Op::kSUB: return a - b;
    case Op::kDIV:
        return integer ? static_cast<double>(static_cast<int64_t>(a) / static_cast<int64_t>(b)) : a / b;
    case Op::kPOW: return std::pow(a, b);
    case Op::kFLOOR_DIV: return std::floor(a / b);
    case Op::kAND: return (a != 0 && b != 0) ? 1 : 0;
    case Op::kOR: return (a != 0 || b != 0) ? 1 : 0;
    case Op::kXOR: return ((a != 0) != (b != 0)) ? 1 : 0;
    case Op::kEQUAL: return a == b ? 1 : 0;
    case Op::kGREATER: return a > b ? 1 : 0;
    case Op::kLESS: return a < b ? 1 : 0;
    }
    return 0;
}

HostTensor referenceOutput(Op op, HostTensor const& a, HostTensor const& b, DataType outType)
{
    Dims const out = broadcastDims(a.dims, b.dims);
    HostTensor expected(outType, out);
    bool const integer = a.type == DataType::kINT32 || a.type == DataType::kINT64 || a.type == DataType::kINT8;
    for (int64_t i = 0; i < expected.volume(); ++i)
    {
        expected.set(i, reference(op, broadcastAt(a, out, i), broadcastAt(b, out, i), integer));
    }
    return expected;
}

//! Random pair of broadcast-compatible shapes of rank 1..4 (each dimension: equal, or 1 on one side).
std::pair<std::vector<int64_t>, std::vector<int64_t>> randomShapes(std::mt19937& rng)
{
    int32_t const rank = std::uniform_int_distribution<int32_t>(1, 4)(rng);
    std::vector<int64_t> a;
    std::vector<int64_t> b;
    for (int32_t d = 0; d < rank; ++d)
    {
        int64_t const n = std::uniform_int_distribution<int64_t>(2, 5)(rng);
        switch (std::uniform_int_distribution<int32_t>(0, 3)(rng))
        {
        case 0: a.push_back(1); b.push_back(n); break;
        case 1: a.push_back(n); b.push_back(1); break;
        default: a.push_back(n); b.push_back(n); break;
        }
    }
    return {a, b};
}

//! Random data suited to `op` (divisors away from zero, positive bases for kPOW, quotients away from integers).
void fillOperands(Op op, HostTensor& a, HostTensor& b, std::mt19937& rng)
{
    bool const isFloat = a.type == DataType::kFLOAT || a.type == DataType::kHALF || a.type == DataType::kBF16;
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    if (!isFloat)
    {
        int64_t const lo = a.type == DataType::kINT8 ? -11 : -1000;
        int64_t const hi = -lo;
        a = HostTensor::random(a.type, a.dims, rng, static_cast<double>(lo), static_cast<double>(hi));
        b = HostTensor::random(b.type, b.dims, rng, static_cast<double>(lo), static_cast<double>(hi));
        for (int64_t i = 0; i < b.volume(); ++i)
        {
            if (op == Op::kDIV || op == Op::kFLOOR_DIV)
            {
                if (b.at(i) == 0)
                {
                    b.set(i, 7);
                }
            }
            if (op == Op::kPOW)
            {
                b.set(i, std::fmod(std::fabs(b.at(i)), 4.0)); // exponents 0..3
            }
            if (op == Op::kPROD && a.type == DataType::kINT8)
            {
                b.set(i, std::fmod(b.at(i), 10.0));
            }
            if (isComparison(op) && unit(rng) < 0.3)
            {
                b.set(i, 5); // make some elements equal
            }
        }
        if (op == Op::kPOW || (op == Op::kPROD && a.type == DataType::kINT8) || isComparison(op))
        {
            for (int64_t i = 0; i < a.volume(); ++i)
            {
                if (op == Op::kPOW)
                {
                    a.set(i, std::fmod(a.at(i), 9.0));
                }
                else if (op == Op::kPROD)
                {
                    a.set(i, std::fmod(a.at(i), 10.0));
                }
                else if (unit(rng) < 0.3)
                {
                    a.set(i, 5);
                }
            }
        }
        return;
    }
    a = HostTensor::random(a.type, a.dims, rng, -2.0, 2.0);
    b = HostTensor::random(b.type, b.dims, rng, -2.0, 2.0);
    for (int64_t i = 0; i < b.volume(); ++i)
    {
        if (op == Op::kDIV || op == Op::kFLOOR_DIV)
        {
            double const mag = 0.5 + 1.5 * unit(rng);
            b.set(i, unit(rng) < 0.5 ? -mag : mag);
        }
        if (isComparison(op))
        {
            b.set(i, std::round(b.at(i) * 2.0) / 2.0); // few distinct values: equality happens
        }
    }
    for (int64_t i = 0; i < a.volume(); ++i)
    {
        if (op == Op::kPOW)
        {
            a.set(i, 0.1 + 1.9 * unit(rng));
        }
        if (isComparison(op))
        {
            a.set(i, std::round(a.at(i) * 2.0) / 2.0);
        }
    }
    if (op == Op::kFLOOR_DIV && a.dims.nbDims == b.dims.nbDims)
    {
        // Quotients with fractional parts in [0.2, 0.8], so rounding cannot flip the floor.
        Dims const out = broadcastDims(a.dims, b.dims);
        bool const aFull = kiln::test::volume(a.dims) == kiln::test::volume(out);
        if (aFull)
        {
            for (int64_t i = 0; i < a.volume(); ++i)
            {
                double const q = std::floor(-3.0 + 6.0 * unit(rng)) + 0.2 + 0.6 * unit(rng);
                a.set(i, q * broadcastAt(b, out, i));
            }
        }
    }
}

struct RunResult
{
    HostTensor output;
    HostTensor expected;
};

RunResult runBinary(Op op, DataType type, std::vector<int64_t> const& da, std::vector<int64_t> const& db,
    std::mt19937& rng, uint32_t flags = 0)
{
    NetworkRunner r(flags);
    ITensor* a = r.addInput("a", type, da);
    ITensor* b = r.addInput("b", type, db);
    IElementWiseLayer* layer = r.network().addElementWise(*a, *b, op);
    EXPECT_NE(layer, nullptr) << r.logger().allErrors();
    if (layer == nullptr)
    {
        return {};
    }
    EXPECT_EQ(layer->getOperation(), op);
    r.markOutput(layer->getOutput(0), "out");
    EXPECT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor ta(type, makeDims(da));
    HostTensor tb(type, makeDims(db));
    fillOperands(op, ta, tb, rng);
    auto outs = r.run({{"a", ta}, {"b", tb}});
    DataType const outType = isComparison(op) ? DataType::kBOOL : type;
    EXPECT_EQ(outs["out"].type, outType);
    return {outs["out"], referenceOutput(op, ta, tb, outType)};
}

std::vector<Op> const kARITHMETIC
    = {Op::kSUM, Op::kPROD, Op::kMAX, Op::kMIN, Op::kSUB, Op::kDIV, Op::kPOW, Op::kFLOOR_DIV};

class ElementWiseLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(ElementWiseLayerTest);

TEST_P(ElementWiseLayerTest, ArithmeticFp32WithBroadcasting)
{
    std::mt19937 rng(1234);
    for (Op op : kARITHMETIC)
    {
        for (int32_t rep = 0; rep < 3; ++rep)
        {
            auto [da, db] = randomShapes(rng);
            SCOPED_TRACE("op " + std::to_string(static_cast<int>(op)) + " shapes " + kiln::test::dimsString(makeDims(da))
                + " " + kiln::test::dimsString(makeDims(db)));
            RunResult res = runBinary(op, DataType::kFLOAT, da, db, rng);
            EXPECT_TRUE(kiln::test::allClose(res.output, res.expected, 1e-5, 1e-5));
        }
    }
}

TEST_P(ElementWiseLayerTest, ComparisonsGiveBool)
{
    std::mt19937 rng(99);
    for (DataType type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT32, DataType::kINT64})
    {
        for (Op op : {Op::kEQUAL, Op::kGREATER, Op::kLESS})
        {
            auto [da, db] = randomShapes(rng);
            SCOPED_TRACE("type " + std::to_string(static_cast<int>(type)) + " op " + std::to_string(static_cast<int>(op)));
            RunResult res = runBinary(op, type, da, db, rng);
            EXPECT_TRUE(kiln::test::allClose(res.output, res.expected, 0, 0));
        }
    }
}

TEST_P(ElementWiseLayerTest, LogicalOnBool)
{
    std::mt19937 rng(7);
    for (Op op : {Op::kAND, Op::kOR, Op::kXOR})
    {
        for (int32_t rep = 0; rep < 2; ++rep)
        {
            auto [da, db] = randomShapes(rng);
            RunResult res = runBinary(op, DataType::kBOOL, da, db, rng);
            EXPECT_TRUE(kiln::test::allClose(res.output, res.expected, 0, 0));
        }
    }
}

TEST_P(ElementWiseLayerTest, IntegerTypesAreExact)
{
    std::mt19937 rng(31337);
    for (DataType type : {DataType::kINT32, DataType::kINT64, DataType::kINT8})
    {
        for (Op op : kARITHMETIC)
        {
            auto [da, db] = randomShapes(rng);
            SCOPED_TRACE("type " + std::to_string(static_cast<int>(type)) + " op " + std::to_string(static_cast<int>(op)));
            RunResult res = runBinary(op, type, da, db, rng);
            EXPECT_TRUE(kiln::test::allClose(res.output, res.expected, 0, 0));
        }
    }
}

TEST_P(ElementWiseLayerTest, IntegerDivisionTruncatesAndFloorDivisionFloors)
{
    NetworkRunner r;
    ITensor* a = r.addInput("a", DataType::kINT32, {6});
    ITensor* b = r.addInput("b", DataType::kINT32, {6});
    r.markOutput(r.network().addElementWise(*a, *b, Op::kDIV)->getOutput(0), "div");
    r.markOutput(r.network().addElementWise(*a, *b, Op::kFLOOR_DIV)->getOutput(0), "floordiv");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor ta = HostTensor::fromValues(DataType::kINT32, makeDims({6}), {-7, 7, -7, 7, -6, 0});
    HostTensor tb = HostTensor::fromValues(DataType::kINT32, makeDims({6}), {2, -2, -2, 2, 3, -5});
    auto outs = r.run({{"a", ta}, {"b", tb}});
    EXPECT_TRUE(kiln::test::allClose(
        outs["div"], HostTensor::fromValues(DataType::kINT32, makeDims({6}), {-3, -3, 3, 3, -2, 0}), 0, 0));
    EXPECT_TRUE(kiln::test::allClose(
        outs["floordiv"], HostTensor::fromValues(DataType::kINT32, makeDims({6}), {-4, -4, 3, 3, -2, 0}), 0, 0));
}

TEST_P(ElementWiseLayerTest, HalfAndBFloat16)
{
    std::mt19937 rng(555);
    for (DataType type : {DataType::kHALF, DataType::kBF16})
    {
        double const tol = type == DataType::kHALF ? 2e-3 : 1.6e-2;
        for (Op op : {Op::kSUM, Op::kPROD, Op::kSUB, Op::kDIV, Op::kMAX, Op::kMIN, Op::kPOW})
        {
            auto [da, db] = randomShapes(rng);
            SCOPED_TRACE("type " + std::to_string(static_cast<int>(type)) + " op " + std::to_string(static_cast<int>(op)));
            RunResult res = runBinary(op, type, da, db, rng);
            EXPECT_TRUE(kiln::test::allClose(res.output, res.expected, tol, tol));
        }
    }
}

// Shapes of the CUDA kernel's fast path (same shape, a bias along the last dimensions, a [N, C, 1, 1] scale over
// [N, C, H, W], a scalar on either side), with element counts that take its 16-byte vectors and counts that do not,
// and a broadcast it does not take ([N, 1, W] with [1, H, 1]).
TEST_P(ElementWiseLayerTest, BroadcastFormsOfLargerTensors)
{
    std::mt19937 rng(8080);
    std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> const shapes = {
        {{2, 16, 64}, {2, 16, 64}},
        {{3, 5, 7}, {3, 5, 7}},
        {{2, 16, 64}, {1, 1, 64}},
        {{1, 1, 40}, {4, 6, 40}},
        {{2, 8, 4, 4}, {2, 8, 1, 1}},
        {{1, 24, 1, 1}, {2, 24, 7, 7}},
        {{2, 6, 32}, {1, 1, 1}},
        {{1}, {1000}},
        {{2, 1, 24}, {1, 9, 1}},
    };
    for (DataType type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        double const tol = type == DataType::kFLOAT ? 1e-5 : (type == DataType::kHALF ? 2e-3 : 1.6e-2);
        for (Op op : {Op::kSUM, Op::kSUB, Op::kPROD, Op::kDIV, Op::kMAX, Op::kMIN})
        {
            for (auto const& [da, db] : shapes)
            {
                SCOPED_TRACE("type " + std::to_string(static_cast<int>(type)) + " op "
                    + std::to_string(static_cast<int>(op)) + " shapes " + kiln::test::dimsString(makeDims(da)) + " "
                    + kiln::test::dimsString(makeDims(db)));
                RunResult res = runBinary(op, type, da, db, rng);
                EXPECT_TRUE(kiln::test::allClose(res.output, res.expected, tol, tol));
            }
        }
    }
}

TEST_P(ElementWiseLayerTest, StronglyTypedNetwork)
{
    std::mt19937 rng(2024);
    uint32_t const flags = 1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED);
    RunResult res = runBinary(Op::kSUM, DataType::kHALF, {2, 3}, {1, 3}, rng, flags);
    EXPECT_TRUE(kiln::test::allClose(res.output, res.expected, 2e-3, 2e-3));
}

TEST_P(ElementWiseLayerTest, DynamicShapesRunAtTwoSizes)
{
    NetworkRunner r;
    ITensor* a = r.addInput("a", DataType::kFLOAT, {-1, 3, -1});
    ITensor* b = r.addInput("b", DataType::kFLOAT, {1, 3, -1});
    IElementWiseLayer* layer = r.network().addElementWise(*a, *b, Op::kSUB);
    ASSERT_NE(layer, nullptr);
    r.markOutput(layer->getOutput(0), "out");
    r.setProfileDims("a", {1, 3, 1}, {2, 3, 4}, {4, 3, 8});
    r.setProfileDims("b", {1, 3, 1}, {1, 3, 4}, {1, 3, 8});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(11);
    for (auto const& shape : {std::vector<int64_t>{2, 3, 5}, std::vector<int64_t>{4, 3, 1}})
    {
        // b broadcasts along dimension 0; along dimension 2 it either matches or a has extent 1.
        std::vector<int64_t> bShape{1, 3, shape[2]};
        HostTensor ta = HostTensor::random(DataType::kFLOAT, makeDims(shape), rng);
        HostTensor tb = HostTensor::random(DataType::kFLOAT, makeDims(bShape), rng);
        auto outs = r.run({{"a", ta}, {"b", tb}});
        EXPECT_TRUE(kiln::test::allClose(outs["out"], referenceOutput(Op::kSUB, ta, tb, DataType::kFLOAT), 1e-6, 1e-6));
    }
    // Broadcasting the other way at run time: a has extent 1 where b has 6.
    HostTensor ta = HostTensor::random(DataType::kFLOAT, makeDims({3, 3, 1}), rng);
    HostTensor tb = HostTensor::random(DataType::kFLOAT, makeDims({1, 3, 6}), rng);
    auto outs = r.run({{"a", ta}, {"b", tb}});
    EXPECT_TRUE(kiln::test::allClose(outs["out"], referenceOutput(Op::kSUB, ta, tb, DataType::kFLOAT), 1e-6, 1e-6));
}

TEST_P(ElementWiseLayerTest, IncompatibleRuntimeShapesFailToRun)
{
    NetworkRunner r;
    ITensor* a = r.addInput("a", DataType::kFLOAT, {-1});
    ITensor* b = r.addInput("b", DataType::kFLOAT, {-1});
    r.markOutput(r.network().addElementWise(*a, *b, Op::kSUM)->getOutput(0), "out");
    r.setProfileDims("a", {1}, {4}, {8});
    r.setProfileDims("b", {1}, {4}, {8});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(3);
    std::map<std::string, HostTensor> outs;
    EXPECT_FALSE(r.tryRun({{"a", HostTensor::random(DataType::kFLOAT, makeDims({3}), rng)},
                              {"b", HostTensor::random(DataType::kFLOAT, makeDims({4}), rng)}},
        outs));
    EXPECT_TRUE(r.logger().hasError("broadcast")) << r.logger().allErrors();
}

TEST_P(ElementWiseLayerTest, ShapeValuesFeedReshape)
{
    // reshape(x, [shape(x)[0] * 2, shape(x)[1] / 2]) with x of shape [-1, 6].
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 6});
    ITensor* shape = r.network().addShape(*x)->getOutput(0);
    int64_t const mulValues[2] = {2, 1};
    int64_t const divValues[2] = {1, 2};
    ITensor* mul = r.network().addConstant(makeDims({2}), Weights{DataType::kINT64, mulValues, 2})->getOutput(0);
    ITensor* div = r.network().addConstant(makeDims({2}), Weights{DataType::kINT64, divValues, 2})->getOutput(0);
    ITensor* scaled = r.network().addElementWise(*shape, *mul, Op::kPROD)->getOutput(0);
    ITensor* newShape = r.network().addElementWise(*scaled, *div, Op::kFLOOR_DIV)->getOutput(0);
    IShuffleLayer* reshape = r.network().addShuffle(*x);
    ASSERT_NE(reshape, nullptr) << r.logger().allErrors();
    reshape->setInput(1, *newShape);
    r.markOutput(reshape->getOutput(0), "out");
    r.setProfileDims("x", {1, 6}, {2, 6}, {4, 6});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(8);
    for (int64_t n : {1, 3})
    {
        HostTensor tx = HostTensor::random(DataType::kFLOAT, makeDims({n, 6}), rng);
        auto outs = r.run({{"x", tx}});
        HostTensor expected = tx;
        expected.dims = makeDims({n * 2, 3});
        EXPECT_TRUE(kiln::test::allClose(outs["out"], expected, 0, 0));
    }
}

TEST_P(ElementWiseLayerTest, StaticShapeValuesAreVisibleBeforeBuild)
{
    // reshape(x, (shape(x) - [1, 0]) * [2, 1] max [0, 3] ...) evaluated symbolically: [4, 6] -> [6, 4].
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {4, 6});
    ITensor* shape = r.network().addShape(*x)->getOutput(0);
    int64_t const subValues[2] = {-2, 2};
    int64_t const maxValues[2] = {0, 4};
    ITensor* sub = r.network().addConstant(makeDims({2}), Weights{DataType::kINT64, subValues, 2})->getOutput(0);
    ITensor* mx = r.network().addConstant(makeDims({2}), Weights{DataType::kINT64, maxValues, 2})->getOutput(0);
    ITensor* shifted = r.network().addElementWise(*shape, *sub, Op::kSUB)->getOutput(0); // [6, 4]
    ITensor* newShape = r.network().addElementWise(*shifted, *mx, Op::kMAX)->getOutput(0); // [6, 4]
    IShuffleLayer* reshape = r.network().addShuffle(*x);
    ASSERT_NE(reshape, nullptr);
    reshape->setInput(1, *newShape);
    Dims const d = reshape->getOutput(0)->getDimensions();
    ASSERT_EQ(d.nbDims, 2) << r.logger().allErrors();
    EXPECT_EQ(d.d[0], 6);
    EXPECT_EQ(d.d[1], 4);
}

TEST_P(ElementWiseLayerTest, MixedFp32Fp16InWeaklyTypedNetwork)
{
    NetworkRunner r;
    ITensor* a = r.addInput("a", DataType::kFLOAT, {2, 3});
    ITensor* b = r.addInput("b", DataType::kHALF, {2, 3});
    IElementWiseLayer* layer = r.network().addElementWise(*a, *b, Op::kSUM);
    ASSERT_NE(layer, nullptr);
    r.markOutput(layer->getOutput(0), "out");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(4);
    HostTensor ta = HostTensor::random(DataType::kFLOAT, makeDims({2, 3}), rng);
    HostTensor tb = HostTensor::random(DataType::kHALF, makeDims({2, 3}), rng);
    auto outs = r.run({{"a", ta}, {"b", tb}});
    EXPECT_EQ(outs["out"].type, DataType::kFLOAT);
    EXPECT_TRUE(kiln::test::allClose(outs["out"], referenceOutput(Op::kSUM, ta, tb, DataType::kFLOAT), 1e-6, 1e-6));
}

// ---------------------------------------------------------------------------------------------------------
// Error paths
// ---------------------------------------------------------------------------------------------------------

TEST_P(ElementWiseLayerTest, InvalidOperationIsRejected)
{
    NetworkRunner r;
    ITensor* a = r.addInput("a", DataType::kFLOAT, {2});
    EXPECT_EQ(r.network().addElementWise(*a, *a, static_cast<Op>(99)), nullptr);
    EXPECT_TRUE(r.logger().hasError("addElementWise")) << r.logger().allErrors();

    IElementWiseLayer* layer = r.network().addElementWise(*a, *a, Op::kSUM);
    ASSERT_NE(layer, nullptr);
    layer->setName("adder");
    r.logger().clear();
    layer->setOperation(static_cast<Op>(-1));
    EXPECT_TRUE(r.logger().hasError("adder")) << r.logger().allErrors();
    EXPECT_EQ(layer->getOperation(), Op::kSUM);
    layer->setOperation(Op::kPROD);
    EXPECT_EQ(layer->getOperation(), Op::kPROD);
}

TEST_P(ElementWiseLayerTest, TensorFromAnotherNetworkIsRejected)
{
    NetworkRunner r;
    NetworkRunner other;
    ITensor* a = r.addInput("a", DataType::kFLOAT, {2});
    ITensor* foreign = other.addInput("f", DataType::kFLOAT, {2});
    EXPECT_EQ(r.network().addElementWise(*a, *foreign, Op::kSUM), nullptr);
    EXPECT_TRUE(r.logger().hasError("does not belong")) << r.logger().allErrors();
}

void expectBuildFailure(std::function<void(NetworkRunner&)> const& define, std::string const& text)
{
    NetworkRunner r;
    define(r);
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError(text)) << "expected an error containing '" << text << "', got:\n"
                                           << r.logger().allErrors();
}

TEST_P(ElementWiseLayerTest, BuildFailures)
{
    // Type mismatch.
    expectBuildFailure(
        [](NetworkRunner& r) {
            ITensor* a = r.addInput("a", DataType::kFLOAT, {2});
            ITensor* b = r.addInput("b", DataType::kINT32, {2});
            IElementWiseLayer* l = r.network().addElementWise(*a, *b, Op::kSUM);
            l->setName("mixed");
            r.markOutput(l->getOutput(0), "out");
        },
        "input types differ");
    // Rank mismatch.
    expectBuildFailure(
        [](NetworkRunner& r) {
            ITensor* a = r.addInput("a", DataType::kFLOAT, {2, 3});
            ITensor* b = r.addInput("b", DataType::kFLOAT, {3});
            r.markOutput(r.network().addElementWise(*a, *b, Op::kSUM)->getOutput(0), "out");
        },
        "same rank");
    // Non-broadcastable extents.
    expectBuildFailure(
        [](NetworkRunner& r) {
            ITensor* a = r.addInput("a", DataType::kFLOAT, {2, 3});
            ITensor* b = r.addInput("b", DataType::kFLOAT, {2, 4});
            r.markOutput(r.network().addElementWise(*a, *b, Op::kMAX)->getOutput(0), "out");
        },
        "cannot be broadcast");
    // Logical operation on floats.
    expectBuildFailure(
        [](NetworkRunner& r) {
            ITensor* a = r.addInput("a", DataType::kFLOAT, {2});
            IElementWiseLayer* l = r.network().addElementWise(*a, *a, Op::kAND);
            l->setName("andLayer");
            r.markOutput(l->getOutput(0), "out");
        },
        "andLayer");
    // Arithmetic on BOOL.
    expectBuildFailure(
        [](NetworkRunner& r) {
            ITensor* a = r.addInput("a", DataType::kBOOL, {2});
            r.markOutput(r.network().addElementWise(*a, *a, Op::kSUM)->getOutput(0), "out");
        },
        "does not accept");
    // Comparison of INT8 (TensorRT compares FP32/FP16/BF16/INT32/INT64 only).
    expectBuildFailure(
        [](NetworkRunner& r) {
            ITensor* a = r.addInput("a", DataType::kINT8, {2});
            r.markOutput(r.network().addElementWise(*a, *a, Op::kLESS)->getOutput(0), "out");
        },
        "does not accept");
    // Mixed FP32/FP16 is not allowed in a strongly typed network.
    {
        NetworkRunner r(1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED));
        ITensor* a = r.addInput("a", DataType::kFLOAT, {2});
        ITensor* b = r.addInput("b", DataType::kHALF, {2});
        r.markOutput(r.network().addElementWise(*a, *b, Op::kSUM)->getOutput(0), "out");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("input types differ")) << r.logger().allErrors();
    }
}

} // namespace
