// Tests of IGatherLayer: kDEFAULT on every axis (0 and 1 elementwise dimension, with broadcast), kELEMENT, kND with
// batch dimensions, INT32/INT64 and negative indices, several data types, dynamic shapes, out-of-range indices
// (an execution error naming the index), shape-tensor value propagation and the error paths.
#include "common/backendTest.h"
#include "common/networkRunner.h"
#include "layers/layerTestShapes.h"

#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::NetworkRunner;

using kiln::test::randomShape;

std::vector<int64_t> unravel(int64_t flat, nvinfer1::Dims const& d)
{
    std::vector<int64_t> c(static_cast<size_t>(d.nbDims));
    for (int32_t i = d.nbDims - 1; i >= 0; --i)
    {
        c[static_cast<size_t>(i)] = flat % d.d[i];
        flat /= d.d[i];
    }
    return c;
}

int64_t ravel(std::vector<int64_t> const& c, nvinfer1::Dims const& d)
{
    int64_t flat = 0;
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        flat = flat * d.d[i] + c[static_cast<size_t>(i)];
    }
    return flat;
}

int64_t wrap(double index, int64_t extent)
{
    auto const i = static_cast<int64_t>(index);
    return i < 0 ? i + extent : i;
}

//! Indices uniformly in [-extent, extent - 1] (negative ones count from the end).
HostTensor randomIndices(std::mt19937& rng, DataType type, std::vector<int64_t> const& shape, int64_t extent)
{
    return HostTensor::random(type, kiln::test::makeDims(shape), rng, static_cast<double>(-extent),
        static_cast<double>(extent - 1));
}

//! kDEFAULT with nbElementWiseDims b (0 or 1): out[n, pre, idx..., post] = data[n, pre, indices[n, idx...], post].
HostTensor gatherDefaultOracle(HostTensor const& data, HostTensor const& indices, int32_t axis, int32_t b)
{
    int32_t const r = data.dims.nbDims;
    int32_t const q = indices.dims.nbDims;
    std::vector<int64_t> shape;
    if (b == 1)
    {
        shape.push_back(std::max(data.dims.d[0], indices.dims.d[0]));
    }
    for (int32_t d = b; d < axis; ++d)
    {
        shape.push_back(data.dims.d[d]);
    }
    for (int32_t d = b; d < q; ++d)
    {
        shape.push_back(indices.dims.d[d]);
    }
    for (int32_t d = axis + 1; d < r; ++d)
    {
        shape.push_back(data.dims.d[d]);
    }
    HostTensor y(data.type, kiln::test::makeDims(shape));
    for (int64_t flat = 0; flat < y.volume(); ++flat)
    {
        std::vector<int64_t> const oc = unravel(flat, y.dims);
        std::vector<int64_t> ic;
        std::vector<int64_t> dc;
        size_t p = 0;
        if (b == 1)
        {
            ic.push_back(indices.dims.d[0] == 1 ? 0 : oc[0]);
            dc.push_back(data.dims.d[0] == 1 ? 0 : oc[0]);
            p = 1;
        }
        for (int32_t d = b; d < axis; ++d)
        {
            dc.push_back(oc[p++]);
        }
        for (int32_t d = b; d < q; ++d)
        {
            ic.push_back(oc[p++]);
        }
        dc.push_back(wrap(indices.at(ravel(ic, indices.dims)), data.dims.d[axis]));
        for (int32_t d = axis + 1; d < r; ++d)
        {
            dc.push_back(oc[p++]);
        }
        y.set(flat, data.at(ravel(dc, data.dims)));
    }
    return y;
}

HostTensor gatherElementOracle(HostTensor const& data, HostTensor const& indices, int32_t axis)
{
    HostTensor y(data.type, indices.dims);
    for (int64_t flat = 0; flat < y.volume(); ++flat)
    {
        std::vector<int64_t> c = unravel(flat, indices.dims);
        c[static_cast<size_t>(axis)] = wrap(indices.at(flat), data.dims.d[axis]);
        y.set(flat, data.at(ravel(c, data.dims)));
    }
    return y;
}

