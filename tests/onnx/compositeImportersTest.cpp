// Loss, quantization, window and training-op importers against references computed in this test:
// SoftmaxCrossEntropyLoss with weights and an out-of-range ignore_index (mean and log_prob), NegativeLogLikelihoodLoss
// (none/sum), QuantizeLinear per axis with round-half-to-even ties and saturation, DequantizeLinear per axis,
// DynamicQuantizeLinear, QLinearMatMul, QLinearConv (per-channel weights, bias, stride, padding), Hann/Blackman/Hamming
// windows, Adam and Nesterov Momentum; plus error paths.
#include "onnxTestModels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

class CompositeImporterTest : public ::testing::Test
{
protected:
    std::mt19937 mRng{777};
};

//! log_softmax over axis 1 of a [N, C, D] tensor, in double.
std::vector<double> logSoftmax(HostTensor const& x, int64_t n, int64_t c, int64_t d)
{
    std::vector<double> out(static_cast<size_t>(n * c * d));
    for (int64_t i = 0; i < n; ++i)
    {
        for (int64_t k = 0; k < d; ++k)
        {
            double m = -1e300;
            for (int64_t j = 0; j < c; ++j)
            {
                m = std::max(m, x.at((i * c + j) * d + k));
            }
            double s = 0.0;
            for (int64_t j = 0; j < c; ++j)
            {
                s += std::exp(x.at((i * c + j) * d + k) - m);
            }
            for (int64_t j = 0; j < c; ++j)
            {
                out[static_cast<size_t>((i * c + j) * d + k)] = x.at((i * c + j) * d + k) - m - std::log(s);
            }
        }
    }
    return out;
}

TEST_F(CompositeImporterTest, SoftmaxCrossEntropyMeanWithWeightsAndIgnoredOutOfRangeLabels)
{
    int64_t const n = 3;
    int64_t const c = 5;
    int64_t const d = 4;
    int64_t const ignore = -7; // out of range: must not reach the gathers
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({n, c, d}), mRng, -3.0, 3.0);
    HostTensor const w = HostTensor::random(DataType::kFLOAT, makeDims({c}), mRng, 0.2, 2.0);
    HostTensor labels = HostTensor::random(DataType::kINT64, makeDims({n, d}), mRng, 0, c - 1);
    labels.set(1, static_cast<double>(ignore));
    labels.set(6, static_cast<double>(ignore));
    labels.set(11, static_cast<double>(ignore));

    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {n, c, d});
    model.addInput("y", DataType::kINT64, {n, d});
    model.addInput("w", DataType::kFLOAT, {c});
    model.addNode("SoftmaxCrossEntropyLoss", {"x", "y", "w"}, {"z", "log_prob"},
        {stringAttr("reduction", "mean"), intAttr("ignore_index", ignore)});
    model.addOutput("z", DataType::kFLOAT);
    model.addOutput("log_prob", DataType::kFLOAT);
    auto out = runOnnxModel(model, {{"x", x}, {"y", labels}, {"w", w}});
    ASSERT_EQ(out.count("z"), 1U);

    std::vector<double> const lp = logSoftmax(x, n, c, d);
    double num = 0.0;
    double den = 0.0;
    for (int64_t i = 0; i < n; ++i)
    {
        for (int64_t k = 0; k < d; ++k)
        {
            auto const label = static_cast<int64_t>(labels.at(i * d + k));
            if (label == ignore)
            {
                continue;
            }
            num -= lp[static_cast<size_t>((i * c + label) * d + k)] * w.at(label);
            den += w.at(label);
        }
    }
    EXPECT_EQ(out["z"].dims.nbDims, 0);
    EXPECT_TRUE(allClose(out["z"], HostTensor::fromValues(DataType::kFLOAT, makeDims({}), {num / den}), 1e-5, 1e-5));
    HostTensor const expectedLogProb = HostTensor::fromValues(DataType::kFLOAT, makeDims({n, c, d}), lp);
    EXPECT_TRUE(allClose(out["log_prob"], expectedLogProb, 1e-5, 1e-5));
}

