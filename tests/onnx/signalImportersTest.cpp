// DFT, STFT and MelWeightMatrix importers against references computed in this test: a naive O(n^2) DFT in double
// (real and complex input, forward and inverse, zero padding through dft_length, onesided), STFTs with a run-time
// frame_step and a window or a run-time frame_length, the mel filter bank written as the ONNX reference loops; plus
// error paths.
#include "onnxTestModels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
double constexpr kPi = 3.14159265358979323846;

class SignalImporterTest : public ::testing::Test
{
protected:
    std::mt19937 mRng{1717};
};

//! Row-major offset of `idx` in `dims`.
int64_t offsetOf(std::vector<int64_t> const& idx, std::vector<int64_t> const& dims)
{
    int64_t o = 0;
    for (size_t i = 0; i < dims.size(); ++i)
    {
        o = o * dims[i] + idx[i];
    }
    return o;
}

TEST_F(SignalImporterTest, DftRealOnesidedPaddedAndComplexInverse)
{
    struct Case
    {
        std::vector<int64_t> dims; // input, last dim 1 or 2
        int64_t axis;
        bool inverse;
        bool onesided;
        int64_t dftLength; // 0: none
    };
    for (Case const& k : {Case{{2, 6, 3, 1}, 1, false, true, 8}, Case{{1, 4, 5, 2}, 2, true, false, 0}})
    {
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims(k.dims), mRng, -1.0, 1.0);
        OnnxModelBuilder model(17);
        model.addInput("x", DataType::kFLOAT, k.dims);
        std::vector<std::string> inputs{"x"};
        if (k.dftLength > 0)
        {
            model.addInitializer("len", OnnxConstant::fromInt64({k.dftLength}, {}));
            inputs.emplace_back("len");
        }
        model.addNode("DFT", inputs, {"y"},
            {intAttr("axis", k.axis), intAttr("inverse", k.inverse ? 1 : 0), intAttr("onesided", k.onesided ? 1 : 0)});
        model.addOutput("y", DataType::kFLOAT);
        auto out = runOnnxModel(model, {{"x", x}});
        ASSERT_EQ(out.count("y"), 1U);

        int64_t const n = k.dims[static_cast<size_t>(k.axis)];
        int64_t const nFft = k.dftLength > 0 ? k.dftLength : n;
        int64_t const bins = k.onesided ? nFft / 2 + 1 : nFft;
        int64_t const comps = k.dims.back();
        std::vector<int64_t> outDims = k.dims;
        outDims[static_cast<size_t>(k.axis)] = bins;
        outDims.back() = 2;
        HostTensor expected(DataType::kFLOAT, makeDims(outDims));
        std::vector<int64_t> idx(outDims.size(), 0);
        for (int64_t o = 0; o < expected.volume(); o += 2)
        {
            int64_t rem = o;
            for (size_t i = outDims.size(); i-- > 0;)
            {
                idx[i] = rem % outDims[i];
                rem /= outDims[i];
            }
            int64_t const bin = idx[static_cast<size_t>(k.axis)];
            std::complex<double> acc(0.0, 0.0);
            for (int64_t s = 0; s < std::min(n, nFft); ++s)
            {
                std::vector<int64_t> in = idx;
                in[static_cast<size_t>(k.axis)] = s;
                in.back() = 0;
                double const re = x.at(offsetOf(in, k.dims));
                double im = 0.0;
                if (comps == 2)
                {
                    in.back() = 1;
                    im = x.at(offsetOf(in, k.dims));
                }
                double const theta = (k.inverse ? 2.0 : -2.0) * kPi * static_cast<double>(bin * s) / nFft;
                acc += std::complex<double>(re, im) * std::polar(1.0, theta);
            }
            if (k.inverse)
            {
                acc /= static_cast<double>(nFft);
            }
            expected.set(o, acc.real());
            expected.set(o + 1, acc.imag());
        }
        EXPECT_TRUE(allClose(out["y"], expected, 1e-5, 1e-4)) << "axis " << k.axis;
    }
}

