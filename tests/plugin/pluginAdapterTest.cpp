// Tests of the PluginAdapter for IPluginV2DynamicExt and IPluginV3 (src/plugin/pluginAdapter*.cpp): identity and
// label, the build-phase questions (outputs, types, symbolic shapes, formats, configuration, workspace, tactics),
// serialization, context attachment, execution on host memory against an independent reference, ownership and
// the lifecycle trace.
#include "common/networkRunner.h"
#include "plugin/pluginAdapter.h"
#include "plugin/pluginAdapterTestPlugins.h"
#include "plugin/pluginRegistry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{
using namespace nvinfer1;
using namespace kiln;
using namespace kiln::adapter_test;
using ::testing::HasSubstr;

class NullResources : public IPluginResourceContext
{
public:
    IGpuAllocator* getGpuAllocator() const noexcept override { return nullptr; }
    IErrorRecorder* getErrorRecorder() const noexcept override { return nullptr; }
};

//! Collects the adapter's trace for one plugin name while alive.
class TraceCapture
{
public:
    TraceCapture()
    {
        PluginAdapter::setTraceSink([this](std::string const& plugin, std::string const& call) {
            std::lock_guard<std::mutex> lock(mMutex);
            mCalls.push_back(plugin + ":" + call);
        });
    }
    ~TraceCapture() { PluginAdapter::setTraceSink(nullptr); }
    std::vector<std::string> calls()
    {
        std::lock_guard<std::mutex> lock(mMutex);
        return mCalls;
    }
    void clear()
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mCalls.clear();
    }

private:
    std::mutex mMutex;
    std::vector<std::string> mCalls;
};

PluginTensorDesc desc(std::vector<int64_t> const& dims, DataType type = DataType::kFLOAT)
{
    PluginTensorDesc d{};
    d.dims = kiln::test::makeDims(dims);
    d.type = type;
    d.format = TensorFormat::kLINEAR;
    d.scale = -1.0F;
    return d;
}

DynamicPluginTensorDesc dynDesc(std::vector<int64_t> const& dims, DataType type = DataType::kFLOAT)
{
    DynamicPluginTensorDesc d{};
    d.desc = desc(dims, type);
    d.min = d.desc.dims;
    d.opt = d.desc.dims;
    d.max = d.desc.dims;
    return d;
}

std::vector<float> randomFloats(std::mt19937& rng, size_t n)
{
    std::uniform_real_distribution<float> dist(-4.0F, 4.0F);
    std::vector<float> v(n);
    for (auto& x : v)
    {
        x = dist(rng);
        if (x == 0.0F)
        {
            x = 1.0F;
        }
    }
    return v;
}

class PluginAdapterTest : public ::testing::Test
{
protected:
    kiln::test::CapturingLogger mLog;
    Logger mLogger{&mLog};
    std::shared_ptr<Behaviour> mB = std::make_shared<Behaviour>();
    std::mt19937 mRng{std::random_device{}()};
};

// ---------------------------------------------------------------------------------------------------------------
// IPluginV2DynamicExt
// ---------------------------------------------------------------------------------------------------------------

TEST_F(PluginAdapterTest, DynamicExtIdentityAndLabel)
{
    DynPlugin plugin(mB, 2.0F);
    plugin.setPluginNamespace("ns");
    auto adapter = PluginAdapter::wrapV2(&plugin, PluginOwnership::kBORROWED, mLogger);
    ASSERT_TRUE(adapter.isOk()) << adapter.status().message();
    PluginAdapter& a = *adapter.value();
    EXPECT_EQ(a.generation(), PluginGeneration::kV2_DYNAMIC_EXT);
    EXPECT_EQ(a.name(), "Dyn");
    EXPECT_EQ(a.version(), "1");
    EXPECT_EQ(a.pluginNamespace(), "ns");
    a.setLayerName("dyn0");
    EXPECT_EQ(a.label(), "plugin 'Dyn' (version '1', namespace 'ns', IPluginV2DynamicExt) in layer 'dyn0'");
    EXPECT_EQ(a.object(), static_cast<IPluginV2*>(&plugin));
    EXPECT_TRUE(a.supportsCpu());
    mB->cpu = false;
    EXPECT_FALSE(a.supportsCpu());
}

TEST_F(PluginAdapterTest, DynamicExtSymbolicShapesTypesAndFormats)
{
    DynPlugin plugin(mB, 2.0F);
    auto adapter = PluginAdapter::wrapV2(&plugin, PluginOwnership::kBORROWED, mLogger);
    ASSERT_TRUE(adapter.isOk());
    PluginAdapter& a = *adapter.value();
    a.setLayerName("dyn0");

    auto n = a.nbOutputs();
    ASSERT_TRUE(n.isOk());
    EXPECT_EQ(n.value(), 2);
    auto types = a.outputTypes({DataType::kFLOAT, DataType::kFLOAT});
    ASSERT_TRUE(types.isOk()) << types.status().message();
    EXPECT_EQ(types.value(), (std::vector<DataType>{DataType::kFLOAT, DataType::kFLOAT}));

    ShapeGraph graph;
    DimExpr batchA(&graph, graph.symbol(SymbolKind::kINPUT_DIM, "a[0]"));
    DimExpr batchB(&graph, graph.symbol(SymbolKind::kINPUT_DIM, "b[0]"));
    DimExpr k(&graph, graph.constant(5));
    auto shapes = a.outputShapes(graph, {{batchA, k}, {batchB, k}}, {});
    ASSERT_TRUE(shapes.isOk()) << shapes.status().message();
    ASSERT_EQ(shapes.value().outputs.size(), 2U);
    EXPECT_TRUE(shapes.value().sizeTensors.empty());
    // Evaluate with random values of the symbols and compare with the plugin's rule computed here.
    std::uniform_int_distribution<int64_t> dist(1, 50);
    int64_t const va = dist(mRng);
    int64_t const vb = dist(mRng);
    std::vector<int64_t> values;
    ASSERT_TRUE(graph.evaluate({va, vb}, values).isOk());
    auto const& out0 = shapes.value().outputs[0];
    auto const& out1 = shapes.value().outputs[1];
    ASSERT_EQ(out0.size(), 2U);
    EXPECT_EQ(values[static_cast<size_t>(out0[0].id())], va + vb);
    EXPECT_EQ(values[static_cast<size_t>(out0[1].id())], 5);
    EXPECT_EQ(values[static_cast<size_t>(out1[0].id())], va);

    std::vector<PluginTensorDesc> io{desc({-1, 5}), desc({-1, 5}), desc({-1, 5}), desc({-1, 5})};
    for (int32_t pos = 0; pos < 4; ++pos)
    {
        auto ok = a.supportsFormatCombination(pos, io, 2);
        ASSERT_TRUE(ok.isOk());
        EXPECT_TRUE(ok.value());
    }
    io[3].type = DataType::kHALF;
    EXPECT_FALSE(a.supportsFormatCombination(3, io, 2).value());
    auto bad = a.supportsFormatCombination(4, io, 2);
    ASSERT_FALSE(bad.isOk());
    EXPECT_THAT(bad.status().message(), HasSubstr("position 4"));
    EXPECT_EQ(a.formatCombinationLimit(), 100);
}

TEST_F(PluginAdapterTest, DynamicExtLifecycleAndExecution)
{
    TraceCapture trace;
    std::uniform_real_distribution<float> scaleDist(0.5F, 3.0F);
    float const scale = scaleDist(mRng);
    auto* original = new DynPlugin(mB, scale);
    {
        auto adapter = PluginAdapter::wrapV2(original, PluginOwnership::kOWNED, mLogger);
        ASSERT_TRUE(adapter.isOk());
        PluginAdapter& a = *adapter.value();
        a.setLayerName("dyn0");

        std::vector<DynamicPluginTensorDesc> in{dynDesc({3, 4}), dynDesc({2, 4})};
        std::vector<DynamicPluginTensorDesc> out{dynDesc({5, 4}), dynDesc({3, 4})};
        ASSERT_TRUE(a.configure(in, out).isOk());
        EXPECT_EQ(original->configuredInputs(), 2);
        auto ws = a.workspaceSize(in, out);
        ASSERT_TRUE(ws.isOk());
        EXPECT_EQ(ws.value(), 64U);
        EXPECT_TRUE(a.validTactics().value().empty());
        EXPECT_TRUE(a.setTactic(0).isOk());
        EXPECT_FALSE(a.setTactic(3).isOk());
        EXPECT_EQ(a.aliasedInput(0), -1);

        auto bytes = a.serialize();
        ASSERT_TRUE(bytes.isOk());
        ASSERT_EQ(bytes.value().size(), sizeof(float));
        float stored = 0.0F;
        std::memcpy(&stored, bytes.value().data(), sizeof(float));
        EXPECT_EQ(stored, scale);

        ASSERT_TRUE(a.initialize().isOk());
        NullResources resources;
        auto context = a.attachToContext(resources);
        ASSERT_TRUE(context.isOk()) << context.status().message();
        PluginAdapter& c = *context.value();
        EXPECT_NE(c.object(), a.object());
        EXPECT_EQ(c.layerName(), "dyn0");
        ASSERT_TRUE(c.configure(in, out).isOk());
        ASSERT_TRUE(c.onShapeChange({}, {}).isOk());

        auto x = randomFloats(mRng, 12);
        auto y = randomFloats(mRng, 8);
        std::vector<float> out0(20, std::nanf(""));
        std::vector<float> out1(12, std::nanf(""));
        std::vector<uint8_t> workspace(64, 0);
        void const* inputs[] = {x.data(), y.data()};
        void* outputs[] = {out0.data(), out1.data()};
        ASSERT_TRUE(c.enqueue({in[0].desc, in[1].desc}, {out[0].desc, out[1].desc}, inputs, outputs, workspace.data(),
                         nullptr)
                        .isOk());
        for (size_t i = 0; i < 12; ++i)
        {
            EXPECT_EQ(out0[i], x[i] * scale);
            EXPECT_EQ(out1[i], x[i] * scale);
        }
        for (size_t i = 0; i < 8; ++i)
        {
            EXPECT_EQ(out0[12 + i], y[i] * scale);
        }
        EXPECT_EQ(mB->liveObjects.load(), 2);
        context = StatusOr<std::unique_ptr<PluginAdapter>>(internalError("released"));
        EXPECT_EQ(mB->liveObjects.load(), 1);
        EXPECT_TRUE(mB->called("detachFromContext"));
        a.terminate();
    }
    EXPECT_EQ(mB->liveObjects.load(), 0);
    std::vector<std::string> const expected{"Dyn:configurePlugin", "Dyn:getWorkspaceSize", "Dyn:getSerializationSize",
        "Dyn:serialize", "Dyn:initialize", "Dyn:clone", "Dyn:attachToContext", "Dyn:configurePlugin", "Dyn:enqueue",
        "Dyn:detachFromContext", "Dyn:destroy", "Dyn:terminate", "Dyn:destroy"};
    EXPECT_EQ(trace.calls(), expected);
}

//! Keeps every message of every severity.
class AllMessages : public ILogger
{
public:
    void log(Severity, char const* msg) noexcept override
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mMessages.emplace_back(msg);
    }
    std::vector<std::string> messages()
    {
        std::lock_guard<std::mutex> lock(mMutex);
        return mMessages;
    }

private:
    std::mutex mMutex;
    std::vector<std::string> mMessages;
};

TEST_F(PluginAdapterTest, VerboseLogNamesPluginLayerAndCall)
{
    DynPlugin plugin(mB, 1.0F);
    AllMessages log;
    Logger logger(&log);
    auto adapter = PluginAdapter::wrapV2(&plugin, PluginOwnership::kBORROWED, logger);
    ASSERT_TRUE(adapter.isOk());
    adapter.value()->setLayerName("bar");
    ASSERT_TRUE(adapter.value()->nbOutputs().isOk());
    bool found = false;
    for (auto const& m : log.messages())
    {
        found = found || m == "plugin 'Dyn' (version '1', IPluginV2DynamicExt) in layer 'bar': getNbOutputs";
    }
    EXPECT_TRUE(found);
}

// ---------------------------------------------------------------------------------------------------------------
// IPluginV3
// ---------------------------------------------------------------------------------------------------------------

