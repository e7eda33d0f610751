// lifecyclePluginTest.cpp — the order in which Kiln calls a plugin's methods, recorded inside the plugins themselves
// (an IPluginV2DynamicExt and an IPluginV3 that copy their input), compared with the documented lifecycle
// (/work/shared COMMON brief, docs/plugins.md "Lifecycle"): network clone, builder clone with queries → negotiation →
// configure → workspace → (V2: initialize/terminate/serialize, V3: tactics/fields) → destroy; engine load
// (deserializePlugin + initialize / createPlugin(kRUNTIME) + setTactic); context clone + attach; configure or
// onShapeChange on the first run and on shape changes only; detach/destroy with the context; terminate/destroy with
// the engine. No object is called after it was destroyed.
#include "kiln/KilnPluginCpu.h"
#include "samplePluginsTestUtils.h"

#include <atomic>
#include <set>
#include <cstring>

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::test
{
namespace
{
using namespace nvinfer1;

constexpr char const* kTRACE_NAMESPACE = "kilnLifecycleTest";

//! Every call made on a trace plugin: (object id, method).
struct CallLog
{
    std::mutex mutex;
    std::vector<std::pair<int32_t, std::string>> calls;
    std::atomic<int32_t> nextId{0};

    void add(int32_t id, std::string call)
    {
        std::lock_guard<std::mutex> lock(mutex);
        calls.emplace_back(id, std::move(call));
    }
    std::vector<std::pair<int32_t, std::string>> take()
    {
        std::lock_guard<std::mutex> lock(mutex);
        auto out = std::move(calls);
        calls.clear();
        return out;
    }
};

CallLog& callLog()
{
    static CallLog log;
    return log;
}

//! The calls made on object `id`, consecutive repeats collapsed, supportsFormatCombination dropped (its count
//! depends on the negotiation order).
std::vector<std::string> callsOf(std::vector<std::pair<int32_t, std::string>> const& calls, int32_t id)
{
    std::vector<std::string> out;
    for (auto const& [who, call] : calls)
    {
        if (who == id && call != "supportsFormatCombination" && (out.empty() || out.back() != call))
        {
            out.push_back(call);
        }
    }
    return out;
}

//! Ids of the objects created by a call matching `prefix` (e.g. "clone->"), in order.
std::vector<int32_t> createdBy(std::vector<std::pair<int32_t, std::string>> const& calls, int32_t from, std::string const& prefix)
{
    std::vector<int32_t> ids;
    for (auto const& [who, call] : calls)
    {
        if ((from < 0 || who == from) && call.rfind(prefix, 0) == 0)
        {
            ids.push_back(std::stoi(call.substr(prefix.size())));
        }
    }
    return ids;
}

std::string joined(std::vector<std::string> const& calls)
{
    std::string s;
    for (auto const& c : calls)
    {
        s += (s.empty() ? "" : " ") + c;
    }
    return s;
}

//! `expected` appears in `actual` in this order (other calls may sit in between).
::testing::AssertionResult inOrder(std::vector<std::string> const& actual, std::vector<std::string> const& expected)
{
    size_t at = 0;
    for (auto const& call : actual)
    {
        if (at < expected.size() && call == expected[at])
        {
            ++at;
        }
    }
    if (at == expected.size())
    {
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "expected in order [" << joined(expected) << "], missing '"
                                         << expected[at] << "' in [" << joined(actual) << "]";
}

//! Nothing after "destroy" on any object.
::testing::AssertionResult noCallAfterDestroy(std::vector<std::pair<int32_t, std::string>> const& calls)
{
    std::set<int32_t> destroyed;
    for (auto const& [who, call] : calls)
    {
        if (destroyed.count(who) != 0)
        {
            return ::testing::AssertionFailure() << "object " << who << " got '" << call << "' after destroy";
        }
        if (call == "destroy")
        {
            destroyed.insert(who);
        }
    }
    return ::testing::AssertionSuccess();
}

// ---- IPluginV2DynamicExt -------------------------------------------------------------------------------------------

class TraceDynPlugin : public IPluginV2DynamicExt, public kiln::IPluginCpuSupport
{
public:
    TraceDynPlugin()
        : mId(callLog().nextId++)
    {
    }
    TraceDynPlugin(TraceDynPlugin const&)
        : IPluginV2DynamicExt()
        , kiln::IPluginCpuSupport()
        , mId(callLog().nextId++)
    {
    }
    int32_t id() const { return mId; }

    char const* getPluginType() const noexcept override { return "TraceDyn"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    int32_t getNbOutputs() const noexcept override
    {
        record("getNbOutputs");
        return 1;
    }
    int32_t initialize() noexcept override
    {
        record("initialize");
        return 0;
    }
    void terminate() noexcept override { record("terminate"); }
    size_t getSerializationSize() const noexcept override
    {
        record("getSerializationSize");
        return 4;
    }
    void serialize(void* buffer) const noexcept override
    {
        record("serialize");
        std::memcpy(buffer, "TRCE", 4);
    }
    void destroy() noexcept override
    {
        record("destroy");
        delete this;
    }
    void setPluginNamespace(char const*) noexcept override {}
    char const* getPluginNamespace() const noexcept override { return kTRACE_NAMESPACE; }
    DataType getOutputDataType(int32_t, DataType const* types, int32_t) const noexcept override
    {
        record("getOutputDataType");
        return types[0];
    }
    void attachToContext(cudnnContext*, cublasContext*, IGpuAllocator*) noexcept override
    {
        record("attachToContext");
    }
    void detachFromContext() noexcept override { record("detachFromContext"); }
    IPluginV2DynamicExt* clone() const noexcept override
    {
        auto* copy = new TraceDynPlugin(*this);
        record("clone->" + std::to_string(copy->id()));
        return copy;
    }
    DimsExprs getOutputDimensions(int32_t, DimsExprs const* inputs, int32_t, IExprBuilder&) noexcept override
    {
        record("getOutputDimensions");
        return inputs[0];
    }
    bool supportsFormatCombination(int32_t pos, PluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        record("supportsFormatCombination");
        return inOut[pos].type == DataType::kFLOAT && inOut[pos].format == TensorFormat::kLINEAR;
    }
    void configurePlugin(DynamicPluginTensorDesc const*, int32_t, DynamicPluginTensorDesc const*, int32_t) noexcept
        override
    {
        record("configurePlugin");
    }
    size_t getWorkspaceSize(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) const noexcept override
    {
        record("getWorkspaceSize");
        return 0;
    }
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const*, void const* const* inputs,
        void* const* outputs, void*, cudaStream_t) noexcept override
    {
        record("enqueue");
        std::memcpy(outputs[0], inputs[0], static_cast<size_t>(samples::volume(inputDesc[0].dims)) * sizeof(float));
        return 0;
    }

private:
    void record(std::string call) const { callLog().add(mId, std::move(call)); }
    int32_t mId;
};

class TraceDynCreator : public IPluginCreator
{
public:
    char const* getPluginName() const noexcept override { return "TraceDyn"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    PluginFieldCollection const* getFieldNames() noexcept override { return &mFields; }
    IPluginV2* createPlugin(char const*, PluginFieldCollection const*) noexcept override
    {
        return new TraceDynPlugin();
    }
    IPluginV2* deserializePlugin(char const*, void const* data, size_t length) noexcept override
    {
        if (length != 4 || std::memcmp(data, "TRCE", 4) != 0)
        {
            return nullptr;
        }
        auto* plugin = new TraceDynPlugin();
        callLog().add(plugin->id(), "deserializePlugin");
        return plugin;
    }
    void setPluginNamespace(char const*) noexcept override {}
    char const* getPluginNamespace() const noexcept override { return kTRACE_NAMESPACE; }

private:
    PluginFieldCollection mFields{0, nullptr};
};

// ---- IPluginV3 ----------------------------------------------------------------------------------------------------

class TraceV3Plugin : public IPluginV3,
                      public IPluginV3OneCore,
                      public IPluginV3OneBuild,
                      public IPluginV3OneRuntime,
                      public kiln::IPluginCpuSupport
{
public:
    TraceV3Plugin()
        : mId(callLog().nextId++)
    {
    }
    TraceV3Plugin(TraceV3Plugin const&)
        : IPluginV3()
        , IPluginV3OneCore()
        , IPluginV3OneBuild()
        , IPluginV3OneRuntime()
        , kiln::IPluginCpuSupport()
        , mId(callLog().nextId++)
    {
    }
    ~TraceV3Plugin() override { record("destroy"); }
    int32_t id() const { return mId; }

    IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override
    {
        switch (type)
        {
        case PluginCapabilityType::kCORE: return static_cast<IPluginV3OneCore*>(this);
        case PluginCapabilityType::kBUILD: return static_cast<IPluginV3OneBuild*>(this);
        case PluginCapabilityType::kRUNTIME: return static_cast<IPluginV3OneRuntime*>(this);
        }
        return nullptr;
    }
    IPluginV3* clone() noexcept override
    {
        auto* copy = new TraceV3Plugin(*this);
        record("clone->" + std::to_string(copy->id()));
        return copy;
    }
    char const* getPluginName() const noexcept override { return "TraceV3"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return kTRACE_NAMESPACE; }

    int32_t configurePlugin(DynamicPluginTensorDesc const*, int32_t, DynamicPluginTensorDesc const*, int32_t) noexcept
        override
    {
        record("configurePlugin");
        return 0;
    }
    int32_t getOutputDataTypes(DataType* out, int32_t, DataType const* in, int32_t) const noexcept override
    {
        record("getOutputDataTypes");
        out[0] = in[0];
        return 0;
    }
    int32_t getOutputShapes(DimsExprs const* inputs, int32_t, DimsExprs const*, int32_t, DimsExprs* outputs, int32_t,
        IExprBuilder&) noexcept override
    {
        record("getOutputShapes");
        outputs[0] = inputs[0];
        return 0;
    }
    bool supportsFormatCombination(int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        record("supportsFormatCombination");
        return inOut[pos].desc.type == DataType::kFLOAT && inOut[pos].desc.format == TensorFormat::kLINEAR;
    }
    int32_t getNbOutputs() const noexcept override
    {
        record("getNbOutputs");
        return 1;
    }
    size_t getWorkspaceSize(DynamicPluginTensorDesc const*, int32_t, DynamicPluginTensorDesc const*, int32_t) const
        noexcept override
    {
        record("getWorkspaceSize");
        return 0;
    }
    int32_t getValidTactics(int32_t* tactics, int32_t nbTactics) noexcept override
    {
        record("getValidTactics");
        for (int32_t i = 0; i < nbTactics; ++i)
        {
            tactics[i] = i + 1;
        }
        return 0;
    }
    int32_t getNbTactics() noexcept override
    {
        record("getNbTactics");
        return 2;
    }
    int32_t setTactic(int32_t tactic) noexcept override
    {
        record("setTactic");
        return tactic == 1 || tactic == 2 ? 0 : 1;
    }
    int32_t onShapeChange(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) noexcept override
    {
        record("onShapeChange");
        return 0;
    }
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const*, void const* const* inputs,
        void* const* outputs, void*, cudaStream_t) noexcept override
    {
        record("enqueue");
        std::memcpy(outputs[0], inputs[0], static_cast<size_t>(samples::volume(inputDesc[0].dims)) * sizeof(float));
        return 0;
    }
    IPluginV3* attachToContext(IPluginResourceContext* context) noexcept override
    {
        auto* copy = new TraceV3Plugin(*this);
        record("attachToContext->" + std::to_string(copy->id()));
        EXPECT_NE(context, nullptr);
        return copy;
    }
    PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        record("getFieldsToSerialize");
        return &mFields;
    }

private:
    void record(std::string call) const { callLog().add(mId, std::move(call)); }
    int32_t mId;
    PluginFieldCollection mFields{0, nullptr};
};

class TraceV3Creator : public IPluginCreatorV3One
{
public:
    IPluginV3* createPlugin(char const*, PluginFieldCollection const*, TensorRTPhase phase) noexcept override
    {
        auto* plugin = new TraceV3Plugin();
        callLog().add(plugin->id(), phase == TensorRTPhase::kRUNTIME ? "createPlugin(kRUNTIME)" : "createPlugin(kBUILD)");
        return plugin;
    }
    PluginFieldCollection const* getFieldNames() noexcept override { return &mFields; }
    char const* getPluginName() const noexcept override { return "TraceV3"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return kTRACE_NAMESPACE; }

private:
    PluginFieldCollection mFields{0, nullptr};
};

void registerTraceCreators()
{
    static bool const registered = [] {
        static TraceDynCreator dyn;
        static TraceV3Creator v3;
        bool ok = getPluginRegistry()->registerCreator(static_cast<IPluginCreatorInterface&>(dyn), kTRACE_NAMESPACE);
        ok = getPluginRegistry()->registerCreator(static_cast<IPluginCreatorInterface&>(v3), kTRACE_NAMESPACE) && ok;
        return ok;
    }();
    ASSERT_TRUE(registered);
}

//! Runs `engine` on one context three times: shape A, shape A again, shape B; then destroys the context.
void runThreeTimes(ICudaEngine& engine, CapturingLogger& logger)
{
    std::unique_ptr<IExecutionContext> ctx(engine.createExecutionContext());
    ASSERT_NE(ctx, nullptr) << logger.allErrors();
    callLog().add(-1, "--context created--");
    std::mt19937 rng(51);
    for (int64_t rows : {2, 2, 5})
    {
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({rows, 4}), rng);
        HostTensor y(DataType::kFLOAT, x.dims);
        std::fill(y.bytes.begin(), y.bytes.end(), uint8_t{0xA5});
        ASSERT_TRUE(ctx->setInputShape("x", x.dims));
        ASSERT_TRUE(ctx->setInputTensorAddress("x", x.data()));
        ASSERT_TRUE(ctx->setTensorAddress("y", y.data()));
        ASSERT_TRUE(ctx->enqueueV3(nullptr)) << logger.allErrors();
        EXPECT_TRUE(sameBits(y, x));
        callLog().add(-1, "--run--");
    }
}

template <typename AddLayer>
void buildTraceNetwork(NetworkRunner& runner, AddLayer addLayer)
{
    ITensor* x = runner.addInput("x", DataType::kFLOAT, {-1, 4});
    ILayer* layer = addLayer(x);
    ASSERT_NE(layer, nullptr) << runner.logger().allErrors();
    layer->setName("traced");
    runner.markOutput(layer->getOutput(0), "y");
    runner.setProfileDims("x", {1, 4}, {3, 4}, {8, 4});
}

TEST(LifecyclePlugin, V2DynamicExtCallsFollowTheDocumentedOrder)
{
    registerTraceCreators();
    callLog().take();
    auto* app = new TraceDynPlugin();
    int32_t const appId = app->id();
    NetworkRunner runner;
    buildTraceNetwork(runner, [&](ITensor* x) {
        ITensor* inputs[] = {x};
        return runner.network().addPluginV2(inputs, 1, *app);
    });
    app->destroy(); // the network owns its own clone; the application's object is only borrowed
    auto network = callLog().take();
    std::vector<int32_t> const networkClones = createdBy(network, appId, "clone->");
    ASSERT_EQ(networkClones.size(), 1U) << "addPluginV2 must clone the plugin exactly once";
    int32_t const networkId = networkClones[0];
    EXPECT_EQ(callsOf(network, appId), (std::vector<std::string>{"clone->" + std::to_string(networkId), "destroy"}));

    // Build: the builder clones the network's plugin and walks it through the build phase, then destroys it.
    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();
    auto build = callLog().take();
    std::vector<int32_t> const builderClones = createdBy(build, networkId, "clone->");
    ASSERT_GE(builderClones.size(), 1U);
    std::vector<std::string> const builderCalls = callsOf(build, builderClones[0]);
    EXPECT_TRUE(inOrder(builderCalls, {"getNbOutputs", "getOutputDataType", "getOutputDimensions", "configurePlugin",
        "getWorkspaceSize", "initialize", "terminate", "getSerializationSize", "serialize", "destroy"}));
    EXPECT_EQ(builderCalls.back(), "destroy");
    EXPECT_EQ(std::count(builderCalls.begin(), builderCalls.end(), "enqueue"), 0);
    EXPECT_TRUE(noCallAfterDestroy(build));

    // Engine load in a fresh runtime: deserializePlugin, getNbOutputs (checked against the node's recorded outputs,
    // runtime/enginePlugins.cpp), then initialize on the engine's object.
    CapturingLogger logger;
    std::unique_ptr<IRuntime> runtime;
    auto engine = samplesupport::loadInFreshRuntime(runner.engineBytes(), logger, runtime);
    ASSERT_NE(engine, nullptr) << logger.allErrors();
    auto load = callLog().take();
    int32_t engineId = -1;
    for (auto const& [who, call] : load)
    {
        if (call == "deserializePlugin")
        {
            engineId = who;
        }
    }
    ASSERT_GE(engineId, 0) << "the engine must come back through IPluginCreator::deserializePlugin";
    EXPECT_EQ(callsOf(load, engineId), (std::vector<std::string>{"deserializePlugin", "getNbOutputs", "initialize"}));

    // Context: clone + attachToContext; configurePlugin on the first run and on the shape change only.
    runThreeTimes(*engine, logger);
    auto context = callLog().take();
    std::vector<int32_t> const contextClones = createdBy(context, engineId, "clone->");
    ASSERT_EQ(contextClones.size(), 1U);
    std::vector<std::string> const contextCalls = callsOf(context, contextClones[0]);
    EXPECT_EQ(joined(contextCalls), "attachToContext configurePlugin enqueue configurePlugin enqueue detachFromContext destroy")
        << "(consecutive repeats collapsed: the second run at the same shape must not reconfigure)";
    int64_t const enqueues = std::count_if(context.begin(), context.end(),
        [&](auto const& c) { return c.first == contextClones[0] && c.second == "enqueue"; });
    EXPECT_EQ(enqueues, 3);
    int64_t const configures = std::count_if(context.begin(), context.end(),
        [&](auto const& c) { return c.first == contextClones[0] && c.second == "configurePlugin"; });
    EXPECT_EQ(configures, 2);

    // Engine destroy: terminate, then destroy.
    engine.reset();
    auto teardown = callLog().take();
    EXPECT_EQ(callsOf(teardown, engineId), (std::vector<std::string>{"terminate", "destroy"}));
}

TEST(LifecyclePlugin, V3CallsFollowTheDocumentedOrder)
{
    registerTraceCreators();
    callLog().take();
    auto app = std::make_unique<TraceV3Plugin>();
    int32_t const appId = app->id();
    NetworkRunner runner;
    buildTraceNetwork(runner, [&](ITensor* x) {
        ITensor* inputs[] = {x};
        return runner.network().addPluginV3(inputs, 1, nullptr, 0, *app);
    });
    app.reset();
    auto network = callLog().take();
    std::vector<int32_t> const networkClones = createdBy(network, appId, "clone->");
    ASSERT_EQ(networkClones.size(), 1U) << "addPluginV3 must clone the plugin exactly once";
    int32_t const networkId = networkClones[0];

    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();
    auto build = callLog().take();
    std::vector<int32_t> const builderClones = createdBy(build, networkId, "clone->");
    ASSERT_GE(builderClones.size(), 1U);
    std::vector<std::string> const builderCalls = callsOf(build, builderClones[0]);
    // Two tactics: the builder times each (onShapeChange + setTactic + enqueue) before serializing the fields.
    EXPECT_TRUE(inOrder(builderCalls, {"getNbOutputs", "getOutputDataTypes", "getOutputShapes", "configurePlugin",
        "getWorkspaceSize", "getValidTactics", "onShapeChange", "setTactic", "enqueue", "getFieldsToSerialize",
        "destroy"}));
    EXPECT_GE(std::count(builderCalls.begin(), builderCalls.end(), "setTactic"), 1);
    EXPECT_EQ(builderCalls.back(), "destroy");
    EXPECT_TRUE(noCallAfterDestroy(build));

    CapturingLogger logger;
    std::unique_ptr<IRuntime> runtime;
    auto engine = samplesupport::loadInFreshRuntime(runner.engineBytes(), logger, runtime);
    ASSERT_NE(engine, nullptr) << logger.allErrors();
    auto load = callLog().take();
    int32_t engineId = -1;
    for (auto const& [who, call] : load)
    {
        if (call == "createPlugin(kRUNTIME)")
        {
            engineId = who;
        }
    }
    ASSERT_GE(engineId, 0) << "the engine must come back through IPluginCreatorV3One::createPlugin(kRUNTIME)";
    // getNbOutputs through the build capability that this plugin also offers at runtime: the engine's recorded
    // output count is checked at load.
    EXPECT_EQ(callsOf(load, engineId),
        (std::vector<std::string>{"createPlugin(kRUNTIME)", "getNbOutputs", "setTactic"}));

    runThreeTimes(*engine, logger);
    auto context = callLog().take();
    std::vector<int32_t> const contextClones = createdBy(context, engineId, "attachToContext->");
    ASSERT_EQ(contextClones.size(), 1U) << "attachToContext must give each context its own clone";
    EXPECT_EQ(joined(callsOf(context, contextClones[0])), "onShapeChange enqueue onShapeChange enqueue destroy")
        << "(consecutive repeats collapsed: the second run at the same shape must not call onShapeChange)";
    int64_t const enqueues = std::count_if(context.begin(), context.end(),
        [&](auto const& c) { return c.first == contextClones[0] && c.second == "enqueue"; });
    EXPECT_EQ(enqueues, 3);

    engine.reset();
    auto teardown = callLog().take();
    EXPECT_EQ(callsOf(teardown, engineId), (std::vector<std::string>{"destroy"}));
}

} // namespace
} // namespace kiln::test

KILN_IGNORE_DEPRECATED_END
