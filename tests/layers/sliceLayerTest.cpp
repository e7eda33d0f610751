// Tests of ISliceLayer: every SampleMode (with negative strides and out-of-bounds starts), the fill value
// input, static and tensor axes, dynamic start/size/stride from shape tensors, shape-tensor values, every
// storage type and the error paths, against a naive per-element oracle written from TensorRT's formulas.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
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

//! Input coordinate for x along extent d, or -1 for "fill", following the TensorRT operator documentation.
int64_t sampleIndex(SampleMode mode, int64_t x, int64_t d)
{
    switch (mode)
    {
    case SampleMode::kSTRICT_BOUNDS: return x; // callers keep x in bounds
    case SampleMode::kWRAP: return ((x % d) + d) % d;
    case SampleMode::kCLAMP: return x < 0 ? 0 : (x >= d ? d - 1 : x);
    case SampleMode::kFILL: return (x >= 0 && x < d) ? x : -1;
    case SampleMode::kREFLECT:
    {
        if (d == 1)
        {
            return 0;
        }
        int64_t const c = (x < 0 ? -x : x) % (2 * d - 2);
        return c >= d ? 2 * d - 2 - c : c;
    }
    }
    return -1;
}

//! Full-rank slice oracle: out[y] = in[sample(start + y * stride)], byte copies; `fill` is an element of the
//! output type used for kFILL.
HostTensor sliceOracle(HostTensor const& in, std::vector<int64_t> const& start, std::vector<int64_t> const& size,
    std::vector<int64_t> const& stride, SampleMode mode, double fill = 0.0)
{
    HostTensor out(in.type, makeDims(size));
    HostTensor fillT(in.type, makeDims({1}));
    fillT.set(0, fill);
    size_t const eb = bytesOf(in.type);
    size_t const rank = size.size();
    for (int64_t o = 0; o < out.volume(); ++o)
    {
        int64_t rest = o;
        std::vector<int64_t> y(rank);
        for (size_t i = rank; i-- > 0;)
        {
            y[i] = rest % size[i];
            rest /= size[i];
        }
        int64_t src = 0;
        bool filled = false;
        for (size_t i = 0; i < rank; ++i)
        {
            int64_t const idx = sampleIndex(mode, start[i] + y[i] * stride[i], in.dims.d[i]);
            filled = filled || idx < 0;
            src = src * in.dims.d[i] + idx;
        }
        std::memcpy(out.bytes.data() + o * eb, filled ? fillT.bytes.data() : in.bytes.data() + src * eb, eb);
    }
    return out;
}

std::vector<int64_t> randomShape(size_t rank, std::mt19937& rng, int64_t lo = 1, int64_t hi = 6)
{
    std::vector<int64_t> s(rank);
    for (auto& d : s)
    {
        d = std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    }
    return s;
}

