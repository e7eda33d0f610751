// Kernel-level benchmarks of the CPU convolution and pooling kernels (oneDNN and reference tactics), reporting
// GFLOP/s. Run: kilnBench --benchmark_filter=Conv
#include "backends/cpu/kernels/convolutionCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"

#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

namespace
{
using nvinfer1::DataType;
using nvinfer1::LayerType;

struct ConvBenchShape
{
    int64_t n;
    int64_t c;
    int64_t k;
    int64_t hw;     // square input
    int64_t kernel; // square kernel
    int64_t stride;
    int64_t pad;
};

std::vector<uint16_t> toBf16(std::vector<float> const& v)
{
    std::vector<uint16_t> out(v.size());
    for (size_t i = 0; i < v.size(); ++i)
    {
        out[i] = kiln::floatToBf16(v[i]);
    }
    return out;
}

//! Runs one convolution kernel object repeatedly on fixed random data.
void runConv(benchmark::State& state, ConvBenchShape s, char const* tactic, DataType type)
{
    kiln::PlanNode node;
    node.kind = LayerType::kCONVOLUTION;
    node.name = "conv";
    node.tactic = tactic;
    node.attrs.setInt("nbOutputMaps", s.k);
    node.attrs.setInt("nbGroups", 1);
    node.attrs.setInts("kernelSize", {s.kernel, s.kernel});
    node.attrs.setInts("stride", {s.stride, s.stride});
    node.attrs.setInts("dilation", {1, 1});
    node.attrs.setInts("prePadding", {s.pad, s.pad});
    node.attrs.setInts("postPadding", {s.pad, s.pad});
    node.attrs.setInt("paddingMode", 0);
    int64_t const out = (s.hw + 2 * s.pad - s.kernel) / s.stride + 1;

    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1.F, 1.F);
    auto randomVector = [&](int64_t count) {
        std::vector<float> v(static_cast<size_t>(count));
        for (float& x : v)
        {
            x = dist(rng);
        }
        return v;
    };
    std::vector<float> const w = randomVector(s.k * s.c * s.kernel * s.kernel);
    std::vector<float> const b = randomVector(s.k);
    std::vector<float> const x = randomVector(s.n * s.c * s.hw * s.hw);
    std::vector<float> y(static_cast<size_t>(s.n * s.k * out * out));
    std::vector<uint16_t> const x16 = toBf16(x);
    std::vector<uint16_t> y16(y.size());
    bool const bf16 = type == DataType::kBF16;

    kiln::KernelSetup setup;
    setup.node = &node;
    setup.inputTypes = {type};
    setup.inputPresent = {true};
    setup.inputRanks = {4};
    setup.outputTypes = {type};
    setup.outputRanks = {4};
    setup.weights = {kiln::WeightsView{w.data(), DataType::kFLOAT, static_cast<int64_t>(w.size())},
        kiln::WeightsView{b.data(), DataType::kFLOAT, s.k}};
    auto kernel = kiln::createConvolutionKernel(setup);
    if (!kernel.isOk())
    {
        state.SkipWithError(kernel.status().message().c_str());
        return;
    }
    std::vector<kiln::TensorView> const inputs{
        {bf16 ? const_cast<uint16_t*>(x16.data()) : static_cast<void*>(const_cast<float*>(x.data())), type,
            nvinfer1::Dims{4, {s.n, s.c, s.hw, s.hw}}}};
    std::vector<kiln::TensorView> const outputs{
        {bf16 ? static_cast<void*>(y16.data()) : static_cast<void*>(y.data()), type, nvinfer1::Dims{4, {s.n, s.k, out, out}}}};
    uint64_t const before = kiln::oneDnnRunCount(LayerType::kCONVOLUTION);
    kiln::Status const shaped = kernel.value()->reshape(inputs, outputs);
    if (!shaped.isOk())
    {
        state.SkipWithError(shaped.message().c_str());
        return;
    }
    for (auto _ : state)
    {
        kiln::Status st = kernel.value()->run(inputs, outputs, kiln::RunContext{});
        if (!st.isOk())
        {
            state.SkipWithError(st.message().c_str());
            return;
        }
        benchmark::ClobberMemory();
    }
    double const flops = 2.0 * static_cast<double>(s.n * s.k * out * out) * static_cast<double>(s.c * s.kernel * s.kernel);
    state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["onednn"] = static_cast<double>(kiln::oneDnnRunCount(LayerType::kCONVOLUTION) > before);
}

