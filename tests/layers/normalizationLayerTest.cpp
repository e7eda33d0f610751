// Tests of INormalizationLayer: layer norm (trailing axes, scale/bias broadcast), instance norm, group norm with
// addNormalization (per-group scale) and addNormalizationV2 (per-channel scale), epsilon, FP16/BF16, dynamic shapes
// and the error paths. The oracle finds each element's statistics set by brute force.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <cmath>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::NetworkRunner;

constexpr uint32_t kSTRONGLY_TYPED = 1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED);

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

//! Brute force: two elements share statistics when they agree on every unreduced coordinate (the channel compared
//! by group when groups > 1).
HostTensor normOracle(HostTensor const& x, HostTensor const& scale, HostTensor const& bias, uint32_t mask,
    int64_t groups, bool v2, double eps)
{
    int32_t const rank = x.dims.nbDims;
    int64_t const perGroup = groups > 1 ? x.dims.d[1] / groups : 1;
    auto key = [&](std::vector<int64_t> const& c, int32_t d) {
        return (d == 1 && groups > 1) ? c[1] / perGroup : c[static_cast<size_t>(d)];
    };
    HostTensor y(x.type, x.dims);
    int64_t const n = x.volume();
    for (int64_t e = 0; e < n; ++e)
    {
        std::vector<int64_t> const ce = unravel(e, x.dims);
        double sum = 0.0;
        int64_t count = 0;
        std::vector<double> members;
        for (int64_t f = 0; f < n; ++f)
        {
            std::vector<int64_t> const cf = unravel(f, x.dims);
            bool same = true;
            for (int32_t d = 0; d < rank && same; ++d)
            {
                same = ((mask >> d) & 1U) != 0 || key(ce, d) == key(cf, d);
            }
            if (same)
            {
                members.push_back(x.at(f));
                sum += x.at(f);
                ++count;
            }
        }
        double const mean = sum / static_cast<double>(count);
        double var = 0.0;
        for (double v : members)
        {
            var += (v - mean) * (v - mean);
        }
        var /= static_cast<double>(count);
        // Scale/bias element: broadcast dimensions read index 0; V1 group norm reads the group on axis 1.
        auto param = [&](HostTensor const& p) {
            int64_t flat = 0;
            for (int32_t d = 0; d < rank; ++d)
            {
                int64_t c = p.dims.d[d] == 1 ? 0 : ce[static_cast<size_t>(d)];
                if (d == 1 && groups > 1 && !v2 && p.dims.d[d] != 1)
                {
                    c = ce[1] / perGroup;
                }
                flat = flat * p.dims.d[d] + c;
            }
            return p.at(flat);
        };
        y.set(e, (x.at(e) - mean) / std::sqrt(var + eps) * param(scale) + param(bias));
    }
    return y;
}

struct NormCase
{
    std::vector<int64_t> input;
    std::vector<int64_t> scale; // also the bias shape
    uint32_t mask;
    int64_t groups;
    bool v2;
    float eps;
};

