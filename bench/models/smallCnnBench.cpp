// End-to-end benchmark of a small CNN (and of its reference-kernel build) through the public API:
// conv3x3(3→32,s2)+ReLU → conv3x3(32→64)+ReLU → maxpool 2x2 → conv3x3(64→128)+ReLU → global average →
// fully connected 128→10 → softmax, at 112x112 input, batch 1 and 8. Reports GFLOP/s next to the machine's
// measured FP32 peak (bench/common/machinePeak.h).
#include "NvInfer.h"
#include "common/machinePeak.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <random>

namespace
{
using namespace nvinfer1;

Dims makeDims(std::initializer_list<int64_t> extents)
{
    Dims d{};
    for (int64_t e : extents)
    {
        d.d[d.nbDims++] = e;
    }
    return d;
}

struct ConvSpec
{
    int64_t cin, cout, stride;
};

constexpr int64_t kHW = 112;
constexpr ConvSpec kCONVS[] = {{3, 32, 2}, {32, 64, 1}, {64, 128, 1}};

class Logger : public ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= Severity::kERROR)
        {
            fprintf(stderr, "%s\n", msg);
        }
    }
};

double cnnFlops(int64_t batch)
{
    double flops = 0;
    int64_t hw = kHW;
    for (size_t i = 0; i < std::size(kCONVS); ++i)
    {
        hw = (hw + 2 - 3) / kCONVS[i].stride + 1;
        flops += 2.0 * batch * kCONVS[i].cout * hw * hw * kCONVS[i].cin * 9;
        if (i == 1)
        {
            hw /= 2; // max pool
        }
    }
    return flops + 2.0 * batch * 128 * 10;
}

struct Built
{
    Logger logger;
    std::unique_ptr<IRuntime> runtime;
    std::unique_ptr<ICudaEngine> engine;
    std::vector<std::vector<float>> weights;
};

std::unique_ptr<Built> buildCnn(char const* tactic)
{
    auto b = std::make_unique<Built>();
    if (std::string(tactic) == "reference")
    {
        setenv("KILN_CPU_TACTIC", "reference", 1);
    }
    else
    {
        unsetenv("KILN_CPU_TACTIC");
    }
    std::unique_ptr<IBuilder> builder(createInferBuilder(b->logger));
    std::unique_ptr<INetworkDefinition> net(builder->createNetworkV2(0));
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-0.1F, 0.1F);
    auto weights = [&](int64_t n) {
        b->weights.emplace_back(static_cast<size_t>(n));
        for (float& v : b->weights.back())
        {
            v = dist(rng);
        }
        return Weights{DataType::kFLOAT, b->weights.back().data(), n};
    };
    ITensor* x = net->addInput("image", DataType::kFLOAT, makeDims({-1, 3, kHW, kHW}));
    for (size_t i = 0; i < std::size(kCONVS); ++i)
    {
        ConvSpec const& c = kCONVS[i];
        auto* conv = net->addConvolutionNd(*x, c.cout, makeDims({3, 3}), weights(c.cout * c.cin * 9), weights(c.cout));
        conv->setStrideNd(makeDims({c.stride, c.stride}));
        conv->setPaddingNd(makeDims({1, 1}));
        x = net->addActivation(*conv->getOutput(0), ActivationType::kRELU)->getOutput(0);
        if (i == 1)
        {
            auto* pool = net->addPoolingNd(*x, PoolingType::kMAX, makeDims({2, 2}));
            pool->setStrideNd(makeDims({2, 2}));
            x = pool->getOutput(0);
        }
    }
    x = net->addReduce(*x, ReduceOperation::kAVG, (1U << 2) | (1U << 3), false)->getOutput(0);
    auto* fcW = net->addConstant(makeDims({128, 10}), weights(1280));
    x = net->addMatrixMultiply(*x, MatrixOperation::kNONE, *fcW->getOutput(0), MatrixOperation::kNONE)->getOutput(0);
    auto* bias = net->addConstant(makeDims({1, 10}), weights(10));
    x = net->addElementWise(*x, *bias->getOutput(0), ElementWiseOperation::kSUM)->getOutput(0);
    auto* softmax = net->addSoftMax(*x);
    softmax->setAxes(1U << 1);
    softmax->getOutput(0)->setName("probabilities");
    net->markOutput(*softmax->getOutput(0));
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    IOptimizationProfile* profile = builder->createOptimizationProfile();
    profile->setDimensions("image", OptProfileSelector::kMIN, makeDims({1, 3, kHW, kHW}));
    profile->setDimensions("image", OptProfileSelector::kOPT, makeDims({8, 3, kHW, kHW}));
    profile->setDimensions("image", OptProfileSelector::kMAX, makeDims({8, 3, kHW, kHW}));
    config->addOptimizationProfile(profile);
    std::unique_ptr<IHostMemory> blob(builder->buildSerializedNetwork(*net, *config));
    unsetenv("KILN_CPU_TACTIC");
    if (blob == nullptr)
    {
        return nullptr;
    }
    b->runtime.reset(createInferRuntime(b->logger));
    b->engine.reset(b->runtime->deserializeCudaEngine(blob->data(), blob->size()));
    return b->engine != nullptr ? std::move(b) : nullptr;
}

void smallCnn(benchmark::State& state, char const* tactic)
{
    int64_t const batch = state.range(0);
    auto built = buildCnn(tactic);
    if (built == nullptr)
    {
        state.SkipWithError("build failed");
        return;
    }
    std::unique_ptr<IExecutionContext> ctx(built->engine->createExecutionContext());
    std::vector<float> image(static_cast<size_t>(batch * 3 * kHW * kHW), 0.5F);
    std::vector<float> probs(static_cast<size_t>(batch * 10));
    ctx->setInputShape("image", makeDims({batch, 3, kHW, kHW}));
    ctx->setTensorAddress("image", image.data());
    ctx->setTensorAddress("probabilities", probs.data());
    for (auto _ : state)
    {
        if (!ctx->enqueueV3(nullptr))
        {
            state.SkipWithError("enqueueV3 failed");
            return;
        }
        benchmark::DoNotOptimize(probs.data());
    }
    double const flops = cnnFlops(batch);
    state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["peakGFLOP/s"] = kiln::bench::machinePeakGflops();
    state.counters["images/s"] = benchmark::Counter(static_cast<double>(batch), benchmark::Counter::kIsIterationInvariantRate);
}

void machinePeak(benchmark::State& state)
{
    for (auto _ : state)
    {
        benchmark::DoNotOptimize(kiln::bench::singleCorePeakGflops());
    }
    state.counters["coreGFLOP/s"] = kiln::bench::singleCorePeakGflops();
    state.counters["machineGFLOP/s"] = kiln::bench::machinePeakGflops();
}

BENCHMARK(machinePeak)->Iterations(1);
BENCHMARK_CAPTURE(smallCnn, onednn, "onednn")->Arg(1)->Arg(8)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(smallCnn, reference, "reference")->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

} // namespace