// ResNet-50 stage-1 3x3 convolution (64 -> 64 on 56x56, padding 1) at batch 1 and 8.
ConvBenchShape const kRESNET_3X3_B1{1, 64, 64, 56, 3, 1, 1};
ConvBenchShape const kRESNET_3X3_B8{8, 64, 64, 56, 3, 1, 1};
// ResNet-50 bottleneck 1x1 convolution (256 -> 64 on 56x56).
ConvBenchShape const kRESNET_1X1{1, 256, 64, 56, 1, 1, 0};
// Stride-2 3x3 convolution (128 -> 128 on 28x28 -> 14x14).
ConvBenchShape const kSTRIDE2{1, 128, 128, 28, 3, 2, 1};

BENCHMARK_CAPTURE(runConv, resnet3x3_b1_fp32_onednn, kRESNET_3X3_B1, "onednn", DataType::kFLOAT)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(runConv, resnet3x3_b1_fp32_reference, kRESNET_3X3_B1, "reference", DataType::kFLOAT)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(runConv, resnet3x3_b8_fp32_onednn, kRESNET_3X3_B8, "onednn", DataType::kFLOAT)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(runConv, resnet3x3_b8_fp32_reference, kRESNET_3X3_B8, "reference", DataType::kFLOAT)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(runConv, resnet1x1_b1_fp32_onednn, kRESNET_1X1, "onednn", DataType::kFLOAT)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(runConv, resnet1x1_b1_fp32_reference, kRESNET_1X1, "reference", DataType::kFLOAT)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(runConv, stride2_b1_fp32_onednn, kSTRIDE2, "onednn", DataType::kFLOAT)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(runConv, stride2_b1_fp32_reference, kSTRIDE2, "reference", DataType::kFLOAT)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(runConv, resnet3x3_b1_bf16_onednn, kRESNET_3X3_B1, "onednn", DataType::kBF16)->Unit(benchmark::kMillisecond)->UseRealTime();

//! Max pooling 3x3 stride 2 (ResNet stem) on 64 x 112 x 112; reports GB/s of input read instead of FLOP/s.
void runMaxPool(benchmark::State& state, char const* tactic)
{
    int64_t const n = 1;
    int64_t const c = 64;
    int64_t const hw = 112;
    int64_t const out = (hw + 2 - 3) / 2 + 1;
    kiln::PlanNode node;
    node.kind = LayerType::kPOOLING;
    node.name = "pool";
    node.tactic = tactic;
    node.attrs.setInt("poolingType", 0);
    node.attrs.setInts("windowSize", {3, 3});
    node.attrs.setInts("stride", {2, 2});
    node.attrs.setInts("prePadding", {1, 1});
    node.attrs.setInts("postPadding", {1, 1});
    node.attrs.setInt("paddingMode", 0);
    node.attrs.setFloat("blendFactor", 0.0);
    node.attrs.setInt("averageCountExcludesPadding", 1);
    kiln::KernelSetup setup;
    setup.node = &node;
    setup.inputTypes = {DataType::kFLOAT};
    setup.inputPresent = {true};
    setup.inputRanks = {4};
    setup.outputTypes = {DataType::kFLOAT};
    setup.outputRanks = {4};
    auto kernel = kiln::createPoolingKernel(setup);
    if (!kernel.isOk())
    {
        state.SkipWithError(kernel.status().message().c_str());
        return;
    }
    std::vector<float> x(static_cast<size_t>(n * c * hw * hw), 0.5F);
    std::vector<float> y(static_cast<size_t>(n * c * out * out));
    std::vector<kiln::TensorView> const inputs{{x.data(), DataType::kFLOAT, nvinfer1::Dims{4, {n, c, hw, hw}}}};
    std::vector<kiln::TensorView> const outputs{{y.data(), DataType::kFLOAT, nvinfer1::Dims{4, {n, c, out, out}}}};
    kiln::Status const shaped = kernel.value()->reshape(inputs, outputs);
    if (!shaped.isOk())
    {
        state.SkipWithError(shaped.message().c_str());
        return;
    }
    for (auto _ : state)
    {
        kiln::Status st = kernel.value()->run(inputs, outputs, kiln::RunContext{});
        if (!st.isOk())
        {
            state.SkipWithError(st.message().c_str());
            return;
        }
        benchmark::ClobberMemory();
    }
    state.counters["GB/s"] = benchmark::Counter(
        static_cast<double>(x.size() * sizeof(float)) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK_CAPTURE(runMaxPool, stem3x3s2_fp32_onednn, "onednn")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(runMaxPool, stem3x3s2_fp32_reference, "reference")->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace
