// Tests of IShuffleLayer: transpose/reshape/transpose against a naive index-mapping oracle, 0 and -1 reshape
// rules (static and from shape tensors), shape-tensor values, every storage type, dynamic shapes and errors.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <memory>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

size_t bytesOf(DataType t)
{
    switch (t)
    {
    case DataType::kFLOAT:
    case DataType::kINT32: return 4;
    case DataType::kHALF:
    case DataType::kBF16: return 2;
    case DataType::kINT64: return 8;
    default: return 1;
    }
}

std::vector<int64_t> extents(Dims const& d)
{
    return std::vector<int64_t>(d.d, d.d + d.nbDims);
}

//! out[i0..] = in[...] with out dim i = in dim perm[i], copying raw element bytes.
HostTensor transposeOracle(HostTensor const& in, std::vector<int32_t> const& perm)
{
    std::vector<int64_t> const inDims = extents(in.dims);
    std::vector<int64_t> outDims;
    for (int32_t p : perm)
    {
        outDims.push_back(inDims[static_cast<size_t>(p)]);
    }
    HostTensor out(in.type, makeDims(outDims));
    size_t const eb = bytesOf(in.type);
    for (int64_t o = 0; o < out.volume(); ++o)
    {
        // Unravel o over outDims, then ravel the permuted coordinate over inDims.
        std::vector<int64_t> c(outDims.size());
        int64_t rest = o;
        for (size_t i = outDims.size(); i-- > 0;)
        {
            c[i] = rest % outDims[i];
            rest /= outDims[i];
        }
        std::vector<int64_t> ic(inDims.size());
        for (size_t i = 0; i < perm.size(); ++i)
        {
            ic[static_cast<size_t>(perm[i])] = c[i];
        }
        int64_t src = 0;
        for (size_t i = 0; i < inDims.size(); ++i)
        {
            src = src * inDims[i] + ic[i];
        }
        std::memcpy(out.bytes.data() + o * eb, in.bytes.data() + src * eb, eb);
    }
    return out;
}

HostTensor reshapeOracle(HostTensor in, std::vector<int64_t> const& dims)
{
    in.dims = makeDims(dims);
    return in;
}

//! TensorRT's reshape rules: 0 copies the extent at the same index, -1 takes the remaining volume.
std::vector<int64_t> resolveReshape(std::vector<int64_t> const& in, std::vector<int64_t> const& request)
{
    int64_t vol = 1;
    for (int64_t d : in)
    {
        vol *= d;
    }
    std::vector<int64_t> out = request;
    int64_t known = 1;
    int32_t inferred = -1;
    for (size_t i = 0; i < out.size(); ++i)
    {
        if (out[i] == 0)
        {
            out[i] = in[i];
        }
        if (out[i] == -1)
        {
            inferred = static_cast<int32_t>(i);
        }
        else
        {
            known *= out[i];
        }
    }
    if (inferred >= 0)
    {
        out[static_cast<size_t>(inferred)] = vol / known;
    }
    return out;
}

Permutation toPermutation(std::vector<int32_t> const& p)
{
    Permutation perm{};
    for (int32_t i = 0; i < Dims::MAX_DIMS; ++i)
    {
        perm.order[i] = i < static_cast<int32_t>(p.size()) ? p[static_cast<size_t>(i)] : i;
    }
    return perm;
}

std::vector<int32_t> randomPermutation(size_t n, std::mt19937& rng)
{
    std::vector<int32_t> p(n);
    std::iota(p.begin(), p.end(), 0);
    std::shuffle(p.begin(), p.end(), rng);
    return p;
}

std::vector<int64_t> randomShape(size_t rank, std::mt19937& rng, int64_t lo = 1, int64_t hi = 5)
{
    std::vector<int64_t> s(rank);
    for (auto& d : s)
    {
        d = std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    }
    return s;
}