void runCase(std::mt19937& rng, DataType type, NormCase const& c, uint32_t flags = 0)
{
    NetworkRunner r(flags);
    ITensor* x = r.addInput("x", type, c.input);
    ITensor* s = r.addInput("scale", type, c.scale);
    ITensor* b = r.addInput("bias", type, c.scale);
    INormalizationLayer* layer;
    if (c.v2)
    {
        layer = r.network().addNormalizationV2(*x, *s, *b, c.mask);
    }
    else
    {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        layer = r.network().addNormalization(*x, *s, *b, c.mask);
#pragma GCC diagnostic pop
    }
    ASSERT_NE(layer, nullptr) << r.logger().allErrors();
    EXPECT_EQ(layer->isV2(), c.v2);
    EXPECT_EQ(layer->getAxes(), c.mask);
    EXPECT_FLOAT_EQ(layer->getEpsilon(), 1e-5F);
    EXPECT_EQ(layer->getNbGroups(), 1);
    layer->setEpsilon(c.eps);
    layer->setNbGroups(c.groups);
    EXPECT_EQ(layer->getNbGroups(), c.groups);
    r.markOutput(layer->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor xv = HostTensor::random(type, kiln::test::makeDims(c.input), rng, -3, 5);
    HostTensor sv = HostTensor::random(type, kiln::test::makeDims(c.scale), rng, 0.5, 2);
    HostTensor bv = HostTensor::random(type, kiln::test::makeDims(c.scale), rng, -1, 1);
    auto out = r.run({{"x", xv}, {"scale", sv}, {"bias", bv}});
    HostTensor const expected = normOracle(xv, sv, bv, c.mask, c.groups, c.v2, c.eps);
    double const tol = type == DataType::kFLOAT ? 2e-5 : (type == DataType::kHALF ? 6e-3 : 4e-2);
    EXPECT_TRUE(kiln::test::allClose(out["y"], expected, tol, tol))
        << "input " << kiln::test::dimsString(xv.dims) << " mask " << c.mask << " groups " << c.groups << " v2 " << c.v2;
}

class NormalizationLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(NormalizationLayerTest);

TEST_P(NormalizationLayerTest, LayerNorm)
{
    std::mt19937 rng(401);
    for (bool v2 : {false, true})
    {
        runCase(rng, DataType::kFLOAT, {{2, 3, 8}, {1, 1, 8}, 0b100, 1, v2, 1e-5F});
        runCase(rng, DataType::kFLOAT, {{2, 3, 8}, {1, 3, 8}, 0b110, 1, v2, 1e-3F});
        runCase(rng, DataType::kFLOAT, {{4, 6}, {1, 1}, 0b10, 1, v2, 1e-5F});
        runCase(rng, DataType::kFLOAT, {{4, 6}, {4, 6}, 0b11, 1, v2, 0.5F});
        runCase(rng, DataType::kFLOAT, {{7}, {7}, 0b1, 1, v2, 1e-5F});
    }
}

//! Layer norm over trailing axes with per-member scale (the CUDA row kernels): two trailing axes, rows longer than its
//! register cache, a scale varying along a statistics axis (the general kernel), and the warp-per-row kernel's cases.
TEST_P(NormalizationLayerTest, LayerNormRows)
{
    std::mt19937 rng(409);
    runCase(rng, DataType::kFLOAT, {{2, 3, 5, 7}, {1, 1, 5, 7}, 0b1100, 1, true, 1e-5F});
    runCase(rng, DataType::kFLOAT, {{2, 9000}, {1, 9000}, 0b10, 1, true, 1e-5F});
    runCase(rng, DataType::kHALF, {{4, 768}, {1, 768}, 0b10, 1, true, 1e-5F});
    runCase(rng, DataType::kFLOAT, {{2, 5, 16}, {1, 5, 16}, 0b100, 1, true, 1e-5F});
    // The CUDA warp-per-row kernel (FP16/BF16, members a multiple of 8 up to 1,024): a ragged last vector per lane,
    // its largest row, and a row longer than it takes.
    runCase(rng, DataType::kHALF, {{9, 1000}, {1, 1000}, 0b10, 1, true, 1e-5F});
    runCase(rng, DataType::kBF16, {{3, 5, 1024}, {1, 1, 1024}, 0b100, 1, true, 1e-5F});
    runCase(rng, DataType::kHALF, {{2, 1032}, {1, 1032}, 0b10, 1, true, 1e-5F});
}

TEST_P(NormalizationLayerTest, InstanceNormAndOddAxes)
{
    std::mt19937 rng(403);
    runCase(rng, DataType::kFLOAT, {{2, 3, 4, 5}, {1, 3, 1, 1}, 0b1100, 1, true, 1e-5F});
    runCase(rng, DataType::kFLOAT, {{2, 3, 4, 5}, {1, 3, 1, 1}, 0b1100, 1, false, 1e-5F});
    runCase(rng, DataType::kFLOAT, {{2, 3, 4}, {2, 1, 4}, 0b010, 1, true, 1e-5F});   // middle axis only
    runCase(rng, DataType::kFLOAT, {{3, 2, 2, 3}, {1, 2, 1, 3}, 0b0101, 1, true, 1e-5F}); // non-adjacent axes
}

TEST_P(NormalizationLayerTest, GroupNormV1PerGroupScale)
{
    std::mt19937 rng(405);
    runCase(rng, DataType::kFLOAT, {{2, 6, 3, 2}, {1, 3, 1, 1}, 0b1100, 3, false, 1e-5F});
    runCase(rng, DataType::kFLOAT, {{1, 8, 5}, {1, 2, 1}, 0b100, 2, false, 1e-5F});
    runCase(rng, DataType::kFLOAT, {{2, 4, 3}, {1, 1, 1}, 0b100, 4, false, 1e-5F});
}

TEST_P(NormalizationLayerTest, GroupNormV2PerChannelScale)
{
    std::mt19937 rng(407);
    runCase(rng, DataType::kFLOAT, {{2, 6, 3, 2}, {1, 6, 1, 1}, 0b1100, 3, true, 1e-5F});
    runCase(rng, DataType::kFLOAT, {{1, 8, 5}, {1, 8, 1}, 0b100, 2, true, 1e-5F});
    runCase(rng, DataType::kFLOAT, {{2, 4, 3, 3}, {1, 4, 3, 3}, 0b1100, 2, true, 1e-5F});
}

TEST_P(NormalizationLayerTest, HalfAndBFloat16)
{
    std::mt19937 rng(409);
    for (DataType t : {DataType::kHALF, DataType::kBF16})
    {
        runCase(rng, t, {{2, 3, 16}, {1, 1, 16}, 0b100, 1, true, 1e-5F});
        runCase(rng, t, {{2, 4, 3, 3}, {1, 4, 1, 1}, 0b1100, 2, true, 1e-5F}, kSTRONGLY_TYPED);
    }
}

TEST_P(NormalizationLayerTest, DynamicShapes)
{
    std::mt19937 rng(411);
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, -1, 8});
    ITensor* s = r.addInput("scale", DataType::kFLOAT, {1, 1, 8});
    ITensor* b = r.addInput("bias", DataType::kFLOAT, {1, 1, 8});
    INormalizationLayer* layer = r.network().addNormalizationV2(*x, *s, *b, 0b100);
    ASSERT_NE(layer, nullptr);
    r.markOutput(layer->getOutput(0), "y");
    r.setProfileDims("x", {1, 1, 8}, {2, 3, 8}, {4, 7, 8});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (auto const& shape : std::vector<std::vector<int64_t>>{{2, 3, 8}, {4, 7, 8}})
    {
        HostTensor xv = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims(shape), rng, -2, 2);
        HostTensor sv = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({1, 1, 8}), rng);
        HostTensor bv = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({1, 1, 8}), rng);
        auto out = r.run({{"x", xv}, {"scale", sv}, {"bias", bv}});
        EXPECT_TRUE(kiln::test::allClose(out["y"], normOracle(xv, sv, bv, 0b100, 1, true, 1e-5), 2e-5, 2e-5));
    }
}

