// cudaRuntimeTest.cpp — the CUDA backend's runtime: engines built for kiln::BackendKind::kCUDA give the CPU
// backend's results; enqueueV3 is asynchronous on the user's stream and executeV2 synchronous; activation memory
// from setDeviceMemoryV2 and device memory from the runtime's IGpuAllocator are used; the input-consumed event is
// recorded; a run can be captured into a CUDA graph and replayed; the backend choice (explicit, default fallback)
// and its errors; serialized CUDA engines keep their backend.
#include "gpuTestUtils.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <thread>

namespace kiln::test::gpu
{
namespace
{
using namespace nvinfer1;

//! x[-1, 64] -> matmul W[64, 32] + bias -> relu -> softmax(axis 1) -> y; and z = reduce-sum over axis 1 of x*x.
void mlpBody(NetworkRunner& r)
{
    static std::vector<float> const weights = [] {
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> u(-0.3F, 0.3F);
        std::vector<float> v(64 * 32 + 32);
        for (float& x : v)
        {
            x = u(rng);
        }
        return v;
    }();
    INetworkDefinition& net = r.network();
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 64});
    auto* w = net.addConstant(makeDims({64, 32}), Weights{DataType::kFLOAT, weights.data(), 64 * 32});
    auto* b = net.addConstant(makeDims({1, 32}), Weights{DataType::kFLOAT, weights.data() + 64 * 32, 32});
    auto* mm = net.addMatrixMultiply(*x, MatrixOperation::kNONE, *w->getOutput(0), MatrixOperation::kNONE);
    auto* add = net.addElementWise(*mm->getOutput(0), *b->getOutput(0), ElementWiseOperation::kSUM);
    auto* relu = net.addActivation(*add->getOutput(0), ActivationType::kRELU);
    auto* sm = net.addSoftMax(*relu->getOutput(0));
    sm->setAxes(1U << 1);
    r.markOutput(sm->getOutput(0), "y");
    auto* sq = net.addElementWise(*x, *x, ElementWiseOperation::kPROD);
    auto* sum = net.addReduce(*sq->getOutput(0), ReduceOperation::kSUM, 1U << 1, true);
    r.markOutput(sum->getOutput(0), "z");
    r.setProfileDims("x", {1, 64}, {8, 64}, {16, 64});
}

std::map<std::string, HostTensor> mlpInputs(int64_t batch, uint32_t seed)
{
    std::mt19937 rng(seed);
    return {{"x", HostTensor::random(DataType::kFLOAT, makeDims({batch, 64}), rng)}};
}

void expectClose(std::map<std::string, HostTensor> const& gpu, std::map<std::string, HostTensor> const& cpu)
{
    ASSERT_EQ(gpu.size(), cpu.size());
    for (auto const& [name, expected] : cpu)
    {
        auto const it = gpu.find(name);
        ASSERT_NE(it, gpu.end()) << name;
        EXPECT_TRUE(allClose(it->second, expected, 1e-4, 1e-4)) << "output " << name;
    }
}

//! The CPU engine's outputs for `inputs` (the oracle).
std::map<std::string, HostTensor> cpuReference(std::map<std::string, HostTensor> const& inputs)
{
    std::map<std::string, HostTensor> outputs;
    auto cpu = buildFor(kiln::BackendKind::kCPU, mlpBody);
    if (cpu == nullptr)
    {
        return outputs;
    }
    std::string error;
    EXPECT_TRUE(runEngine(cpu->engine(), kiln::BackendKind::kCPU, inputs, outputs, error)) << error;
    return outputs;
}

TEST(CudaRuntime, MlpMatchesCpuAcrossBatchSizes)
{
    KILN_REQUIRE_CUDA_BACKEND();
    auto gpu = buildFor(kiln::BackendKind::kCUDA, mlpBody);
    ASSERT_NE(gpu, nullptr);
    for (int64_t batch : {1, 5, 16})
    {
        auto const inputs = mlpInputs(batch, static_cast<uint32_t>(100 + batch));
        std::map<std::string, HostTensor> outputs;
        std::string error;
        ASSERT_TRUE(runEngine(gpu->engine(), kiln::BackendKind::kCUDA, inputs, outputs, error)) << error;
        expectClose(outputs, cpuReference(inputs));
    }
}

//! Device buffers for the MLP's I/O, bound to a context.
struct MlpBuffers
{
    DeviceBuffer x{16 * 64 * sizeof(float)};
    DeviceBuffer y{16 * 32 * sizeof(float)};
    DeviceBuffer z{16 * sizeof(float)};

    bool bind(IExecutionContext& ctx, int64_t batch)
    {
        return ctx.setInputShape("x", makeDims({batch, 64})) && ctx.setTensorAddress("x", x.get())
            && ctx.setTensorAddress("y", y.get()) && ctx.setTensorAddress("z", z.get());
    }
    std::map<std::string, HostTensor> read(int64_t batch) const
    {
        return {{"y", fromDevice(y.get(), DataType::kFLOAT, makeDims({batch, 32}))},
            {"z", fromDevice(z.get(), DataType::kFLOAT, makeDims({batch, 1}))}};
    }
};

TEST(CudaRuntime, EnqueueReturnsBeforeTheStreamRuns)
{
    KILN_REQUIRE_CUDA_BACKEND();
    auto gpu = buildFor(kiln::BackendKind::kCUDA, mlpBody);
    ASSERT_NE(gpu, nullptr);
    std::unique_ptr<IExecutionContext> ctx(gpu->engine().createExecutionContext());
    ASSERT_NE(ctx, nullptr);
    MlpBuffers buffers;
    auto const inputs = mlpInputs(4, 11);
    buffers.x.upload(inputs.at("x").data(), inputs.at("x").bytes.size());
    buffers.y.fill(0xA5);
    ASSERT_TRUE(buffers.bind(*ctx, 4));
    Stream stream;
    ASSERT_TRUE(ctx->enqueueV3(stream.get())); // the first run of a context may allocate its scratch memory
    ASSERT_TRUE(stream.synchronize());
    // A host function blocks the stream until the test releases it: if enqueueV3 waited for the stream, the release
    // would only come after the host function's 10 s timeout.
    struct Gate
    {
        std::atomic<bool> released{false};
        std::atomic<bool> timedOut{false};
    } gate;
    auto const wait = [](void* data) {
        auto* g = static_cast<Gate*>(data);
        auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!g->released.load() && std::chrono::steady_clock::now() < deadline)
        {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        g->timedOut = !g->released.load();
    };
    ASSERT_EQ(cudaLaunchHostFunc(stream.get(), wait, &gate), cudaSuccess);
    ASSERT_TRUE(ctx->enqueueV3(stream.get())) << gpu->logger().allErrors();
    gate.released = true;
    ASSERT_TRUE(stream.synchronize());
    EXPECT_FALSE(gate.timedOut.load()) << "enqueueV3 waited for the stream";
    expectClose(buffers.read(4), cpuReference(inputs));

    // executeV2 is synchronous: results are there when it returns, without a stream synchronisation.
    auto const inputs2 = mlpInputs(4, 12);
    buffers.x.upload(inputs2.at("x").data(), inputs2.at("x").bytes.size());
    buffers.y.fill(0xA5);
    void* bindings[] = {buffers.x.get(), buffers.y.get(), buffers.z.get()};
    ASSERT_TRUE(ctx->executeV2(bindings)) << gpu->logger().allErrors();
    expectClose(buffers.read(4), cpuReference(inputs2));
}

//! Counts what the engine allocates through it.
class CountingAllocator final : public IGpuAllocator
{
public:
    void* allocate(uint64_t const size, uint64_t const, AllocatorFlags const) noexcept override
    {
        void* p = nullptr;
        if (cudaMalloc(&p, size) != cudaSuccess)
        {
            return nullptr;
        }
        std::lock_guard<std::mutex> lock(mMutex);
        ++allocations;
        live += 1;
        return p;
    }
    bool deallocate(void* const memory) noexcept override
    {
        std::lock_guard<std::mutex> lock(mMutex);
        live -= 1;
        return cudaFree(memory) == cudaSuccess;
    }
    int32_t allocations{0};
    int32_t live{0};

private:
    std::mutex mMutex;
};

TEST(CudaRuntime, RuntimeAllocatorAndUserManagedActivationMemory)
{
    KILN_REQUIRE_CUDA_BACKEND();
    auto gpu = buildFor(kiln::BackendKind::kCUDA, mlpBody);
    ASSERT_NE(gpu, nullptr);
    CountingAllocator allocator;
    {
        std::unique_ptr<IRuntime> runtime(createInferRuntime(gpu->logger()));
        runtime->setGpuAllocator(&allocator);
        std::unique_ptr<ICudaEngine> engine(
            runtime->deserializeCudaEngine(gpu->engineBytes().data(), gpu->engineBytes().size()));
        ASSERT_NE(engine, nullptr) << gpu->logger().allErrors();
        EXPECT_EQ(kiln::getEngineBackend(engine.get()), kiln::BackendKind::kCUDA);
        EXPECT_GE(allocator.allocations, 1) << "the engine's weights should come from the runtime's allocator";
        std::unique_ptr<IExecutionContext> ctx(
            engine->createExecutionContext(ExecutionContextAllocationStrategy::kUSER_MANAGED));
        ASSERT_NE(ctx, nullptr);
        MlpBuffers buffers;
        ASSERT_TRUE(buffers.bind(*ctx, 16));
        auto const inputs = mlpInputs(16, 21);
        buffers.x.upload(inputs.at("x").data(), inputs.at("x").bytes.size());
        // Without activation memory the run fails with a message saying what to do.
        int64_t const needed = engine->getDeviceMemorySizeV2();
        Stream stream;
        if (needed > 0)
        {
            EXPECT_FALSE(ctx->enqueueV3(stream.get()));
            EXPECT_NE(gpu->logger().allErrors().find("setDeviceMemoryV2"), std::string::npos);
        }
        DeviceBuffer arena(static_cast<size_t>(std::max<int64_t>(needed, 1)));
        arena.fill(0xCD);
        ctx->setDeviceMemoryV2(arena.get(), needed);
        buffers.y.fill(0xA5);
        ASSERT_TRUE(ctx->enqueueV3(stream.get())) << gpu->logger().allErrors();
        ASSERT_TRUE(stream.synchronize());
        expectClose(buffers.read(16), cpuReference(inputs));
    }
    EXPECT_EQ(allocator.live, 0) << "every allocation made through the runtime's allocator is freed";
}

TEST(CudaRuntime, InputConsumedEventIsRecorded)
{
    KILN_REQUIRE_CUDA_BACKEND();
    auto gpu = buildFor(kiln::BackendKind::kCUDA, mlpBody);
    ASSERT_NE(gpu, nullptr);
    std::unique_ptr<IExecutionContext> ctx(gpu->engine().createExecutionContext());
    MlpBuffers buffers;
    ASSERT_TRUE(buffers.bind(*ctx, 2));
    cudaEvent_t event = nullptr;
    ASSERT_EQ(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), cudaSuccess);
    ASSERT_TRUE(ctx->setInputConsumedEvent(event));
    EXPECT_EQ(ctx->getInputConsumedEvent(), event);
    Stream stream;
    auto const inputs = mlpInputs(2, 31);
    buffers.x.upload(inputs.at("x").data(), inputs.at("x").bytes.size());
    ASSERT_TRUE(ctx->enqueueV3(stream.get()));
    EXPECT_EQ(cudaEventSynchronize(event), cudaSuccess);
    EXPECT_EQ(cudaEventQuery(event), cudaSuccess);
    ASSERT_TRUE(stream.synchronize());
    EXPECT_EQ(cudaEventDestroy(event), cudaSuccess);
}

