// Tests of IResizeLayer against a separable oracle written from the ONNX Resize definition (one 1-D
// interpolation per dimension, edge padding, exclude-outside renormalization): every interpolation mode,
// coordinate transformation, nearest rounding and selector, scales and output dimensions (static, shape tensor,
// constant scales tensor), runtime shapes, storage types and the error paths.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

struct Spec
{
    InterpolationMode mode{InterpolationMode::kNEAREST};
    ResizeCoordinateTransformation transform{ResizeCoordinateTransformation::kASYMMETRIC};
    ResizeSelector selector{ResizeSelector::kFORMULA};
    ResizeRoundMode rounding{ResizeRoundMode::kFLOOR};
    double cubicA{-0.75};
    bool exclude{false};
};

double originalCoordinate(Spec const& s, int64_t x, int64_t inLen, int64_t outLen, double scale)
{
    if (outLen == 1 && s.selector == ResizeSelector::kUPPER)
    {
        return 0.0;
    }
    double const ratio = scale > 0 ? scale : double(outLen) / double(inLen);
    switch (s.transform)
    {
    case ResizeCoordinateTransformation::kALIGN_CORNERS:
    {
        // ONNX: with scales, the resized length is inLen * scale, not rounded.
        double const resized = scale > 0 ? double(inLen) * scale : double(outLen);
        return resized == 1.0 ? 0.0 : double(x) * double(inLen - 1) / (resized - 1.0);
    }
    case ResizeCoordinateTransformation::kHALF_PIXEL: return (double(x) + 0.5) / ratio - 0.5;
    default: return double(x) / ratio;
    }
}

//! 1-D interpolation of `line` (length n) at original coordinate xo.
double interpolate1d(Spec const& s, std::vector<double> const& line, double xo)
{
    int64_t const n = static_cast<int64_t>(line.size());
    auto edge = [&](int64_t i) { return line[static_cast<size_t>(std::min(std::max<int64_t>(i, 0), n - 1))]; };
    if (s.mode == InterpolationMode::kNEAREST)
    {
        double r = std::floor(xo);
        if (s.rounding == ResizeRoundMode::kHALF_UP)
        {
            r = std::floor(xo + 0.5);
        }
        else if (s.rounding == ResizeRoundMode::kHALF_DOWN)
        {
            r = std::ceil(xo - 0.5);
        }
        else if (s.rounding == ResizeRoundMode::kCEIL)
        {
            r = std::ceil(xo);
        }
        return edge(static_cast<int64_t>(r));
    }
    int64_t const x0 = static_cast<int64_t>(std::floor(xo));
    double const t = xo - double(x0);
    std::vector<int64_t> idx;
    std::vector<double> w;
    if (s.mode == InterpolationMode::kLINEAR)
    {
        idx = {x0, x0 + 1};
        w = {1.0 - t, t};
    }
    else
    {
        double const a = s.cubicA;
        auto k = [a](double d) {
            d = std::fabs(d);
            if (d <= 1)
            {
                return ((a + 2) * d - (a + 3)) * d * d + 1;
            }
            if (d < 2)
            {
                return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
            }
            return 0.0;
        };
        idx = {x0 - 1, x0, x0 + 1, x0 + 2};
        w = {k(t + 1), k(t), k(1 - t), k(2 - t)};
    }
    if (s.exclude)
    {
        double sum = 0;
        for (size_t i = 0; i < idx.size(); ++i)
        {
            if (idx[i] < 0 || idx[i] >= n)
            {
                w[i] = 0;
            }
            sum += w[i];
        }
        for (auto& v : w)
        {
            v /= sum;
        }
    }
    double acc = 0;
    for (size_t i = 0; i < idx.size(); ++i)
    {
        acc += w[i] * edge(idx[i]);
    }
    return acc;
}

