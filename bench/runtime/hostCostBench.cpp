// HostCost: what the execution layer costs the host per node, apart from the kernels' own work. A chain of 500 tiny
// ElementWise layers (y[i] = y[i-1] + x, shape {1, 8}) is built for the CPU backend; BM_HostCostEnqueue times
// enqueueV3 on it, BM_HostCostKernelsAlone times the same 500 kernels created from the engine's plan and run
// directly on prepared views. The counter us_per_node of the first is (enqueue time − kernels-alone time) / 500,
// measured in the same process (the kernels-alone time is taken again before the enqueue loop).
#include "NvInfer.h"
#include "backends/backend.h"
#include "runtime/engine.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

namespace
{
using namespace nvinfer1;

constexpr int32_t kCHAIN = 500;
constexpr int64_t kWIDTH = 8;

class QuietLogger : public ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= Severity::kERROR)
        {
            std::fprintf(stderr, "%s\n", msg);
        }
    }
};

struct Chain
{
    QuietLogger logger;
    std::unique_ptr<IRuntime> runtime;
    std::unique_ptr<ICudaEngine> engine;
};

std::unique_ptr<Chain> buildChain()
{
    auto chain = std::make_unique<Chain>();
    std::unique_ptr<IBuilder> builder(createInferBuilder(chain->logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims2{1, kWIDTH});
    ITensor* y = x;
    for (int32_t i = 0; i < kCHAIN; ++i)
    {
        y = network->addElementWise(*y, *x, ElementWiseOperation::kSUM)->getOutput(0);
    }
    y->setName("y");
    network->markOutput(*y);
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    if (plan == nullptr)
    {
        return nullptr;
    }
    chain->runtime.reset(createInferRuntime(chain->logger));
    chain->engine.reset(chain->runtime->deserializeCudaEngine(plan->data(), plan->size()));
    return chain->engine != nullptr ? std::move(chain) : nullptr;
}

//! The chain's kernels created from the engine's plan, with views on buffers of their own.
class KernelsAlone
{
public:
    bool init(ICudaEngine const& engine)
    {
        auto const& kilnEngine = static_cast<kiln::Engine const&>(engine);
        kiln::Plan const& plan = kilnEngine.plan();
        auto session = kilnEngine.data().backend->createSession();
        if (!session.isOk())
        {
            return false;
        }
        mSession = std::move(session).value();
        mBuffers.assign(plan.tensors.size(), std::vector<float>(kWIDTH, 0.5F));
        for (kiln::PlanNode const& node : plan.nodes)
        {
            auto kernel = mSession->createKernel(kiln::makeKernelSetup(plan, node));
            if (!kernel.isOk())
            {
                std::fprintf(stderr, "%s\n", kernel.status().message().c_str());
                return false;
            }
            std::vector<kiln::TensorView> in;
            std::vector<kiln::TensorView> out;
            for (int32_t t : node.inputs)
            {
                in.push_back(view(t));
            }
            for (int32_t t : node.outputs)
            {
                out.push_back(view(t));
            }
            if (!kernel.value()->reshape(in, out).isOk())
            {
                return false;
            }
            mKernels.push_back(std::move(kernel).value());
            mInputs.push_back(std::move(in));
            mOutputs.push_back(std::move(out));
        }
        return !mKernels.empty();
    }

    bool runAll()
    {
        bool ok = true;
        for (size_t n = 0; n < mKernels.size(); ++n)
        {
            ok = mKernels[n]->run(mInputs[n], mOutputs[n], kiln::RunContext{}).isOk() && ok;
        }
        return ok;
    }

    size_t size() const { return mKernels.size(); }

private:
    kiln::TensorView view(int32_t t)
    {
        kiln::TensorView v;
        v.data = mBuffers[static_cast<size_t>(t)].data();
        v.type = DataType::kFLOAT;
        v.dims = Dims2{1, kWIDTH};
        return v;
    }

    std::unique_ptr<kiln::BackendSession> mSession;
    std::vector<std::vector<float>> mBuffers;
    std::vector<std::unique_ptr<kiln::Kernel>> mKernels;
    std::vector<std::vector<kiln::TensorView>> mInputs;
    std::vector<std::vector<kiln::TensorView>> mOutputs;
};

//! Seconds per pass of the kernels alone (median of several timed batches).
double kernelsAloneSeconds(KernelsAlone& kernels)
{
    constexpr int32_t kBATCH = 200;
    std::vector<double> samples;
    for (int32_t s = 0; s < 9; ++s)
    {
        auto const start = std::chrono::steady_clock::now();
        for (int32_t i = 0; i < kBATCH; ++i)
        {
            kernels.runAll();
        }
        samples.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / kBATCH);
    }
    std::sort(samples.begin(), samples.end());
    return samples[samples.size() / 2];
}

void BM_HostCostEnqueue(benchmark::State& state)
{
    auto chain = buildChain();
    KernelsAlone kernels;
    if (chain == nullptr || !kernels.init(*chain->engine))
    {
        state.SkipWithError("building the chain failed");
        return;
    }
    std::unique_ptr<IExecutionContext> context(chain->engine->createExecutionContext());
    std::vector<float> x(kWIDTH);
    std::vector<float> y(kWIDTH);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1.F, 1.F);
    for (float& v : x)
    {
        v = dist(rng);
    }
    context->setInputShape("x", Dims2{1, kWIDTH});
    context->setTensorAddress("x", x.data());
    context->setTensorAddress("y", y.data());
    if (!context->enqueueV3(nullptr) || std::abs(y[0] - x[0] * (kCHAIN + 1)) > 1e-3F * kCHAIN)
    {
        state.SkipWithError("the chain gave a wrong result");
        return;
    }
    double const aloneSeconds = kernelsAloneSeconds(kernels);
    auto const start = std::chrono::steady_clock::now();
    for (auto _ : state)
    {
        if (!context->enqueueV3(nullptr))
        {
            state.SkipWithError("enqueueV3 failed");
            return;
        }
    }
    double const total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double const enqueueSeconds = state.iterations() > 0 ? total / static_cast<double>(state.iterations()) : 0.0;
    auto const nodes = static_cast<double>(kernels.size());
    state.counters["nodes"] = nodes;
    state.counters["kernels_alone_us"] = aloneSeconds * 1e6;
    state.counters["enqueue_us"] = enqueueSeconds * 1e6;
    state.counters["us_per_node"] = (enqueueSeconds - aloneSeconds) * 1e6 / nodes;
}
BENCHMARK(BM_HostCostEnqueue)->Unit(benchmark::kMicrosecond);

} // namespace