TEST(CudaRuntime, EnqueueCanBeCapturedIntoACudaGraph)
{
    KILN_REQUIRE_CUDA_BACKEND();
    auto gpu = buildFor(kiln::BackendKind::kCUDA, mlpBody);
    ASSERT_NE(gpu, nullptr);
    std::unique_ptr<IExecutionContext> ctx(gpu->engine().createExecutionContext());
    MlpBuffers buffers;
    ASSERT_TRUE(buffers.bind(*ctx, 8));
    Stream stream;
    auto const first = mlpInputs(8, 41);
    buffers.x.upload(first.at("x").data(), first.at("x").bytes.size());
    ASSERT_TRUE(ctx->enqueueV3(stream.get())); // warm-up: sizes scratch and folded values for these shapes
    ASSERT_TRUE(stream.synchronize());

    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal), cudaSuccess);
    bool const captured = ctx->enqueueV3(stream.get());
    ASSERT_EQ(cudaStreamEndCapture(stream.get(), &graph), cudaSuccess);
    ASSERT_TRUE(captured) << gpu->logger().allErrors();
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);

    // New input data, same buffers: the replay computes on the new data.
    auto const second = mlpInputs(8, 42);
    buffers.x.upload(second.at("x").data(), second.at("x").bytes.size());
    buffers.y.fill(0xA5);
    ASSERT_EQ(cudaGraphLaunch(exec, stream.get()), cudaSuccess);
    ASSERT_TRUE(stream.synchronize());
    expectClose(buffers.read(8), cpuReference(second));
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
}

TEST(CudaRuntime, ShapesOutsideTheProfileAndMissingAddressesFail)
{
    KILN_REQUIRE_CUDA_BACKEND();
    auto gpu = buildFor(kiln::BackendKind::kCUDA, mlpBody);
    ASSERT_NE(gpu, nullptr);
    std::unique_ptr<IExecutionContext> ctx(gpu->engine().createExecutionContext());
    EXPECT_FALSE(ctx->setInputShape("x", makeDims({17, 64})));
    EXPECT_NE(gpu->logger().allErrors().find("'x'"), std::string::npos) << gpu->logger().allErrors();
    ASSERT_TRUE(ctx->setInputShape("x", makeDims({3, 64})));
    Stream stream;
    EXPECT_FALSE(ctx->enqueueV3(stream.get()));
    EXPECT_NE(gpu->logger().allErrors().find("no address"), std::string::npos) << gpu->logger().allErrors();
}

TEST(CudaRuntime, ProfilerGetsOneTimePerLayer)
{
    KILN_REQUIRE_CUDA_BACKEND();
    auto gpu = buildFor(kiln::BackendKind::kCUDA, mlpBody);
    ASSERT_NE(gpu, nullptr);
    struct Profiler : IProfiler
    {
        std::vector<std::pair<std::string, float>> times;
        void reportLayerTime(char const* layerName, float ms) noexcept override { times.emplace_back(layerName, ms); }
    } profiler;
    std::unique_ptr<IExecutionContext> ctx(gpu->engine().createExecutionContext());
    ctx->setProfiler(&profiler);
    MlpBuffers buffers;
    ASSERT_TRUE(buffers.bind(*ctx, 8));
    Stream stream;
    ASSERT_TRUE(ctx->enqueueV3(stream.get()));
    ASSERT_TRUE(stream.synchronize());
    EXPECT_EQ(static_cast<int32_t>(profiler.times.size()), gpu->engine().getNbLayers());
    for (auto const& [name, ms] : profiler.times)
    {
        EXPECT_GE(ms, 0.F) << name;
    }
}

//! x[1024, 1024] -> y = x @ x (2.1 GFLOP) -> z = y + y: one long layer and one short one.
void longAndShortBody(NetworkRunner& r)
{
    INetworkDefinition& net = r.network();
    ITensor* x = r.addInput("x", DataType::kFLOAT, {1024, 1024});
    auto* mm = net.addMatrixMultiply(*x, MatrixOperation::kNONE, *x, MatrixOperation::kNONE);
    mm->setName("long");
    auto* add = net.addElementWise(*mm->getOutput(0), *mm->getOutput(0), ElementWiseOperation::kSUM);
    add->setName("short");
    r.markOutput(add->getOutput(0), "z");
}

TEST(CudaRuntime, ProfilerTimesLayersOnTheDevice)
{
    // The CUDA backend times layers with events while a gate holds the stream until the run is enqueued, so a
    // layer's time is its device time. Checked: every layer is reported once, times are positive, the long layer
    // dominates, and the layer times add up to no more than the run's wall time; the outputs stay right.
    KILN_REQUIRE_CUDA_BACKEND();
    auto gpu = buildFor(kiln::BackendKind::kCUDA, longAndShortBody);
    ASSERT_NE(gpu, nullptr);
    struct Profiler : IProfiler
    {
        std::map<std::string, float> times;
        int32_t reports{0};
        void reportLayerTime(char const* layerName, float ms) noexcept override
        {
            times[layerName] += ms;
            ++reports;
        }
    } profiler;
    std::unique_ptr<IExecutionContext> ctx(gpu->engine().createExecutionContext());
    ctx->setProfiler(&profiler);
    std::mt19937 rng(5);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({1024, 1024}), rng);
    DeviceBuffer in = toDevice(x);
    DeviceBuffer out{1024 * 1024 * sizeof(float)};
    out.fill(0xA5);
    ASSERT_TRUE(ctx->setTensorAddress("x", in.get()) && ctx->setTensorAddress("z", out.get()));
    Stream stream;
    ASSERT_TRUE(ctx->enqueueV3(stream.get())); // first run: scratch memory, library handles
    ASSERT_TRUE(stream.synchronize());
    profiler.times.clear();
    profiler.reports = 0;
    auto const start = std::chrono::steady_clock::now();
    ASSERT_TRUE(ctx->enqueueV3(stream.get()));
    ASSERT_TRUE(stream.synchronize());
    double const wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(profiler.reports, gpu->engine().getNbLayers());
    float sum = 0.F;
    for (auto const& [name, ms] : profiler.times)
    {
        EXPECT_GT(ms, 0.F) << name;
        sum += ms;
    }
    EXPECT_LE(sum, wallMs) << "layer times add up to more than the run";
    auto const longIt = profiler.times.find("long");
    auto const shortIt = profiler.times.find("short");
    if (longIt != profiler.times.end() && shortIt != profiler.times.end())
    {
        EXPECT_GT(longIt->second, 3.F * shortIt->second) << "long " << longIt->second << " ms, short "
                                                         << shortIt->second << " ms";
    }
    else
    {
        ADD_FAILURE() << "the layers were renamed or fused: " << profiler.times.size() << " names reported";
    }
    // The outputs are those of the CPU engine.
    std::map<std::string, HostTensor> expected;
    std::string error;
    auto cpu = buildFor(kiln::BackendKind::kCPU, longAndShortBody);
    ASSERT_NE(cpu, nullptr);
    ASSERT_TRUE(runEngine(cpu->engine(), kiln::BackendKind::kCPU, {{"x", x}}, expected, error)) << error;
    EXPECT_TRUE(allClose(fromDevice(out.get(), DataType::kFLOAT, makeDims({1024, 1024})), expected.at("z"), 5e-2, 1e-2)); // TF32 products
}

void loopBody(NetworkRunner& r)
{
    INetworkDefinition& net = r.network();
    ITensor* x = r.addInput("x", DataType::kFLOAT, {4});
    ILoop* loop = net.addLoop();
    loop->setName("countedLoop");
    int32_t const trips = 3;
    auto* count = net.addConstant(Dims{0, {}}, Weights{DataType::kINT32, &trips, 1});
    loop->addTripLimit(*count->getOutput(0), TripLimit::kCOUNT);
    IRecurrenceLayer* rec = loop->addRecurrence(*x);
    auto* twice = net.addElementWise(*rec->getOutput(0), *rec->getOutput(0), ElementWiseOperation::kSUM);
    rec->setInput(1, *twice->getOutput(0));
    r.markOutput(loop->addLoopOutput(*rec->getOutput(0), LoopOutput::kLAST_VALUE)->getOutput(0), "y");
}

