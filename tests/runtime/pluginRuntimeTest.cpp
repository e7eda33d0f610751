// Runtime tests of engines with plugin nodes (hand-built plans, so they do not depend on the builder): loading
// through the runtime's registry, running on the CPU backend, the lifecycle order, failures of plugins at load and
// at run time, independent contexts on several threads, workspaces in the arena, corrupt records and embedded
// libraries. Data-dependent shapes are in pluginDataDependentTest.cpp.
#include "engine/planValidation.h"
#include "plugin/pluginAdapter.h"
#include "runtime/pluginRuntimeTestPlans.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
namespace tp = plugins;

HostTensor randomInput(std::mt19937& rng, int64_t rows)
{
    return HostTensor::random(DataType::kFLOAT, makeDims({rows, 4}), rng, -3.0, 3.0);
}

//! Run `ctx` once on `x` (shape set, output poisoned); returns y or an empty tensor on failure.
HostTensor runOnce(nvinfer1::IExecutionContext& ctx, HostTensor const& x, cudaStream_t stream = nullptr)
{
    HostTensor y(DataType::kFLOAT, x.dims);
    std::fill(y.bytes.begin(), y.bytes.end(), uint8_t{0xCD}); // poison
    EXPECT_TRUE(ctx.setInputShape("x", x.dims));
    EXPECT_TRUE(ctx.setTensorAddress("x", const_cast<void*>(x.data())));
    EXPECT_TRUE(ctx.setTensorAddress("y", y.data()));
    if (!ctx.enqueueV3(stream))
    {
        return HostTensor();
    }
    return y;
}

HostTensor expectedAdd(HostTensor const& x, float add)
{
    HostTensor e(DataType::kFLOAT, x.dims);
    for (int64_t i = 0; i < x.volume(); ++i)
    {
        e.set(i, static_cast<double>(static_cast<float>(x.at(i)) + add));
    }
    return e;
}

//! The journal with object ids replaced by letters in order of appearance ("AddCounter#A:clone").
std::vector<std::string> normalized(std::vector<std::string> const& journal, std::string const& plugin)
{
    std::vector<std::string> out;
    std::map<std::string, char> names;
    for (auto const& entry : journal)
    {
        if (entry.rfind(plugin + "#", 0) != 0)
        {
            continue;
        }
        auto const hash = entry.find('#');
        auto const colon = entry.find(':');
        std::string const id = entry.substr(hash + 1, colon - hash - 1);
        if (names.count(id) == 0)
        {
            names[id] = static_cast<char>('A' + names.size());
        }
        out.push_back(plugin + "#" + names[id] + entry.substr(colon));
    }
    return out;
}

std::string joined(std::vector<std::string> const& v)
{
    std::string s;
    for (auto const& e : v)
    {
        s += e + "\n";
    }
    return s;
}

TEST(PluginRuntimeTest, V2DynamicExtEngineRunsAndRoundTrips)
{
    std::mt19937 rng(101);
    float const bias = std::uniform_real_distribution<float>(0.5F, 2.0F)(rng);
    PluginRuntime rt;
    auto engine = rt.load(makeAddCounterPlan(bias));
    ASSERT_NE(engine, nullptr) << rt.logger.allErrors();
    std::unique_ptr<nvinfer1::IExecutionContext> ctx(engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr) << rt.logger.allErrors();

    auto* const stream = reinterpret_cast<cudaStream_t>(uintptr_t{0x5151});
    HostTensor const x = randomInput(rng, 3);
    HostTensor y = runOnce(*ctx, x, stream);
    ASSERT_FALSE(y.bytes.empty()) << rt.logger.allErrors();
    EXPECT_TRUE(allClose(y, expectedAdd(x, bias), 0, 0));
    EXPECT_EQ(tp::control().lastStream.load(), reinterpret_cast<void*>(stream)) << "enqueue gets enqueueV3's stream";
    // The context's plugin keeps its state between runs (the counter), also across a shape change.
    HostTensor const x2 = randomInput(rng, 5);
    y = runOnce(*ctx, x2);
    EXPECT_TRUE(allClose(y, expectedAdd(x2, bias + 1.0F), 0, 0));

    // Serialize the loaded engine and load it again: the record survives; a new context starts a new clone.
    std::unique_ptr<nvinfer1::IHostMemory> bytes(engine->serialize());
    ASSERT_NE(bytes, nullptr);
    std::vector<uint8_t> copy(static_cast<uint8_t const*>(bytes->data()),
        static_cast<uint8_t const*>(bytes->data()) + bytes->size());
    auto again = rt.load(copy);
    ASSERT_NE(again, nullptr) << rt.logger.allErrors();
    std::unique_ptr<nvinfer1::IExecutionContext> ctx2(again->createExecutionContext());
    ASSERT_NE(ctx2, nullptr) << rt.logger.allErrors();
    y = runOnce(*ctx2, x);
    EXPECT_TRUE(allClose(y, expectedAdd(x, bias), 0, 0));
    EXPECT_EQ(rt.recorder.getNbErrors(), 0);
}

//! x [N,4] -> AddCounter(bias) -> y, built through the public builder API.
std::vector<uint8_t> buildAddCounterNetwork(NetworkRunner& r, float bias)
{
    nvinfer1::ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 4});
    addProfile(r, "x", {1, 4}, {2, 4}, {8, 4});
    tp::AddCounterPlugin plugin(bias);
    plugin.setPluginNamespace(tp::kNAMESPACE);
    KILN_IGNORE_DEPRECATED_BEGIN
    nvinfer1::IPluginV2Layer* layer = r.network().addPluginV2(&x, 1, plugin);
    KILN_IGNORE_DEPRECATED_END
    EXPECT_NE(layer, nullptr) << r.logger().allErrors();
    if (layer == nullptr)
    {
        return {};
    }
    layer->setName("addCounter");
    r.markOutput(layer->getOutput(0), "y");
    std::unique_ptr<nvinfer1::IHostMemory> bytes(r.builder().buildSerializedNetwork(r.network(), r.config()));
    EXPECT_NE(bytes, nullptr) << r.logger().allErrors();
    if (bytes == nullptr)
    {
        return {};
    }
    auto const* p = static_cast<uint8_t const*>(bytes->data());
    return std::vector<uint8_t>(p, p + bytes->size());
}

TEST(PluginRuntimeTest, BuiltEngineLoadsThroughTheRuntimesRegistry)
{
    std::mt19937 rng(107);
    float const bias = std::uniform_real_distribution<float>(-2.0F, 2.0F)(rng);
    NetworkRunner r;
    std::vector<uint8_t> const bytes = buildAddCounterNetwork(r, bias);
    ASSERT_FALSE(bytes.empty());

    // A fresh runtime without the creator cannot recreate the plugin ...
    {
        PluginRuntime bare(/*registerCreators=*/false);
        EXPECT_EQ(bare.load(bytes), nullptr);
        EXPECT_TRUE(bare.logger.hasError("no plugin creator for 'KilnTestAddCounter' version '1' namespace 'kilnTest'"))
            << bare.logger.allErrors();
    }
    // ... one whose registry has it runs the engine.
    PluginRuntime rt;
    auto engine = rt.load(bytes);
    ASSERT_NE(engine, nullptr) << rt.logger.allErrors();
    EXPECT_EQ(engine->getNbLayers(), 1);
    std::unique_ptr<nvinfer1::IExecutionContext> ctx(engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr) << rt.logger.allErrors();
    HostTensor const x = randomInput(rng, 7);
    EXPECT_TRUE(allClose(runOnce(*ctx, x), expectedAdd(x, bias), 0, 0)) << rt.logger.allErrors();
}

TEST(PluginRuntimeTest, BuildEngineWithConfigUsesTheBuildersRegistry)
{
    std::mt19937 rng(108);
    NetworkRunner r;
    tp::control().reset();
    nvinfer1::ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 4});
    addProfile(r, "x", {1, 4}, {3, 4}, {8, 4});
    tp::AddCounterPlugin plugin(0.75F);
    plugin.setPluginNamespace(tp::kNAMESPACE);
    KILN_IGNORE_DEPRECATED_BEGIN
    nvinfer1::IPluginV2Layer* layer = r.network().addPluginV2(&x, 1, plugin);
    KILN_IGNORE_DEPRECATED_END
    ASSERT_NE(layer, nullptr) << r.logger().allErrors();
    r.markOutput(layer->getOutput(0), "y");
    // Without a creator the built engine cannot be recreated.
    std::unique_ptr<nvinfer1::ICudaEngine> none(r.builder().buildEngineWithConfig(r.network(), r.config()));
    EXPECT_EQ(none, nullptr);
    EXPECT_TRUE(r.logger().hasError("the builder's plugin registry")) << r.logger().allErrors();
    tp::AddCounterCreator creator;
    KILN_IGNORE_DEPRECATED_BEGIN
    ASSERT_TRUE(r.builder().getPluginRegistry().registerCreator(creator, tp::kNAMESPACE));
    KILN_IGNORE_DEPRECATED_END
    std::unique_ptr<nvinfer1::ICudaEngine> engine(r.builder().buildEngineWithConfig(r.network(), r.config()));
    ASSERT_NE(engine, nullptr) << r.logger().allErrors();
    std::unique_ptr<nvinfer1::IExecutionContext> ctx(engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr);
    HostTensor const in = randomInput(rng, 3);
    EXPECT_TRUE(allClose(runOnce(*ctx, in), expectedAdd(in, 0.75F), 0, 0)) << r.logger().allErrors();
    // The builder reserved the plugin's workspace, and enqueue got it inside the context's arena.
    EXPECT_GE(engine->getDeviceMemorySizeV2(), tp::AddCounterPlugin::kWORKSPACE);
    EXPECT_NE(tp::control().lastWorkspace.load(), nullptr);
}

TEST(PluginRuntimeTest, LifecycleOrderOfAV2DynamicExtPlugin)
{
    std::vector<std::pair<std::string, std::string>> traced;
    std::mutex tracedMutex;
    PluginAdapter::setTraceSink([&](std::string const& plugin, std::string const& call) {
        std::lock_guard<std::mutex> lock(tracedMutex);
        traced.emplace_back(plugin, call);
    });
    std::mt19937 rng(102);
    {
        PluginRuntime rt;
        {
            auto engine = rt.load(makeAddCounterPlan(1.0F));
            ASSERT_NE(engine, nullptr) << rt.logger.allErrors();
            {
                std::unique_ptr<nvinfer1::IExecutionContext> ctx(engine->createExecutionContext());
                ASSERT_NE(ctx, nullptr) << rt.logger.allErrors();
                ASSERT_FALSE(runOnce(*ctx, randomInput(rng, 2)).bytes.empty()) << rt.logger.allErrors();
                ASSERT_FALSE(runOnce(*ctx, randomInput(rng, 2)).bytes.empty());
                ASSERT_FALSE(runOnce(*ctx, randomInput(rng, 6)).bytes.empty());
            }
        }
        std::vector<std::string> const expected = {
            // engine load: the creator recreates the plugin from its bytes, then initialize()
            "AddCounter#A:deserializePlugin",
            "AddCounter#A:initialize",
            // context creation: clone + attachToContext
            "AddCounter#A:clone",
            "AddCounter#B:attachToContext",
            // first run: configurePlugin with the real dims, enqueue
            "AddCounter#B:configurePlugin",
            "AddCounter#B:enqueue",
            // same shapes: enqueue only
            "AddCounter#B:enqueue",
            // new shapes: configure again
            "AddCounter#B:configurePlugin",
            "AddCounter#B:enqueue",
            // context destruction
            "AddCounter#B:detachFromContext",
            "AddCounter#B:destroy",
            // engine destruction
            "AddCounter#A:terminate",
            "AddCounter#A:destroy",
        };
        EXPECT_EQ(joined(normalized(tp::control().calls(), "AddCounter")), joined(expected));
    }
    PluginAdapter::setTraceSink(nullptr);
    // Kiln's own trace (kVERBOSE log + sink) names the same calls in the same order.
    std::vector<std::string> calls;
    for (auto const& [plugin, call] : traced)
    {
        if (plugin.find("KilnTestAddCounter") != std::string::npos)
        {
            calls.push_back(call);
        }
    }
    std::vector<std::string> const wanted
        = {"initialize", "attachToContext", "configurePlugin", "enqueue", "enqueue", "configurePlugin", "enqueue",
            "detachFromContext", "terminate"};
    size_t at = 0;
    for (auto const& call : calls)
    {
        if (at < wanted.size() && call.find(wanted[at]) != std::string::npos)
        {
            ++at;
        }
    }
    EXPECT_EQ(at, wanted.size()) << "trace: " << joined(calls);
}

TEST(PluginRuntimeTest, LifecycleOrderOfAV3Plugin)
{
    std::mt19937 rng(103);
    PluginRuntime rt;
    {
        auto engine = rt.load(makeNonZeroPlan());
        ASSERT_NE(engine, nullptr) << rt.logger.allErrors();
        std::unique_ptr<nvinfer1::IExecutionContext> ctx(engine->createExecutionContext());
        ASSERT_NE(ctx, nullptr) << rt.logger.allErrors();
        ctx.reset();
    }
    std::vector<std::string> const expected = {
        "NonZero#A:createPlugin(kRUNTIME)", // the creator's note (object id 0)
        "NonZero#B:setTactic",
        "NonZero#B:attachToContext",
        "NonZero#C:delete", // context destruction deletes the context's clone
        "NonZero#B:delete", // engine destruction
    };
    EXPECT_EQ(joined(normalized(tp::control().calls(), "NonZero")), joined(expected));
}

TEST(PluginRuntimeTest, MissingCreatorNamesThePluginAndTheClosestCreators)
{
    PluginRuntime rt(/*registerCreators=*/false);
    // A creator with the same name but another namespace is the closest match.
    KILN_IGNORE_DEPRECATED_BEGIN
    ASSERT_TRUE(rt.runtime->getPluginRegistry().registerCreator(rt.addCounter, "otherNamespace"));
    KILN_IGNORE_DEPRECATED_END
    auto engine = rt.load(makeAddCounterPlan(1.0F));
    EXPECT_EQ(engine, nullptr);
    std::string const errors = rt.logger.allErrors();
    for (char const* part : {"IRuntime::deserializeCudaEngine", "KilnTestAddCounter", "'1'", "'kilnTest'",
             "addCounter", "otherNamespace"})
    {
        EXPECT_NE(errors.find(part), std::string::npos) << "missing '" << part << "' in: " << errors;
    }
    ASSERT_GE(rt.recorder.getNbErrors(), 1);
    EXPECT_NE(std::string(rt.recorder.getErrorDesc(0)).find("KilnTestAddCounter"), std::string::npos);
    // The builder's and the global registry are not the runtime's: registering there later works.
    KILN_IGNORE_DEPRECATED_BEGIN
    ASSERT_TRUE(rt.runtime->getPluginRegistry().registerCreator(rt.addCounter, tp::kNAMESPACE));
    KILN_IGNORE_DEPRECATED_END
    EXPECT_NE(rt.load(makeAddCounterPlan(1.0F)), nullptr) << rt.logger.allErrors();
}

TEST(PluginRuntimeTest, InitializeFailureFailsDeserialization)
{
    PluginRuntime rt;
    tp::control().initializeResult = 5;
    auto engine = rt.load(makeAddCounterPlan(1.0F));
    EXPECT_EQ(engine, nullptr);
    std::string const errors = rt.logger.allErrors();
    EXPECT_NE(errors.find("KilnTestAddCounter"), std::string::npos) << errors;
    EXPECT_NE(errors.find("initialize"), std::string::npos) << errors;
    EXPECT_NE(errors.find("5"), std::string::npos) << errors;
    EXPECT_GE(rt.recorder.getNbErrors(), 1);
    // The object whose initialize() failed is destroyed, never terminated.
    auto const calls = normalized(tp::control().calls(), "AddCounter");
    EXPECT_EQ(std::count(calls.begin(), calls.end(), "AddCounter#A:destroy"), 1) << joined(calls);
    EXPECT_EQ(std::count(calls.begin(), calls.end(), "AddCounter#A:terminate"), 0) << joined(calls);
    tp::control().initializeResult = 0;
    EXPECT_NE(rt.load(makeAddCounterPlan(1.0F)), nullptr) << rt.logger.allErrors();
}

TEST(PluginRuntimeTest, EnqueueFailureNamesThePluginAndTheContextKeepsWorking)
{
    std::mt19937 rng(104);
    PluginRuntime rt;
    auto engine = rt.load(makeAddCounterPlan(0.25F));
    ASSERT_NE(engine, nullptr) << rt.logger.allErrors();
    std::unique_ptr<nvinfer1::IExecutionContext> ctx(engine->createExecutionContext());
    std::unique_ptr<nvinfer1::IExecutionContext> other(engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr);
    ASSERT_NE(other, nullptr);
    HostTensor const x = randomInput(rng, 4);

    tp::control().enqueueResult = 3;
    EXPECT_TRUE(runOnce(*ctx, x).bytes.empty());
    std::string const errors = rt.logger.allErrors();
    for (char const* part : {"IExecutionContext::enqueueV3", "KilnTestAddCounter", "addCounter", "enqueue", "3"})
    {
        EXPECT_NE(errors.find(part), std::string::npos) << "missing '" << part << "' in: " << errors;
    }
    EXPECT_GE(rt.recorder.getNbErrors(), 1);

    tp::control().enqueueResult = 0;
    rt.logger.clear();
    // The failed enqueue did not count; both contexts keep working.
    EXPECT_TRUE(allClose(runOnce(*ctx, x), expectedAdd(x, 0.25F), 0, 0)) << rt.logger.allErrors();
    EXPECT_TRUE(allClose(runOnce(*other, x), expectedAdd(x, 0.25F), 0, 0)) << rt.logger.allErrors();
}

TEST(PluginRuntimeTest, ExceptionThrownFromEnqueueIsContained)
{
    std::mt19937 rng(105);
    PluginRuntime rt;
    auto engine = rt.load(makeAddCounterPlan(-1.5F));
    ASSERT_NE(engine, nullptr) << rt.logger.allErrors();
    std::unique_ptr<nvinfer1::IExecutionContext> ctx(engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr);
    HostTensor const x = randomInput(rng, 2);
    tp::control().enqueueThrows = true;
    EXPECT_TRUE(runOnce(*ctx, x).bytes.empty());
    std::string const errors = rt.logger.allErrors();
    EXPECT_NE(errors.find("AddCounter exploded"), std::string::npos) << errors;
    EXPECT_NE(errors.find("KilnTestAddCounter"), std::string::npos) << errors;
    tp::control().enqueueThrows = false;
    EXPECT_TRUE(allClose(runOnce(*ctx, x), expectedAdd(x, -1.5F), 0, 0)) << rt.logger.allErrors();
}

TEST(PluginRuntimeTest, ContextsOnTwoThreadsHaveTheirOwnPluginState)
{
    PluginRuntime rt;
    float const bias = 0.5F;
    auto engine = rt.load(makeAddCounterPlan(bias));
    ASSERT_NE(engine, nullptr) << rt.logger.allErrors();
    constexpr int kRUNS = 25;
    std::vector<int> failures(2, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t)
    {
        threads.emplace_back([&, t] {
            std::unique_ptr<nvinfer1::IExecutionContext> ctx(engine->createExecutionContext());
            if (ctx == nullptr)
            {
                failures[static_cast<size_t>(t)] = kRUNS;
                return;
            }
            std::mt19937 rng(200 + t);
            for (int r = 0; r < kRUNS; ++r)
            {
                HostTensor const x = randomInput(rng, 1 + (r + t) % 8);
                HostTensor const y = runOnce(*ctx, x);
                // Each context's plugin counts only its own runs.
                if (y.bytes.empty() || !allClose(y, expectedAdd(x, bias + static_cast<float>(r)), 0, 0))
                {
                    ++failures[static_cast<size_t>(t)];
                }
            }
        });
    }
    for (auto& th : threads)
    {
        th.join();
    }
    EXPECT_EQ(failures[0], 0) << rt.logger.allErrors();
    EXPECT_EQ(failures[1], 0) << rt.logger.allErrors();
}

TEST(PluginRuntimeTest, SharedPlainV2PluginIsReconfiguredPerContext)
{
    PluginRuntime rt;
    auto engine = rt.load(makeNegatePlan());
    ASSERT_NE(engine, nullptr) << rt.logger.allErrors();
    std::vector<int> failures(3, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t)
    {
        threads.emplace_back([&, t] {
            std::unique_ptr<nvinfer1::IExecutionContext> ctx(engine->createExecutionContext());
            std::mt19937 rng(300 + t);
            for (int r = 0; r < 20 && ctx != nullptr; ++r)
            {
                HostTensor const x = randomInput(rng, 2 + 7 * t + r % 3); // different shapes per thread
                HostTensor const y = runOnce(*ctx, x);
                HostTensor e(DataType::kFLOAT, x.dims);
                for (int64_t i = 0; i < x.volume(); ++i)
                {
                    e.set(i, -x.at(i));
                }
                failures[static_cast<size_t>(t)] += y.bytes.empty() || !allClose(y, e, 0, 0);
            }
        });
    }
    for (auto& th : threads)
    {
        th.join();
    }
    EXPECT_EQ(failures, std::vector<int>({0, 0, 0})) << rt.logger.allErrors();
    // One shared object: no clone per context (plain IPluginV2), one initialize, configured for each context's
    // shapes whenever another context used it in between.
    auto const calls = normalized(tp::control().calls(), "Negate");
    EXPECT_GE(std::count(calls.begin(), calls.end(), "Negate#B:configureWithFormat"), 3) << joined(calls);
    EXPECT_EQ(std::count(calls.begin(), calls.end(), "Negate#B:initialize"), 1) << joined(calls);
    for (auto const& c : calls)
    {
        EXPECT_EQ(c.find(":clone"), std::string::npos) << joined(calls);
    }
}

//! Counts the allocator calls plugins make.
class CountingAllocator : public nvinfer1::IGpuAllocator
{
public:
    void* allocate(uint64_t const size, uint64_t const alignment, nvinfer1::AllocatorFlags const) noexcept override
    {
        ++allocations;
        return std::aligned_alloc(alignment < 8 ? 8 : alignment, (size + 255) / 256 * 256);
    }
    bool deallocate(void* const memory) noexcept override
    {
        ++deallocations;
        std::free(memory);
        return true;
    }
    int allocations{0};
    int deallocations{0};
};

TEST(PluginRuntimeTest, PluginsGetTheContextsResources)
{
    PluginRuntime rt;
    // Without a runtime allocator: the CPU backend's host allocator, which really allocates.
    {
        auto engine = rt.load(makeNonZeroPlan());
        ASSERT_NE(engine, nullptr) << rt.logger.allErrors();
        std::unique_ptr<nvinfer1::IExecutionContext> ctx(engine->createExecutionContext());
        ASSERT_NE(ctx, nullptr);
        nvinfer1::IPluginResourceContext* resources = tp::control().lastResources.load();
        ASSERT_NE(resources, nullptr);
        nvinfer1::IGpuAllocator* allocator = resources->getGpuAllocator();
        ASSERT_NE(allocator, nullptr);
        void* memory = allocator->allocateAsync(1000, 256, 0, nullptr);
        ASSERT_NE(memory, nullptr);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(memory) % 256, 0U);
        std::memset(memory, 0x3C, 1000);
        void* grown = allocator->reallocate(memory, 256, 5000);
        ASSERT_NE(grown, nullptr);
        EXPECT_EQ(static_cast<uint8_t*>(grown)[999], 0x3C) << "reallocate keeps the contents";
        EXPECT_TRUE(allocator->deallocateAsync(grown, nullptr));
        EXPECT_FALSE(allocator->deallocateAsync(&rt, nullptr)) << "memory it did not allocate";
        // The error recorder is the context's, also after a change.
        EXPECT_EQ(resources->getErrorRecorder(), &rt.recorder);
        RecordingErrorRecorder other;
        ctx->setErrorRecorder(&other);
        EXPECT_EQ(resources->getErrorRecorder(), &other);
        ctx->setErrorRecorder(&rt.recorder);
    }
    // With a runtime allocator: plugins of engines loaded afterwards get it (V3 and V2Ext alike).
    CountingAllocator counting;
    rt.runtime->setGpuAllocator(&counting);
    auto engine = rt.load(makeNonZeroPlan());
    ASSERT_NE(engine, nullptr) << rt.logger.allErrors();
    std::unique_ptr<nvinfer1::IExecutionContext> ctx(engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr);
    EXPECT_EQ(tp::control().lastResources.load()->getGpuAllocator(), &counting);
    auto v2 = rt.load(makeAddCounterPlan(1.0F));
    ASSERT_NE(v2, nullptr) << rt.logger.allErrors();
    std::unique_ptr<nvinfer1::IExecutionContext> v2ctx(v2->createExecutionContext());
    ASSERT_NE(v2ctx, nullptr);
    EXPECT_EQ(tp::control().lastAllocator.load(), &counting);
    EXPECT_EQ(counting.allocations, 0) << "the CPU backend's contexts allocate their arena themselves";
}

