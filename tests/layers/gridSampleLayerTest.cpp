// Tests of IGridSampleLayer: nearest/linear/cubic interpolation x kFILL/kCLAMP/kREFLECT x alignCorners on random
// inputs and grids that reach outside [-1, 1], against a double-precision reference of the ONNX GridSample
// definition; FP16; dynamic shapes; defaults, setters and error paths.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <cmath>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

double reflectInto(double x, double lo, double hi)
{
    double const span = hi - lo;
    if (span <= 0)
    {
        return lo;
    }
    // Distance travelled past the lower border, folded into [0, 2 * span).
    double d = std::fmod(x - lo, 2 * span);
    if (d < 0)
    {
        d += 2 * span;
    }
    return d <= span ? lo + d : lo + 2 * span - d;
}

double keys(double t)
{
    double const a = -0.75;
    t = std::fabs(t);
    if (t <= 1)
    {
        return ((a + 2) * t - (a + 3)) * t * t + 1;
    }
    if (t < 2)
    {
        return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
    }
    return 0;
}

HostTensor gridSampleOracle(HostTensor const& x, HostTensor const& grid, InterpolationMode mode, SampleMode sample,
    bool align)
{
    int64_t const n = x.dims.d[0], c = x.dims.d[1], h = x.dims.d[2], w = x.dims.d[3];
    int64_t const ho = grid.dims.d[1], wo = grid.dims.d[2];
    HostTensor out(x.type, makeDims({n, c, ho, wo}));
    auto unnorm = [&](double g, int64_t size) { return align ? (g + 1) / 2 * (size - 1) : ((g + 1) * size - 1) / 2; };
    auto lo = [&](int64_t) { return align ? 0.0 : -0.5; };
    auto hi = [&](int64_t size) { return align ? size - 1.0 : size - 0.5; };
    // Coordinates outside the border are clamped (kCLAMP) or reflected (kREFLECT) before interpolation.
    auto fixCoord = [&](double v, int64_t size) {
        if (v >= lo(size) && v <= hi(size))
        {
            return v;
        }
        if (sample == SampleMode::kCLAMP)
        {
            return std::min(std::max(v, 0.0), size - 1.0);
        }
        if (sample == SampleMode::kREFLECT)
        {
            return reflectInto(v, lo(size), hi(size));
        }
        return v;
    };
    // Taps outside the image read zero (kFILL), the nearest border pixel (kCLAMP) or a reflected pixel (kREFLECT).
    auto fixIndex = [&](int64_t i, int64_t size) -> int64_t {
        if (i >= 0 && i < size)
        {
            return i;
        }
        if (sample == SampleMode::kCLAMP)
        {
            return std::min<int64_t>(std::max<int64_t>(i, 0), size - 1);
        }
        if (sample == SampleMode::kREFLECT)
        {
            return std::min<int64_t>(std::max<int64_t>(static_cast<int64_t>(reflectInto(i, lo(size), hi(size))), 0), size - 1);
        }
        return -1;
    };
    for (int64_t point = 0; point < n * ho * wo; ++point)
    {
        int64_t const b = point / (ho * wo);
        int64_t const oy = point / wo % ho;
        int64_t const ox = point % wo;
        double px = unnorm(grid.at(point * 2), w);
        double py = unnorm(grid.at(point * 2 + 1), h);
        if (mode == InterpolationMode::kNEAREST)
        {
            px = std::nearbyint(px);
            py = std::nearbyint(py);
        }
        px = fixCoord(px, w);
        py = fixCoord(py, h);
        for (int64_t ch = 0; ch < c; ++ch)
        {
            auto pixel = [&](int64_t iy, int64_t ix) {
                int64_t const yy = fixIndex(iy, h);
                int64_t const xx = fixIndex(ix, w);
                return yy < 0 || xx < 0 ? 0.0 : x.at(((b * c + ch) * h + yy) * w + xx);
            };
            double v = 0;
            if (mode == InterpolationMode::kNEAREST)
            {
                v = pixel(static_cast<int64_t>(py), static_cast<int64_t>(px));
            }
            else
            {
                auto const x0 = static_cast<int64_t>(std::floor(px));
                auto const y0 = static_cast<int64_t>(std::floor(py));
                int64_t const first = mode == InterpolationMode::kLINEAR ? 0 : -1;
                int64_t const span = mode == InterpolationMode::kLINEAR ? 2 : 4;
                for (int64_t tap = 0; tap < span * span; ++tap)
                {
                    int64_t const dy = first + tap / span;
                    int64_t const dx = first + tap % span;
                    double const ty = py - static_cast<double>(y0 + dy);
                    double const tx = px - static_cast<double>(x0 + dx);
                    double const wy = mode == InterpolationMode::kLINEAR ? 1 - std::fabs(ty) : keys(ty);
                    double const wx = mode == InterpolationMode::kLINEAR ? 1 - std::fabs(tx) : keys(tx);
                    v += wy * wx * pixel(y0 + dy, x0 + dx);
                }
            }
            out.set(((b * c + ch) * ho + oy) * wo + ox, v);
        }
    }
    return out;
}