int64_t uniformInt(std::mt19937& rng, int64_t lo, int64_t hi)
{
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

//! Random in-bounds parameters for one dimension of extent d (for kSTRICT_BOUNDS).
void strictParams(int64_t d, std::mt19937& rng, int64_t& start, int64_t& size, int64_t& stride)
{
    stride = uniformInt(rng, 1, 3) * (uniformInt(rng, 0, 1) ? 1 : -1);
    int64_t const maxSize = (d - 1) / std::abs(stride) + 1;
    size = uniformInt(rng, 1, maxSize);
    int64_t const span = (size - 1) * std::abs(stride);
    int64_t const lowest = uniformInt(rng, 0, d - 1 - span);
    start = stride > 0 ? lowest : lowest + span;
}

ITensor* constantInts(NetworkRunner& r, std::vector<int32_t>& storage)
{
    Weights w{DataType::kINT32, storage.data(), static_cast<int64_t>(storage.size())};
    return r.network().addConstant(makeDims({static_cast<int64_t>(storage.size())}), w)->getOutput(0);
}

class SliceLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(SliceLayerTest);

TEST_P(SliceLayerTest, EverySampleModeMatchesOracle)
{
    std::mt19937 rng(2024);
    for (SampleMode mode : {SampleMode::kSTRICT_BOUNDS, SampleMode::kWRAP, SampleMode::kCLAMP, SampleMode::kFILL,
             SampleMode::kREFLECT})
    {
        for (int32_t iter = 0; iter < 4; ++iter)
        {
            size_t const rank = static_cast<size_t>(uniformInt(rng, 1, 4));
            std::vector<int64_t> const shape = randomShape(rank, rng);
            std::vector<int64_t> start(rank), size(rank), stride(rank);
            for (size_t i = 0; i < rank; ++i)
            {
                if (mode == SampleMode::kSTRICT_BOUNDS)
                {
                    strictParams(shape[i], rng, start[i], size[i], stride[i]);
                }
                else
                {
                    stride[i] = uniformInt(rng, -3, 3);
                    stride[i] = stride[i] == 0 ? 1 : stride[i];
                    size[i] = uniformInt(rng, 1, 7);
                    start[i] = uniformInt(rng, -8, 8);
                }
            }
            NetworkRunner r;
            ITensor* x = r.addInput("x", DataType::kFLOAT, shape);
            ISliceLayer* s = r.network().addSlice(*x, makeDims(start), makeDims(size), makeDims(stride));
            ASSERT_NE(s, nullptr);
            s->setMode(mode);
            EXPECT_EQ(s->getMode(), mode);
            r.markOutput(s->getOutput(0), "y");
            ASSERT_TRUE(r.build()) << r.logger().allErrors();
            HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims(shape), rng);
            auto out = r.run({{"x", in}});
            EXPECT_TRUE(kiln::test::sameBits(out["y"], sliceOracle(in, start, size, stride, mode)))
                << "mode " << static_cast<int>(mode) << " iteration " << iter;
        }
    }
}

TEST_P(SliceLayerTest, FillValueFromInputFour)
{
    std::mt19937 rng(8);
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kINT32})
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", t, {3, 4});
        static float const fillF = 7.5F;
        static int32_t const fillI = -9;
        Weights const w = t == DataType::kINT32 ? Weights{DataType::kINT32, &fillI, 1} : Weights{DataType::kFLOAT, &fillF, 1};
        IConstantLayer* c = r.network().addConstant(makeDims({}), w);
        ITensor* fill = c->getOutput(0);
        ISliceLayer* s = r.network().addSlice(*x, makeDims({-1, 2}), makeDims({5, 4}), makeDims({1, 1}));
        s->setMode(SampleMode::kFILL);
        s->setInput(4, *fill);
        EXPECT_EQ(s->getNbInputs(), 5);
        EXPECT_EQ(s->getInput(1), nullptr); // skipped slots stay empty
        r.markOutput(s->getOutput(0), "y");
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        HostTensor const in = HostTensor::random(t, makeDims({3, 4}), rng, -50.0, 50.0);
        double const fv = t == DataType::kINT32 ? -9.0 : 7.5;
        auto out = r.run({{"x", in}});
        EXPECT_TRUE(kiln::test::sameBits(out["y"], sliceOracle(in, {-1, 2}, {5, 4}, {1, 1}, SampleMode::kFILL, fv)))
            << "type " << static_cast<int>(t);
    }
}

TEST_P(SliceLayerTest, FillValueFromNetworkInput)
{
    std::mt19937 rng(21);
    for (DataType t : {DataType::kFLOAT, DataType::kINT32})
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", t, {3, 4});
        ITensor* fill = r.addInput("fill", t, {});
        ISliceLayer* s = r.network().addSlice(*x, makeDims({-2}), makeDims({7}), makeDims({1}));
        s->setAxes(makeDims({1}));
        s->setMode(SampleMode::kFILL);
        s->setInput(4, *fill);
        r.markOutput(s->getOutput(0), "y");
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        HostTensor const in = HostTensor::random(t, makeDims({3, 4}), rng, -9.0, 9.0);
        for (double v : {-3.0, 42.0})
        {
            auto out = r.run({{"x", in}, {"fill", HostTensor::fromValues(t, makeDims({}), {v})}});
            EXPECT_TRUE(kiln::test::sameBits(out["y"], sliceOracle(in, {0, -2}, {3, 7}, {1, 1}, SampleMode::kFILL, v)))
                << "type " << int(t) << " fill " << v;
        }
    }
}

TEST_P(SliceLayerTest, FillValueAndAxesAsNetworkInputs)
{
    // Input 4 (fill value) is ordinary data; input 5 (axes) is a shape tensor.
    std::mt19937 rng(19);
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {3, 4});
    ITensor* fill = r.addInput("fill", DataType::kFLOAT, {});
    ITensor* axes = r.addInput("axes", DataType::kINT32, {1});
    ISliceLayer* s = r.network().addSlice(*x, makeDims({-2}), makeDims({7}), makeDims({1}));
    s->setMode(SampleMode::kFILL);
    s->setInput(4, *fill);
    s->setInput(5, *axes);
    r.markOutput(s->getOutput(0), "y");
    r.setProfileValues("axes", {-1}, {1}, {1});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({3, 4}), rng);
    for (double axis : {1.0, -1.0, 0.0})
    {
        HostTensor const f = HostTensor::fromValues(DataType::kFLOAT, makeDims({}), {axis + 4.5});
        HostTensor const a = HostTensor::fromValues(DataType::kINT32, makeDims({1}), {axis});
        auto out = r.run({{"x", in}, {"fill", f}, {"axes", a}});
        bool const rows = axis == 0.0;
        std::vector<int64_t> const start = rows ? std::vector<int64_t>{-2, 0} : std::vector<int64_t>{0, -2};
        std::vector<int64_t> const size = rows ? std::vector<int64_t>{7, 4} : std::vector<int64_t>{3, 7};
        EXPECT_TRUE(kiln::test::sameBits(out["y"], sliceOracle(in, start, size, {1, 1}, SampleMode::kFILL, axis + 4.5)))
            << "axis " << axis;
    }
}

TEST_P(SliceLayerTest, StaticAndTensorAxes)
{
    std::mt19937 rng(17);
    std::vector<int32_t> axesStorage = {-1, 0};
    for (bool tensorAxes : {false, true})
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {4, 5, 6});
        ISliceLayer* s = r.network().addSlice(*x, makeDims({1, 3}), makeDims({3, 2}), makeDims({2, -1}));
        if (tensorAxes)
        {
            s->setInput(5, *constantInts(r, axesStorage));
            EXPECT_EQ(s->getAxes().nbDims, -1);
        }
        else
        {
            s->setAxes(makeDims({-1, 0}));
            EXPECT_EQ(s->getAxes().nbDims, 2);
        }
        r.markOutput(s->getOutput(0), "y");
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({4, 5, 6}), rng);
        // axes {-1, 0}: dim 2 gets start 1, size 3, stride 2; dim 0 gets start 3, size 2, stride -1.
        auto out = r.run({{"x", in}});
        EXPECT_TRUE(kiln::test::sameBits(
            out["y"], sliceOracle(in, {3, 0, 1}, {2, 5, 3}, {-1, 1, 2}, SampleMode::kSTRICT_BOUNDS)))
            << (tensorAxes ? "tensor axes" : "static axes");
    }
}

