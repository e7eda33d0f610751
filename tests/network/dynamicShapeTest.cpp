// End-to-end dynamic reshape networks: shapes computed at run time from IShapeLayer through Gather/Slice and
// Concatenation/ElementWise feed IShuffleLayer (input 1) and ISliceLayer (size input). Each network has two
// optimization profiles and runs at several shapes in each; the data must come through unchanged.
#include "common/networkRunner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

//! Owns the host memory of constant weights until the build.
class Constants
{
public:
    ITensor* int64s(INetworkDefinition& net, std::vector<int64_t> values)
    {
        mInt64.push_back(std::move(values));
        auto const& v = mInt64.back();
        Weights const w{DataType::kINT64, v.data(), static_cast<int64_t>(v.size())};
        return net.addConstant(makeDims({static_cast<int64_t>(v.size())}), w)->getOutput(0);
    }
    ITensor* int32s(INetworkDefinition& net, std::vector<int32_t> values)
    {
        mInt32.push_back(std::move(values));
        auto const& v = mInt32.back();
        Weights const w{DataType::kINT32, v.data(), static_cast<int64_t>(v.size())};
        return net.addConstant(makeDims({static_cast<int64_t>(v.size())}), w)->getOutput(0);
    }

private:
    std::deque<std::vector<int64_t>> mInt64;
    std::deque<std::vector<int32_t>> mInt32;
};

ITensor* concat(INetworkDefinition& net, std::vector<ITensor*> parts)
{
    IConcatenationLayer* c = net.addConcatenation(parts.data(), static_cast<int32_t>(parts.size()));
    c->setAxis(0);
    return c->getOutput(0);
}

ITensor* gather(INetworkDefinition& net, Constants& k, ITensor& shape, std::vector<int32_t> indices)
{
    return net.addGather(shape, *k.int32s(net, std::move(indices)), 0)->getOutput(0);
}

HostTensor reshaped(HostTensor t, std::vector<int64_t> const& dims)
{
    t.dims = makeDims(dims);
    return t;
}

TEST(DynamicShapeTest, FlattenSpatialDimensions)
{
    // x [N, C, H, W] -> [N, C, H*W] with the shape computed from Shape(x).
    NetworkRunner r;
    Constants k;
    INetworkDefinition& net = r.network();
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 3, -1, -1});
    ITensor* shape = net.addShape(*x)->getOutput(0);
    ITensor* nc = net.addSlice(*shape, makeDims({0}), makeDims({2}), makeDims({1}))->getOutput(0);
    ITensor* h = gather(net, k, *shape, {2});
    ITensor* w = gather(net, k, *shape, {3});
    ITensor* hw = net.addElementWise(*h, *w, ElementWiseOperation::kPROD)->getOutput(0);
    IShuffleLayer* flatten = net.addShuffle(*x);
    flatten->setInput(1, *concat(net, {nc, hw}));
    Dims const d = flatten->getOutput(0)->getDimensions();
    ASSERT_EQ(d.nbDims, 3);
    EXPECT_EQ(d.d[1], 3);
    r.markOutput(flatten->getOutput(0), "y");
    r.setProfileDims("x", {1, 3, 1, 1}, {2, 3, 4, 4}, {4, 3, 8, 8}, 0);
    r.setProfileDims("x", {5, 3, 2, 2}, {8, 3, 16, 16}, {16, 3, 32, 32}, 1);
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    ASSERT_EQ(r.engine().getNbOptimizationProfiles(), 2);
    std::mt19937 rng(1);
    struct Run
    {
        int32_t profile;
        std::vector<int64_t> shape;
    };
    for (Run const& run : {Run{0, {1, 3, 1, 1}}, Run{0, {4, 3, 8, 2}}, Run{0, {2, 3, 3, 7}}, Run{1, {5, 3, 2, 32}},
             Run{1, {16, 3, 9, 4}}, Run{1, {7, 3, 32, 32}}})
    {
        HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims(run.shape), rng);
        auto out = r.run({{"x", in}}, run.profile);
        std::vector<int64_t> const expected = {run.shape[0], 3, run.shape[2] * run.shape[3]};
        EXPECT_TRUE(kiln::test::sameBits(out["y"], reshaped(in, expected)))
            << "profile " << run.profile << " shape " << kiln::test::dimsString(in.dims);
        EXPECT_EQ(kiln::test::dimsString(out["y"].dims), kiln::test::dimsString(makeDims(expected)));
    }
}

TEST(DynamicShapeTest, SplitAndMergeWithArithmetic)
{
    // x [N, 6] -> a: [N, 2, 3] (concat of N and constants) and b: [2N, 3] (N * 2 by an elementwise product),
    // then c: [N * 6] from b with {-1} built by a concat of a constant, and d: b with {0, -1} (placeholders).
    NetworkRunner r;
    Constants k;
    INetworkDefinition& net = r.network();
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 6});
    ITensor* shape = net.addShape(*x)->getOutput(0);
    ITensor* n = gather(net, k, *shape, {0});
    IShuffleLayer* a = net.addShuffle(*x);
    a->setInput(1, *concat(net, {n, k.int64s(net, {2, 3})}));
    ITensor* twoN = net.addElementWise(*n, *k.int64s(net, {2}), ElementWiseOperation::kPROD)->getOutput(0);
    IShuffleLayer* b = net.addShuffle(*x);
    b->setInput(1, *concat(net, {twoN, k.int64s(net, {3})}));
    IShuffleLayer* c = net.addShuffle(*b->getOutput(0));
    c->setInput(1, *k.int64s(net, {-1}));
    IShuffleLayer* d = net.addShuffle(*b->getOutput(0));
    d->setInput(1, *concat(net, {k.int64s(net, {0}), k.int64s(net, {-1})}));
    r.markOutput(a->getOutput(0), "a");
    r.markOutput(b->getOutput(0), "b");
    r.markOutput(c->getOutput(0), "c");
    r.markOutput(d->getOutput(0), "d");
    r.setProfileDims("x", {1, 6}, {2, 6}, {3, 6}, 0);
    r.setProfileDims("x", {4, 6}, {10, 6}, {64, 6}, 1);
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(2);
    for (auto const& [profile, rows] : {std::pair<int32_t, int64_t>{0, 1}, {0, 3}, {0, 2}, {1, 4}, {1, 64}, {1, 17}})
    {
        HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({rows, 6}), rng);
        auto out = r.run({{"x", in}}, profile);
        EXPECT_TRUE(kiln::test::sameBits(out["a"], reshaped(in, {rows, 2, 3}))) << "rows " << rows;
        EXPECT_TRUE(kiln::test::sameBits(out["b"], reshaped(in, {2 * rows, 3}))) << "rows " << rows;
        EXPECT_TRUE(kiln::test::sameBits(out["c"], reshaped(in, {6 * rows}))) << "rows " << rows;
        EXPECT_TRUE(kiln::test::sameBits(out["d"], reshaped(in, {2 * rows, 3}))) << "rows " << rows;
    }
}

TEST(DynamicShapeTest, ComputedSliceSizeAndTransposedReshape)
{
    // First half of the rows of x [N, 8] (size = [N / 2, 8] computed with a floor division), then a reshape of
    // that half to [4, N / 2 * 2] through a shuffle with both transposes.
    NetworkRunner r;
    Constants k;
    INetworkDefinition& net = r.network();
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 8});
    ITensor* shape = net.addShape(*x)->getOutput(0);
    ITensor* n = net.addSlice(*shape, makeDims({0}), makeDims({1}), makeDims({1}))->getOutput(0);
    ITensor* half = net.addElementWise(*n, *k.int64s(net, {2}), ElementWiseOperation::kFLOOR_DIV)->getOutput(0);
    ISliceLayer* top = net.addSlice(*x, makeDims({0, 0}), makeDims({1, 8}), makeDims({1, 1}));
    top->setInput(2, *concat(net, {half, k.int64s(net, {8})}));
    IShuffleLayer* t = net.addShuffle(*top->getOutput(0));
    Permutation swap{};
    for (int32_t i = 0; i < Dims::MAX_DIMS; ++i)
    {
        swap.order[i] = i;
    }
    swap.order[0] = 1;
    swap.order[1] = 0;
    t->setFirstTranspose(swap); // [8, N/2]
    t->setInput(1, *concat(net, {k.int64s(net, {4}), k.int64s(net, {-1})}));
    t->setSecondTranspose(swap); // [N/2 * 2, 4]
    r.markOutput(top->getOutput(0), "top");
    r.markOutput(t->getOutput(0), "t");
    r.setProfileDims("x", {2, 8}, {4, 8}, {6, 8}, 0);
    r.setProfileDims("x", {8, 8}, {20, 8}, {40, 8}, 1);
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(3);
    for (auto const& [profile, rows] : {std::pair<int32_t, int64_t>{0, 2}, {0, 5}, {0, 6}, {1, 8}, {1, 33}, {1, 40}})
    {
        HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({rows, 8}), rng);
        auto out = r.run({{"x", in}}, profile);
        int64_t const h = rows / 2;
        HostTensor topExpected(DataType::kFLOAT, makeDims({h, 8}));
        for (int64_t i = 0; i < h * 8; ++i)
        {
            topExpected.set(i, in.at(i));
        }
        EXPECT_TRUE(kiln::test::sameBits(out["top"], topExpected)) << "rows " << rows;
        // transpose -> [8, h]; reshape to [4, 2h]; transpose -> [2h, 4].
        HostTensor tExpected(DataType::kFLOAT, makeDims({2 * h, 4}));
        for (int64_t i = 0; i < 2 * h; ++i)
        {
            for (int64_t j = 0; j < 4; ++j)
            {
                int64_t const flat = j * (2 * h) + i; // element [j][i] of the [4, 2h] reshape
                int64_t const col = flat / h;         // row of the [8, h] transpose = column of top
                int64_t const row = flat % h;
                tExpected.set(i * 4 + j, topExpected.at(row * 8 + col));
            }
        }
        EXPECT_TRUE(kiln::test::sameBits(out["t"], tExpected)) << "rows " << rows;
    }
}

TEST(DynamicShapeTest, ShapeTensorInputDrivesReshape)
{
    // The target shape is a network shape-tensor input combined with the data's own shape: [N, M] -> [N, a, M / a].
    NetworkRunner r;
    Constants k;
    INetworkDefinition& net = r.network();
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 12});
    ITensor* a = r.addInput("a", DataType::kINT64, {1});
    ITensor* shape = net.addShape(*x)->getOutput(0);
    ITensor* n = gather(net, k, *shape, {0});
    ITensor* m = gather(net, k, *shape, {1});
    ITensor* rest = net.addElementWise(*m, *a, ElementWiseOperation::kFLOOR_DIV)->getOutput(0);
    IShuffleLayer* s = net.addShuffle(*x);
    s->setInput(1, *concat(net, {n, a, rest}));
    r.markOutput(s->getOutput(0), "y");
    r.setProfileDims("x", {1, 12}, {2, 12}, {4, 12}, 0);
    r.setProfileValues("a", {1}, {2}, {3}, 0);
    r.setProfileDims("x", {5, 12}, {6, 12}, {9, 12}, 1);
    r.setProfileValues("a", {4}, {6}, {12}, 1);
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(4);
    struct Run
    {
        int32_t profile;
        int64_t rows;
        int64_t a;
    };
    for (Run const& run : {Run{0, 1, 1}, Run{0, 4, 3}, Run{0, 3, 2}, Run{1, 5, 4}, Run{1, 9, 12}, Run{1, 7, 6}})
    {
        HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({run.rows, 12}), rng);
        HostTensor const av = HostTensor::fromValues(DataType::kINT64, makeDims({1}), {double(run.a)});
        auto out = r.run({{"x", in}, {"a", av}}, run.profile);
        EXPECT_TRUE(kiln::test::sameBits(out["y"], reshaped(in, {run.rows, run.a, 12 / run.a})))
            << "rows " << run.rows << " a " << run.a;
    }
    // a = 5 does not divide 12: the reshape volume check fails at run time (profile 1 allows 4..12).
    HostTensor const five = HostTensor::fromValues(DataType::kINT64, makeDims({1}), {5.0});
    EXPECT_TRUE(r.runFails({{"x", HostTensor::random(DataType::kFLOAT, makeDims({6, 12}), rng)}, {"a", five}}, 1));
    EXPECT_TRUE(r.logger().hasError("reshape changes the volume")) << r.logger().allErrors();
}

} // namespace