void runCase(std::mt19937& rng, DataType type, InterpolationMode mode, SampleMode sample, bool align)
{
    NetworkRunner r;
    std::vector<int64_t> const inShape{2, 3, 4, 5};
    std::vector<int64_t> const gridShape{2, 3, 6, 2};
    ITensor* in = r.addInput("x", type, inShape);
    ITensor* grid = r.addInput("grid", type, gridShape);
    IGridSampleLayer* layer = r.network().addGridSample(*in, *grid);
    ASSERT_NE(layer, nullptr) << r.logger().allErrors();
    layer->setInterpolationMode(mode);
    layer->setAlignCorners(align);
    ASSERT_TRUE(layer->setSampleMode(sample));
    r.markOutput(layer->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor x = HostTensor::random(type, makeDims(inShape), rng, -3.0, 3.0);
    HostTensor g = HostTensor::random(type, makeDims(gridShape), rng, -1.4, 1.4);
    auto out = r.run({{"x", x}, {"grid", g}});
    double const tol = type == DataType::kFLOAT ? 1e-4 : 3e-2;
    EXPECT_TRUE(kiln::test::allClose(out["y"], gridSampleOracle(x, g, mode, sample, align), tol, tol))
        << "mode " << static_cast<int>(mode) << " sample " << static_cast<int>(sample) << " align " << align;
}

class GridSampleLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(GridSampleLayerTest);

TEST_P(GridSampleLayerTest, EveryModeSampleModeAndAlignment)
{
    std::mt19937 rng(211);
    for (InterpolationMode mode : {InterpolationMode::kNEAREST, InterpolationMode::kLINEAR, InterpolationMode::kCUBIC})
    {
        for (SampleMode sample : {SampleMode::kFILL, SampleMode::kCLAMP, SampleMode::kREFLECT})
        {
            runCase(rng, DataType::kFLOAT, mode, sample, false);
            runCase(rng, DataType::kFLOAT, mode, sample, true);
        }
    }
}

TEST_P(GridSampleLayerTest, HalfPrecision)
{
    std::mt19937 rng(223);
    runCase(rng, DataType::kHALF, InterpolationMode::kLINEAR, SampleMode::kFILL, false);
    runCase(rng, DataType::kHALF, InterpolationMode::kCUBIC, SampleMode::kREFLECT, true);
}

TEST_P(GridSampleLayerTest, DefaultsAndSetters)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {1, 1, 3, 3});
    ITensor* grid = r.addInput("grid", DataType::kFLOAT, {1, 2, 2, 2});
    IGridSampleLayer* layer = r.network().addGridSample(*in, *grid);
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getInterpolationMode(), InterpolationMode::kLINEAR);
    EXPECT_FALSE(layer->getAlignCorners());
    EXPECT_EQ(layer->getSampleMode(), SampleMode::kFILL);
    EXPECT_FALSE(layer->setSampleMode(SampleMode::kWRAP));
    EXPECT_TRUE(r.logger().hasError("only kFILL, kCLAMP and kREFLECT")) << r.logger().allErrors();
    EXPECT_FALSE(layer->setSampleMode(SampleMode::kSTRICT_BOUNDS));
    EXPECT_EQ(layer->getSampleMode(), SampleMode::kFILL);
    layer->setInterpolationMode(static_cast<InterpolationMode>(7));
    EXPECT_EQ(layer->getInterpolationMode(), InterpolationMode::kLINEAR);
    EXPECT_EQ(layer->getOutput(0)->getDimensions().nbDims, 4);
    EXPECT_EQ(layer->getOutput(0)->getDimensions().d[2], 2);
}