//! kND with b batch dimensions: out[i_0..i_{q-2}, rest] = data[i_0..i_{b-1}, indices[i_0..i_{q-2}, :], rest].
HostTensor gatherNDOracle(HostTensor const& data, HostTensor const& indices, int32_t b)
{
    int32_t const r = data.dims.nbDims;
    int32_t const q = indices.dims.nbDims;
    int64_t const k = indices.dims.d[q - 1];
    std::vector<int64_t> shape(indices.dims.d, indices.dims.d + q - 1);
    for (int64_t d = b + k; d < r; ++d)
    {
        shape.push_back(data.dims.d[d]);
    }
    HostTensor y(data.type, kiln::test::makeDims(shape));
    for (int64_t flat = 0; flat < y.volume(); ++flat)
    {
        std::vector<int64_t> const oc = unravel(flat, y.dims);
        std::vector<int64_t> tuple(oc.begin(), oc.begin() + (q - 1));
        std::vector<int64_t> dc(oc.begin(), oc.begin() + b);
        for (int64_t j = 0; j < k; ++j)
        {
            std::vector<int64_t> ic = tuple;
            ic.push_back(j);
            dc.push_back(wrap(indices.at(ravel(ic, indices.dims)), data.dims.d[b + j]));
        }
        for (size_t p = static_cast<size_t>(q - 1); p < oc.size(); ++p)
        {
            dc.push_back(oc[p]);
        }
        y.set(flat, data.at(ravel(dc, data.dims)));
    }
    return y;
}

class GatherLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(GatherLayerTest);

TEST_P(GatherLayerTest, DefaultModeEveryAxis)
{
    std::mt19937 rng(201);
    for (int32_t r = 1; r <= 4; ++r)
    {
        for (int32_t axis = 0; axis < r; ++axis)
        {
            for (int32_t q = 0; q <= 2; ++q)
            {
                DataType const indexType = (axis + q) % 2 == 0 ? DataType::kINT32 : DataType::kINT64;
                std::vector<int64_t> const dshape = randomShape(rng, r);
                std::vector<int64_t> const ishape = randomShape(rng, q);
                NetworkRunner n;
                ITensor* data = n.addInput("data", DataType::kFLOAT, dshape);
                ITensor* idx = n.addInput("idx", indexType, ishape);
                IGatherLayer* layer = n.network().addGather(*data, *idx, axis);
                ASSERT_NE(layer, nullptr) << n.logger().allErrors();
                EXPECT_EQ(layer->getMode(), GatherMode::kDEFAULT);
                EXPECT_EQ(layer->getGatherAxis(), axis);
                EXPECT_EQ(layer->getNbElementWiseDims(), 0);
                n.markOutput(layer->getOutput(0), "y");
                ASSERT_TRUE(n.build()) << n.logger().allErrors();
                HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims(dshape), rng);
                HostTensor i = randomIndices(rng, indexType, ishape, dshape[static_cast<size_t>(axis)]);
                auto out = n.run({{"data", x}, {"idx", i}});
                EXPECT_TRUE(kiln::test::sameBits(out["y"], gatherDefaultOracle(x, i, axis, 0)))
                    << "r " << r << " axis " << axis << " q " << q;
            }
        }
    }
}

TEST_P(GatherLayerTest, DefaultModeDataTypes)
{
    std::mt19937 rng(203);
    for (DataType t : {DataType::kHALF, DataType::kBF16, DataType::kINT32, DataType::kINT64, DataType::kBOOL})
    {
        NetworkRunner n;
        ITensor* data = n.addInput("data", t, {3, 5, 2});
        ITensor* idx = n.addInput("idx", DataType::kINT32, {2, 3});
        IGatherLayer* layer = n.network().addGather(*data, *idx, 1);
        ASSERT_NE(layer, nullptr);
        n.markOutput(layer->getOutput(0), "y");
        ASSERT_TRUE(n.build()) << n.logger().allErrors();
        HostTensor x = HostTensor::random(t, kiln::test::makeDims({3, 5, 2}), rng, -50, 50);
        HostTensor i = randomIndices(rng, DataType::kINT32, {2, 3}, 5);
        auto out = n.run({{"data", x}, {"idx", i}});
        EXPECT_TRUE(kiln::test::sameBits(out["y"], gatherDefaultOracle(x, i, 1, 0)));
    }
}

TEST_P(GatherLayerTest, DefaultModeWithOneElementwiseDimension)
{
    std::mt19937 rng(207);
    struct Case
    {
        std::vector<int64_t> data;
        std::vector<int64_t> indices;
        int32_t axis;
    };
    for (Case const& c : std::vector<Case>{{{3, 4, 5}, {3, 2}, 1}, {{3, 4, 5}, {3, 2, 2}, 2}, {{1, 4, 5}, {3, 2}, 2},
             {{3, 4, 5}, {1, 6}, 1}})
    {
        NetworkRunner n;
        ITensor* data = n.addInput("data", DataType::kFLOAT, c.data);
        ITensor* idx = n.addInput("idx", DataType::kINT64, c.indices);
        IGatherLayer* layer = n.network().addGather(*data, *idx, c.axis);
        ASSERT_NE(layer, nullptr);
        layer->setNbElementWiseDims(1);
        EXPECT_EQ(layer->getNbElementWiseDims(), 1);
        n.markOutput(layer->getOutput(0), "y");
        ASSERT_TRUE(n.build()) << n.logger().allErrors();
        HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims(c.data), rng);
        HostTensor i = randomIndices(rng, DataType::kINT64, c.indices, c.data[static_cast<size_t>(c.axis)]);
        auto out = n.run({{"data", x}, {"idx", i}});
        EXPECT_TRUE(kiln::test::sameBits(out["y"], gatherDefaultOracle(x, i, c.axis, 1)));
    }
}

TEST_P(GatherLayerTest, ElementMode)
{
    std::mt19937 rng(211);
    for (int32_t r = 1; r <= 4; ++r)
    {
        for (int32_t axis = 0; axis < r; ++axis)
        {
            std::vector<int64_t> const dshape = randomShape(rng, r, 2, 4);
            std::vector<int64_t> ishape;
            for (int32_t d = 0; d < r; ++d)
            {
                // Indices may be smaller than data off the axis and of any extent on it.
                ishape.push_back(d == axis ? std::uniform_int_distribution<int64_t>(1, 5)(rng)
                                           : std::uniform_int_distribution<int64_t>(1, dshape[static_cast<size_t>(d)])(rng));
            }
            NetworkRunner n;
            ITensor* data = n.addInput("data", DataType::kFLOAT, dshape);
            ITensor* idx = n.addInput("idx", DataType::kINT32, ishape);
            IGatherLayer* layer = n.network().addGatherV2(*data, *idx, GatherMode::kELEMENT);
            ASSERT_NE(layer, nullptr);
            layer->setGatherAxis(axis);
            n.markOutput(layer->getOutput(0), "y");
            ASSERT_TRUE(n.build()) << n.logger().allErrors();
            HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims(dshape), rng);
            HostTensor i = randomIndices(rng, DataType::kINT32, ishape, dshape[static_cast<size_t>(axis)]);
            auto out = n.run({{"data", x}, {"idx", i}});
            EXPECT_TRUE(kiln::test::sameBits(out["y"], gatherElementOracle(x, i, axis))) << "r " << r << " axis " << axis;
        }
    }
}

TEST_P(GatherLayerTest, NDModeWithBatchDimensions)
{
    std::mt19937 rng(213);
    struct Case
    {
        std::vector<int64_t> data;
        std::vector<int64_t> indices; // last dimension: tuple length k
        int32_t b;
    };
    for (Case const& c : std::vector<Case>{{{4, 5}, {3, 2}, 0}, {{4, 5}, {3, 1}, 0}, {{4, 5, 2}, {2, 3, 1}, 0},
             {{3, 4, 5}, {3, 2, 2}, 1}, {{3, 4, 5}, {3, 1}, 1}, {{2, 3, 4, 2}, {2, 3, 2, 1}, 2}, {{6}, {1}, 0}})
    {
        NetworkRunner n;
        ITensor* data = n.addInput("data", DataType::kFLOAT, c.data);
        ITensor* idx = n.addInput("idx", DataType::kINT64, c.indices);
        IGatherLayer* layer = n.network().addGatherV2(*data, *idx, GatherMode::kND);
        ASSERT_NE(layer, nullptr);
        layer->setNbElementWiseDims(c.b);
        n.markOutput(layer->getOutput(0), "y");
        ASSERT_TRUE(n.build()) << n.logger().allErrors();
        HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims(c.data), rng);
        HostTensor i(DataType::kINT64, kiln::test::makeDims(c.indices));
        int64_t const k = c.indices.back();
        for (int64_t e = 0; e < i.volume(); ++e)
        {
            int64_t const extent = c.data[static_cast<size_t>(c.b + e % k)];
            i.set(e, static_cast<double>(std::uniform_int_distribution<int64_t>(-extent, extent - 1)(rng)));
        }
        auto out = n.run({{"data", x}, {"idx", i}});
        EXPECT_TRUE(kiln::test::sameBits(out["y"], gatherNDOracle(x, i, c.b)))
            << "data " << kiln::test::dimsString(x.dims) << " indices " << kiln::test::dimsString(i.dims);
    }
}

TEST_P(GatherLayerTest, DynamicShapes)
{
    std::mt19937 rng(217);
    NetworkRunner n;
    ITensor* data = n.addInput("data", DataType::kFLOAT, {-1, 6});
    ITensor* idx = n.addInput("idx", DataType::kINT32, {-1});
    IGatherLayer* layer = n.network().addGather(*data, *idx, 1);
    ASSERT_NE(layer, nullptr);
    n.markOutput(layer->getOutput(0), "y");
    n.setProfileDims("data", {1, 6}, {2, 6}, {5, 6});
    n.setProfileDims("idx", {1}, {3}, {10});
    ASSERT_TRUE(n.build()) << n.logger().allErrors();
    for (auto const& [rows, count] : std::vector<std::pair<int64_t, int64_t>>{{2, 3}, {5, 10}})
    {
        HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({rows, 6}), rng);
        HostTensor i = randomIndices(rng, DataType::kINT32, {count}, 6);
        auto out = n.run({{"data", x}, {"idx", i}});
        EXPECT_TRUE(kiln::test::sameBits(out["y"], gatherDefaultOracle(x, i, 1, 0)));
    }
}

TEST_P(GatherLayerTest, OutOfRangeIndexIsAnExecutionError)
{
    KILN_SKIP_ON_BACKEND(kiln::BackendKind::kCUDA,
        "docs/gpu.md: gather cannot report an out-of-range index without synchronising (it writes 0)");
    for (GatherMode mode : {GatherMode::kDEFAULT, GatherMode::kELEMENT, GatherMode::kND})
    {
        NetworkRunner n;
        ITensor* data = n.addInput("data", DataType::kFLOAT, {3, 4});
        ITensor* idx = n.addInput("idx", DataType::kINT32, {3, 1});
        IGatherLayer* layer = n.network().addGatherV2(*data, *idx, mode);
        ASSERT_NE(layer, nullptr);
        layer->setName("g");
        n.markOutput(layer->getOutput(0), "y");
        ASSERT_TRUE(n.build()) << n.logger().allErrors();
        std::mt19937 rng(1);
        HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({3, 4}), rng);
        HostTensor i = HostTensor::fromValues(DataType::kINT32, kiln::test::makeDims({3, 1}), {0, 7, 1});
        std::map<std::string, HostTensor> outputs;
        EXPECT_FALSE(n.tryRun({{"data", x}, {"idx", i}}, outputs));
        EXPECT_TRUE(n.logger().hasError("'g'")) << n.logger().allErrors();
        EXPECT_TRUE(n.logger().hasError("index 7")) << n.logger().allErrors();
        // -4 is in range ([-extent, extent)); -5 is not.
        n.logger().clear();
        HostTensor neg = HostTensor::fromValues(DataType::kINT32, kiln::test::makeDims({3, 1}), {-3, -5, 0});
        EXPECT_FALSE(n.tryRun({{"data", x}, {"idx", neg}}, outputs));
        EXPECT_TRUE(n.logger().hasError("index -5")) << n.logger().allErrors();
    }
}

TEST_P(GatherLayerTest, ShapeValuesWithConstantIndices)
{
    // y = reshape(x, gather(shape(x), [-1, 0])): gathering with a negative constant index counts from the end.
    std::mt19937 rng(219);
    NetworkRunner n;
    ITensor* in = n.addInput("x", DataType::kFLOAT, {-1, 5});
    IShapeLayer* shape = n.network().addShape(*in);
    ASSERT_NE(shape, nullptr);
    static int32_t const kOrder[] = {-1, 0};
    IConstantLayer* order = n.network().addConstant(kiln::test::makeDims({2}), Weights{DataType::kINT32, kOrder, 2});
    ASSERT_NE(order, nullptr);
    IGatherLayer* dims = n.network().addGather(*shape->getOutput(0), *order->getOutput(0), 0);
    ASSERT_NE(dims, nullptr);
    IShuffleLayer* reshape = n.network().addShuffle(*in);
    ASSERT_NE(reshape, nullptr);
    reshape->setInput(1, *dims->getOutput(0));
    n.markOutput(reshape->getOutput(0), "y");
    n.setProfileDims("x", {1, 5}, {3, 5}, {7, 5});
    ASSERT_TRUE(n.build()) << n.logger().allErrors();
    EXPECT_EQ(n.network().getOutput(0)->getDimensions().d[0], 5);
    for (int64_t rows : {3, 7})
    {
        HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({rows, 5}), rng);
        auto out = n.run({{"x", x}});
        HostTensor expected = x;
        expected.dims = kiln::test::makeDims({5, rows});
        EXPECT_TRUE(kiln::test::sameBits(out["y"], expected));
    }
}

TEST_P(GatherLayerTest, ShapeValuesWithIndicesFromAShapeTensorInput)
{
    // y = reshape(x, gather(shape(x), p)) with p a shape-tensor input holding a permutation of [0, 1].
    std::mt19937 rng(221);
    NetworkRunner n;
    ITensor* in = n.addInput("x", DataType::kFLOAT, {-1, -1});
    ITensor* p = n.addInput("p", DataType::kINT32, {2});
    IShapeLayer* shape = n.network().addShape(*in);
    ASSERT_NE(shape, nullptr);
    IGatherLayer* dims = n.network().addGather(*shape->getOutput(0), *p, 0);
    ASSERT_NE(dims, nullptr);
    IShuffleLayer* reshape = n.network().addShuffle(*in);
    ASSERT_NE(reshape, nullptr);
    reshape->setInput(1, *dims->getOutput(0));
    n.markOutput(reshape->getOutput(0), "y");
    n.setProfileDims("x", {1, 1}, {2, 3}, {6, 6});
    n.setProfileValues("p", {-2, -2}, {1, 0}, {1, 1});
    ASSERT_TRUE(n.build()) << n.logger().allErrors();
    struct Case
    {
        std::vector<int64_t> shape;
        std::vector<double> perm;
        std::vector<int64_t> expected;
    };
    for (Case const& c : std::vector<Case>{{{2, 3}, {1, 0}, {3, 2}}, {{4, 5}, {0, 1}, {4, 5}}, {{4, 5}, {-1, -2}, {5, 4}}})
    {
        HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims(c.shape), rng);
        HostTensor perm = HostTensor::fromValues(DataType::kINT32, kiln::test::makeDims({2}), c.perm);
        auto out = n.run({{"x", x}, {"p", perm}});
        HostTensor expected = x;
        expected.dims = kiln::test::makeDims(c.expected);
        EXPECT_TRUE(kiln::test::sameBits(out["y"], expected));
    }
}

TEST_P(GatherLayerTest, ConstantIndexOutOfRangeOnAShapeTensorFailsTheBuild)
{
    NetworkRunner n;
    ITensor* in = n.addInput("x", DataType::kFLOAT, {-1, 5});
    IShapeLayer* shape = n.network().addShape(*in);
    static int32_t const kBad[] = {2};
    IConstantLayer* bad = n.network().addConstant(kiln::test::makeDims({1}), Weights{DataType::kINT32, kBad, 1});
    IGatherLayer* dims = n.network().addGather(*shape->getOutput(0), *bad->getOutput(0), 0);
    ASSERT_NE(dims, nullptr);
    dims->setName("g");
    IShuffleLayer* reshape = n.network().addShuffle(*in);
    reshape->setInput(1, *dims->getOutput(0));
    n.markOutput(reshape->getOutput(0), "y");
    n.setProfileDims("x", {1, 5}, {3, 5}, {7, 5});
    EXPECT_FALSE(n.build());
    EXPECT_TRUE(n.logger().hasError("'g'")) << n.logger().allErrors();
    EXPECT_TRUE(n.logger().hasError("index 2")) << n.logger().allErrors();
}

TEST_P(GatherLayerTest, InvalidArgumentsAreRejected)
{
    NetworkRunner n;
    ITensor* data = n.addInput("data", DataType::kFLOAT, {3, 4});
    ITensor* idx = n.addInput("idx", DataType::kINT32, {2});
    EXPECT_EQ(n.network().addGather(*data, *idx, -1), nullptr);
    EXPECT_TRUE(n.logger().hasError("addGather")) << n.logger().allErrors();
    EXPECT_EQ(n.network().addGatherV2(*data, *idx, static_cast<GatherMode>(7)), nullptr);
    EXPECT_TRUE(n.logger().hasError("addGatherV2")) << n.logger().allErrors();
    IGatherLayer* layer = n.network().addGather(*data, *idx, 1);
    ASSERT_NE(layer, nullptr);
    layer->setName("g");
    n.logger().clear();
    layer->setMode(static_cast<GatherMode>(9));
    layer->setGatherAxis(-2);
    layer->setNbElementWiseDims(-1);
    EXPECT_TRUE(n.logger().hasError("'g'")) << n.logger().allErrors();
    EXPECT_EQ(layer->getMode(), GatherMode::kDEFAULT);
    EXPECT_EQ(layer->getGatherAxis(), 1);
    EXPECT_EQ(layer->getNbElementWiseDims(), 0);
}

TEST_P(GatherLayerTest, BadNetworksFailTheBuild)
{
    struct Case
    {
        GatherMode mode;
        DataType indexType;
        std::vector<int64_t> indices;
        int32_t axis;
        int32_t b;
        char const* message;
    };
    for (Case const& c : std::vector<Case>{{GatherMode::kDEFAULT, DataType::kFLOAT, {2}, 0, 0, "INT32 or INT64"},
             {GatherMode::kDEFAULT, DataType::kINT32, {2}, 2, 0, "out of range"},
             {GatherMode::kDEFAULT, DataType::kINT32, {2}, 0, 1, "out of range"},
             {GatherMode::kELEMENT, DataType::kINT32, {2}, 0, 0, "same rank"},
             {GatherMode::kND, DataType::kINT32, {2, 3}, 0, 0, "kND gather needs it in [1, 2]"},
             {GatherMode::kND, DataType::kINT32, {4, 1}, 0, 1, "must be equal"}})
    {
        NetworkRunner n;
        ITensor* data = n.addInput("data", DataType::kFLOAT, {3, 4});
        ITensor* idx = n.addInput("idx", c.indexType, c.indices);
        IGatherLayer* layer = n.network().addGatherV2(*data, *idx, c.mode);
        ASSERT_NE(layer, nullptr);
        layer->setName("g");
        layer->setGatherAxis(c.axis);
        layer->setNbElementWiseDims(c.b);
        n.markOutput(layer->getOutput(0), "y");
        EXPECT_FALSE(n.build()) << c.message;
        EXPECT_TRUE(n.logger().hasError("'g'")) << n.logger().allErrors();
        EXPECT_TRUE(n.logger().hasError(c.message)) << n.logger().allErrors();
    }
}

} // namespace
