// Kernel-level benchmarks of the CPU matrix-multiply kernel (oneDNN and reference tactics), reporting GFLOP/s.
// Run: kilnBench --benchmark_filter=Matmul
#include "backends/cpu/kernels/convolutionCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

namespace
{
using nvinfer1::DataType;
using nvinfer1::LayerType;
using nvinfer1::MatrixOperation;

struct MatmulBenchShape
{
    int64_t batch; // 0: plain 2-D operands
    int64_t m;
    int64_t n;
    int64_t k;
    MatrixOperation op1;
};

nvinfer1::Dims operandDims(int64_t batch, int64_t rows, int64_t cols)
{
    return batch > 0 ? nvinfer1::Dims{3, {batch, rows, cols}} : nvinfer1::Dims{2, {rows, cols}};
}

void runMatmul(benchmark::State& state, MatmulBenchShape s, char const* tactic, DataType type)
{
    kiln::PlanNode node;
    node.kind = LayerType::kMATRIX_MULTIPLY;
    node.name = "matmul";
    node.tactic = tactic;
    node.attrs.setInt("op0", static_cast<int64_t>(MatrixOperation::kNONE));
    node.attrs.setInt("op1", static_cast<int64_t>(s.op1));
    int32_t const rank = s.batch > 0 ? 3 : 2;
    kiln::KernelSetup setup;
    setup.node = &node;
    setup.inputTypes = {type, type};
    setup.inputPresent = {true, true};
    setup.inputRanks = {rank, rank};
    setup.outputTypes = {type};
    setup.outputRanks = {rank};
    auto kernel = kiln::createMatrixMultiplyKernel(setup);
    if (!kernel.isOk())
    {
        state.SkipWithError(kernel.status().message().c_str());
        return;
    }
    int64_t const batches = s.batch > 0 ? s.batch : 1;
    size_t const elem = type == DataType::kFLOAT ? 4 : 2;
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> dist(-1.F, 1.F);
    auto randomBytes = [&](int64_t count) {
        std::vector<uint8_t> bytes(static_cast<size_t>(count) * elem);
        for (int64_t i = 0; i < count; ++i)
        {
            float const v = dist(rng);
            if (type == DataType::kFLOAT)
            {
                reinterpret_cast<float*>(bytes.data())[i] = v;
            }
            else
            {
                reinterpret_cast<uint16_t*>(bytes.data())[i] = kiln::floatToBf16(v);
            }
        }
        return bytes;
    };
    std::vector<uint8_t> a = randomBytes(batches * s.m * s.k);
    std::vector<uint8_t> b = randomBytes(batches * s.k * s.n);
    std::vector<uint8_t> c(static_cast<size_t>(batches * s.m * s.n) * elem);
    nvinfer1::Dims const bDims
        = s.op1 == MatrixOperation::kTRANSPOSE ? operandDims(s.batch, s.n, s.k) : operandDims(s.batch, s.k, s.n);
    std::vector<kiln::TensorView> const inputs{
        {a.data(), type, operandDims(s.batch, s.m, s.k)}, {b.data(), type, bDims}};
    std::vector<kiln::TensorView> const outputs{{c.data(), type, operandDims(s.batch, s.m, s.n)}};
    uint64_t const before = kiln::oneDnnRunCount(LayerType::kMATRIX_MULTIPLY);
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
    double const flops = 2.0 * static_cast<double>(batches * s.m) * static_cast<double>(s.n * s.k);
    state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["onednn"] = static_cast<double>(kiln::oneDnnRunCount(LayerType::kMATRIX_MULTIPLY) > before);
}

MatmulBenchShape const kSQUARE_512{0, 512, 512, 512, MatrixOperation::kNONE};
MatmulBenchShape const kSQUARE_1024{0, 1024, 1024, 1024, MatrixOperation::kNONE};
MatmulBenchShape const kSQUARE_1024_BT{0, 1024, 1024, 1024, MatrixOperation::kTRANSPOSE};
// A batch of small products, as in multi-head attention (64 heads x [128 x 64] x [64 x 128]).
MatmulBenchShape const kBATCH_SMALL{64, 128, 128, 64, MatrixOperation::kNONE};

BENCHMARK_CAPTURE(runMatmul, sq512_fp32_onednn, kSQUARE_512, "onednn", DataType::kFLOAT)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(runMatmul, sq512_fp32_reference, kSQUARE_512, "reference", DataType::kFLOAT)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(runMatmul, sq1024_fp32_onednn, kSQUARE_1024, "onednn", DataType::kFLOAT)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(runMatmul, sq1024_fp32_reference, kSQUARE_1024, "reference", DataType::kFLOAT)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(runMatmul, sq1024_bt_fp32_onednn, kSQUARE_1024_BT, "onednn", DataType::kFLOAT)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(runMatmul, batch64x128x128x64_fp32_onednn, kBATCH_SMALL, "onednn", DataType::kFLOAT)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(runMatmul, batch64x128x128x64_fp32_reference, kBATCH_SMALL, "reference", DataType::kFLOAT)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(runMatmul, sq1024_bf16_onednn, kSQUARE_1024, "onednn", DataType::kBF16)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace
