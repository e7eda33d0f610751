// Tests of IScatterLayer: kELEMENT on every axis and kND for every tuple length, negative indices, several data
// types, dynamic shapes, duplicate indices (last update wins in Kiln), out-of-range indices (an execution error)
// and the error paths.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::NetworkRunner;

std::vector<int64_t> randomShape(std::mt19937& rng, int32_t rank, int64_t lo = 1, int64_t hi = 4)
{
    std::vector<int64_t> s;
    for (int32_t i = 0; i < rank; ++i)
    {
        s.push_back(std::uniform_int_distribution<int64_t>(lo, hi)(rng));
    }
    return s;
}

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

//! output = data; for each update element J: output[J with J[axis] = indices[J]] = updates[J] (row-major order).
HostTensor scatterElementOracle(HostTensor const& data, HostTensor const& indices, HostTensor const& updates, int32_t axis)
{
    HostTensor y = data;
    for (int64_t flat = 0; flat < indices.volume(); ++flat)
    {
        std::vector<int64_t> c = unravel(flat, indices.dims);
        c[static_cast<size_t>(axis)] = wrap(indices.at(flat), data.dims.d[axis]);
        y.set(ravel(c, data.dims), updates.at(flat));
    }
    return y;
}

//! output = data; for each index tuple t: output[indices[t], ...] = updates[t, ...].
HostTensor scatterNDOracle(HostTensor const& data, HostTensor const& indices, HostTensor const& updates)
{
    HostTensor y = data;
    int32_t const q = indices.dims.nbDims;
    int32_t const r = data.dims.nbDims;
    int64_t const k = indices.dims.d[q - 1];
    for (int64_t flat = 0; flat < updates.volume(); ++flat)
    {
        std::vector<int64_t> const uc = unravel(flat, updates.dims);
        std::vector<int64_t> dc;
        for (int64_t j = 0; j < k; ++j)
        {
            std::vector<int64_t> ic(uc.begin(), uc.begin() + (q - 1));
            ic.push_back(j);
            dc.push_back(wrap(indices.at(ravel(ic, indices.dims)), data.dims.d[j]));
        }
        for (int64_t d = k; d < r; ++d)
        {
            dc.push_back(uc[static_cast<size_t>(q - 1 + d - k)]);
        }
        y.set(ravel(dc, data.dims), updates.at(flat));
    }
    return y;
}

//! kELEMENT indices without duplicates: along the axis each line takes distinct positions (some negative).
HostTensor uniqueElementIndices(std::mt19937& rng, DataType type, std::vector<int64_t> const& ishape, int64_t extent, int32_t axis)
{
    HostTensor idx(type, kiln::test::makeDims(ishape));
    int64_t const n = ishape[static_cast<size_t>(axis)];
    int64_t inner = 1;
    for (size_t d = static_cast<size_t>(axis) + 1; d < ishape.size(); ++d)
    {
        inner *= ishape[d];
    }
    int64_t const lines = idx.volume() / std::max<int64_t>(n, 1);
    for (int64_t line = 0; line < lines; ++line)
    {
        std::vector<int64_t> perm(static_cast<size_t>(extent));
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng);
        int64_t const o = line / inner;
        int64_t const i = line % inner;
        for (int64_t j = 0; j < n; ++j)
        {
            int64_t v = perm[static_cast<size_t>(j)];
            if (std::uniform_int_distribution<int>(0, 1)(rng) == 1)
            {
                v -= extent;
            }
            idx.set((o * n + j) * inner + i, static_cast<double>(v));
        }
    }
    return idx;
}

class ScatterLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(ScatterLayerTest);

TEST_P(ScatterLayerTest, ElementModeEveryAxis)
{
    std::mt19937 rng(301);
    for (int32_t r = 1; r <= 4; ++r)
    {
        for (int32_t axis = 0; axis < r; ++axis)
        {
            std::vector<int64_t> const dshape = randomShape(rng, r, 2, 5);
            std::vector<int64_t> ishape;
            for (int32_t d = 0; d < r; ++d)
            {
                ishape.push_back(std::uniform_int_distribution<int64_t>(1, dshape[static_cast<size_t>(d)])(rng));
            }
            DataType const indexType = axis % 2 == 0 ? DataType::kINT32 : DataType::kINT64;
            NetworkRunner n;
            ITensor* data = n.addInput("data", DataType::kFLOAT, dshape);
            ITensor* idx = n.addInput("idx", indexType, ishape);
            ITensor* upd = n.addInput("upd", DataType::kFLOAT, ishape);
            IScatterLayer* layer = n.network().addScatter(*data, *idx, *upd, ScatterMode::kELEMENT);
            ASSERT_NE(layer, nullptr) << n.logger().allErrors();
            EXPECT_EQ(layer->getMode(), ScatterMode::kELEMENT);
            EXPECT_EQ(layer->getAxis(), 0);
            layer->setAxis(axis);
            EXPECT_EQ(layer->getAxis(), axis);
            n.markOutput(layer->getOutput(0), "y");
            ASSERT_TRUE(n.build()) << n.logger().allErrors();
            HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims(dshape), rng);
            HostTensor u = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims(ishape), rng, 10, 20);
            HostTensor i = uniqueElementIndices(rng, indexType, ishape, dshape[static_cast<size_t>(axis)], axis);
            auto out = n.run({{"data", x}, {"idx", i}, {"upd", u}});
            EXPECT_TRUE(kiln::test::sameBits(out["y"], scatterElementOracle(x, i, u, axis))) << "r " << r << " axis " << axis;
        }
    }
}

TEST_P(ScatterLayerTest, NDModeEveryTupleLength)
{
    std::mt19937 rng(303);
    for (int32_t r = 1; r <= 4; ++r)
    {
        for (int64_t k = 1; k <= r; ++k)
        {
            std::vector<int64_t> const dshape = randomShape(rng, r, 2, 4);
            int64_t cells = 1;
            for (int64_t d = 0; d < k; ++d)
            {
                cells *= dshape[static_cast<size_t>(d)];
            }
            int64_t const tuples = std::uniform_int_distribution<int64_t>(1, cells)(rng);
            std::vector<int64_t> const ishape{tuples, k};
            std::vector<int64_t> ushape{tuples};
            for (int64_t d = k; d < r; ++d)
            {
                ushape.push_back(dshape[static_cast<size_t>(d)]);
            }
            // Distinct cells, written as (possibly negative) coordinates.
            std::vector<int64_t> chosen(static_cast<size_t>(cells));
            std::iota(chosen.begin(), chosen.end(), 0);
            std::shuffle(chosen.begin(), chosen.end(), rng);
            HostTensor i(DataType::kINT64, kiln::test::makeDims(ishape));
            for (int64_t t = 0; t < tuples; ++t)
            {
                int64_t cell = chosen[static_cast<size_t>(t)];
                for (int64_t j = k - 1; j >= 0; --j)
                {
                    int64_t const extent = dshape[static_cast<size_t>(j)];
                    int64_t coord = cell % extent;
                    cell /= extent;
                    if (std::uniform_int_distribution<int>(0, 1)(rng) == 1)
                    {
                        coord -= extent;
                    }
                    i.set(t * k + j, static_cast<double>(coord));
                }
            }
            NetworkRunner n;
            ITensor* data = n.addInput("data", DataType::kFLOAT, dshape);
            ITensor* idx = n.addInput("idx", DataType::kINT64, ishape);
            ITensor* upd = n.addInput("upd", DataType::kFLOAT, ushape);
            IScatterLayer* layer = n.network().addScatter(*data, *idx, *upd, ScatterMode::kND);
            ASSERT_NE(layer, nullptr);
            n.markOutput(layer->getOutput(0), "y");
            ASSERT_TRUE(n.build()) << n.logger().allErrors();
            HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims(dshape), rng);
            HostTensor u = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims(ushape), rng, 10, 20);
            auto out = n.run({{"data", x}, {"idx", i}, {"upd", u}});
            EXPECT_TRUE(kiln::test::sameBits(out["y"], scatterNDOracle(x, i, u))) << "r " << r << " k " << k;
        }
    }
}

TEST_P(ScatterLayerTest, DataTypes)
{
    std::mt19937 rng(307);
    for (DataType t : {DataType::kHALF, DataType::kBF16, DataType::kINT32, DataType::kINT64, DataType::kBOOL})
    {
        NetworkRunner n;
        ITensor* data = n.addInput("data", t, {4, 3});
        ITensor* idx = n.addInput("idx", DataType::kINT32, {2, 1});
        ITensor* upd = n.addInput("upd", t, {2, 3});
        IScatterLayer* layer = n.network().addScatter(*data, *idx, *upd, ScatterMode::kND);
        ASSERT_NE(layer, nullptr);
        n.markOutput(layer->getOutput(0), "y");
        ASSERT_TRUE(n.build()) << n.logger().allErrors();
        HostTensor x = HostTensor::random(t, kiln::test::makeDims({4, 3}), rng, -50, 50);
        HostTensor u = HostTensor::random(t, kiln::test::makeDims({2, 3}), rng, -50, 50);
        HostTensor i = HostTensor::fromValues(DataType::kINT32, kiln::test::makeDims({2, 1}), {2, -4});
        auto out = n.run({{"data", x}, {"idx", i}, {"upd", u}});
        EXPECT_TRUE(kiln::test::sameBits(out["y"], scatterNDOracle(x, i, u)));
    }
}

TEST_P(ScatterLayerTest, DynamicShapes)
{
    std::mt19937 rng(311);
    NetworkRunner n;
    ITensor* data = n.addInput("data", DataType::kFLOAT, {-1, 4});
    ITensor* idx = n.addInput("idx", DataType::kINT32, {-1, 4});
    ITensor* upd = n.addInput("upd", DataType::kFLOAT, {-1, 4});
    IScatterLayer* layer = n.network().addScatter(*data, *idx, *upd, ScatterMode::kELEMENT);
    ASSERT_NE(layer, nullptr);
    layer->setAxis(1);
    n.markOutput(layer->getOutput(0), "y");
    n.setProfileDims("data", {1, 4}, {3, 4}, {6, 4});
    n.setProfileDims("idx", {1, 4}, {3, 4}, {6, 4});
    n.setProfileDims("upd", {1, 4}, {3, 4}, {6, 4});
    ASSERT_TRUE(n.build()) << n.logger().allErrors();
    for (int64_t rows : {3, 6})
    {
        HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({rows, 4}), rng);
        HostTensor u = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({rows, 4}), rng, 10, 20);
        HostTensor i = uniqueElementIndices(rng, DataType::kINT32, {rows, 4}, 4, 1);
        auto out = n.run({{"data", x}, {"idx", i}, {"upd", u}});
        EXPECT_TRUE(kiln::test::sameBits(out["y"], scatterElementOracle(x, i, u, 1)));
    }
}

TEST_P(ScatterLayerTest, DuplicateIndicesLastUpdateWins)
{
    KILN_SKIP_ON_BACKEND(kiln::BackendKind::kCUDA, "docs/gpu.md: duplicate scatter indices: an arbitrary update wins (TensorRT: undefined)");
    NetworkRunner n;
    ITensor* data = n.addInput("data", DataType::kFLOAT, {5});
    ITensor* idx = n.addInput("idx", DataType::kINT32, {3, 1});
    ITensor* upd = n.addInput("upd", DataType::kFLOAT, {3});
    IScatterLayer* layer = n.network().addScatter(*data, *idx, *upd, ScatterMode::kND);
    ASSERT_NE(layer, nullptr);
    n.markOutput(layer->getOutput(0), "y");
    ASSERT_TRUE(n.build()) << n.logger().allErrors();
    HostTensor x = HostTensor::fromValues(DataType::kFLOAT, kiln::test::makeDims({5}), {0, 1, 2, 3, 4});
    HostTensor i = HostTensor::fromValues(DataType::kINT32, kiln::test::makeDims({3, 1}), {1, 3, -4});
    HostTensor u = HostTensor::fromValues(DataType::kFLOAT, kiln::test::makeDims({3}), {10, 30, 11});
    auto out = n.run({{"data", x}, {"idx", i}, {"upd", u}});
    EXPECT_TRUE(kiln::test::sameBits(
        out["y"], HostTensor::fromValues(DataType::kFLOAT, kiln::test::makeDims({5}), {0, 11, 2, 30, 4})));
}