TEST_F(CompositeImporterTest, NegativeLogLikelihoodNoneAndSumWithHighIgnoreIndex)
{
    int64_t const n = 6;
    int64_t const c = 4;
    int64_t const ignore = 9;
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({n, c}), mRng, -4.0, 0.0);
    HostTensor labels = HostTensor::random(DataType::kINT64, makeDims({n}), mRng, 0, c - 1);
    labels.set(2, static_cast<double>(ignore));
    for (std::string const reduction : {"none", "sum"})
    {
        OnnxModelBuilder model(13);
        model.addInput("x", DataType::kFLOAT, {n, c});
        model.addInput("t", DataType::kINT64, {n});
        model.addNode("NegativeLogLikelihoodLoss", {"x", "t"}, {"loss"},
            {stringAttr("reduction", reduction), intAttr("ignore_index", ignore)});
        model.addOutput("loss", DataType::kFLOAT);
        auto out = runOnnxModel(model, {{"x", x}, {"t", labels}});
        ASSERT_EQ(out.count("loss"), 1U) << reduction;
        std::vector<double> loss(static_cast<size_t>(n), 0.0);
        double sum = 0.0;
        for (int64_t i = 0; i < n; ++i)
        {
            auto const label = static_cast<int64_t>(labels.at(i));
            loss[static_cast<size_t>(i)] = label == ignore ? 0.0 : -x.at(i * c + label);
            sum += loss[static_cast<size_t>(i)];
        }
        HostTensor const expected = reduction == "none"
            ? HostTensor::fromValues(DataType::kFLOAT, makeDims({n}), loss)
            : HostTensor::fromValues(DataType::kFLOAT, makeDims({}), {sum});
        EXPECT_TRUE(allClose(out["loss"], expected, 1e-6, 1e-6)) << reduction;
    }
}

TEST_F(CompositeImporterTest, LossRejectsUnknownReduction)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {3, 5});
    model.addInput("y", DataType::kINT64, {3});
    model.addNode("SoftmaxCrossEntropyLoss", {"x", "y"}, {"z"}, {stringAttr("reduction", "average")});
    model.addOutput("z", DataType::kFLOAT);
    expectParseError(model, "attribute 'reduction' must be 'none', 'sum' or 'mean', got 'average'");
}

//! saturate(round_half_even(v) + zp) for the quantized type.
double quantizeRef(double v, double zp, DataType type)
{
    double const lo = type == DataType::kINT8 ? -128.0 : 0.0;
    double const hi = type == DataType::kINT8 ? 127.0 : 255.0;
    return std::clamp(std::nearbyint(v) + zp, lo, hi);
}

TEST_F(CompositeImporterTest, QuantizeLinearPerAxisRoundsHalfToEvenAndSaturates)
{
    // Scales are powers of two so that x / scale is exact; half the values sit exactly on .5 ties.
    std::vector<double> const scales{0.5, 0.25, 2.0};
    std::vector<double> const zeroPoints{10, 128, 250};
    int64_t const a = 2;
    int64_t const c = 3;
    int64_t const b = 6;
    HostTensor x(DataType::kFLOAT, makeDims({a, c, b}));
    std::uniform_int_distribution<int> tie(-300, 300);
    std::uniform_real_distribution<double> any(-200.0, 200.0);
    for (int64_t i = 0; i < x.volume(); ++i)
    {
        double const scale = scales[static_cast<size_t>((i / b) % c)];
        x.set(i, i % 2 == 0 ? (tie(mRng) + 0.5) * scale : any(mRng));
    }
    for (DataType const type : {DataType::kUINT8, DataType::kINT8})
    {
        std::vector<double> zp = zeroPoints;
        if (type == DataType::kINT8)
        {
            zp = {-3, 0, 100};
        }
        OnnxModelBuilder model(13);
        model.addInput("x", DataType::kFLOAT, {a, c, b});
        model.addInitializer("s", OnnxConstant::fromFloat({0.5F, 0.25F, 2.0F}, {c}));
        HostTensor const zpT = HostTensor::fromValues(type, makeDims({c}), zp);
        model.addInitializer("zp", toConstant(zpT));
        model.addNode("QuantizeLinear", {"x", "s", "zp"}, {"y"}, {intAttr("axis", -2)});
        model.addOutput("y", type);
        auto out = runOnnxModel(model, {{"x", x}});
        ASSERT_EQ(out.count("y"), 1U);
        ASSERT_EQ(out["y"].type, type);
        HostTensor expected(type, makeDims({a, c, b}));
        for (int64_t i = 0; i < x.volume(); ++i)
        {
            size_t const ch = static_cast<size_t>((i / b) % c);
            expected.set(i, quantizeRef(x.at(i) / scales[ch], zp[ch], type));
        }
        EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0)) << (type == DataType::kINT8 ? "int8" : "uint8");
    }
}