TEST_P(SliceLayerTest, DynamicParametersFromShapeTensors)
{
    std::mt19937 rng(23);
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {6, 7});
    ITensor* start = r.addInput("start", DataType::kINT32, {2});
    ITensor* size = r.addInput("size", DataType::kINT64, {2});
    ITensor* stride = r.addInput("stride", DataType::kINT32, {2});
    ISliceLayer* s = r.network().addSlice(*x, makeDims({0, 0}), makeDims({1, 1}), makeDims({1, 1}));
    s->setInput(1, *start);
    s->setInput(2, *size);
    s->setInput(3, *stride);
    s->setMode(SampleMode::kWRAP);
    EXPECT_EQ(s->getStart().nbDims, -1);
    EXPECT_EQ(s->getSize().nbDims, -1);
    EXPECT_EQ(s->getStride().nbDims, -1);
    r.markOutput(s->getOutput(0), "y");
    r.setProfileValues("start", {-10, -10}, {0, 0}, {10, 10});
    r.setProfileValues("size", {0, 0}, {3, 3}, {9, 9});
    r.setProfileValues("stride", {-3, -3}, {1, 1}, {3, 3});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({6, 7}), rng);
    struct Case
    {
        std::vector<int64_t> start, size, stride;
    };
    for (Case const& c : {Case{{0, 0}, {3, 3}, {1, 1}}, Case{{-4, 5}, {9, 2}, {2, -3}}, Case{{9, -1}, {4, 8}, {-1, 1}}})
    {
        std::map<std::string, HostTensor> inputs{{"x", in},
            {"start", HostTensor::fromValues(DataType::kINT32, makeDims({2}), {double(c.start[0]), double(c.start[1])})},
            {"size", HostTensor::fromValues(DataType::kINT64, makeDims({2}), {double(c.size[0]), double(c.size[1])})},
            {"stride",
                HostTensor::fromValues(DataType::kINT32, makeDims({2}), {double(c.stride[0]), double(c.stride[1])})}};
        auto out = r.run(inputs);
        EXPECT_TRUE(kiln::test::sameBits(out["y"], sliceOracle(in, c.start, c.size, c.stride, SampleMode::kWRAP)));
    }
}

TEST_P(SliceLayerTest, DynamicInputShapeWithRuntimeBoundsCheck)
{
    // Rows [start, start + 4) of a [N, 8] input: valid at every profile corner, not for every combination.
    std::mt19937 rng(31);
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 8});
    ITensor* start = r.addInput("start", DataType::kINT32, {2});
    ISliceLayer* s = r.network().addSlice(*x, makeDims({0, 0}), makeDims({4, 3}), makeDims({1, 2}));
    s->setInput(1, *start);
    r.markOutput(s->getOutput(0), "y");
    r.setProfileDims("x", {4, 8}, {6, 8}, {8, 8});
    r.setProfileValues("start", {0, 1}, {2, 1}, {4, 1});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (auto const& [n, first] : {std::pair<int64_t, int64_t>{4, 0}, {8, 4}, {7, 2}})
    {
        HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({n, 8}), rng);
        HostTensor const st = HostTensor::fromValues(DataType::kINT32, makeDims({2}), {double(first), 1.0});
        auto out = r.run({{"x", in}, {"start", st}});
        EXPECT_TRUE(kiln::test::sameBits(
            out["y"], sliceOracle(in, {first, 1}, {4, 3}, {1, 2}, SampleMode::kSTRICT_BOUNDS)));
    }
    // Four rows starting at row 4 of a 4-row input.
    HostTensor const st = HostTensor::fromValues(DataType::kINT32, makeDims({2}), {4.0, 1.0});
    EXPECT_TRUE(r.runFails({{"x", HostTensor::random(DataType::kFLOAT, makeDims({4, 8}), rng)}, {"start", st}}));
    EXPECT_TRUE(r.logger().hasError("reads outside the input")) << r.logger().allErrors();
}

TEST_P(SliceLayerTest, EveryStorageType)
{
    std::mt19937 rng(41);
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kUINT8,
             DataType::kINT32, DataType::kINT64, DataType::kBOOL})
    {
        for (SampleMode mode : {SampleMode::kSTRICT_BOUNDS, SampleMode::kWRAP, SampleMode::kREFLECT})
        {
            NetworkRunner r;
            ITensor* x = r.addInput("x", t, {3, 5});
            std::vector<int64_t> const start = mode == SampleMode::kSTRICT_BOUNDS ? std::vector<int64_t>{2, 4}
                                                                                  : std::vector<int64_t>{-2, 7};
            std::vector<int64_t> const size = {3, 4};
            std::vector<int64_t> const stride = mode == SampleMode::kSTRICT_BOUNDS ? std::vector<int64_t>{-1, -1}
                                                                                   : std::vector<int64_t>{2, -3};
            ISliceLayer* s = r.network().addSlice(*x, makeDims(start), makeDims(size), makeDims(stride));
            s->setMode(mode);
            r.markOutput(s->getOutput(0), "y");
            ASSERT_TRUE(r.build()) << r.logger().allErrors();
            double const lo = t == DataType::kUINT8 ? 0.0 : -100.0;
            HostTensor const in = HostTensor::random(t, makeDims({3, 5}), rng, lo, 100.0);
            auto out = r.run({{"x", in}});
            EXPECT_EQ(out["y"].type, t);
            EXPECT_TRUE(kiln::test::sameBits(out["y"], sliceOracle(in, start, size, stride, mode)))
                << "type " << static_cast<int>(t) << " mode " << static_cast<int>(mode);
        }
    }
}