//! A reshape request for `t` using one of several patterns (with 0 and -1 placeholders).
std::vector<int64_t> randomRequest(std::vector<int64_t> const& t, std::mt19937& rng)
{
    int64_t vol = 1;
    for (int64_t d : t)
    {
        vol *= d;
    }
    switch (std::uniform_int_distribution<int>(0, 4)(rng))
    {
    case 0: return {-1};
    case 1: return t.size() >= 2 ? std::vector<int64_t>{0, -1} : std::vector<int64_t>{vol};
    case 2:
    {
        std::vector<int64_t> r = {1};
        r.insert(r.end(), t.begin(), t.end());
        r.push_back(1);
        return r;
    }
    case 3:
    {
        if (t.size() < 2)
        {
            return {1, -1};
        }
        std::vector<int64_t> r = {t[0] * t[1]};
        r.insert(r.end(), t.begin() + 2, t.end());
        return r;
    }
    default:
    {
        std::vector<int64_t> r(t.size(), 0);
        if (!r.empty())
        {
            r.back() = -1;
        }
        return r;
    }
    }
}

class ShuffleLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(ShuffleLayerTest);

TEST_P(ShuffleLayerTest, TransposeReshapeTransposeMatchesOracle)
{
    std::mt19937 rng(1234);
    for (int32_t iter = 0; iter < 12; ++iter)
    {
        size_t const rank = std::uniform_int_distribution<size_t>(1, 4)(rng);
        std::vector<int64_t> const shape = randomShape(rank, rng);
        std::vector<int32_t> const p1 = randomPermutation(rank, rng);
        std::vector<int64_t> transposed;
        for (int32_t p : p1)
        {
            transposed.push_back(shape[static_cast<size_t>(p)]);
        }
        std::vector<int64_t> const request = randomRequest(transposed, rng);
        std::vector<int64_t> const reshaped = resolveReshape(transposed, request);
        std::vector<int32_t> const p2 = randomPermutation(reshaped.size(), rng);

        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, shape);
        IShuffleLayer* s = r.network().addShuffle(*x);
        ASSERT_NE(s, nullptr);
        s->setFirstTranspose(toPermutation(p1));
        s->setReshapeDimensions(makeDims(request));
        s->setSecondTranspose(toPermutation(p2));
        r.markOutput(s->getOutput(0), "y");
        ASSERT_TRUE(r.build()) << r.logger().allErrors();

        HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims(shape), rng);
        HostTensor const expected = transposeOracle(reshapeOracle(transposeOracle(in, p1), reshaped), p2);
        auto out = r.run({{"x", in}});
        EXPECT_TRUE(kiln::test::sameBits(out["y"], expected)) << "iteration " << iter;
        EXPECT_EQ(kiln::test::dimsString(out["y"].dims), kiln::test::dimsString(expected.dims));
    }
}

//! Transposes that keep the innermost dimensions in place (the CUDA kernel then moves 16-, 8-, 4- or 2-byte pieces of
//! the contiguous runs): attention's head split [B, S, H, D] -> [B, H, S, D], a run of 20 elements, one of 6 bytes.
TEST_P(ShuffleLayerTest, TransposeKeepingInnerDimensions)
{
    std::mt19937 rng(77);
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kINT8})
    {
        for (auto const& c : {std::make_pair(std::vector<int64_t>{2, 5, 3, 8}, std::vector<int32_t>{0, 2, 1, 3}),
                 std::make_pair(std::vector<int64_t>{2, 3, 4, 5}, std::vector<int32_t>{1, 0, 2, 3}),
                 std::make_pair(std::vector<int64_t>{3, 4, 6}, std::vector<int32_t>{1, 0, 2})})
        {
            NetworkRunner r;
            IShuffleLayer* s = r.network().addShuffle(*r.addInput("x", t, c.first));
            ASSERT_NE(s, nullptr);
            s->setFirstTranspose(toPermutation(c.second));
            r.markOutput(s->getOutput(0), "y");
            ASSERT_TRUE(r.build()) << r.logger().allErrors();
            HostTensor const in = HostTensor::random(t, makeDims(c.first), rng, -60.0, 60.0);
            auto out = r.run({{"x", in}});
            EXPECT_TRUE(kiln::test::sameBits(out["y"], transposeOracle(in, c.second)))
                << "type " << static_cast<int>(t) << " dims " << kiln::test::dimsString(in.dims);
        }
    }
}