TEST_F(CompositeImporterTest, DequantizeLinearPerAxis)
{
    HostTensor const q = HostTensor::random(DataType::kINT8, makeDims({4, 3}), mRng, -128, 127);
    HostTensor const s = HostTensor::random(DataType::kFLOAT, makeDims({3}), mRng, 0.01, 0.5);
    HostTensor const zp = HostTensor::random(DataType::kINT8, makeDims({3}), mRng, -20, 20);
    OnnxModelBuilder model(13);
    model.addInput("q", DataType::kINT8, {4, 3});
    model.addInput("s", DataType::kFLOAT, {3});
    model.addInput("zp", DataType::kINT8, {3});
    model.addNode("DequantizeLinear", {"q", "s", "zp"}, {"y"}, {intAttr("axis", 1)});
    model.addOutput("y", DataType::kFLOAT);
    auto out = runOnnxModel(model, {{"q", q}, {"s", s}, {"zp", zp}});
    ASSERT_EQ(out.count("y"), 1U);
    HostTensor expected(DataType::kFLOAT, makeDims({4, 3}));
    for (int64_t i = 0; i < 12; ++i)
    {
        expected.set(i, (q.at(i) - zp.at(i % 3)) * static_cast<float>(s.at(i % 3)));
    }
    EXPECT_TRUE(allClose(out["y"], expected, 1e-6, 1e-6));
}

TEST_F(CompositeImporterTest, DynamicQuantizeLinearMatchesFormula)
{
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({3, 5}), mRng, -1.0, 6.0);
    OnnxModelBuilder model(11);
    model.addInput("x", DataType::kFLOAT, {3, 5});
    model.addNode("DynamicQuantizeLinear", {"x"}, {"y", "scale", "zp"});
    model.addOutput("y", DataType::kUINT8);
    model.addOutput("scale", DataType::kFLOAT);
    model.addOutput("zp", DataType::kUINT8);
    auto out = runOnnxModel(model, {{"x", x}});
    ASSERT_EQ(out.count("y"), 1U);
    double lo = 0.0;
    double hi = 0.0;
    for (int64_t i = 0; i < x.volume(); ++i)
    {
        lo = std::min(lo, x.at(i));
        hi = std::max(hi, x.at(i));
    }
    float const scale = static_cast<float>((hi - lo) / 255.0);
    double const zp = std::clamp(std::nearbyint(-lo / scale), 0.0, 255.0);
    EXPECT_TRUE(allClose(out["scale"], HostTensor::fromValues(DataType::kFLOAT, makeDims({}), {scale}), 0.0, 1e-6));
    EXPECT_TRUE(allClose(out["zp"], HostTensor::fromValues(DataType::kUINT8, makeDims({}), {zp}), 0.0, 0.0));
    HostTensor expected(DataType::kUINT8, makeDims({3, 5}));
    for (int64_t i = 0; i < x.volume(); ++i)
    {
        expected.set(i, quantizeRef(static_cast<float>(x.at(i)) / scale, zp, DataType::kUINT8));
    }
    EXPECT_TRUE(allClose(out["y"], expected, 1.0, 0.0)); // one step where float division lands on a tie
}

TEST_F(CompositeImporterTest, QLinearMatMulRequantizesIntegerProduct)
{
    HostTensor const a = HostTensor::random(DataType::kUINT8, makeDims({2, 3, 4}), mRng, 0, 255);
    HostTensor const b = HostTensor::random(DataType::kUINT8, makeDims({4, 5}), mRng, 0, 255);
    OnnxModelBuilder model(10);
    model.addInput("a", DataType::kUINT8, {2, 3, 4});
    model.addInput("b", DataType::kUINT8, {4, 5});
    model.addInitializer("as", OnnxConstant::fromFloat({0.0625F}, {}));
    model.addInitializer("az", toConstant(HostTensor::fromValues(DataType::kUINT8, makeDims({}), {113})));
    model.addInitializer("bs", OnnxConstant::fromFloat({0.125F}, {}));
    model.addInitializer("bz", toConstant(HostTensor::fromValues(DataType::kUINT8, makeDims({}), {98})));
    model.addInitializer("ys", OnnxConstant::fromFloat({16.0F}, {}));
    model.addInitializer("yz", toConstant(HostTensor::fromValues(DataType::kUINT8, makeDims({}), {120})));
    model.addNode("QLinearMatMul", {"a", "as", "az", "b", "bs", "bz", "ys", "yz"}, {"y"});
    model.addOutput("y", DataType::kUINT8);
    auto out = runOnnxModel(model, {{"a", a}, {"b", b}});
    ASSERT_EQ(out.count("y"), 1U);
    HostTensor expected(DataType::kUINT8, makeDims({2, 3, 5}));
    for (int64_t bt = 0; bt < 2; ++bt)
    {
        for (int64_t i = 0; i < 3; ++i)
        {
            for (int64_t j = 0; j < 5; ++j)
            {
                double acc = 0.0;
                for (int64_t k = 0; k < 4; ++k)
                {
                    acc += (a.at((bt * 3 + i) * 4 + k) - 113) * (b.at(k * 5 + j) - 98);
                }
                expected.set((bt * 3 + i) * 5 + j, quantizeRef(acc * 0.0625 * 0.125 / 16.0, 120, DataType::kUINT8));
            }
        }
    }
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
}

TEST_F(CompositeImporterTest, QLinearConvPerChannelWithBiasStrideAndPadding)
{
    int64_t const c = 2;
    int64_t const m = 3;
    int64_t const h = 5;
    int64_t const k = 3;
    int64_t const o = 3; // (5 + 2 - 3) / 2 + 1
    HostTensor const x = HostTensor::random(DataType::kUINT8, makeDims({1, c, h, h}), mRng, 0, 255);
    HostTensor const w = HostTensor::random(DataType::kINT8, makeDims({m, c, k, k}), mRng, -127, 127);
    HostTensor const bias = HostTensor::random(DataType::kINT32, makeDims({m}), mRng, -3000, 3000);
    std::vector<float> const wScale{0.01F, 0.02F, 0.04F};
    std::vector<double> const wZero{-2, 0, 3};
    float const xScale = 0.05F;
    float const yScale = 0.75F;
    double const xZero = 128;
    double const yZero = 100;
    OnnxModelBuilder model(10);
    model.addInput("x", DataType::kUINT8, {1, c, h, h});
    model.addInitializer("xs", OnnxConstant::fromFloat({xScale}, {}));
    model.addInitializer("xz", toConstant(HostTensor::fromValues(DataType::kUINT8, makeDims({}), {xZero})));
    model.addInitializer("w", toConstant(w));
    model.addInitializer("ws", OnnxConstant::fromFloat(wScale, {m}));
    model.addInitializer("wz", toConstant(HostTensor::fromValues(DataType::kINT8, makeDims({m}), wZero)));
    model.addInitializer("ys", OnnxConstant::fromFloat({yScale}, {}));
    model.addInitializer("yz", toConstant(HostTensor::fromValues(DataType::kUINT8, makeDims({}), {yZero})));
    model.addInitializer("b", toConstant(bias));
    model.addNode("QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"}, {"y"},
        {intsAttr("strides", {2, 2}), intsAttr("pads", {1, 1, 1, 1})});
    model.addOutput("y", DataType::kUINT8);
    auto out = runOnnxModel(model, {{"x", x}});
    ASSERT_EQ(out.count("y"), 1U);
    HostTensor expected(DataType::kUINT8, makeDims({1, m, o, o}));
    for (int64_t mo = 0; mo < m; ++mo)
    {
        for (int64_t oy = 0; oy < o; ++oy)
        {
            for (int64_t ox = 0; ox < o; ++ox)
            {
                int64_t acc = static_cast<int64_t>(bias.at(mo));
                for (int64_t ci = 0; ci < c; ++ci)
                {
                    for (int64_t ky = 0; ky < k; ++ky)
                    {
                        for (int64_t kx = 0; kx < k; ++kx)
                        {
                            int64_t const iy = oy * 2 - 1 + ky;
                            int64_t const ix = ox * 2 - 1 + kx;
                            if (iy < 0 || iy >= h || ix < 0 || ix >= h)
                            {
                                continue; // padding holds the zero point, i.e. 0 after centring
                            }
                            auto const xv = static_cast<int64_t>(x.at((ci * h + iy) * h + ix) - xZero);
                            auto const wv = static_cast<int64_t>(
                                w.at(((mo * c + ci) * k + ky) * k + kx) - wZero[static_cast<size_t>(mo)]);
                            acc += xv * wv;
                        }
                    }
                }
                // The same float operations as the composition: acc * (xs * ws) / ys, rounded half to even.
                float const real = static_cast<float>(acc) * (xScale * wScale[static_cast<size_t>(mo)]);
                expected.set((mo * o + oy) * o + ox, quantizeRef(real / yScale, yZero, DataType::kUINT8));
            }
        }
    }
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
}

TEST_F(CompositeImporterTest, QuantizeLinearRejectsInt32ZeroPoint)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {4});
    model.addInitializer("s", OnnxConstant::fromFloat({0.5F}, {}));
    model.addInitializer("zp", OnnxConstant::fromInt32({1}, {}));
    model.addNode("QuantizeLinear", {"x", "s", "zp"}, {"y"});
    model.addOutput("y", DataType::kINT32);
    expectParseError(model, "must be INT8 or UINT8");
}

TEST_F(CompositeImporterTest, WindowsFromConstantAndRuntimeSize)
{
    double const pi = 3.14159265358979323846;
    struct Case
    {
        char const* op;
        int64_t periodic;
    };
    for (Case const k : {Case{"HannWindow", 0}, Case{"BlackmanWindow", 1}, Case{"HammingWindow", 1}})
    {
        int64_t const size = 9;
        OnnxModelBuilder model(17);
        model.addInitializer("n", OnnxConstant::fromInt64({size}, {}));
        model.addNode(k.op, {"n"}, {"w"}, {intAttr("periodic", k.periodic)});
        model.addOutput("w", DataType::kFLOAT);
        auto out = runOnnxModel(model, {});
        ASSERT_EQ(out.count("w"), 1U) << k.op;
        double const den = k.periodic != 0 ? size : size - 1;
        HostTensor expected(DataType::kFLOAT, makeDims({size}));
        for (int64_t i = 0; i < size; ++i)
        {
            double const a = 2.0 * pi * static_cast<double>(i) / den;
            double v = 0.5 - 0.5 * std::cos(a);
            if (std::string(k.op) == "BlackmanWindow")
            {
                v = 0.42 - 0.5 * std::cos(a) + 0.08 * std::cos(2.0 * a);
            }
            else if (std::string(k.op) == "HammingWindow")
            {
                v = 25.0 / 46.0 - 21.0 / 46.0 * std::cos(a);
            }
            expected.set(i, v);
        }
        EXPECT_TRUE(allClose(out["w"], expected, 1e-6, 1e-5)) << k.op;
    }
}