TEST_F(PluginAdapterTest, V3BuildQuestions)
{
    V3Plugin plugin(mB, 2.0F, false);
    plugin.aliasOutput0 = true;
    auto adapter = PluginAdapter::wrapV3(&plugin, PluginOwnership::kBORROWED, TensorRTPhase::kBUILD, mLogger);
    ASSERT_TRUE(adapter.isOk()) << adapter.status().message();
    PluginAdapter& a = *adapter.value();
    a.setLayerName("v3");
    EXPECT_EQ(a.generation(), PluginGeneration::kV3_ONE);
    EXPECT_EQ(a.label(), "plugin 'V3Toy' (version '2', namespace 'test', IPluginV3) in layer 'v3'");
    EXPECT_TRUE(a.supportsCpu());
    EXPECT_EQ(a.nbOutputs().value(), 1);
    EXPECT_EQ(a.outputTypes({DataType::kFLOAT}).value(), std::vector<DataType>{DataType::kFLOAT});

    ShapeGraph graph;
    DimExpr n(&graph, graph.symbol(SymbolKind::kINPUT_DIM, "x[0]"));
    DimExpr k(&graph, graph.constant(7));
    auto shapes = a.outputShapes(graph, {{n, k}}, {});
    ASSERT_TRUE(shapes.isOk()) << shapes.status().message();
    ASSERT_EQ(shapes.value().outputs.size(), 1U);
    EXPECT_EQ(shapes.value().outputs[0][0].id(), n.id());
    EXPECT_TRUE(shapes.value().outputs[0][1].is(7));

    std::vector<DynamicPluginTensorDesc> io{dynDesc({-1, 7}), dynDesc({-1, 7})};
    io[0].max = kiln::test::makeDims({9, 7});
    auto ok = a.supportsFormatCombinationDynamic(0, io, 1);
    ASSERT_TRUE(ok.isOk());
    EXPECT_TRUE(ok.value());
    EXPECT_EQ(plugin.lastMax.d[0], 9);
    EXPECT_TRUE(a.configure({io[0]}, {io[1]}).isOk());
    EXPECT_EQ(a.workspaceSize({io[0]}, {io[1]}).value(), 64U);
    EXPECT_EQ(a.validTactics().value(), (std::vector<int32_t>{1, 2}));
    EXPECT_EQ(a.aliasedInput(0), 0);
    EXPECT_EQ(a.aliasedInput(1), -1);
    EXPECT_EQ(a.timingCacheId(), "v3toy-cache");
    EXPECT_EQ(a.metadata(), "scale=2");
    EXPECT_EQ(a.formatCombinationLimit(), 100);
}

TEST_F(PluginAdapterTest, V3ShapeInputsArePassedAsValueExpressions)
{
    V3Plugin plugin(mB, 1.0F, false);
    auto adapter = PluginAdapter::wrapV3(&plugin, PluginOwnership::kBORROWED, TensorRTPhase::kBUILD, mLogger);
    ASSERT_TRUE(adapter.isOk());
    ShapeGraph graph;
    DimExpr v0(&graph, graph.symbol(SymbolKind::kINPUT_VALUE, "s.value[0]"));
    DimExpr v1(&graph, graph.symbol(SymbolKind::kINPUT_VALUE, "s.value[1]"));
    DimExpr v2(&graph, graph.constant(3));
    DimExpr k(&graph, graph.constant(4));
    auto shapes = adapter.value()->outputShapes(graph, {{k, k}}, {{v0, v1, v2}});
    ASSERT_TRUE(shapes.isOk()) << shapes.status().message();
    EXPECT_EQ(plugin.lastShapeInputs, 3);
    ASSERT_EQ(shapes.value().outputs[0].size(), 3U);
    EXPECT_EQ(shapes.value().outputs[0][0].id(), v0.id());
    EXPECT_EQ(shapes.value().outputs[0][1].id(), v1.id());
    EXPECT_TRUE(shapes.value().outputs[0][2].is(3));
}