TEST_P(ShuffleLayerTest, PlainReshapeAndIdentity)
{
    std::mt19937 rng(7);
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 3, 4});
    IShuffleLayer* s = r.network().addShuffle(*x);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->getReshapeDimensions().nbDims, -1);
    EXPECT_TRUE(s->getZeroIsPlaceholder());
    Permutation const id = s->getFirstTranspose();
    for (int32_t i = 0; i < Dims::MAX_DIMS; ++i)
    {
        EXPECT_EQ(id.order[i], i);
    }
    r.markOutput(s->getOutput(0), "same");
    IShuffleLayer* flat = r.network().addShuffle(*x);
    flat->setReshapeDimensions(makeDims({4, -1}));
    EXPECT_EQ(flat->getReshapeDimensions().nbDims, 2);
    r.markOutput(flat->getOutput(0), "flat");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({2, 3, 4}), rng);
    auto out = r.run({{"x", in}});
    EXPECT_TRUE(kiln::test::sameBits(out["same"], in));
    EXPECT_TRUE(kiln::test::sameBits(out["flat"], reshapeOracle(in, {4, 6})));
    EXPECT_EQ(kiln::test::dimsString(out["flat"].dims), "[4,6]");
}

TEST_P(ShuffleLayerTest, EveryStorageType)
{
    std::mt19937 rng(99);
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kINT32,
             DataType::kINT64, DataType::kUINT8, DataType::kBOOL})
    {
        std::vector<int64_t> const shape = randomShape(3, rng, 2, 5);
        std::vector<int32_t> const p1 = {2, 0, 1};
        NetworkRunner r;
        ITensor* x = r.addInput("x", t, shape);
        IShuffleLayer* s = r.network().addShuffle(*x);
        s->setFirstTranspose(toPermutation(p1));
        s->setReshapeDimensions(makeDims({0, -1}));
        r.markOutput(s->getOutput(0), "y");
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        double const lo = t == DataType::kUINT8 ? 0.0 : -100.0;
        HostTensor const in = HostTensor::random(t, makeDims(shape), rng, lo, 100.0);
        HostTensor const tr = transposeOracle(in, p1);
        HostTensor const expected = reshapeOracle(tr, {tr.dims.d[0], tr.dims.d[1] * tr.dims.d[2]});
        auto out = r.run({{"x", in}});
        EXPECT_EQ(out["y"].type, t);
        EXPECT_TRUE(kiln::test::sameBits(out["y"], expected)) << "type " << static_cast<int>(t);
    }
}

TEST_P(ShuffleLayerTest, DynamicInputShapes)
{
    std::mt19937 rng(5);
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, -1, 4});
    IShuffleLayer* s = r.network().addShuffle(*x);
    s->setFirstTranspose(toPermutation({1, 0, 2}));
    s->setReshapeDimensions(makeDims({0, -1}));
    s->setSecondTranspose(toPermutation({1, 0}));
    r.markOutput(s->getOutput(0), "y");
    Dims const before = s->getOutput(0)->getDimensions();
    EXPECT_EQ(before.nbDims, 2);
    EXPECT_EQ(before.d[0], -1); // runtime dimension
    r.setProfileDims("x", {1, 1, 4}, {2, 3, 4}, {4, 5, 4});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (auto const& shape : {std::vector<int64_t>{2, 3, 4}, std::vector<int64_t>{4, 1, 4}, std::vector<int64_t>{1, 5, 4}})
    {
        HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims(shape), rng);
        HostTensor const t1 = transposeOracle(in, {1, 0, 2});
        HostTensor const expected
            = transposeOracle(reshapeOracle(t1, {t1.dims.d[0], t1.dims.d[1] * t1.dims.d[2]}), {1, 0});
        auto out = r.run({{"x", in}});
        EXPECT_TRUE(kiln::test::sameBits(out["y"], expected)) << kiln::test::dimsString(in.dims);
    }
}