//! Resize dimension by dimension (separable), in double.
HostTensor resizeOracle(HostTensor const& in, std::vector<int64_t> const& outDims, Spec const& s,
    std::vector<double> const& scales = {})
{
    std::vector<int64_t> dims(in.dims.d, in.dims.d + in.dims.nbDims);
    std::vector<double> data(static_cast<size_t>(in.volume()));
    for (int64_t i = 0; i < in.volume(); ++i)
    {
        data[static_cast<size_t>(i)] = in.at(i);
    }
    for (size_t d = 0; d < dims.size(); ++d)
    {
        int64_t const inLen = dims[d];
        int64_t const outLen = outDims[d];
        int64_t outer = 1;
        int64_t inner = 1;
        for (size_t i = 0; i < d; ++i)
        {
            outer *= dims[i];
        }
        for (size_t i = d + 1; i < dims.size(); ++i)
        {
            inner *= dims[i];
        }
        std::vector<double> next(static_cast<size_t>(outer * outLen * inner));
        for (int64_t o = 0; o < outer; ++o)
        {
            for (int64_t i = 0; i < inner; ++i)
            {
                std::vector<double> line(static_cast<size_t>(inLen));
                for (int64_t x = 0; x < inLen; ++x)
                {
                    line[static_cast<size_t>(x)] = data[static_cast<size_t>((o * inLen + x) * inner + i)];
                }
                for (int64_t x = 0; x < outLen; ++x)
                {
                    double const xo = originalCoordinate(s, x, inLen, outLen, scales.empty() ? 0.0 : scales[d]);
                    next[static_cast<size_t>((o * outLen + x) * inner + i)] = interpolate1d(s, line, xo);
                }
            }
        }
        data = std::move(next);
        dims[d] = outLen;
    }
    HostTensor out(in.type, makeDims(outDims));
    for (int64_t i = 0; i < out.volume(); ++i)
    {
        out.set(i, data[static_cast<size_t>(i)]);
    }
    return out;
}

void configure(IResizeLayer* r, Spec const& s)
{
    r->setResizeMode(s.mode);
    r->setCoordinateTransformation(s.transform);
    r->setSelectorForSinglePixel(s.selector);
    r->setNearestRounding(s.rounding);
    r->setCubicCoeff(static_cast<float>(s.cubicA));
    r->setExcludeOutside(s.exclude);
}

int64_t uniformInt(std::mt19937& rng, int64_t lo, int64_t hi)
{
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

void runCase(Spec const& s, std::vector<int64_t> const& inDims, std::vector<int64_t> const& outDims, std::mt19937& rng,
    std::string const& what)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, inDims);
    IResizeLayer* layer = r.network().addResize(*x);
    ASSERT_NE(layer, nullptr);
    layer->setOutputDimensions(makeDims(outDims));
    configure(layer, s);
    r.markOutput(layer->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << what << "\n" << r.logger().allErrors();
    HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims(inDims), rng);
    auto out = r.run({{"x", in}});
    EXPECT_TRUE(kiln::test::allClose(out["y"], resizeOracle(in, outDims, s), 1e-5, 1e-5)) << what;
}

std::string describe(Spec const& s, std::vector<int64_t> const& in, std::vector<int64_t> const& out)
{
    return "mode " + std::to_string(int(s.mode)) + " transform " + std::to_string(int(s.transform)) + " rounding "
        + std::to_string(int(s.rounding)) + " exclude " + std::to_string(s.exclude) + " in "
        + kiln::test::dimsString(makeDims(in)) + " out " + kiln::test::dimsString(makeDims(out));
}

class ResizeLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(ResizeLayerTest);