TEST_P(ScatterLayerTest, OutOfRangeIndexIsAnExecutionError)
{
    KILN_SKIP_ON_BACKEND(kiln::BackendKind::kCUDA,
        "docs/gpu.md: scatter cannot report an out-of-range index without synchronising (it skips the update)");
    for (ScatterMode mode : {ScatterMode::kELEMENT, ScatterMode::kND})
    {
        NetworkRunner n;
        ITensor* data = n.addInput("data", DataType::kFLOAT, {3, 2});
        ITensor* idx = n.addInput("idx", DataType::kINT32, mode == ScatterMode::kND ? std::vector<int64_t>{2, 1}
                                                                                     : std::vector<int64_t>{2, 2});
        ITensor* upd = n.addInput("upd", DataType::kFLOAT, {2, 2});
        IScatterLayer* layer = n.network().addScatter(*data, *idx, *upd, mode);
        ASSERT_NE(layer, nullptr);
        layer->setName("s");
        n.markOutput(layer->getOutput(0), "y");
        ASSERT_TRUE(n.build()) << n.logger().allErrors();
        std::mt19937 rng(2);
        HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({3, 2}), rng);
        HostTensor u = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({2, 2}), rng);
        HostTensor i = mode == ScatterMode::kND
            ? HostTensor::fromValues(DataType::kINT32, kiln::test::makeDims({2, 1}), {0, 3})
            : HostTensor::fromValues(DataType::kINT32, kiln::test::makeDims({2, 2}), {0, 1, 3, 2});
        std::map<std::string, HostTensor> outputs;
        EXPECT_FALSE(n.tryRun({{"data", x}, {"idx", i}, {"upd", u}}, outputs));
        EXPECT_TRUE(n.logger().hasError("'s'")) << n.logger().allErrors();
        EXPECT_TRUE(n.logger().hasError("index 3")) << n.logger().allErrors();
    }
}

TEST_P(ScatterLayerTest, InvalidArgumentsAreRejected)
{
    NetworkRunner n;
    ITensor* data = n.addInput("data", DataType::kFLOAT, {3, 2});
    ITensor* idx = n.addInput("idx", DataType::kINT32, {2, 1});
    ITensor* upd = n.addInput("upd", DataType::kFLOAT, {2, 2});
    EXPECT_EQ(n.network().addScatter(*data, *idx, *upd, static_cast<ScatterMode>(5)), nullptr);
    EXPECT_TRUE(n.logger().hasError("addScatter")) << n.logger().allErrors();
    IScatterLayer* layer = n.network().addScatter(*data, *idx, *upd, ScatterMode::kND);
    ASSERT_NE(layer, nullptr);
    layer->setName("s");
    n.logger().clear();
    layer->setAxis(-1);
    layer->setMode(static_cast<ScatterMode>(3));
    EXPECT_TRUE(n.logger().hasError("'s'")) << n.logger().allErrors();
    EXPECT_EQ(layer->getAxis(), 0);
    EXPECT_EQ(layer->getMode(), ScatterMode::kND);
}

TEST_P(ScatterLayerTest, BadNetworksFailTheBuild)
{
    struct Case
    {
        ScatterMode mode;
        DataType updatesType;
        std::vector<int64_t> indices;
        std::vector<int64_t> updates;
        char const* message;
    };
    for (Case const& c : std::vector<Case>{{ScatterMode::kND, DataType::kINT32, {2, 1}, {2, 2}, "must match"},
             {ScatterMode::kND, DataType::kFLOAT, {2, 1}, {2, 3}, "must equal dimension 1 of data"},
             {ScatterMode::kND, DataType::kFLOAT, {2, 3}, {2}, "kND scatter needs it in [1, 2]"},
             {ScatterMode::kELEMENT, DataType::kFLOAT, {2, 2}, {2, 1}, "differ in dimension 1"},
             {ScatterMode::kELEMENT, DataType::kFLOAT, {2}, {2}, "equal rank"}})
    {
        NetworkRunner n;
        ITensor* data = n.addInput("data", DataType::kFLOAT, {3, 2});
        ITensor* idx = n.addInput("idx", DataType::kINT32, c.indices);
        ITensor* upd = n.addInput("upd", c.updatesType, c.updates);
        IScatterLayer* layer = n.network().addScatter(*data, *idx, *upd, c.mode);
        ASSERT_NE(layer, nullptr);
        layer->setName("s");
        n.markOutput(layer->getOutput(0), "y");
        EXPECT_FALSE(n.build()) << c.message;
        EXPECT_TRUE(n.logger().hasError("'s'")) << n.logger().allErrors();
        EXPECT_TRUE(n.logger().hasError(c.message)) << n.logger().allErrors();
    }
}

} // namespace