TEST(PluginRuntimeTest, WorkspaceLiesInsideTheArena)
{
    std::mt19937 rng(106);
    PluginRuntime rt;
    auto engine = rt.load(makeAddCounterPlan(2.0F));
    ASSERT_NE(engine, nullptr) << rt.logger.allErrors();
    std::unique_ptr<nvinfer1::IExecutionContext> ctx(engine->createExecutionContextWithoutDeviceMemory());
    ASSERT_NE(ctx, nullptr);
    int64_t const arenaBytes = engine->getDeviceMemorySizeV2();
    ASSERT_GE(arenaBytes, kWORKSPACE_OFFSET + tp::AddCounterPlugin::kWORKSPACE);
    AlignedBuffer arena(static_cast<size_t>(arenaBytes));
    std::fill(arena.data, arena.data + arenaBytes, uint8_t{0});
    ctx->setDeviceMemoryV2(arena.data, arenaBytes);
    HostTensor const x = randomInput(rng, 3);
    EXPECT_TRUE(allClose(runOnce(*ctx, x), expectedAdd(x, 2.0F), 0, 0)) << rt.logger.allErrors();
    void* const workspace = tp::control().lastWorkspace.load();
    ASSERT_NE(workspace, nullptr);
    EXPECT_EQ(static_cast<uint8_t*>(workspace), arena.data + kWORKSPACE_OFFSET);
    // The plugin wrote its pattern exactly there.
    for (int64_t i = 0; i < arenaBytes; ++i)
    {
        bool const inside = i >= kWORKSPACE_OFFSET && i < kWORKSPACE_OFFSET + tp::AddCounterPlugin::kWORKSPACE;
        ASSERT_EQ(arena.data[i], inside ? 0xA5 : 0) << "byte " << i;
    }
    // Too little activation memory for the workspace is refused before the plugin runs.
    std::unique_ptr<nvinfer1::IExecutionContext> small(engine->createExecutionContextWithoutDeviceMemory());
    small->setDeviceMemoryV2(arena.data, kWORKSPACE_OFFSET);
    tp::control().lastWorkspace = nullptr;
    EXPECT_TRUE(runOnce(*small, x).bytes.empty());
    EXPECT_TRUE(rt.logger.hasError("need " + std::to_string(kWORKSPACE_OFFSET + tp::AddCounterPlugin::kWORKSPACE)
        + " bytes"))
        << rt.logger.allErrors();
    EXPECT_EQ(tp::control().lastWorkspace.load(), nullptr);
}