TEST_P(ResizeLayerTest, NearestEveryRoundingAndTransform)
{
    std::mt19937 rng(100);
    for (auto transform : {ResizeCoordinateTransformation::kALIGN_CORNERS, ResizeCoordinateTransformation::kASYMMETRIC,
             ResizeCoordinateTransformation::kHALF_PIXEL})
    {
        for (auto rounding :
            {ResizeRoundMode::kHALF_UP, ResizeRoundMode::kHALF_DOWN, ResizeRoundMode::kFLOOR, ResizeRoundMode::kCEIL})
        {
            Spec s;
            s.transform = transform;
            s.rounding = rounding;
            size_t const rank = static_cast<size_t>(uniformInt(rng, 2, 4));
            std::vector<int64_t> in(rank), out(rank);
            for (size_t i = 0; i < rank; ++i)
            {
                in[i] = uniformInt(rng, 1, 5);
                out[i] = uniformInt(rng, 1, 9);
            }
            runCase(s, in, out, rng, describe(s, in, out));
        }
    }
}

TEST_P(ResizeLayerTest, LinearEveryTransform)
{
    std::mt19937 rng(200);
    for (auto transform : {ResizeCoordinateTransformation::kALIGN_CORNERS, ResizeCoordinateTransformation::kASYMMETRIC,
             ResizeCoordinateTransformation::kHALF_PIXEL})
    {
        for (bool exclude : {false, true})
        {
            Spec s;
            s.mode = InterpolationMode::kLINEAR;
            s.transform = transform;
            s.exclude = exclude;
            std::vector<int64_t> in = {2, uniformInt(rng, 1, 4), uniformInt(rng, 2, 6), uniformInt(rng, 2, 6)};
            std::vector<int64_t> out = {2, uniformInt(rng, 1, 7), uniformInt(rng, 1, 9), uniformInt(rng, 1, 9)};
            runCase(s, in, out, rng, describe(s, in, out));
        }
    }
}

TEST_P(ResizeLayerTest, CubicEveryTransformAndCoefficient)
{
    std::mt19937 rng(300);
    for (auto transform : {ResizeCoordinateTransformation::kALIGN_CORNERS, ResizeCoordinateTransformation::kASYMMETRIC,
             ResizeCoordinateTransformation::kHALF_PIXEL})
    {
        for (double a : {-0.75, -0.5})
        {
            for (bool exclude : {false, true})
            {
                Spec s;
                s.mode = InterpolationMode::kCUBIC;
                s.transform = transform;
                s.cubicA = a;
                s.exclude = exclude;
                std::vector<int64_t> in = {2, uniformInt(rng, 2, 6), uniformInt(rng, 2, 6)};
                std::vector<int64_t> out = {2, uniformInt(rng, 1, 10), uniformInt(rng, 1, 10)};
                runCase(s, in, out, rng, describe(s, in, out));
            }
        }
    }
}

TEST_P(ResizeLayerTest, SinglePixelSelector)
{
    std::mt19937 rng(400);
    for (auto mode : {InterpolationMode::kNEAREST, InterpolationMode::kLINEAR})
    {
        for (auto selector : {ResizeSelector::kFORMULA, ResizeSelector::kUPPER})
        {
            Spec s;
            s.mode = mode;
            s.transform = ResizeCoordinateTransformation::kHALF_PIXEL;
            s.selector = selector;
            runCase(s, {1, 5, 4}, {1, 1, 1}, rng, describe(s, {1, 5, 4}, {1, 1, 1}));
        }
    }
}