TEST_P(ShuffleLayerTest, ReshapeFromShapeTensorInput)
{
    // The reshape dimensions are a network shape-tensor input: 0 and -1 are resolved at run time.
    std::mt19937 rng(11);
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 3, 4});
    ITensor* shape = r.addInput("shape", DataType::kINT32, {2});
    IShuffleLayer* s = r.network().addShuffle(*x);
    s->setInput(1, *shape);
    EXPECT_EQ(s->getNbInputs(), 2);
    EXPECT_EQ(s->getReshapeDimensions().nbDims, -1);
    r.markOutput(s->getOutput(0), "y");
    // Every profile corner must itself be a valid request (the builder evaluates the shapes there).
    r.setProfileValues("shape", {0, -1}, {0, -1}, {6, 4});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({2, 3, 4}), rng);
    struct Case
    {
        std::vector<double> request;
        std::vector<int64_t> dims;
    };
    for (Case const& c : {Case{{0, -1}, {2, 12}}, Case{{3, -1}, {3, 8}}, Case{{6, 4}, {6, 4}}, Case{{1, -1}, {1, 24}},
             Case{{4, -1}, {4, 6}}, Case{{2, 0}, {2, 3}}})
    {
        HostTensor const req = HostTensor::fromValues(DataType::kINT32, makeDims({2}), c.request);
        if (c.dims[0] * c.dims[1] != 24)
        {
            // {2, 0} copies extent 3: volume 6 != 24.
            EXPECT_TRUE(r.runFails({{"x", in}, {"shape", req}}));
            EXPECT_TRUE(r.logger().hasError("reshape changes the volume")) << r.logger().allErrors();
            continue;
        }
        auto out = r.run({{"x", in}, {"shape", req}});
        EXPECT_TRUE(kiln::test::sameBits(out["y"], reshapeOracle(in, c.dims)))
            << "request " << c.request[0] << "," << c.request[1];
    }
    // 24 is not a multiple of 5: the -1 cannot be inferred.
    HostTensor const bad = HostTensor::fromValues(DataType::kINT32, makeDims({2}), {5, -1});
    EXPECT_TRUE(r.runFails({{"x", in}, {"shape", bad}}));
}

TEST_P(ShuffleLayerTest, ZeroIsLiteralWhenNotPlaceholder)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {0, 3});
    IShuffleLayer* s = r.network().addShuffle(*x);
    s->setZeroIsPlaceholder(false);
    EXPECT_FALSE(s->getZeroIsPlaceholder());
    s->setReshapeDimensions(makeDims({5, 0, 2}));
    Dims const d = s->getOutput(0)->getDimensions();
    ASSERT_EQ(d.nbDims, 3);
    EXPECT_EQ(d.d[0], 5);
    EXPECT_EQ(d.d[1], 0);
    EXPECT_EQ(d.d[2], 2);
    // With the placeholder meaning the 0 copies extent 3: volume 30 != 0 is an error.
    s->setZeroIsPlaceholder(true);
    r.markOutput(s->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("reshape changes the volume")) << r.logger().allErrors();
}

TEST_P(ShuffleLayerTest, ShapeTensorValuesFollowTheShuffle)
{
    // Shape -> shuffle of shape tensors (1-D to 2-D and back, and 1-D to 0-D) keeps element values.
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 3, 5});
    ITensor* shape = r.network().addShape(*x)->getOutput(0);
    IShuffleLayer* toMatrix = r.network().addShuffle(*shape);
    toMatrix->setReshapeDimensions(makeDims({3, 1}));
    toMatrix->setSecondTranspose(toPermutation({1, 0}));
    IShuffleLayer* back = r.network().addShuffle(*toMatrix->getOutput(0));
    back->setReshapeDimensions(makeDims({-1}));
    // Reshape x with the round-tripped shape: proves the values are still [N, 3, 5].
    IShuffleLayer* reshapeX = r.network().addShuffle(*x);
    reshapeX->setInput(1, *back->getOutput(0));
    r.markOutput(reshapeX->getOutput(0), "y");
    // A 1-element slice reshaped to 0-D.
    ISliceLayer* first = r.network().addSlice(*shape, makeDims({0}), makeDims({1}), makeDims({1}));
    IShuffleLayer* scalar = r.network().addShuffle(*first->getOutput(0));
    scalar->setReshapeDimensions(makeDims({}));
    EXPECT_EQ(scalar->getOutput(0)->getDimensions().nbDims, 0);
    r.markOutput(scalar->getOutput(0), "n");
    r.markOutput(toMatrix->getOutput(0), "m");
    r.setProfileDims("x", {1, 3, 5}, {2, 3, 5}, {6, 3, 5});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(3);
    for (int64_t n : {1, 4, 6})
    {
        HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({n, 3, 5}), rng);
        auto out = r.run({{"x", in}});
        EXPECT_TRUE(kiln::test::sameBits(out["y"], in));
        ASSERT_EQ(out["n"].dims.nbDims, 0);
        EXPECT_EQ(out["n"].type, DataType::kINT64);
        EXPECT_EQ(out["n"].at(0), static_cast<double>(n));
        ASSERT_EQ(kiln::test::dimsString(out["m"].dims), "[1,3]");
        EXPECT_EQ(out["m"].at(0), static_cast<double>(n));
        EXPECT_EQ(out["m"].at(1), 3.0);
        EXPECT_EQ(out["m"].at(2), 5.0);
    }
}