TEST(CudaRuntime, BackendChoiceIsStrictWhenExplicitAndFallsBackByDefault)
{
    KILN_REQUIRE_CUDA_BACKEND();
    {
        NetworkRunner r;
        ASSERT_TRUE(kiln::setBuilderBackend(&r.config(), kiln::BackendKind::kCUDA));
        EXPECT_EQ(kiln::getBuilderBackend(&r.config()), kiln::BackendKind::kCUDA);
        loopBody(r);
        EXPECT_FALSE(r.build());
        EXPECT_NE(r.logger().allErrors().find("CUDA backend"), std::string::npos) << r.logger().allErrors();
    }
    {
        NetworkRunner r;
        ASSERT_TRUE(kiln::setBuilderBackend(&r.config(), kiln::BackendKind::kDEFAULT));
        loopBody(r);
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        EXPECT_EQ(kiln::getEngineBackend(&r.engine()), kiln::BackendKind::kCPU);
    }
    EXPECT_FALSE(kiln::setBuilderBackend(nullptr, kiln::BackendKind::kCUDA));
}

TEST(CudaRuntime, DefaultBackendIsTheGpuWhenPresent)
{
    KILN_REQUIRE_CUDA_BACKEND();
    if (char const* env = std::getenv("KILN_BACKEND"); env != nullptr && *env != '\0')
    {
        GTEST_SKIP() << "KILN_BACKEND=" << env << " overrides the default";
    }
    NetworkRunner r;
    mlpBody(r);
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    EXPECT_EQ(kiln::getEngineBackend(&r.engine()), kiln::BackendKind::kCUDA);
}

TEST(CudaRuntime, Fp16NetworkWithinTolerance)
{
    KILN_REQUIRE_CUDA_BACKEND();
    auto const body = [](NetworkRunner& r) {
        INetworkDefinition& net = r.network();
        ITensor* a = r.addInput("a", DataType::kHALF, {-1, 48});
        ITensor* b = r.addInput("b", DataType::kHALF, {48, 40});
        auto* mm = net.addMatrixMultiply(*a, MatrixOperation::kNONE, *b, MatrixOperation::kNONE);
        auto* act = net.addActivation(*mm->getOutput(0), ActivationType::kGELU_ERF);
        r.markOutput(act->getOutput(0), "y");
        r.setProfileDims("a", {1, 48}, {16, 48}, {32, 48});
    };
    uint32_t const flags = 1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED);
    auto cpu = buildFor(kiln::BackendKind::kCPU, body, flags);
    auto gpu = buildFor(kiln::BackendKind::kCUDA, body, flags);
    ASSERT_NE(cpu, nullptr);
    ASSERT_NE(gpu, nullptr);
    std::mt19937 rng(51);
    std::map<std::string, HostTensor> inputs{{"a", HostTensor::random(DataType::kHALF, makeDims({19, 48}), rng)},
        {"b", HostTensor::random(DataType::kHALF, makeDims({48, 40}), rng)}};
    std::map<std::string, HostTensor> expected;
    std::map<std::string, HostTensor> actual;
    std::string error;
    ASSERT_TRUE(runEngine(cpu->engine(), kiln::BackendKind::kCPU, inputs, expected, error)) << error;
    ASSERT_TRUE(runEngine(gpu->engine(), kiln::BackendKind::kCUDA, inputs, actual, error)) << error;
    // 48-term FP16 dot products: the GPU accumulates in FP32 and rounds once, as the CPU does.
    EXPECT_TRUE(allClose(actual.at("y"), expected.at("y"), 2e-3, 2e-3));
}

} // namespace
} // namespace kiln::test::gpu