TEST_P(NormalizationLayerTest, SettersValidateTheirArguments)
{
    NetworkRunner r(kSTRONGLY_TYPED);
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 4, 3});
    ITensor* s = r.addInput("scale", DataType::kFLOAT, {1, 4, 1});
    ITensor* b = r.addInput("bias", DataType::kFLOAT, {1, 4, 1});
    INormalizationLayer* layer = r.network().addNormalizationV2(*x, *s, *b, 0b100);
    ASSERT_NE(layer, nullptr);
    layer->setName("norm");
    layer->setNbGroups(0);
    layer->setEpsilon(-1.F);
    layer->setAxes(1U << 12);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    layer->setComputePrecision(DataType::kHALF);
    EXPECT_EQ(layer->getComputePrecision(), DataType::kFLOAT);
#pragma GCC diagnostic pop
    EXPECT_TRUE(r.logger().hasError("'norm'")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("strongly typed")) << r.logger().allErrors();
    EXPECT_EQ(layer->getNbGroups(), 1);
    EXPECT_FLOAT_EQ(layer->getEpsilon(), 1e-5F);
    EXPECT_EQ(layer->getAxes(), 0b100U);
}

TEST_P(NormalizationLayerTest, ComputePrecisionInAWeaklyTypedNetwork)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 4});
    ITensor* s = r.addInput("scale", DataType::kFLOAT, {1, 4});
    ITensor* b = r.addInput("bias", DataType::kFLOAT, {1, 4});
    INormalizationLayer* layer = r.network().addNormalizationV2(*x, *s, *b, 0b10);
    ASSERT_NE(layer, nullptr);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    EXPECT_EQ(layer->getComputePrecision(), DataType::kFLOAT);
    layer->setComputePrecision(DataType::kHALF);
    EXPECT_EQ(layer->getComputePrecision(), DataType::kHALF);
    layer->setComputePrecision(DataType::kINT32);
    EXPECT_EQ(layer->getComputePrecision(), DataType::kHALF);