TEST_F(PluginAdapterTest, V3SizeTensorDeclaresDataDependentSymbol)
{
    V3Plugin plugin(mB, 1.0F, true);
    auto adapter = PluginAdapter::wrapV3(&plugin, PluginOwnership::kBORROWED, TensorRTPhase::kBUILD, mLogger);
    ASSERT_TRUE(adapter.isOk());
    adapter.value()->setLayerName("nz");
    ShapeGraph graph;
    DimExpr n(&graph, graph.symbol(SymbolKind::kINPUT_DIM, "x[0]"));
    DimExpr k(&graph, graph.constant(6));
    auto shapes = adapter.value()->outputShapes(graph, {{n, k}}, {});
    ASSERT_TRUE(shapes.isOk()) << shapes.status().message();
    ASSERT_EQ(shapes.value().sizeTensors.size(), 1U);
    PluginSizeTensor const& t = shapes.value().sizeTensors[0];
    EXPECT_EQ(t.output, 0);
    EXPECT_TRUE(shapes.value().outputs[0].empty());
    ASSERT_EQ(shapes.value().outputs[1].size(), 1U);
    EXPECT_EQ(shapes.value().outputs[1][0].id(), t.symbol);
    auto const symbol = static_cast<size_t>(graph.node(t.symbol).value);
    SymbolInfo const& info = graph.symbols()[symbol];
    EXPECT_EQ(info.kind, SymbolKind::kDATA_DEPENDENT);
    EXPECT_EQ(info.name, "nz.0.size");
    EXPECT_EQ(info.upper, t.upper);
    EXPECT_EQ(info.opt, t.opt);
    // upper = n * 6, opt = n * 6 / 2 for a random n (the data-dependent symbol gets an arbitrary value).
    std::uniform_int_distribution<int64_t> dist(1, 40);
    int64_t const vn = dist(mRng);
    std::vector<int64_t> values;
    ASSERT_TRUE(graph.evaluate({vn, 1}, values).isOk());
    EXPECT_EQ(values[static_cast<size_t>(t.upper)], vn * 6);
    EXPECT_EQ(values[static_cast<size_t>(t.opt)], vn * 6 / 2);
}

TEST_F(PluginAdapterTest, V3SerializeDeserializeAttachAndRun)
{
    TraceCapture trace;
    std::uniform_real_distribution<float> scaleDist(0.5F, 3.0F);
    float const scale = scaleDist(mRng);
    V3Creator creator(mB);
    auto registry = createLocalRegistry(&globalPluginRegistry(), &mLog, "the test's plugin registry");
    ASSERT_TRUE(registry->registerCreator(creator, "test"));

    std::string data;
    {
        V3Plugin plugin(mB, scale, false);
        auto adapter = PluginAdapter::wrapV3(&plugin, PluginOwnership::kBORROWED, TensorRTPhase::kBUILD, mLogger);
        ASSERT_TRUE(adapter.isOk());
        auto bytes = adapter.value()->serialize();
        ASSERT_TRUE(bytes.isOk()) << bytes.status().message();
        data = bytes.value();
    }
    PluginRecord record{"V3Toy", "2", "test", PluginGeneration::kV3_ONE, data, 2, {-1}};
    auto engineObject = deserializePlugin(*registry, record, "v3", mLogger);
    ASSERT_TRUE(engineObject.isOk()) << engineObject.status().message();
    PluginAdapter& e = *engineObject.value();
    EXPECT_EQ(e.layerName(), "v3");
    EXPECT_TRUE(mB->called("creator.createPlugin(kRUNTIME)"));
    ASSERT_TRUE(e.setTactic(record.tactic).isOk());
    NullResources resources;
    auto context = e.attachToContext(resources);
    ASSERT_TRUE(context.isOk()) << context.status().message();
    PluginAdapter& c = *context.value();
    auto x = randomFloats(mRng, 15);
    std::vector<float> y(15, std::nanf(""));
    std::vector<PluginTensorDesc> in{desc({3, 5})};
    std::vector<PluginTensorDesc> out{desc({3, 5})};
    ASSERT_TRUE(c.onShapeChange(in, out).isOk());
    void const* inputs[] = {x.data()};
    void* outputs[] = {y.data()};
    ASSERT_TRUE(c.enqueue(in, out, inputs, outputs, nullptr, nullptr).isOk());
    for (size_t i = 0; i < x.size(); ++i)
    {
        EXPECT_EQ(y[i], x[i] * scale + 2.0F) << i; // the clone keeps tactic 2
    }
    // The runtime-phase object has no build capability.
    auto nb = e.nbOutputs();
    ASSERT_FALSE(nb.isOk());
    EXPECT_THAT(nb.status().message(), HasSubstr("runtime phase"));

    context = StatusOr<std::unique_ptr<PluginAdapter>>(internalError("released"));
    engineObject = StatusOr<std::unique_ptr<PluginAdapter>>(internalError("released"));
    EXPECT_EQ(mB->liveObjects.load(), 0);
    std::vector<std::string> const expected{"V3Toy:getFieldsToSerialize", "V3Toy:setTactic", "V3Toy:attachToContext",
        "V3Toy:onShapeChange", "V3Toy:enqueue", "V3Toy:destroy", "V3Toy:destroy"};
    EXPECT_EQ(trace.calls(), expected);
}

} // namespace

KILN_IGNORE_DEPRECATED_END