TEST_P(GridSampleLayerTest, DynamicShapes)
{
    std::mt19937 rng(227);
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {-1, 2, -1, -1});
    ITensor* grid = r.addInput("grid", DataType::kFLOAT, {-1, -1, -1, 2});
    IGridSampleLayer* layer = r.network().addGridSample(*in, *grid);
    ASSERT_NE(layer, nullptr);
    r.markOutput(layer->getOutput(0), "y");
    r.setProfileDims("x", {1, 2, 1, 1}, {2, 2, 4, 4}, {3, 2, 8, 8});
    r.setProfileDims("grid", {1, 1, 1, 2}, {2, 3, 3, 2}, {3, 6, 6, 2});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (auto [b, h, w, ho, wo] : {std::array<int64_t, 5>{1, 3, 7, 2, 5}, std::array<int64_t, 5>{3, 8, 2, 6, 1}})
    {
        HostTensor x = HostTensor::random(DataType::kFLOAT, makeDims({b, 2, h, w}), rng, -2, 2);
        HostTensor g = HostTensor::random(DataType::kFLOAT, makeDims({b, ho, wo, 2}), rng, -1.2, 1.2);
        auto out = r.run({{"x", x}, {"grid", g}});
        EXPECT_TRUE(kiln::test::allClose(
            out["y"], gridSampleOracle(x, g, InterpolationMode::kLINEAR, SampleMode::kFILL, false), 1e-4, 1e-4));
    }
    HostTensor x = HostTensor::random(DataType::kFLOAT, makeDims({2, 2, 3, 3}), rng);
    HostTensor g = HostTensor::random(DataType::kFLOAT, makeDims({1, 2, 2, 2}), rng);
    EXPECT_TRUE(r.runFails({{"x", x}, {"grid", g}}));
    EXPECT_TRUE(r.logger().hasError("must have the same batch size")) << r.logger().allErrors();
}

TEST_P(GridSampleLayerTest, ShapeAndTypeErrorsFailTheBuild)
{
    struct Bad
    {
        std::vector<int64_t> in;
        std::vector<int64_t> grid;
        DataType gridType;
        char const* message;
    };
    for (Bad const& bad : {Bad{{1, 2, 3}, {1, 2, 2, 2}, DataType::kFLOAT, "expected rank 4"},
             Bad{{1, 2, 3, 3}, {1, 2, 2, 3}, DataType::kFLOAT, "its last dimension is 3"},
             Bad{{2, 2, 3, 3}, {1, 2, 2, 2}, DataType::kFLOAT, "different batch sizes"},
             Bad{{1, 2, 3, 3}, {1, 2, 2, 2}, DataType::kHALF, "they must match"}})
    {
        NetworkRunner r;
        ITensor* in = r.addInput("x", DataType::kFLOAT, bad.in);
        ITensor* grid = r.addInput("grid", bad.gridType, bad.grid);
        IGridSampleLayer* layer = r.network().addGridSample(*in, *grid);
        ASSERT_NE(layer, nullptr);
        r.markOutput(layer->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError(bad.message)) << bad.message << ": " << r.logger().allErrors();
    }
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kINT32, {1, 1, 2, 2});
    ITensor* grid = r.addInput("grid", DataType::kINT32, {1, 1, 1, 2});
    r.markOutput(r.network().addGridSample(*in, *grid)->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("GridSample supports FP32, FP16 and BF16")) << r.logger().allErrors();
}

} // namespace