#pragma GCC diagnostic pop
    EXPECT_TRUE(r.logger().hasError("kFLOAT or kHALF")) << r.logger().allErrors();
}

TEST_P(NormalizationLayerTest, BadNetworksFailTheBuild)
{
    struct Case
    {
        std::vector<int64_t> input;
        std::vector<int64_t> scale;
        uint32_t mask;
        int64_t groups;
        bool v2;
        DataType type;
        char const* message;
    };
    for (Case const& c : std::vector<Case>{
             {{2, 6, 3}, {1, 6, 1}, 0b100, 4, true, DataType::kFLOAT, "does not divide"},
             {{2, 6, 3}, {1, 6, 1}, 0b100, 3, false, DataType::kFLOAT, "addNormalizationV2"},
             {{2, 6, 3}, {1, 3, 1}, 0b110, 3, false, DataType::kFLOAT, "after the channel axis"},
             {{2, 6, 3}, {6, 1}, 0b100, 1, true, DataType::kFLOAT, "rank"},
             {{2, 6, 3}, {1, 5, 1}, 0b100, 1, true, DataType::kFLOAT, "cannot broadcast"},
             {{2, 6, 3}, {1, 6, 1}, 0b1000, 1, true, DataType::kFLOAT, "beyond the rank"},
             {{2, 6, 3}, {1, 6, 1}, 0, 1, true, DataType::kFLOAT, "at least one axis"},
             {{2, 6, 3}, {1, 6, 1}, 0b100, 1, true, DataType::kINT32, "FP32, FP16 or BF16"}})
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", c.type, c.input);
        ITensor* s = r.addInput("scale", c.type, c.scale);
        ITensor* b = r.addInput("bias", c.type, c.scale);
        INormalizationLayer* layer;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        layer = c.v2 ? r.network().addNormalizationV2(*x, *s, *b, c.mask) : r.network().addNormalization(*x, *s, *b, c.mask);
#pragma GCC diagnostic pop
        ASSERT_NE(layer, nullptr);
        layer->setName("norm");
        layer->setNbGroups(c.groups);
        r.markOutput(layer->getOutput(0), "y");
        EXPECT_FALSE(r.build()) << c.message;
        EXPECT_TRUE(r.logger().hasError("'norm'")) << r.logger().allErrors();
        EXPECT_TRUE(r.logger().hasError(c.message)) << r.logger().allErrors();
    }
}

TEST_P(NormalizationLayerTest, MixedScaleTypeFailsInAStronglyTypedNetwork)
{
    NetworkRunner r(kSTRONGLY_TYPED);
    ITensor* x = r.addInput("x", DataType::kHALF, {2, 4});
    ITensor* s = r.addInput("scale", DataType::kFLOAT, {1, 4});
    ITensor* b = r.addInput("bias", DataType::kFLOAT, {1, 4});
    INormalizationLayer* layer = r.network().addNormalizationV2(*x, *s, *b, 0b10);
    ASSERT_NE(layer, nullptr);
    r.markOutput(layer->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("must have the type")) << r.logger().allErrors();
}

} // namespace