TEST_P(ResizeLayerTest, ScalesUseTheGivenFactor)
{
    // Output = floor(in * scale); coordinates use the scale itself (ONNX), visible when in * scale is fractional.
    std::mt19937 rng(500);
    struct Case
    {
        std::vector<int64_t> in;
        std::vector<float> scales;
        InterpolationMode mode;
        ResizeCoordinateTransformation transform;
    };
    for (Case const& c : {Case{{1, 1, 4, 5}, {1.F, 1.F, 0.6F, 1.5F}, InterpolationMode::kLINEAR,
                              ResizeCoordinateTransformation::kHALF_PIXEL},
             Case{{2, 3, 3}, {1.F, 2.F, 2.5F}, InterpolationMode::kNEAREST, ResizeCoordinateTransformation::kASYMMETRIC},
             Case{{1, 4, 4}, {1.F, 0.75F, 1.25F}, InterpolationMode::kCUBIC, ResizeCoordinateTransformation::kHALF_PIXEL}})
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, c.in);
        IResizeLayer* layer = r.network().addResize(*x);
        layer->setScales(c.scales.data(), static_cast<int32_t>(c.scales.size()));
        Spec s;
        s.mode = c.mode;
        s.transform = c.transform;
        configure(layer, s);
        std::vector<float> back(c.scales.size());
        EXPECT_EQ(layer->getScales(0, nullptr), static_cast<int32_t>(c.scales.size()));
        EXPECT_EQ(layer->getScales(static_cast<int32_t>(back.size()), back.data()), static_cast<int32_t>(c.scales.size()));
        EXPECT_EQ(back, c.scales);
        r.markOutput(layer->getOutput(0), "y");
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        std::vector<int64_t> outDims;
        std::vector<double> scales;
        for (size_t i = 0; i < c.in.size(); ++i)
        {
            outDims.push_back(static_cast<int64_t>(std::floor(double(c.in[i]) * double(c.scales[i]))));
            scales.push_back(double(c.scales[i]));
        }
        HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims(c.in), rng);
        auto out = r.run({{"x", in}});
        EXPECT_TRUE(kiln::test::allClose(out["y"], resizeOracle(in, outDims, s, scales), 1e-5, 1e-5));
    }
}

TEST_P(ResizeLayerTest, ScalesWithRuntimeInputShape)
{
    std::mt19937 rng(600);
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 2, -1, -1});
    IResizeLayer* layer = r.network().addResize(*x);
    std::vector<float> const scales = {1.F, 1.F, 2.F, 1.5F};
    layer->setScales(scales.data(), 4);
    Spec s;
    s.mode = InterpolationMode::kLINEAR;
    s.transform = ResizeCoordinateTransformation::kALIGN_CORNERS;
    configure(layer, s);
    r.markOutput(layer->getOutput(0), "y");
    r.setProfileDims("x", {1, 2, 1, 1}, {1, 2, 4, 4}, {3, 2, 6, 7});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (auto const& shape : {std::vector<int64_t>{1, 2, 4, 4}, std::vector<int64_t>{3, 2, 5, 7}})
    {
        HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims(shape), rng);
        std::vector<int64_t> const outDims
            = {shape[0], 2, shape[2] * 2, static_cast<int64_t>(std::floor(double(shape[3]) * 1.5))};
        auto out = r.run({{"x", in}});
        EXPECT_TRUE(kiln::test::allClose(out["y"], resizeOracle(in, outDims, s, {1, 1, 2, 1.5}), 1e-5, 1e-5));
    }
}

TEST_P(ResizeLayerTest, OutputSizeFromShapeTensor)
{
    std::mt19937 rng(700);
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {1, 3, 4});
    ITensor* size = r.addInput("size", DataType::kINT32, {3});
    IResizeLayer* layer = r.network().addResize(*x);
    layer->setInput(1, *size);
    EXPECT_EQ(layer->getScales(0, nullptr), -1);
    Spec s;
    s.mode = InterpolationMode::kLINEAR;
    s.transform = ResizeCoordinateTransformation::kHALF_PIXEL;
    configure(layer, s);
    r.markOutput(layer->getOutput(0), "y");
    r.setProfileValues("size", {1, 1, 1}, {1, 6, 8}, {1, 9, 9});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({1, 3, 4}), rng);
    for (auto const& outDims : {std::vector<int64_t>{1, 6, 8}, std::vector<int64_t>{1, 2, 9}, std::vector<int64_t>{1, 1, 1}})
    {
        HostTensor const sz
            = HostTensor::fromValues(DataType::kINT32, makeDims({3}), {double(outDims[0]), double(outDims[1]), double(outDims[2])});
        auto out = r.run({{"x", in}, {"size", sz}});
        EXPECT_TRUE(kiln::test::allClose(out["y"], resizeOracle(in, outDims, s), 1e-5, 1e-5))
            << kiln::test::dimsString(makeDims(outDims));
    }
}