TEST_F(SignalImporterTest, StftWithRuntimeFrameStepAndWindow)
{
    int64_t const length = 40;
    int64_t const frame = 8;
    int64_t const step = 5;
    HostTensor const signal = HostTensor::random(DataType::kFLOAT, makeDims({2, length, 1}), mRng, -1.0, 1.0);
    HostTensor const window = HostTensor::random(DataType::kFLOAT, makeDims({frame}), mRng, 0.1, 1.0);
    HostTensor const stepT = HostTensor::fromValues(DataType::kINT64, makeDims({}), {static_cast<double>(step)});
    OnnxModelBuilder model(17);
    model.addInput("signal", DataType::kFLOAT, {2, length, 1});
    model.addInput("step", DataType::kINT64, {});
    model.addInput("window", DataType::kFLOAT, {frame});
    model.addNode("STFT", {"signal", "step", "window"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);
    // frame_step is a shape-tensor input: its values range over an optimization profile.
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileValues("step", {1}, {step}, {16});
    ASSERT_TRUE(runner.build());
    auto out = runner.run({{"signal", signal}, {"step", stepT}, {"window", window}});
    ASSERT_EQ(out.count("y"), 1U);
    int64_t const frames = (length - frame) / step + 1;
    int64_t const bins = frame / 2 + 1;
    HostTensor expected(DataType::kFLOAT, makeDims({2, frames, bins, 2}));
    for (int64_t b = 0; b < 2; ++b)
    {
        for (int64_t f = 0; f < frames; ++f)
        {
            for (int64_t k = 0; k < bins; ++k)
            {
                std::complex<double> acc(0.0, 0.0);
                for (int64_t s = 0; s < frame; ++s)
                {
                    double const v = signal.at(b * length + f * step + s) * window.at(s);
                    acc += v * std::polar(1.0, -2.0 * kPi * static_cast<double>(k * s) / frame);
                }
                int64_t const o = ((b * frames + f) * bins + k) * 2;
                expected.set(o, acc.real());
                expected.set(o + 1, acc.imag());
            }
        }
    }
    EXPECT_TRUE(allClose(out["y"], expected, 1e-5, 1e-4));
}

TEST_F(SignalImporterTest, StftComplexWithRuntimeFrameLengthTwoSided)
{
    int64_t const length = 30;
    int64_t const frame = 6;
    int64_t const step = 4;
    HostTensor const signal = HostTensor::random(DataType::kFLOAT, makeDims({1, length, 2}), mRng, -1.0, 1.0);
    HostTensor const stepT = HostTensor::fromValues(DataType::kINT64, makeDims({}), {static_cast<double>(step)});
    HostTensor const lenT = HostTensor::fromValues(DataType::kINT64, makeDims({}), {static_cast<double>(frame)});
    OnnxModelBuilder model(17);
    model.addInput("signal", DataType::kFLOAT, {1, length, 2});
    model.addInput("step", DataType::kINT64, {});
    model.addInput("len", DataType::kINT64, {});
    model.addNode("STFT", {"signal", "step", "", "len"}, {"y"}, {intAttr("onesided", 0)});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileValues("step", {1}, {step}, {8});
    runner.runner().setProfileValues("len", {2}, {frame}, {16});
    ASSERT_TRUE(runner.build());
    auto out = runner.run({{"signal", signal}, {"step", stepT}, {"len", lenT}});
    ASSERT_EQ(out.count("y"), 1U);
    int64_t const frames = (length - frame) / step + 1;
    HostTensor expected(DataType::kFLOAT, makeDims({1, frames, frame, 2}));
    for (int64_t f = 0; f < frames; ++f)
    {
        for (int64_t k = 0; k < frame; ++k)
        {
            std::complex<double> acc(0.0, 0.0);
            for (int64_t s = 0; s < frame; ++s)
            {
                int64_t const at = (f * step + s) * 2;
                std::complex<double> const v(signal.at(at), signal.at(at + 1));
                acc += v * std::polar(1.0, -2.0 * kPi * static_cast<double>(k * s) / frame);
            }
            expected.set((f * frame + k) * 2, acc.real());
            expected.set((f * frame + k) * 2 + 1, acc.imag());
        }
    }
    EXPECT_TRUE(allClose(out["y"], expected, 1e-5, 1e-4));
}

TEST_F(SignalImporterTest, MelWeightMatrixMatchesReferenceLoops)
{
    int64_t const mel = 10;
    int64_t const dft = 64;
    int64_t const rate = 16000;
    double const lowHz = 125.0;
    double const highHz = 7600.0;
    OnnxModelBuilder model(17);
    model.addInitializer("mel", OnnxConstant::fromInt64({mel}, {}));
    model.addInitializer("dft", OnnxConstant::fromInt64({dft}, {}));
    model.addInitializer("rate", OnnxConstant::fromInt64({rate}, {}));
    model.addInitializer("lo", OnnxConstant::fromFloat({static_cast<float>(lowHz)}, {}));
    model.addInitializer("hi", OnnxConstant::fromFloat({static_cast<float>(highHz)}, {}));
    model.addNode("MelWeightMatrix", {"mel", "dft", "rate", "lo", "hi"}, {"w"});
    model.addOutput("w", DataType::kFLOAT);
    auto out = runOnnxModel(model, {});
    ASSERT_EQ(out.count("w"), 1U);

    int64_t const spec = dft / 2 + 1;
    std::vector<int64_t> f(static_cast<size_t>(mel + 2));
    double const lowMel = 2595.0 * std::log10(1.0 + lowHz / 700.0);
    double const highMel = 2595.0 * std::log10(1.0 + highHz / 700.0);
    double const melStep = (highMel - lowMel) / static_cast<double>(mel + 2);
    for (int64_t i = 0; i < mel + 2; ++i)
    {
        double const hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * melStep + lowMel) / 2595.0) - 1.0);
        f[static_cast<size_t>(i)] = static_cast<int64_t>(std::floor(static_cast<double>(dft + 1) * hz / rate));
    }
    HostTensor expected(DataType::kFLOAT, makeDims({spec, mel}));
    for (int64_t i = 0; i < expected.volume(); ++i)
    {
        expected.set(i, 0.0);
    }
    for (int64_t i = 0; i < mel; ++i)
    {
        int64_t const lo = f[static_cast<size_t>(i)];
        int64_t const ce = f[static_cast<size_t>(i + 1)];
        int64_t const hi = f[static_cast<size_t>(i + 2)];
        if (ce == lo)
        {
            expected.set(ce * mel + i, 1.0);
        }
        else
        {
            for (int64_t j = lo; j <= ce; ++j)
            {
                expected.set(j * mel + i, static_cast<double>(j - lo) / static_cast<double>(ce - lo));
            }
        }
        for (int64_t j = ce; j < hi; ++j)
        {
            expected.set(j * mel + i, static_cast<double>(hi - j) / static_cast<double>(hi - ce));
        }
    }
    EXPECT_TRUE(allClose(out["w"], expected, 1e-6, 1e-5));
}

TEST_F(SignalImporterTest, ErrorsNameTheProblem)
{
    {
        OnnxModelBuilder model(17);
        model.addInput("x", DataType::kFLOAT, {1, 4, 2});
        model.addNode("DFT", {"x"}, {"y"}, {intAttr("axis", 2)});
        model.addOutput("y", DataType::kFLOAT);
        expectParseError(model, "the DFT axis cannot be the last (real/imaginary) dimension");
    }
    {
        OnnxModelBuilder model(17);
        model.addInput("signal", DataType::kFLOAT, {1, 32, 1});
        model.addInput("step", DataType::kINT64, {});
        model.addNode("STFT", {"signal", "step"}, {"y"});
        model.addOutput("y", DataType::kFLOAT);
        expectParseError(model, "give a window or frame_length (input 2 or 3)");
    }
}

} // namespace
} // namespace kiln::test