TEST_P(ShuffleLayerTest, SetReshapeDimensionsClearsShapeInput)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 6});
    ITensor* shape = r.addInput("shape", DataType::kINT32, {2});
    IShuffleLayer* s = r.network().addShuffle(*x);
    s->setInput(1, *shape);
    EXPECT_EQ(s->getInput(1), shape);
    s->setReshapeDimensions(makeDims({3, 4}));
    EXPECT_EQ(s->getInput(1), nullptr);
    Dims const d = s->getReshapeDimensions();
    ASSERT_EQ(d.nbDims, 2);
    EXPECT_EQ(d.d[0], 3);
    Dims const out = s->getOutput(0)->getDimensions();
    ASSERT_EQ(out.nbDims, 2);
    EXPECT_EQ(out.d[0], 3);
    EXPECT_EQ(out.d[1], 4);
}

TEST_P(ShuffleLayerTest, BadArgumentsAreReported)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 6});
    IShuffleLayer* s = r.network().addShuffle(*x);
    s->setName("shuf");
    s->setReshapeDimensions(makeDims({-2, 3}));
    EXPECT_TRUE(r.logger().hasError("shuf")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("-2"));
    EXPECT_EQ(s->getReshapeDimensions().nbDims, -1); // ignored
    r.logger().clear();
    s->setReshapeDimensions(makeDims({-1, -1}));
    EXPECT_TRUE(r.logger().hasError("at most one dimension may be -1")) << r.logger().allErrors();
    r.logger().clear();
    ITensor* other = r.addInput("other", DataType::kINT32, {2});
    s->setInput(2, *other);
    EXPECT_TRUE(r.logger().hasError("out of range")) << r.logger().allErrors();
}

TEST_P(ShuffleLayerTest, BuildFailures)
{
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 6});
        IShuffleLayer* s = r.network().addShuffle(*x);
        s->setName("badperm");
        s->setFirstTranspose(toPermutation({0, 0}));
        r.markOutput(s->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("not a permutation")) << r.logger().allErrors();
        EXPECT_TRUE(r.logger().hasError("badperm"));
    }
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 6});
        IShuffleLayer* s = r.network().addShuffle(*x);
        s->setReshapeDimensions(makeDims({5, -1}));
        r.markOutput(s->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("reshape changes the volume")) << r.logger().allErrors();
    }
    {
        // A placeholder 0 beyond the input rank has no extent to copy.
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {12});
        IShuffleLayer* s = r.network().addShuffle(*x);
        s->setReshapeDimensions(makeDims({12, 0}));
        r.markOutput(s->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("has only 1 dimensions")) << r.logger().allErrors();
    }
    {
        // Float reshape dimensions are rejected.
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 6});
        ITensor* f = r.addInput("f", DataType::kFLOAT, {2});
        IShuffleLayer* s = r.network().addShuffle(*x);
        s->setInput(1, *f);
        r.markOutput(s->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("must be INT32 or INT64")) << r.logger().allErrors();
    }
    {
        // -1 next to a zero-volume remainder is indeterminate.
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {0, 4});
        IShuffleLayer* s = r.network().addShuffle(*x);
        s->setReshapeDimensions(makeDims({0, -1}));
        r.markOutput(s->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("indeterminate")) << r.logger().allErrors();
    }
}

TEST_P(ShuffleLayerTest, RuntimeVolumeMismatchFails)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 4});
    IShuffleLayer* s = r.network().addShuffle(*x);
    s->setReshapeDimensions(makeDims({-1, 8}));
    r.markOutput(s->getOutput(0), "y");
    r.setProfileDims("x", {2, 4}, {4, 4}, {6, 4});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(1);
    HostTensor const good = HostTensor::random(DataType::kFLOAT, makeDims({4, 4}), rng);
    auto out = r.run({{"x", good}});
    EXPECT_TRUE(kiln::test::sameBits(out["y"], reshapeOracle(good, {2, 8})));
    HostTensor const odd = HostTensor::random(DataType::kFLOAT, makeDims({3, 4}), rng);
    EXPECT_TRUE(r.runFails({{"x", odd}}));
    EXPECT_TRUE(r.logger().hasError("reshape changes the volume")) << r.logger().allErrors();
}

} // namespace
