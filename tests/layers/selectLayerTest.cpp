// Tests of ISelectLayer: three-way broadcasting, every storage type, empty tensors, dynamic shapes, shape-value
// propagation and error paths.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <cstring>
#include <functional>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

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

Dims broadcast3(Dims const& a, Dims const& b, Dims const& c)
{
    Dims out = a;
    for (int32_t d = 0; d < a.nbDims; ++d)
    {
        out.d[d] = a.d[d] != 1 ? a.d[d] : (b.d[d] != 1 ? b.d[d] : c.d[d]);
    }
    return out;
}

HostTensor reference(HostTensor const& c, HostTensor const& t, HostTensor const& e)
{
    Dims const out = broadcast3(c.dims, t.dims, e.dims);
    HostTensor r(t.type, out);
    for (int64_t i = 0; i < r.volume(); ++i)
    {
        r.set(i, broadcastAt(c, out, i) != 0 ? broadcastAt(t, out, i) : broadcastAt(e, out, i));
    }
    return r;
}

std::vector<int64_t> shapeOf(HostTensor const& t)
{
    return std::vector<int64_t>(t.dims.d, t.dims.d + t.dims.nbDims);
}

HostTensor runSelect(HostTensor const& c, HostTensor const& t, HostTensor const& e)
{
    NetworkRunner r;
    ITensor* ci = r.addInput("c", c.type, shapeOf(c));
    ITensor* ti = r.addInput("t", t.type, shapeOf(t));
    ITensor* ei = r.addInput("e", e.type, shapeOf(e));
    ISelectLayer* layer = r.network().addSelect(*ci, *ti, *ei);
    EXPECT_NE(layer, nullptr) << r.logger().allErrors();
    if (layer == nullptr)
    {
        return {};
    }
    r.markOutput(layer->getOutput(0), "out");
    EXPECT_TRUE(r.build()) << r.logger().allErrors();
    return r.run({{"c", c}, {"t", t}, {"e", e}})["out"];
}

class SelectLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(SelectLayerTest);

TEST_P(SelectLayerTest, BroadcastingAllThreeInputs)
{
    std::mt19937 rng(8080);
    for (int32_t rep = 0; rep < 10; ++rep)
    {
        int32_t const rank = std::uniform_int_distribution<int32_t>(1, 4)(rng);
        std::vector<int64_t> dc;
        std::vector<int64_t> dt;
        std::vector<int64_t> de;
        for (int32_t d = 0; d < rank; ++d)
        {
            int64_t const n = std::uniform_int_distribution<int64_t>(2, 4)(rng);
            int32_t const mask = std::uniform_int_distribution<int32_t>(0, 7)(rng);
            dc.push_back(mask & 1 ? n : 1);
            dt.push_back(mask & 2 ? n : 1);
            de.push_back(mask & 4 ? n : 1);
        }
        HostTensor c = HostTensor::random(DataType::kBOOL, makeDims(dc), rng);
        HostTensor t = HostTensor::random(DataType::kFLOAT, makeDims(dt), rng);
        HostTensor e = HostTensor::random(DataType::kFLOAT, makeDims(de), rng);
        EXPECT_TRUE(kiln::test::allClose(runSelect(c, t, e), reference(c, t, e), 0, 0));
    }
}

TEST_P(SelectLayerTest, EveryStorageType)
{
    std::mt19937 rng(81);
    for (DataType type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kUINT8,
             DataType::kINT32, DataType::kINT64, DataType::kBOOL})
    {
        SCOPED_TRACE("type " + std::to_string(static_cast<int>(type)));
        double const lo = type == DataType::kUINT8 ? 0 : -100;
        HostTensor c = HostTensor::random(DataType::kBOOL, makeDims({3, 1, 4}), rng);
        HostTensor t = HostTensor::random(type, makeDims({3, 2, 4}), rng, lo, 100);
        HostTensor e = HostTensor::random(type, makeDims({1, 2, 1}), rng, lo, 100);
        HostTensor out = runSelect(c, t, e);
        EXPECT_EQ(out.type, type);
        EXPECT_TRUE(kiln::test::allClose(out, reference(c, t, e), 0, 0));
    }
}

TEST_P(SelectLayerTest, LargeInt64ValuesAreExact)
{
    HostTensor c = HostTensor::fromValues(DataType::kBOOL, makeDims({3}), {1, 0, 1});
    HostTensor t(DataType::kINT64, makeDims({3}));
    HostTensor e(DataType::kINT64, makeDims({3}));
    int64_t const big[3] = {(int64_t{1} << 60) + 1, -((int64_t{1} << 59) + 3), (int64_t{1} << 62) - 1};
    std::memcpy(t.data(), big, sizeof(big));
    std::memcpy(e.data(), big, sizeof(big));
    HostTensor out = runSelect(c, t, e);
    EXPECT_TRUE(kiln::test::sameBits(out, t));
}

TEST_P(SelectLayerTest, EmptyTensor)
{
    std::mt19937 rng(82);
    HostTensor c = HostTensor::random(DataType::kBOOL, makeDims({1, 1, 0, 3}), rng);
    HostTensor t = HostTensor::random(DataType::kFLOAT, makeDims({1, 1, 0, 3}), rng);
    HostTensor e = HostTensor::random(DataType::kFLOAT, makeDims({1, 2, 1, 3}), rng);
    HostTensor out = runSelect(c, t, e);
    EXPECT_EQ(kiln::test::dimsString(out.dims), "[1,2,0,3]");
}

TEST_P(SelectLayerTest, DynamicShapes)
{
    NetworkRunner r;
    ITensor* c = r.addInput("c", DataType::kBOOL, {-1, 1});
    ITensor* t = r.addInput("t", DataType::kFLOAT, {-1, 5});
    ITensor* e = r.addInput("e", DataType::kFLOAT, {1, 5});
    r.markOutput(r.network().addSelect(*c, *t, *e)->getOutput(0), "out");
    r.setProfileDims("c", {1, 1}, {2, 1}, {6, 1});
    r.setProfileDims("t", {1, 5}, {2, 5}, {6, 5});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(83);
    HostTensor te = HostTensor::random(DataType::kFLOAT, makeDims({1, 5}), rng);
    for (int64_t n : {6, 2})
    {
        HostTensor tc = HostTensor::random(DataType::kBOOL, makeDims({n, 1}), rng);
        HostTensor tt = HostTensor::random(DataType::kFLOAT, makeDims({n, 5}), rng);
        EXPECT_TRUE(kiln::test::allClose(r.run({{"c", tc}, {"t", tt}, {"e", te}})["out"], reference(tc, tt, te), 0, 0));
    }
}

TEST_P(SelectLayerTest, ShapeValuesFeedReshape)
{
    // newShape = (shape(x) > [2, 2]) ? shape(x) : [1, 1]... used as reshape dims: [4, 3] stays [4, 3].
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 3});
    ITensor* shape = r.network().addShape(*x)->getOutput(0);
    int64_t const limit[2] = {0, 0};
    int64_t const other[2] = {12, 1};
    ITensor* lim = r.network().addConstant(makeDims({2}), Weights{DataType::kINT64, limit, 2})->getOutput(0);
    ITensor* oth = r.network().addConstant(makeDims({2}), Weights{DataType::kINT64, other, 2})->getOutput(0);
    ITensor* cond = r.network().addElementWise(*shape, *lim, ElementWiseOperation::kGREATER)->getOutput(0);
    ITensor* newShape = r.network().addSelect(*cond, *shape, *oth)->getOutput(0);
    IShuffleLayer* reshape = r.network().addShuffle(*x);
    ASSERT_NE(reshape, nullptr);
    reshape->setInput(1, *newShape);
    r.markOutput(reshape->getOutput(0), "out");
    r.setProfileDims("x", {1, 3}, {4, 3}, {8, 3});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(84);
    HostTensor tx = HostTensor::random(DataType::kFLOAT, makeDims({4, 3}), rng);
    EXPECT_TRUE(kiln::test::allClose(r.run({{"x", tx}})["out"], tx, 0, 0));
}

void expectBuildFailure(std::function<void(NetworkRunner&)> const& define, std::string const& text)
{
    NetworkRunner r;
    define(r);
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError(text)) << "expected '" << text << "' in:\n" << r.logger().allErrors();
}

TEST_P(SelectLayerTest, Errors)
{
    expectBuildFailure(
        [](NetworkRunner& r) {
            ITensor* c = r.addInput("c", DataType::kFLOAT, {2});
            ITensor* t = r.addInput("t", DataType::kFLOAT, {2});
            ISelectLayer* l = r.network().addSelect(*c, *t, *t);
            l->setName("sel");
            r.markOutput(l->getOutput(0), "out");
        },
        "must be BOOL");
    expectBuildFailure(
        [](NetworkRunner& r) {
            ITensor* c = r.addInput("c", DataType::kBOOL, {2});
            ITensor* t = r.addInput("t", DataType::kFLOAT, {2});
            ITensor* e = r.addInput("e", DataType::kINT32, {2});
            r.markOutput(r.network().addSelect(*c, *t, *e)->getOutput(0), "out");
        },
        "types must match");
    expectBuildFailure(
        [](NetworkRunner& r) {
            ITensor* c = r.addInput("c", DataType::kBOOL, {2, 2});
            ITensor* t = r.addInput("t", DataType::kFLOAT, {2});
            r.markOutput(r.network().addSelect(*c, *t, *t)->getOutput(0), "out");
        },
        "same rank");
    expectBuildFailure(
        [](NetworkRunner& r) {
            ITensor* c = r.addInput("c", DataType::kBOOL, {3});
            ITensor* t = r.addInput("t", DataType::kFLOAT, {2});
            r.markOutput(r.network().addSelect(*c, *t, *t)->getOutput(0), "out");
        },
        "cannot be broadcast");
}

} // namespace