TEST_P(ResizeLayerTest, OutputSizeFromAnotherTensorsShape)
{
    // Resize x to the spatial size of y (an upsample-to-match pattern): Shape(y) as input 1.
    std::mt19937 rng(800);
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {1, 2, 3, 3});
    ITensor* y = r.addInput("y", DataType::kFLOAT, {1, 2, -1, -1});
    IResizeLayer* layer = r.network().addResize(*x);
    layer->setInput(1, *r.network().addShape(*y)->getOutput(0));
    r.markOutput(layer->getOutput(0), "z");
    r.markOutput(r.network().addIdentity(*y)->getOutput(0), "ycopy");
    r.setProfileDims("y", {1, 2, 1, 1}, {1, 2, 6, 6}, {1, 2, 8, 8});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({1, 2, 3, 3}), rng);
    for (int64_t h : {6, 2, 8})
    {
        auto out = r.run({{"x", in}, {"y", HostTensor::random(DataType::kFLOAT, makeDims({1, 2, h, 5}), rng)}});
        EXPECT_TRUE(kiln::test::allClose(out["z"], resizeOracle(in, {1, 2, h, 5}, Spec{}), 0, 0));
    }
}

TEST_P(ResizeLayerTest, ConstantScalesTensor)
{
    KILN_SKIP_ON_BACKEND(kiln::BackendKind::kCUDA, "docs/gpu.md: Resize scales from an FP32 input tensor are refused (need host values)");
    std::mt19937 rng(900);
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {1, 2, 3});
    static float const scales[3] = {1.F, 2.F, 1.5F};
    ITensor* sc = r.network().addConstant(makeDims({3}), Weights{DataType::kFLOAT, scales, 3})->getOutput(0);
    IResizeLayer* layer = r.network().addResize(*x);
    layer->setInput(1, *sc);
    Spec s;
    s.mode = InterpolationMode::kLINEAR;
    s.transform = ResizeCoordinateTransformation::kHALF_PIXEL;
    configure(layer, s);
    r.markOutput(layer->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({1, 2, 3}), rng);
    auto out = r.run({{"x", in}});
    EXPECT_TRUE(kiln::test::allClose(out["y"], resizeOracle(in, {1, 4, 4}, s, {1, 2, 1.5}), 1e-5, 1e-5));
}

TEST_P(ResizeLayerTest, StorageTypes)
{
    std::mt19937 rng(1000);
    for (DataType t : {DataType::kHALF, DataType::kBF16, DataType::kINT32, DataType::kINT8, DataType::kINT64,
             DataType::kBOOL, DataType::kFLOAT})
    {
        bool const floatType = t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
        for (auto mode : {InterpolationMode::kNEAREST, InterpolationMode::kLINEAR})
        {
            if (!floatType && mode != InterpolationMode::kNEAREST)
            {
                continue;
            }
            Spec s;
            s.mode = mode;
            s.transform = ResizeCoordinateTransformation::kHALF_PIXEL;
            s.rounding = ResizeRoundMode::kHALF_UP;
            NetworkRunner r;
            ITensor* x = r.addInput("x", t, {2, 3, 4});
            IResizeLayer* layer = r.network().addResize(*x);
            layer->setOutputDimensions(makeDims({2, 5, 7}));
            configure(layer, s);
            r.markOutput(layer->getOutput(0), "y");
            ASSERT_TRUE(r.build()) << r.logger().allErrors();
            HostTensor const in = HostTensor::random(t, makeDims({2, 3, 4}), rng, floatType ? -1.0 : -100.0, floatType ? 1.0 : 100.0);
            auto out = r.run({{"x", in}});
            EXPECT_EQ(out["y"].type, t);
            double const tol = t == DataType::kHALF ? 2e-3 : (t == DataType::kBF16 ? 1.6e-2 : 0.0);
            EXPECT_TRUE(kiln::test::allClose(out["y"], resizeOracle(in, {2, 5, 7}, s), tol, tol))
                << "type " << int(t) << " mode " << int(mode);
        }
    }
}