// Slices whose every coordinate is inside the input and whose innermost stride is 1 copy whole rows (the CUDA fast
// path: 16 bytes at a time where rows and starts allow it, else element by element): the last axis at a 16-byte
// aligned start and at an unaligned one, outer axes reversed and broadcast (stride 0, as Expand makes them), and the
// whole tensor, for 1-, 2-, 4- and 8-byte types.
TEST_P(SliceLayerTest, RowsOfConsecutiveElements)
{
    std::mt19937 rng(43);
    struct Case
    {
        std::vector<int64_t> start, size, stride;
    };
    std::vector<Case> const cases = {{{0, 0, 16}, {2, 3, 32}, {1, 1, 1}}, {{0, 1, 3}, {2, 2, 21}, {1, 1, 1}},
        {{1, 2, 16}, {2, 3, 16}, {-1, -1, 1}}, {{1, 0, 0}, {4, 3, 48}, {0, 1, 1}}, {{0, 0, 0}, {2, 3, 48}, {1, 1, 1}}};
    for (DataType t : {DataType::kINT8, DataType::kHALF, DataType::kFLOAT, DataType::kINT64})
    {
        for (Case const& c : cases)
        {
            NetworkRunner r;
            ITensor* x = r.addInput("x", t, {2, 3, 48});
            ISliceLayer* s = r.network().addSlice(*x, makeDims(c.start), makeDims(c.size), makeDims(c.stride));
            r.markOutput(s->getOutput(0), "y");
            ASSERT_TRUE(r.build()) << r.logger().allErrors();
            HostTensor const in = HostTensor::random(t, makeDims({2, 3, 48}), rng, -100.0, 100.0);
            auto out = r.run({{"x", in}});
            EXPECT_TRUE(kiln::test::sameBits(
                out["y"], sliceOracle(in, c.start, c.size, c.stride, SampleMode::kSTRICT_BOUNDS)))
                << "type " << static_cast<int>(t) << " start " << c.start[2] << " size " << c.size[2];
        }
    }
}

TEST_P(SliceLayerTest, ShapeTensorValues)
{
    // Slice of a shape: [N, C, H, W] -> [H, W] (and reversed), used to reshape.
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {1, 1, -1, -1});
    ITensor* shape = r.network().addShape(*x)->getOutput(0);
    ISliceLayer* hw = r.network().addSlice(*shape, makeDims({2}), makeDims({2}), makeDims({1}));
    ISliceLayer* wh = r.network().addSlice(*shape, makeDims({3}), makeDims({2}), makeDims({-1}));
    ISliceLayer* padded = r.network().addSlice(*shape, makeDims({2}), makeDims({4}), makeDims({1}));
    padded->setMode(SampleMode::kFILL); // [H, W, 0, 0]
    r.markOutput(hw->getOutput(0), "hw");
    r.markOutput(wh->getOutput(0), "wh");
    r.markOutput(padded->getOutput(0), "padded");
    IShuffleLayer* reshape = r.network().addShuffle(*x);
    reshape->setInput(1, *wh->getOutput(0));
    r.markOutput(reshape->getOutput(0), "y");
    r.setProfileDims("x", {1, 1, 1, 1}, {1, 1, 3, 4}, {1, 1, 5, 5});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(2);
    for (auto const& [h, w] : {std::pair<int64_t, int64_t>{3, 4}, {5, 2}})
    {
        HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({1, 1, h, w}), rng);
        auto out = r.run({{"x", in}});
        ASSERT_EQ(out["hw"].volume(), 2);
        EXPECT_EQ(out["hw"].at(0), double(h));
        EXPECT_EQ(out["hw"].at(1), double(w));
        EXPECT_EQ(out["wh"].at(0), double(w));
        EXPECT_EQ(out["wh"].at(1), double(h));
        ASSERT_EQ(out["padded"].volume(), 4);
        EXPECT_EQ(out["padded"].at(1), double(w));
        EXPECT_EQ(out["padded"].at(3), 0.0);
        EXPECT_EQ(kiln::test::dimsString(out["y"].dims), "[" + std::to_string(w) + "," + std::to_string(h) + "]");
        HostTensor expected = in;
        expected.dims = makeDims({w, h});
        EXPECT_TRUE(kiln::test::sameBits(out["y"], expected));
    }
}