TEST(PluginRuntimeTest, CorruptPluginRecordsFailCleanly)
{
    PluginRuntime rt;
    struct Case
    {
        std::function<void(Plan&)> corrupt;
        std::string expected;
    };
    std::vector<Case> const cases = {
        {[](Plan& p) { p.nodes[0].attrs.setString("plugin.data", std::string("\x01\xff\x00garbage", 10)); },
            "nonZero"},
        {[](Plan& p) { p.nodes[0].attrs.setString("plugin.data", ""); }, "nonZero"},
        {[](Plan& p) { p.nodes[0].attrs.setInt("plugin.generation", 99); }, "nonZero"},
        {[](Plan& p) { p.nodes[0].attrs.erase("plugin.name"); }, "nonZero"},
        {[](Plan& p) { p.nodes[0].attrs.setInt("plugin.generation", static_cast<int64_t>(PluginGeneration::kV2_EXT)); },
            "IPluginV3 layer"},
    };
    for (auto const& c : cases)
    {
        Plan plan = makeNonZeroPlan();
        c.corrupt(plan);
        rt.logger.clear();
        std::vector<uint8_t> const bytes = serializePlan(plan);
        ASSERT_FALSE(bytes.empty());
        EXPECT_EQ(rt.load(bytes), nullptr) << c.expected;
        EXPECT_TRUE(rt.logger.hasError(c.expected)) << rt.logger.allErrors();
        EXPECT_TRUE(rt.logger.hasError("IRuntime::deserializeCudaEngine")) << rt.logger.allErrors();
    }
    // An impossible shape-input count never reaches a file: the plan validation that the writer and the reader
    // run refuses it (tests/engine/engineTrustTest.cpp edits one into a file).
    Plan badCount = makeNonZeroPlan();
    badCount.nodes[0].attrs.setInt("plugin.nbShapeInputs", 2);
    Status const st = validatePlan(badCount);
    EXPECT_FALSE(st.isOk());
    EXPECT_NE(st.message().find("says its plugin has 2 shape inputs, but it has 1 inputs"), std::string::npos)
        << st.message();
    // A V2 record whose bytes the creator refuses (deserializePlugin returns nullptr).
    Plan plan = makeAddCounterPlan(1.0F);
    plan.nodes[0].attrs.setString("plugin.data", "xyz");
    rt.logger.clear();
    EXPECT_EQ(rt.load(plan), nullptr);
    EXPECT_TRUE(rt.logger.hasError("KilnTestAddCounter")) << rt.logger.allErrors();
}

TEST(PluginRuntimeTest, EmbeddedLibrariesNeedHostCodeAllowed)
{
    PluginRuntime rt;
    Plan plan = makeAddCounterPlan(1.0F);
    plan.pluginLibraries.push_back(PlanPluginLibrary{"libkilnNoSuchPlugin.so", std::string("\x7f" "ELF-not-really", 15)});
    EXPECT_FALSE(rt.runtime->getEngineHostCodeAllowed());
    EXPECT_EQ(rt.load(plan), nullptr);
    EXPECT_TRUE(rt.logger.hasError("libkilnNoSuchPlugin.so")) << rt.logger.allErrors();
    EXPECT_TRUE(rt.logger.hasError("setEngineHostCodeAllowed")) << rt.logger.allErrors();
    // Allowed, the (broken) library is tried and its failure reported; nothing crashes.
    rt.runtime->setEngineHostCodeAllowed(true);
    rt.logger.clear();
    EXPECT_EQ(rt.load(plan), nullptr);
    EXPECT_TRUE(rt.logger.hasError("libkilnNoSuchPlugin.so")) << rt.logger.allErrors();
}

TEST(PluginRuntimeTest, InspectorShowsPluginRecordsWithoutRawBytes)
{
    PluginRuntime rt;
    Plan const plan = makeAddCounterPlan(1.0F); // plugin.data: the float 1.0, bytes 00 00 80 3f
    auto engine = rt.load(plan);
    ASSERT_NE(engine, nullptr) << rt.logger.allErrors();
    std::unique_ptr<nvinfer1::IEngineInspector> inspector(engine->createEngineInspector());
    ASSERT_NE(inspector, nullptr);
    std::string const json = inspector->getLayerInformation(0, nvinfer1::LayerInformationFormat::kJSON);
    EXPECT_NE(json.find("\"plugin.data\":\"<4 bytes, xxh64 "), std::string::npos) << json;
    EXPECT_NE(json.find("\"plugin.name\":\"KilnTestAddCounter\""), std::string::npos) << json;
    for (char c : json)
    {
        EXPECT_TRUE(c == '\n' || (c >= 0x20 && c < 0x7f)) << "raw byte " << static_cast<int>(static_cast<uint8_t>(c));
    }
    std::string const line = inspector->getLayerInformation(0, nvinfer1::LayerInformationFormat::kONELINE);
    EXPECT_NE(line.find("<4 bytes, xxh64 "), std::string::npos) << line;
}

} // namespace
} // namespace kiln::test