TEST_P(ResizeLayerTest, SettersValidate)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 3, 4});
    IResizeLayer* layer = r.network().addResize(*x);
    layer->setName("rs");
    EXPECT_EQ(layer->getResizeMode(), InterpolationMode::kNEAREST);
    EXPECT_EQ(layer->getCoordinateTransformation(), ResizeCoordinateTransformation::kASYMMETRIC);
    EXPECT_EQ(layer->getSelectorForSinglePixel(), ResizeSelector::kFORMULA);
    EXPECT_EQ(layer->getNearestRounding(), ResizeRoundMode::kFLOOR);
    EXPECT_FLOAT_EQ(layer->getCubicCoeff(), -0.75F);
    EXPECT_FALSE(layer->getExcludeOutside());
    EXPECT_EQ(layer->getScales(0, nullptr), -1);
    layer->setOutputDimensions(makeDims({2, -3, 4}));
    EXPECT_TRUE(r.logger().hasError("rs")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("negative"));
    r.logger().clear();
    float const zero[3] = {1.F, 0.F, 1.F};
    layer->setScales(zero, 3);
    EXPECT_TRUE(r.logger().hasError("must be positive")) << r.logger().allErrors();
    EXPECT_EQ(layer->getScales(0, nullptr), -1);
    r.logger().clear();
    layer->setResizeMode(static_cast<InterpolationMode>(5));
    EXPECT_TRUE(r.logger().hasError("invalid value")) << r.logger().allErrors();
    EXPECT_EQ(layer->getResizeMode(), InterpolationMode::kNEAREST);
    r.logger().clear();
    ITensor* size = r.addInput("size", DataType::kINT32, {3});
    layer->setInput(1, *size);
    layer->setOutputDimensions(makeDims({2, 3, 4}));
    EXPECT_TRUE(r.logger().hasError("dynamic resize")) << r.logger().allErrors();
    r.logger().clear();
    layer->setInput(2, *size);
    EXPECT_TRUE(r.logger().hasError("out of range")) << r.logger().allErrors();
}

TEST_P(ResizeLayerTest, BuildFailures)
{
    auto expectFailure = [](std::vector<int64_t> const& in, DataType t, InterpolationMode mode,
                             std::vector<int64_t> const& out, bool setDims, std::string const& text) {
        NetworkRunner r;
        ITensor* x = r.addInput("x", t, in);
        IResizeLayer* layer = r.network().addResize(*x);
        layer->setResizeMode(mode);
        if (setDims)
        {
            layer->setOutputDimensions(makeDims(out));
        }
        r.markOutput(layer->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError(text)) << text << "\n" << r.logger().allErrors();
    };
    expectFailure({2, 3, 4, 5}, DataType::kFLOAT, InterpolationMode::kLINEAR, {3, 3, 4, 5}, true, "innermost 3");
    expectFailure({2, 3, 4}, DataType::kFLOAT, InterpolationMode::kCUBIC, {4, 3, 4}, true, "innermost 2");
    expectFailure({4}, DataType::kFLOAT, InterpolationMode::kCUBIC, {8}, true, "rank 2 or more");
    expectFailure({2, 3}, DataType::kINT32, InterpolationMode::kLINEAR, {4, 6}, true, "FP32, FP16 or BF16");
    expectFailure({2, 3}, DataType::kFLOAT, InterpolationMode::kNEAREST, {4, 6, 1}, true, "rank 2");
    expectFailure({2, 3}, DataType::kFLOAT, InterpolationMode::kNEAREST, {}, false, "neither output dimensions");
    expectFailure({0, 3}, DataType::kFLOAT, InterpolationMode::kNEAREST, {2, 3}, true, "empty input dimension");
}

} // namespace