TEST_F(CompositeImporterTest, AdamAndNesterovMomentumMatchUpdateFormulas)
{
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({5}), mRng, -2.0, 2.0);
    HostTensor const g = HostTensor::random(DataType::kFLOAT, makeDims({5}), mRng, -1.0, 1.0);
    HostTensor const v = HostTensor::random(DataType::kFLOAT, makeDims({5}), mRng, -1.0, 1.0);
    HostTensor const h = HostTensor::random(DataType::kFLOAT, makeDims({5}), mRng, 0.1, 2.0);
    HostTensor const r = HostTensor::fromValues(DataType::kFLOAT, makeDims({}), {0.3});
    double const alpha = 0.85;
    double const beta = 0.95;
    double const norm = 0.01;
    for (int64_t step : {0, 3})
    {
        HostTensor const t = HostTensor::fromValues(DataType::kINT64, makeDims({}), {static_cast<double>(step)});
        {
            OnnxModelBuilder model(13);
            model.addOpset("ai.onnx.preview.training", 1);
            for (char const* in : {"X", "G", "V", "H"})
            {
                model.addInput(in, DataType::kFLOAT, {5});
            }
            model.addInput("R", DataType::kFLOAT, {});
            model.addInput("T", DataType::kINT64, {});
            model.addNode("Adam", {"R", "T", "X", "G", "V", "H"}, {"X_new", "V_new", "H_new"},
                {floatAttr("alpha", static_cast<float>(alpha)), floatAttr("beta", static_cast<float>(beta)),
                    floatAttr("norm_coefficient", static_cast<float>(norm)), floatAttr("epsilon", 1e-4F)},
                "ai.onnx.preview.training");
            for (char const* o : {"X_new", "V_new", "H_new"})
            {
                model.addOutput(o, DataType::kFLOAT);
            }
            auto out = runOnnxModel(model, {{"R", r}, {"T", t}, {"X", x}, {"G", g}, {"V", v}, {"H", h}});
            ASSERT_EQ(out.count("X_new"), 1U);
            HostTensor ex(DataType::kFLOAT, makeDims({5}));
            HostTensor ev(DataType::kFLOAT, makeDims({5}));
            HostTensor eh(DataType::kFLOAT, makeDims({5}));
            double const a = static_cast<float>(alpha);
            double const bt = static_cast<float>(beta);
            double const nc = static_cast<float>(norm);
            for (int64_t i = 0; i < 5; ++i)
            {
                double const gr = nc * x.at(i) + g.at(i);
                double const vn = a * v.at(i) + (1 - a) * gr;
                double const hn = bt * h.at(i) + (1 - bt) * gr * gr;
                double const rate = step > 0 ? 0.3 * std::sqrt(1 - std::pow(bt, step)) / (1 - std::pow(a, step)) : 0.3;
                ex.set(i, x.at(i) - rate * vn / (std::sqrt(hn) + static_cast<double>(1e-4F)));
                ev.set(i, vn);
                eh.set(i, hn);
            }
            EXPECT_TRUE(allClose(out["X_new"], ex, 1e-5, 1e-5)) << "Adam T=" << step;
            EXPECT_TRUE(allClose(out["V_new"], ev, 1e-6, 1e-5)) << "Adam T=" << step;
            EXPECT_TRUE(allClose(out["H_new"], eh, 1e-6, 1e-5)) << "Adam T=" << step;
        }
        {
            OnnxModelBuilder model(13);
            model.addOpset("ai.onnx.preview.training", 1);
            for (char const* in : {"X", "G", "V"})
            {
                model.addInput(in, DataType::kFLOAT, {5});
            }
            model.addInput("R", DataType::kFLOAT, {});
            model.addInput("T", DataType::kINT64, {});
            model.addNode("Momentum", {"R", "T", "X", "G", "V"}, {"X_new", "V_new"},
                {floatAttr("alpha", static_cast<float>(alpha)), floatAttr("beta", static_cast<float>(beta)),
                    floatAttr("norm_coefficient", static_cast<float>(norm)), stringAttr("mode", "nesterov")},
                "ai.onnx.preview.training");
            model.addOutput("X_new", DataType::kFLOAT);
            model.addOutput("V_new", DataType::kFLOAT);
            auto out = runOnnxModel(model, {{"R", r}, {"T", t}, {"X", x}, {"G", g}, {"V", v}});
            ASSERT_EQ(out.count("X_new"), 1U);
            HostTensor ex(DataType::kFLOAT, makeDims({5}));
            HostTensor ev(DataType::kFLOAT, makeDims({5}));
            double const a = static_cast<float>(alpha);
            double const badj = step > 0 ? static_cast<float>(beta) : 1.0;
            for (int64_t i = 0; i < 5; ++i)
            {
                double const gr = static_cast<float>(norm) * x.at(i) + g.at(i);
                double const vn = a * v.at(i) + badj * gr;
                ex.set(i, x.at(i) - 0.3 * (gr + a * vn));
                ev.set(i, vn);
            }
            EXPECT_TRUE(allClose(out["X_new"], ex, 1e-5, 1e-5)) << "Momentum T=" << step;
            EXPECT_TRUE(allClose(out["V_new"], ev, 1e-6, 1e-5)) << "Momentum T=" << step;
        }
    }
}

TEST_F(CompositeImporterTest, MomentumRejectsUnknownModeAndUnevenGroups)
{
    {
        OnnxModelBuilder model(13);
        model.addOpset("ai.onnx.preview.training", 1);
        model.addInput("R", DataType::kFLOAT, {});
        model.addInput("T", DataType::kINT64, {});
        for (char const* in : {"X", "G", "V"})
        {
            model.addInput(in, DataType::kFLOAT, {2});
        }
        model.addNode("Momentum", {"R", "T", "X", "G", "V"}, {"X_new"},
            {floatAttr("alpha", 0.9F), floatAttr("beta", 0.1F), floatAttr("norm_coefficient", 0.F),
                stringAttr("mode", "heavy_ball")},
            "ai.onnx.preview.training");
        model.addOutput("X_new", DataType::kFLOAT);
        expectParseError(model, "attribute 'mode' must be 'standard' or 'nesterov', got 'heavy_ball'");
    }
    {
        OnnxModelBuilder model(13);
        model.addOpset("ai.onnx.preview.training", 1);
        model.addInput("R", DataType::kFLOAT, {});
        model.addInput("T", DataType::kINT64, {});
        model.addInput("X", DataType::kFLOAT, {2});
        model.addInput("G", DataType::kFLOAT, {2});
        model.addNode("Adagrad", {"R", "T", "X", "G"}, {"X_new"}, {}, "ai.onnx.preview.training");
        model.addOutput("X_new", DataType::kFLOAT);
        expectParseError(model, "groups of equally many tensors, got 4 inputs");
    }
}

} // namespace
} // namespace kiln::test
