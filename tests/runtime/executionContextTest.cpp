// Tests of IExecutionContext on hand-built plans: shapes and profiles, addresses, allocation strategies,
// execution (enqueueV3 and executeV2), shape-tensor inputs, output allocators, profiling, error paths and
// many contexts running one engine on many threads.
#include "runtimeTestPlans.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <random>
#include <thread>

namespace kiln::test
{
namespace
{

using namespace nvinfer1;

//! Run the chain engine once with batch `n` and check y == x.
void runChain(IExecutionContext& ctx, int64_t n, std::mt19937& rng, bool useExecuteV2 = false)
{
    std::vector<float> x = randomFloats(static_cast<size_t>(n * 4), rng);
    std::vector<float> y(x.size(), -12345.0F);
    ASSERT_TRUE(ctx.setInputShape("x", dimsOf({n, 4})));
    if (useExecuteV2)
    {
        void* bindings[2] = {x.data(), y.data()};
        ASSERT_TRUE(ctx.executeV2(bindings));
    }
    else
    {
        ASSERT_TRUE(ctx.setInputTensorAddress("x", x.data()));
        ASSERT_TRUE(ctx.setOutputTensorAddress("y", y.data()));
        ASSERT_TRUE(ctx.enqueueV3(nullptr));
    }
    EXPECT_EQ(x, y);
}

TEST(ExecutionContextTest, RunsIdentityChain)
{
    LoadedEngine l(makeChainPlan());
    std::unique_ptr<IExecutionContext> ctx(l.engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr) << l.logger.allErrors();
    EXPECT_EQ(&ctx->getEngine(), l.engine.get());
    std::mt19937 rng(1);
    for (int64_t n : {1, 3, 8})
    {
        runChain(*ctx, n, rng);
    }
    EXPECT_TRUE(l.logger.errors().empty()) << l.logger.allErrors();
}

TEST(ExecutionContextTest, ExecuteV2MatchesEnqueueV3)
{
    LoadedEngine l(makeChainPlan());
    std::unique_ptr<IExecutionContext> ctx(l.engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr);
    std::mt19937 rng(2);
    std::vector<float> x = randomFloats(20, rng);
    std::vector<float> y1(20, 0.0F), y2(20, 1.0F);
    ASSERT_TRUE(ctx->setInputShape("x", dimsOf({5, 4})));
    ASSERT_TRUE(ctx->setTensorAddress("x", x.data()));
    ASSERT_TRUE(ctx->setTensorAddress("y", y1.data()));
    ASSERT_TRUE(ctx->enqueueV3(reinterpret_cast<cudaStream_t>(0x1234))); // any stream value is accepted
    void* bindings[2] = {x.data(), y2.data()};
    ASSERT_TRUE(ctx->executeV2(bindings));
    EXPECT_EQ(y1, y2);
    EXPECT_EQ(y1, x);
    EXPECT_EQ(ctx->getTensorAddress("y"), y1.data()); // executeV2 does not rebind
    EXPECT_FALSE(ctx->executeV2(nullptr));
}

TEST(ExecutionContextTest, SetInputShapeChecksTheProfile)
{
    LoadedEngine l(makeChainPlan());
    std::unique_ptr<IExecutionContext> ctx(l.engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr);
    EXPECT_TRUE(ctx->setInputShape("x", dimsOf({8, 4})));
    l.logger.clear();
    EXPECT_FALSE(ctx->setInputShape("x", dimsOf({9, 4})));
    EXPECT_TRUE(l.logger.hasError("'x'")) << l.logger.allErrors();
    EXPECT_TRUE(l.logger.hasError("[9,4]")) << l.logger.allErrors();
    EXPECT_TRUE(l.logger.hasError("[1, 8]")) << l.logger.allErrors();
    EXPECT_TRUE(l.logger.hasError("profile 0")) << l.logger.allErrors();
    l.logger.clear();
    EXPECT_FALSE(ctx->setInputShape("x", dimsOf({2, 5})));
    EXPECT_TRUE(l.logger.hasError("must be 4")) << l.logger.allErrors();
    EXPECT_FALSE(ctx->setInputShape("x", dimsOf({2})));
    EXPECT_TRUE(l.logger.hasError("rank 2")) << l.logger.allErrors();
    EXPECT_FALSE(ctx->setInputShape("y", dimsOf({2, 4})));
    EXPECT_FALSE(ctx->setInputShape("missing", dimsOf({2, 4})));
    // The failed calls kept the last valid shape.
    EXPECT_EQ(ctx->getTensorShape("x").d[0], 8);
}

TEST(ExecutionContextTest, ShapesBeforeAndAfterInputs)
{
    LoadedEngine l(makeChainPlan());
    std::unique_ptr<IExecutionContext> ctx(l.engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr);
    EXPECT_FALSE(ctx->allInputDimensionsSpecified());
    EXPECT_EQ(ctx->getTensorShape("y").d[0], -1);
    EXPECT_EQ(ctx->getTensorShape("x").d[0], -1);
    char const* names[4] = {};
    EXPECT_EQ(ctx->inferShapes(4, names), 1);
    EXPECT_STREQ(names[0], "x");
    EXPECT_EQ(ctx->inferShapes(0, nullptr), 1);
    ASSERT_TRUE(ctx->setInputShape("x", dimsOf({3, 4})));
    EXPECT_TRUE(ctx->allInputDimensionsSpecified());
    KILN_IGNORE_DEPRECATED_BEGIN
    EXPECT_TRUE(ctx->allInputShapesSpecified());
    KILN_IGNORE_DEPRECATED_END
    EXPECT_EQ(ctx->inferShapes(4, names), 0);
    Dims const y = ctx->getTensorShape("y");
    ASSERT_EQ(y.nbDims, 2);
    EXPECT_EQ(y.d[0], 3);
    EXPECT_EQ(y.d[1], 4);
    Dims const strides = ctx->getTensorStrides("y");
    ASSERT_EQ(strides.nbDims, 2);
    EXPECT_EQ(strides.d[0], 4);
    EXPECT_EQ(strides.d[1], 1);
    EXPECT_EQ(ctx->getMaxOutputSize("y"), 3 * 4 * 4);
    EXPECT_EQ(ctx->updateDeviceMemorySizeForShapes(), 3U * 4U * 4U);
    EXPECT_EQ(ctx->inferShapes(-1, names), -1);
}

TEST(ExecutionContextTest, MissingAddressesAndShapesFail)
{
    LoadedEngine l(makeChainPlan());
    std::unique_ptr<IExecutionContext> ctx(l.engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr);
    EXPECT_FALSE(ctx->enqueueV3(nullptr));
    EXPECT_TRUE(l.logger.hasError("setInputShape")) << l.logger.allErrors();
    EXPECT_TRUE(l.logger.hasError("'x'")) << l.logger.allErrors();
    ASSERT_TRUE(ctx->setInputShape("x", dimsOf({2, 4})));
    std::vector<float> x(8, 1.0F);
    ASSERT_TRUE(ctx->setInputTensorAddress("x", x.data()));
    l.logger.clear();
    EXPECT_FALSE(ctx->enqueueV3(nullptr));
    EXPECT_TRUE(l.logger.hasError("no address is set for output 'y'")) << l.logger.allErrors();
    EXPECT_FALSE(ctx->setInputTensorAddress("y", x.data()));
    EXPECT_FALSE(ctx->setOutputTensorAddress("x", x.data()));
    EXPECT_FALSE(ctx->setTensorAddress("nope", x.data()));
    // Misaligned for FP32.
    EXPECT_FALSE(ctx->setTensorAddress("y", reinterpret_cast<uint8_t*>(x.data()) + 1));
    EXPECT_TRUE(l.logger.hasError("aligned")) << l.logger.allErrors();
    EXPECT_EQ(ctx->getOutputTensorAddress("x"), nullptr);
    EXPECT_EQ(ctx->getTensorAddress("x"), x.data());
}

TEST(ExecutionContextTest, AllocationStrategies)
{
    LoadedEngine l(makeChainPlan());
    std::mt19937 rng(3);
    {
        std::unique_ptr<IExecutionContext> ctx(l.engine->createExecutionContext(ExecutionContextAllocationStrategy::kSTATIC));
        ASSERT_NE(ctx, nullptr);
        EXPECT_EQ(ctx->getRuntimeConfig()->getExecutionContextAllocationStrategy(), ExecutionContextAllocationStrategy::kSTATIC);
        ASSERT_TRUE(ctx->setOptimizationProfileAsync(1, nullptr));
        runChain(*ctx, 32, rng);
    }
    {
        std::unique_ptr<IRuntimeConfig> config(l.engine->createRuntimeConfig());
        config->setExecutionContextAllocationStrategy(ExecutionContextAllocationStrategy::kON_PROFILE_CHANGE);
        std::unique_ptr<IExecutionContext> ctx(l.engine->createExecutionContext(config.get()));
        ASSERT_NE(ctx, nullptr);
        runChain(*ctx, 8, rng);
        ASSERT_TRUE(ctx->setOptimizationProfileAsync(1, nullptr));
        runChain(*ctx, 20, rng);
        ASSERT_TRUE(ctx->setOptimizationProfileAsync(0, nullptr));
        runChain(*ctx, 2, rng);
    }
    {
        std::unique_ptr<IExecutionContext> ctx(
            l.engine->createExecutionContext(ExecutionContextAllocationStrategy::kUSER_MANAGED));
        ASSERT_NE(ctx, nullptr);
        std::vector<float> x(32, 1.0F), y(32, 0.0F);
        ASSERT_TRUE(ctx->setInputShape("x", dimsOf({8, 4})));
        ASSERT_TRUE(ctx->setTensorAddress("x", x.data()));
        ASSERT_TRUE(ctx->setTensorAddress("y", y.data()));
        l.logger.clear();
        EXPECT_FALSE(ctx->enqueueV3(nullptr));
        EXPECT_TRUE(l.logger.hasError("kUSER_MANAGED")) << l.logger.allErrors();
        AlignedBuffer memory(static_cast<size_t>(l.engine->getDeviceMemorySizeV2()));
        ctx->setDeviceMemoryV2(memory.data, 64);
        l.logger.clear();
        EXPECT_FALSE(ctx->enqueueV3(nullptr));
        EXPECT_TRUE(l.logger.hasError("64 bytes")) << l.logger.allErrors();
        EXPECT_TRUE(l.logger.hasError("need 128 bytes")) << l.logger.allErrors();
        l.logger.clear();
        ctx->setDeviceMemoryV2(memory.data + 16, 256);
        EXPECT_TRUE(l.logger.hasError("256-byte aligned")) << l.logger.allErrors();
        ctx->setDeviceMemoryV2(memory.data, static_cast<int64_t>(ctx->updateDeviceMemorySizeForShapes()));
        EXPECT_TRUE(ctx->enqueueV3(nullptr)) << l.logger.allErrors();
        EXPECT_EQ(x, y);
    }
    {
        std::unique_ptr<IExecutionContext> ctx(l.engine->createExecutionContext());
        l.logger.clear();
        AlignedBuffer memory(512);
        ctx->setDeviceMemoryV2(memory.data, 512);
        EXPECT_TRUE(l.logger.hasError("kUSER_MANAGED")) << l.logger.allErrors();
    }
}

TEST(ExecutionContextTest, ProfileSwitchResetsShapes)
{
    LoadedEngine l(makeChainPlan());
    std::unique_ptr<IExecutionContext> ctx(l.engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr);
    ASSERT_TRUE(ctx->setInputShape("x", dimsOf({4, 4})));
    EXPECT_EQ(ctx->getOptimizationProfile(), 0);
    ASSERT_TRUE(ctx->setOptimizationProfileAsync(1, nullptr));
    EXPECT_EQ(ctx->getOptimizationProfile(), 1);
    EXPECT_FALSE(ctx->allInputDimensionsSpecified());
    EXPECT_FALSE(ctx->setInputShape("x", dimsOf({4, 4}))); // below profile 1's min
    EXPECT_TRUE(l.logger.hasError("[8, 32]")) << l.logger.allErrors();
    EXPECT_FALSE(ctx->setOptimizationProfileAsync(2, nullptr));
    EXPECT_FALSE(ctx->setOptimizationProfileAsync(-1, nullptr));
}

TEST(ExecutionContextTest, ProfilerGetsOneReportPerNode)
{
    LoadedEngine l(makeChainPlan());
    std::unique_ptr<IExecutionContext> ctx(l.engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr);
    CountingProfiler profiler;
    EXPECT_FALSE(ctx->reportToProfiler()); // no profiler yet
    ctx->setProfiler(&profiler);
    EXPECT_EQ(ctx->getProfiler(), &profiler);
    EXPECT_TRUE(ctx->getEnqueueEmitsProfile());
    std::mt19937 rng(4);
    runChain(*ctx, 2, rng);
    ASSERT_EQ(profiler.names.size(), 2U);
    EXPECT_EQ(profiler.names[0], "first");
    EXPECT_EQ(profiler.names[1], "second");
    EXPECT_GE(profiler.total, 0.0F);

    ctx->setEnqueueEmitsProfile(false);
    profiler.names.clear();
    runChain(*ctx, 2, rng);
    EXPECT_TRUE(profiler.names.empty());
    EXPECT_TRUE(ctx->reportToProfiler());
    EXPECT_EQ(profiler.names.size(), 2U);
}

TEST(ExecutionContextTest, DebugSyncLogsEachNode)
{
    LoadedEngine l(makeChainPlan());
    std::unique_ptr<IExecutionContext> ctx(l.engine->createExecutionContext());
    ctx->setName("ctx-A");
    EXPECT_STREQ(ctx->getName(), "ctx-A");
    ctx->setDebugSync(true);
    EXPECT_TRUE(ctx->getDebugSync());
    std::mt19937 rng(5);
    runChain(*ctx, 1, rng);
    // Messages go to the logger at kVERBOSE; errors must stay empty.
    EXPECT_TRUE(l.logger.errors().empty()) << l.logger.allErrors();
}

TEST(ExecutionContextTest, NamedDimensionsMustAgree)
{
    LoadedEngine l(makeNamedDimsPlan());
    std::unique_ptr<IExecutionContext> ctx(l.engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr);
    ASSERT_TRUE(ctx->setInputShape("a", dimsOf({2, 3})));
    ASSERT_TRUE(ctx->setInputShape("b", dimsOf({3, 3})));
    char const* names[2];
    EXPECT_EQ(ctx->inferShapes(2, names), -1);
    EXPECT_TRUE(l.logger.hasError("'a'")) << l.logger.allErrors();
    EXPECT_TRUE(l.logger.hasError("'b'")) << l.logger.allErrors();
    EXPECT_TRUE(l.logger.hasError("'batch'")) << l.logger.allErrors();
    ASSERT_TRUE(ctx->setInputShape("b", dimsOf({2, 3})));
    EXPECT_EQ(ctx->inferShapes(2, names), 0);
    std::vector<float> a(6, 1.0F), b(6, 2.0F), ya(6), yb(6);
    void* bindings[4] = {a.data(), b.data(), ya.data(), yb.data()};
    EXPECT_TRUE(ctx->executeV2(bindings));
    EXPECT_EQ(ya, a);
    EXPECT_EQ(yb, b);
}

TEST(ExecutionContextTest, ShapeTensorInputsAndFoldedValues)
{
    LoadedEngine l(makeShapeValuesPlan());
    std::unique_ptr<IExecutionContext> ctx(l.engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr) << l.logger.allErrors();
    KILN_IGNORE_DEPRECATED_BEGIN
    EXPECT_FALSE(ctx->allInputShapesSpecified());
    KILN_IGNORE_DEPRECATED_END
    EXPECT_TRUE(ctx->allInputDimensionsSpecified());
    char const* names[2] = {};
    EXPECT_EQ(ctx->inferShapes(2, names), 1);
    EXPECT_STREQ(names[0], "shape");
    int32_t shape[2] = {3, 7};
    int32_t out[2] = {-1, -1};
    ASSERT_TRUE(ctx->setTensorAddress("shape", shape));
    ASSERT_TRUE(ctx->setTensorAddress("o", out));
    EXPECT_EQ(ctx->inferShapes(2, names), 0);
    ASSERT_TRUE(ctx->enqueueV3(nullptr)) << l.logger.allErrors();
    EXPECT_EQ(out[0], 6);
    EXPECT_EQ(out[1], 8);
    // New values at the same address are picked up at the next run.
    shape[0] = 10;
    ASSERT_TRUE(ctx->enqueueV3(nullptr)) << l.logger.allErrors();
    EXPECT_EQ(out[0], 20);
    shape[1] = 11;
    l.logger.clear();
    EXPECT_FALSE(ctx->enqueueV3(nullptr));
    EXPECT_TRUE(l.logger.hasError("'shape'")) << l.logger.allErrors();
    EXPECT_TRUE(l.logger.hasError("[1, 10]")) << l.logger.allErrors();
}

class RecordingAllocator : public IOutputAllocator
{
public:
    void* reallocateOutputAsync(char const* name, void* current, uint64_t size, uint64_t alignment, cudaStream_t) override
    {
        lastName = name;
        requested = size;
        lastAlignment = alignment;
        ++calls;
        if (size > buffer.size())
        {
            buffer.assign(static_cast<size_t>(size), 0);
        }
        (void) current;
        return buffer.data();
    }
    void notifyShape(char const* name, Dims const& dims) noexcept override
    {
        notified = name;
        shape = dims;
    }
    std::vector<uint8_t> buffer;
    std::string lastName;
    std::string notified;
    uint64_t requested{0};
    uint64_t lastAlignment{0};
    int calls{0};
    Dims shape{};
};

TEST(ExecutionContextTest, OutputAllocatorProvidesMemory)
{
    LoadedEngine l(makeChainPlan());
    std::unique_ptr<IExecutionContext> ctx(l.engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr);
    RecordingAllocator allocator;
    EXPECT_FALSE(ctx->setOutputAllocator("x", &allocator));
    ASSERT_TRUE(ctx->setOutputAllocator("y", &allocator));
    EXPECT_EQ(ctx->getOutputAllocator("y"), &allocator);
    std::mt19937 rng(6);
    std::vector<float> x = randomFloats(12, rng);
    ASSERT_TRUE(ctx->setInputShape("x", dimsOf({3, 4})));
    ASSERT_TRUE(ctx->setTensorAddress("x", x.data()));
    ASSERT_TRUE(ctx->enqueueV3(nullptr)) << l.logger.allErrors();
    EXPECT_EQ(allocator.lastName, "y");
    EXPECT_EQ(allocator.requested, 48U);
    EXPECT_EQ(allocator.notified, "y");
    EXPECT_EQ(allocator.shape.d[0], 3);
    EXPECT_EQ(std::memcmp(allocator.buffer.data(), x.data(), 48), 0);
    EXPECT_EQ(ctx->getTensorAddress("y"), allocator.buffer.data());
    // A smaller run reuses the memory without asking again.
    ASSERT_TRUE(ctx->setInputShape("x", dimsOf({2, 4})));
    ASSERT_TRUE(ctx->enqueueV3(nullptr));
    EXPECT_EQ(allocator.calls, 1);
    EXPECT_EQ(allocator.shape.d[0], 2);
}

TEST(ExecutionContextTest, KernelFailureNamesTheNode)
{
    Plan plan = makeChainPlan();
    // The second node's output gets a shape that disagrees with its input: the Identity kernel refuses it.
    plan.tensors[2].dims[1] = plan.shapes.constant(5);
    plan.tensors[1].dims[1] = plan.shapes.constant(4);
    LoadedEngine l(plan);
    std::unique_ptr<IExecutionContext> ctx(l.engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr) << l.logger.allErrors();
    std::vector<float> x(8), y(10);
    ASSERT_TRUE(ctx->setInputShape("x", dimsOf({2, 4})));
    ASSERT_TRUE(ctx->setTensorAddress("x", x.data()));
    ASSERT_TRUE(ctx->setTensorAddress("y", y.data()));
    EXPECT_FALSE(ctx->enqueueV3(nullptr));
    EXPECT_TRUE(l.logger.hasError("node 'second' (Identity) failed")) << l.logger.allErrors();
}

//! Deserialize `plan` expecting a refusal (the kernel check of engine load, runtime/engineKernelCheck.cpp); the
//! logged errors.
std::string refusedAtLoad(Plan const& plan)
{
    CapturingLogger logger;
    std::vector<uint8_t> const bytes = serializePlan(plan);
    std::unique_ptr<nvinfer1::IRuntime> runtime(nvinfer1::createInferRuntime(logger));
    EXPECT_NE(runtime, nullptr);
    EXPECT_FALSE(bytes.empty());
    if (runtime == nullptr || bytes.empty())
    {
        return {};
    }
    std::unique_ptr<nvinfer1::ICudaEngine> engine(runtime->deserializeCudaEngine(bytes.data(), bytes.size()));
    EXPECT_EQ(engine, nullptr) << "an engine whose kernel cannot be created was accepted";
    return logger.allErrors();
}

// A node whose kernel cannot be created fails at engine load (before any context), naming the node.
TEST(ExecutionContextTest, MissingKernelFailsEngineLoad)
{
    Plan plan = makeChainPlan();
    plan.nodes[1].kind = LayerType::kRAGGED_SOFTMAX;
    std::string const errors = refusedAtLoad(plan);
    EXPECT_NE(errors.find("invalid engine: node 'second' (RaggedSoftMax"), std::string::npos) << errors;
}

TEST(ExecutionContextTest, FailingKernelFactoryFailsEngineLoad)
{
    Plan plan = makeChainPlan();
    plan.nodes[0].inputs.push_back(0); // Identity takes exactly one input
    std::string const errors = refusedAtLoad(plan);
    EXPECT_NE(errors.find("invalid engine: node 'first' (Identity"), std::string::npos) << errors;
}

TEST(ExecutionContextTest, CpuSpecificSettings)
{
    LoadedEngine l(makeChainPlan());
    std::unique_ptr<IExecutionContext> ctx(l.engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr);
    EXPECT_TRUE(ctx->setInputConsumedEvent(nullptr));
    EXPECT_EQ(ctx->getInputConsumedEvent(), nullptr);
    EXPECT_FALSE(ctx->setInputConsumedEvent(reinterpret_cast<cudaEvent_t>(0x10)));
    EXPECT_TRUE(l.logger.hasError("not supported"));
    ctx->setPersistentCacheLimit(1024);
    EXPECT_EQ(ctx->getPersistentCacheLimit(), 1024U);
    EXPECT_EQ(ctx->getNvtxVerbosity(), ProfilingVerbosity::kDETAILED);
    EXPECT_TRUE(ctx->setNvtxVerbosity(ProfilingVerbosity::kNONE));
    EXPECT_EQ(ctx->getNvtxVerbosity(), ProfilingVerbosity::kNONE);
    EXPECT_TRUE(ctx->setTemporaryStorageAllocator(nullptr));
    EXPECT_TRUE(ctx->setDebugListener(nullptr));
    EXPECT_FALSE(ctx->setTensorDebugState("x", true));
    EXPECT_FALSE(ctx->getDebugState("x"));
    EXPECT_TRUE(ctx->setAllTensorsDebugState(true));
    EXPECT_FALSE(ctx->setCommunicator(reinterpret_cast<void*>(0x10)));
    ctx->setAuxStreams(nullptr, 0);
}

TEST(ExecutionContextTest, ManyContextsOnManyThreads)
{
    LoadedEngine l(makeChainPlan());
    constexpr int kTHREADS = 8;
    constexpr int kCONTEXTS = 8;
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kTHREADS; ++t)
    {
        threads.emplace_back([&, t] {
            std::mt19937 rng(100 + t);
            std::vector<std::unique_ptr<IExecutionContext>> contexts;
            for (int c = 0; c < kCONTEXTS; ++c)
            {
                contexts.emplace_back(l.engine->createExecutionContext());
                if (contexts.back() == nullptr)
                {
                    ++failures;
                    return;
                }
            }
            for (int iter = 0; iter < 20; ++iter)
            {
                for (auto& ctx : contexts)
                {
                    int64_t const n = 1 + static_cast<int64_t>(rng() % 8);
                    std::vector<float> x = randomFloats(static_cast<size_t>(n * 4), rng);
                    std::vector<float> y(x.size(), 0.0F);
                    bool ok = ctx->setInputShape("x", dimsOf({n, 4})) && ctx->setTensorAddress("x", x.data())
                        && ctx->setTensorAddress("y", y.data()) && ctx->enqueueV3(nullptr);
                    if (!ok || x != y)
                    {
                        ++failures;
                    }
                }
            }
        });
    }
    for (auto& th : threads)
    {
        th.join();
    }
    EXPECT_EQ(failures.load(), 0) << l.logger.allErrors();
}

} // namespace
} // namespace kiln::test