TEST_P(SliceLayerTest, SettersClearInputsAndValidate)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {4, 4});
    ITensor* st = r.addInput("st", DataType::kINT32, {2});
    ISliceLayer* s = r.network().addSlice(*x, makeDims({0, 0}), makeDims({2, 2}), makeDims({1, 1}));
    s->setName("cut");
    s->setInput(1, *st);
    EXPECT_EQ(s->getStart().nbDims, -1);
    s->setStart(makeDims({1, 1}));
    EXPECT_EQ(s->getInput(1), nullptr);
    EXPECT_EQ(s->getStart().d[0], 1);
    s->setSize(makeDims({2, -1}));
    EXPECT_TRUE(r.logger().hasError("cut")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("negative"));
    EXPECT_EQ(s->getSize().d[1], 2); // unchanged
    r.logger().clear();
    s->setMode(static_cast<SampleMode>(17));
    EXPECT_TRUE(r.logger().hasError("invalid SampleMode")) << r.logger().allErrors();
    EXPECT_EQ(s->getMode(), SampleMode::kSTRICT_BOUNDS);
    r.logger().clear();
    s->setInput(6, *st);
    EXPECT_TRUE(r.logger().hasError("out of range")) << r.logger().allErrors();
    r.logger().clear();
    EXPECT_EQ(r.network().addSlice(*x, makeDims({0, 0}), makeDims({-2, 2}), makeDims({1, 1})), nullptr);
    EXPECT_TRUE(r.logger().hasError("addSlice")) << r.logger().allErrors();
}

TEST_P(SliceLayerTest, BuildFailures)
{
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {4, 4});
        ISliceLayer* s = r.network().addSlice(*x, makeDims({3, 0}), makeDims({2, 2}), makeDims({1, 1}));
        s->setName("oob");
        r.markOutput(s->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("reads outside the input")) << r.logger().allErrors();
        EXPECT_TRUE(r.logger().hasError("oob"));
    }
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {4, 4});
        ISliceLayer* s = r.network().addSlice(*x, makeDims({0}), makeDims({2, 2}), makeDims({1, 1}));
        r.markOutput(s->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("start has 1 entries")) << r.logger().allErrors();
    }
    {
        // A fill value outside kFILL mode.
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {4, 4});
        static float const v = 1.F;
        ITensor* fill = r.network().addConstant(makeDims({}), Weights{DataType::kFLOAT, &v, 1})->getOutput(0);
        ISliceLayer* s = r.network().addSlice(*x, makeDims({0, 0}), makeDims({2, 2}), makeDims({1, 1}));
        s->setInput(4, *fill);
        r.markOutput(s->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("only allowed with SampleMode::kFILL")) << r.logger().allErrors();
    }
    {
        // Repeated axes.
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {4, 4});
        ISliceLayer* s = r.network().addSlice(*x, makeDims({0, 0}), makeDims({2, 2}), makeDims({1, 1}));
        s->setAxes(makeDims({1, -1}));
        r.markOutput(s->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("axes must be unique")) << r.logger().allErrors();
    }
    {
        // Wrapping an empty dimension.
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {0, 4});
        ISliceLayer* s = r.network().addSlice(*x, makeDims({0, 0}), makeDims({2, 2}), makeDims({1, 1}));
        s->setMode(SampleMode::kWRAP);
        r.markOutput(s->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("input extent of 0")) << r.logger().allErrors();
    }
}

} // namespace
