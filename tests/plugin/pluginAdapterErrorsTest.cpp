// Error paths of the PluginAdapter: plugins that throw (also through their noexcept methods), return error codes,
// return nullptr from clone, or answer with bad counts, shapes, types, sizes, tactics or capabilities. Every
// failure must be a Status whose message names the plugin, its layer and the call, and the process (and the
// plugin) must keep working afterwards.
#include "common/networkRunner.h"
#include "plugin/pluginAdapter.h"
#include "plugin/pluginAdapterTestPlugins.h"
#include "plugin/pluginCallGuard.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{
using namespace nvinfer1;
using namespace kiln;
using namespace kiln::adapter_test;
using ::testing::HasSubstr;

PluginTensorDesc desc(std::vector<int64_t> const& dims, DataType type = DataType::kFLOAT)
{
    PluginTensorDesc d{};
    d.dims = kiln::test::makeDims(dims);
    d.type = type;
    d.format = TensorFormat::kLINEAR;
    d.scale = -1.0F;
    return d;
}

DynamicPluginTensorDesc dynDesc(std::vector<int64_t> const& dims)
{
    PluginTensorDesc d = desc(dims);
    return DynamicPluginTensorDesc{d, d.dims, d.dims, d.dims};
}

class PluginAdapterErrorsTest : public ::testing::Test
{
protected:
    kiln::test::CapturingLogger mLog;
    Logger mLogger{&mLog};
    std::shared_ptr<Behaviour> mB = std::make_shared<Behaviour>();

    std::unique_ptr<PluginAdapter> wrapDyn(DynPlugin& p)
    {
        auto a = PluginAdapter::wrapV2(&p, PluginOwnership::kBORROWED, mLogger);
        EXPECT_TRUE(a.isOk());
        a.value()->setLayerName("dyn0");
        return std::move(a.value());
    }
    std::unique_ptr<PluginAdapter> wrapV3(V3Plugin& p)
    {
        auto a = PluginAdapter::wrapV3(&p, PluginOwnership::kBORROWED, TensorRTPhase::kBUILD, mLogger);
        EXPECT_TRUE(a.isOk()) << a.status().message();
        a.value()->setLayerName("v3");
        return std::move(a.value());
    }
    //! Run the DynPlugin's enqueue on a small random problem.
    Status runDyn(PluginAdapter& a)
    {
        std::vector<float> x{1.5F, -2.0F}, y{3.0F, 0.25F};
        std::vector<float> out0(4, std::nanf("")), out1(2, std::nanf(""));
        std::vector<uint8_t> ws(mB->workspace);
        void const* inputs[] = {x.data(), y.data()};
        void* outputs[] = {out0.data(), out1.data()};
        Status st = a.enqueue({desc({1, 2}), desc({1, 2})}, {desc({2, 2}), desc({1, 2})}, inputs, outputs, ws.data(),
            nullptr);
        if (st.isOk())
        {
            EXPECT_EQ(out0[3], 0.25F * static_cast<DynPlugin*>(static_cast<IPluginV2*>(a.object()))->scale());
        }
        return st;
    }
};

void expectNames(Status const& st, std::vector<std::string> const& parts)
{
    ASSERT_FALSE(st.isOk());
    for (auto const& p : parts)
    {
        EXPECT_THAT(st.message(), HasSubstr(p));
    }
}

// ---- Exceptions ------------------------------------------------------------------------------------------------

TEST_F(PluginAdapterErrorsTest, ThrowThroughNoexceptEnqueueIsAnErrorAndTheProcessSurvives)
{
    DynPlugin plugin(mB, 2.0F);
    auto a = wrapDyn(plugin);
    mB->throwIn = "enqueue";
    Status st = runDyn(*a);
    expectNames(st, {"plugin 'Dyn'", "layer 'dyn0'", "threw from enqueue", "boom in enqueue",
                        "crossed a noexcept boundary"});
    EXPECT_FALSE(insideGuardedPluginCall());
    // Again, then without the fault: the plugin keeps working.
    EXPECT_FALSE(runDyn(*a).isOk());
    mB->throwIn.clear();
    EXPECT_TRUE(runDyn(*a).isOk());
}

TEST_F(PluginAdapterErrorsTest, ThrowOfNonStdExceptionThroughNoexcept)
{
    DynPlugin plugin(mB, 2.0F);
    auto a = wrapDyn(plugin);
    mB->throwUnknownIn = "configurePlugin";
    Status st = a->configure({dynDesc({1, 2}), dynDesc({1, 2})}, {dynDesc({2, 2}), dynDesc({1, 2})});
    expectNames(st, {"plugin 'Dyn'", "threw from configurePlugin", "not a std::exception"});
    mB->throwUnknownIn.clear();
    EXPECT_TRUE(a->configure({dynDesc({1, 2}), dynDesc({1, 2})}, {dynDesc({2, 2}), dynDesc({1, 2})}).isOk());
}

TEST_F(PluginAdapterErrorsTest, ThrowFromGetOutputDimensionsAndClone)
{
    DynPlugin plugin(mB, 2.0F);
    auto a = wrapDyn(plugin);
    ShapeGraph graph;
    DimExpr k(&graph, graph.constant(3));
    mB->throwIn = "getOutputDimensions";
    expectNames(a->outputShapes(graph, {{k, k}, {k, k}}, {}).status(),
        {"plugin 'Dyn'", "threw from getOutputDimensions", "boom in getOutputDimensions"});
    mB->throwIn = "clone";
    expectNames(a->clone().status(), {"plugin 'Dyn'", "layer 'dyn0'", "threw from clone"});
    mB->throwIn.clear();
    EXPECT_TRUE(a->outputShapes(graph, {{k, k}, {k, k}}, {}).isOk());
    auto copy = a->clone();
    ASSERT_TRUE(copy.isOk());
    EXPECT_EQ(copy.value()->layerName(), "dyn0");
}

TEST_F(PluginAdapterErrorsTest, ThrowsOnManyThreadsAtOnce)
{
    mB->throwIn = "enqueue";
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int t = 0; t < 4; ++t)
    {
        threads.emplace_back([&] {
            DynPlugin plugin(mB, 1.0F);
            auto a = PluginAdapter::wrapV2(&plugin, PluginOwnership::kBORROWED, mLogger);
            for (int i = 0; i < 20; ++i)
            {
                std::vector<float> x{1.0F, 2.0F}, y{3.0F, 4.0F}, o0(4), o1(2);
                std::vector<uint8_t> ws(mB->workspace);
                void const* in[] = {x.data(), y.data()};
                void* out[] = {o0.data(), o1.data()};
                Status st = a.value()->enqueue({desc({1, 2}), desc({1, 2})}, {desc({2, 2}), desc({1, 2})}, in, out,
                    ws.data(), nullptr);
                if (!st.isOk() && st.message().find("boom in enqueue") != std::string::npos)
                {
                    ++failures;
                }
            }
        });
    }
    for (auto& t : threads)
    {
        t.join();
    }
    EXPECT_EQ(failures.load(), 80);
}

TEST_F(PluginAdapterErrorsTest, GuardCatchesOrdinaryExceptionsAndNests)
{
    std::string const who = "plugin 'X'";
    Status st = guardedCallNamed(who, "outer", [&]() -> Status {
        EXPECT_TRUE(insideGuardedPluginCall());
        Status inner = guardedCallNamed(who, "inner", [] { throw std::logic_error("inner failure"); });
        EXPECT_THAT(inner.message(), HasSubstr("plugin 'X' threw from inner: inner failure"));
        EXPECT_TRUE(insideGuardedPluginCall());
        return Status::ok();
    });
    EXPECT_TRUE(st.isOk());
    EXPECT_FALSE(insideGuardedPluginCall());
    // A guard used while the caller is handling an exception of its own leaves that exception alone.
    try
    {
        throw std::runtime_error("caller's own");
    }
    catch (std::exception const& e)
    {
        DynPlugin plugin(mB, 1.0F);
        auto a = wrapDyn(plugin);
        mB->throwIn = "enqueue";
        EXPECT_FALSE(runDyn(*a).isOk());
        EXPECT_STREQ(e.what(), "caller's own");
    }
}

// ---- Return codes and nullptr ------------------------------------------------------------------------------------

TEST_F(PluginAdapterErrorsTest, NonZeroReturnCodesNamePluginCallAndCode)
{
    DynPlugin plugin(mB, 2.0F);
    auto a = wrapDyn(plugin);
    mB->returnCode["enqueue"] = 7;
    expectNames(runDyn(*a), {"plugin 'Dyn'", "layer 'dyn0'", "enqueue returned error code 7"});
    mB->returnCode["initialize"] = -3;
    expectNames(a->initialize(), {"plugin 'Dyn'", "initialize returned error code -3"});

    V3Plugin v3(mB, 1.0F, false);
    auto b = wrapV3(v3);
    for (char const* call : {"configurePlugin", "getOutputDataTypes", "getOutputShapes", "onShapeChange", "setTactic",
             "getValidTactics", "enqueue"})
    {
        mB->returnCode.clear();
        mB->returnCode[call] = 5;
        Status st;
        std::string c = call;
        ShapeGraph graph;
        DimExpr k(&graph, graph.constant(2));
        if (c == "configurePlugin")
        {
            st = b->configure({dynDesc({2, 2})}, {dynDesc({2, 2})});
        }
        else if (c == "getOutputDataTypes")
        {
            st = b->outputTypes({DataType::kFLOAT}).status();
        }
        else if (c == "getOutputShapes")
        {
            st = b->outputShapes(graph, {{k, k}}, {}).status();
        }
        else if (c == "onShapeChange")
        {
            st = b->onShapeChange({desc({2, 2})}, {desc({2, 2})});
        }
        else if (c == "setTactic")
        {
            st = b->setTactic(1);
        }
        else if (c == "getValidTactics")
        {
            st = b->validTactics().status();
        }
        else
        {
            std::vector<float> x(4, 1.0F), y(4);
            void const* in[] = {x.data()};
            void* out[] = {y.data()};
            st = b->enqueue({desc({2, 2})}, {desc({2, 2})}, in, out, nullptr, nullptr);
        }
        expectNames(st, {"plugin 'V3Toy'", "layer 'v3'", c + " returned error code 5"});
    }
}

TEST_F(PluginAdapterErrorsTest, CloneReturningNullIsAnError)
{
    DynPlugin plugin(mB, 2.0F);
    auto a = wrapDyn(plugin);
    mB->cloneReturnsNull = true;
    expectNames(a->clone().status(), {"plugin 'Dyn'", "clone returned nullptr"});
    class R : public IPluginResourceContext
    {
    public:
        IGpuAllocator* getGpuAllocator() const noexcept override { return nullptr; }
        IErrorRecorder* getErrorRecorder() const noexcept override { return nullptr; }
    } resources;
    expectNames(a->attachToContext(resources).status(), {"clone returned nullptr"});

    V3Plugin v3(mB, 1.0F, false);
    auto b = wrapV3(v3);
    expectNames(b->clone().status(), {"plugin 'V3Toy'", "clone returned nullptr"});
    expectNames(b->attachToContext(resources).status(), {"plugin 'V3Toy'", "attachToContext returned nullptr"});
}

// ---- Bad answers -------------------------------------------------------------------------------------------------

TEST_F(PluginAdapterErrorsTest, BadOutputCountsDimsTypesAndWorkspace)
{
    DynPlugin plugin(mB, 2.0F);
    auto a = wrapDyn(plugin);
    ShapeGraph graph;
    DimExpr k(&graph, graph.constant(3));

    mB->nbOutputs = 0;
    expectNames(a->nbOutputs().status(), {"plugin 'Dyn'", "getNbOutputs returned 0"});
    mB->nbOutputs = -100;

    mB->outputNbDims = 9;
    expectNames(a->outputShapes(graph, {{k, k}, {k, k}}, {}).status(),
        {"plugin 'Dyn'", "getOutputDimensions(0)", "nbDims 9"});
    mB->outputNbDims = -1;
    expectNames(a->outputShapes(graph, {{k, k}, {k, k}}, {}).status(), {"nbDims -1"});
    mB->outputNbDims = -100;

    mB->negativeExtent = -4;
    expectNames(a->outputShapes(graph, {{k, k}, {k, k}}, {}).status(), {"plugin 'Dyn'", "negative (-4)"});
    mB->negativeExtent = 0;

    mB->badType = 99;
    expectNames(a->outputTypes({DataType::kFLOAT, DataType::kFLOAT}).status(),
        {"plugin 'Dyn'", "getOutputDataType", "output 0", "value 99"});
    mB->badType = -100;

    mB->workspace = (size_t{1} << 40) + 1;
    expectNames(a->workspaceSize({dynDesc({1, 2}), dynDesc({1, 2})}, {dynDesc({2, 2}), dynDesc({1, 2})}).status(),
        {"plugin 'Dyn'", "getWorkspaceSize returned 1099511627777"});
    mB->workspace = 64;

    V3Plugin v3(mB, 1.0F, false);
    auto b = wrapV3(v3);
    mB->badType = 12;
    expectNames(b->outputTypes({DataType::kFLOAT}).status(), {"plugin 'V3Toy'", "getOutputDataTypes", "value 12"});
    mB->badType = -100;
    mB->nbOutputs = -2;
    expectNames(b->nbOutputs().status(), {"plugin 'V3Toy'", "getNbOutputs returned -2"});
}

TEST_F(PluginAdapterErrorsTest, V3OutputRankOutOfRange)
{
    V3Plugin v3(mB, 1.0F, false);
    auto b = wrapV3(v3);
    ShapeGraph graph;
    DimExpr k(&graph, graph.constant(3));
    mB->outputNbDims = 9;
    expectNames(b->outputShapes(graph, {{k, k}}, {}).status(), {"plugin 'V3Toy'", "output 0", "nbDims 9"});
    mB->outputNbDims = -100;
}

TEST_F(PluginAdapterErrorsTest, ForeignExpressionsAreRejected)
{
    V3Plugin v3(mB, 1.0F, false);
    auto b = wrapV3(v3);
    ShapeGraph graph;
    DimExpr k(&graph, graph.constant(3));
    // A pointer that no builder of this call created (it is never dereferenced).
    static int fake[16];
    v3.useForeignExpr = reinterpret_cast<nvinfer1::IDimensionExpr const*>(fake);
    expectNames(b->outputShapes(graph, {{k, k}}, {}).status(),
        {"plugin 'V3Toy'", "output 0 extent 0", "not created by the IExprBuilder"});
}

TEST_F(PluginAdapterErrorsTest, SizeTensorMisuse)
{
    ShapeGraph graph;
    DimExpr n(&graph, graph.symbol(SymbolKind::kINPUT_DIM, "x[0]"));
    DimExpr k(&graph, graph.constant(3));
    {
        V3Plugin v3(mB, 1.0F, true);
        v3.sizeTensorOutput = 2; // the plugin has 2 outputs
        auto b = wrapV3(v3);
        expectNames(b->outputShapes(graph, {{n, k}}, {}).status(),
            {"plugin 'V3Toy'", "declareSizeTensor(2)", "has 2 output(s)"});
    }
    {
        V3Plugin v3(mB, 1.0F, true);
        v3.sizeTensorRank = 1; // a size tensor must be 0-D
        auto b = wrapV3(v3);
        expectNames(b->outputShapes(graph, {{n, k}}, {}).status(),
            {"plugin 'V3Toy'", "output 0 was declared a size tensor", "must be 0-D"});
    }
    {
        // IPluginV2DynamicExt cannot declare size tensors.
        class DynSize : public DynPlugin
        {
        public:
            using DynPlugin::DynPlugin;
            nvinfer1::DimsExprs getOutputDimensions(int32_t o, nvinfer1::DimsExprs const* in, int32_t nb,
                nvinfer1::IExprBuilder& b) noexcept override
            {
                nvinfer1::DimsExprs out = DynPlugin::getOutputDimensions(o, in, nb, b);
                if (o == 1)
                {
                    out.d[0] = b.declareSizeTensor(0, *b.constant(1), *b.constant(4));
                }
                return out;
            }
        };
        DynSize dyn(mB, 1.0F);
        auto a = wrapDyn(dyn);
        expectNames(a->outputShapes(graph, {{n, k}, {n, k}}, {}).status(),
            {"plugin 'Dyn'", "getOutputDimensions(1)", "need an IPluginV3 plugin"});
    }
}

TEST_F(PluginAdapterErrorsTest, BadTacticsAndFields)
{
    V3Plugin v3(mB, 1.0F, false);
    auto b = wrapV3(v3);
    v3.tacticList = {3, 3};
    expectNames(b->validTactics().status(), {"plugin 'V3Toy'", "tactic 3 twice"});
    v3.tacticList = {0, 4};
    expectNames(b->validTactics().status(), {"tactic 0", "reserved"});
    v3.tacticList = {};
    EXPECT_TRUE(b->validTactics().value().empty());
    v3.nullFields = true;
    expectNames(b->serialize().status(), {"plugin 'V3Toy'", "getFieldsToSerialize returned nullptr"});
}

TEST_F(PluginAdapterErrorsTest, MissingCapabilitiesNameTheCapability)
{
    {
        V3Plugin v3(mB, 1.0F, false);
        v3.missing = PluginCapabilityType::kBUILD;
        auto a = PluginAdapter::wrapV3(&v3, PluginOwnership::kBORROWED, TensorRTPhase::kBUILD, mLogger);
        expectNames(a.status(), {"getCapabilityInterface(kBUILD) returned nullptr", "PLUGIN_V3ONE_BUILD"});
        // The runtime phase does not need it.
        EXPECT_TRUE(PluginAdapter::wrapV3(&v3, PluginOwnership::kBORROWED, TensorRTPhase::kRUNTIME, mLogger).isOk());
    }
    {
        V3Plugin v3(mB, 1.0F, false);
        v3.missing = PluginCapabilityType::kRUNTIME;
        auto a = PluginAdapter::wrapV3(&v3, PluginOwnership::kBORROWED, TensorRTPhase::kRUNTIME, mLogger);
        expectNames(a.status(), {"getCapabilityInterface(kRUNTIME) returned nullptr"});
    }
    {
        // An owned object whose wrapping fails is deleted.
        auto* v3 = new V3Plugin(mB, 1.0F, false);
        v3->missing = PluginCapabilityType::kCORE;
        int32_t const before = mB->liveObjects.load();
        auto a = PluginAdapter::wrapV3(v3, PluginOwnership::kOWNED, TensorRTPhase::kBUILD, mLogger);
        expectNames(a.status(), {"getCapabilityInterface(kCORE) returned nullptr"});
        EXPECT_EQ(mB->liveObjects.load(), before - 1);
    }
    expectNames(PluginAdapter::wrapV3(nullptr, PluginOwnership::kBORROWED, TensorRTPhase::kBUILD, mLogger).status(),
        {"null"});
}

TEST_F(PluginAdapterErrorsTest, WrongCapabilityKind)
{
    class Swapped : public V3Plugin
    {
    public:
        using V3Plugin::V3Plugin;
        IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override
        {
            // Hands the runtime capability out as the build one.
            return V3Plugin::getCapabilityInterface(
                type == PluginCapabilityType::kBUILD ? PluginCapabilityType::kRUNTIME : type);
        }
    };
    Swapped v3(mB, 1.0F, false);
    auto a = PluginAdapter::wrapV3(&v3, PluginOwnership::kBORROWED, TensorRTPhase::kBUILD, mLogger);
    expectNames(a.status(), {"kind 'PLUGIN_V3ONE_RUNTIME'", "expected 'PLUGIN_V3ONE_BUILD'"});
}

TEST_F(PluginAdapterErrorsTest, AbsurdSizesTacticCountsAndLimits)
{
    class HugeSerialization : public DynPlugin
    {
    public:
        using DynPlugin::DynPlugin;
        size_t getSerializationSize() const noexcept override { return (size_t{1} << 31) + 5; }
    };
    HugeSerialization huge(mB, 1.0F);
    auto a = wrapDyn(huge);
    expectNames(a->serialize().status(), {"plugin 'Dyn'", "getSerializationSize returned 2147483653"});
    expectNames(a->setTactic(4), {"plugin 'Dyn'", "tactic 4", "only have the default tactic 0"});

    class ManyTactics : public V3Plugin
    {
    public:
        using V3Plugin::V3Plugin;
        int32_t getNbTactics() noexcept override { return -3; }
        int32_t getFormatCombinationLimit() noexcept override { return 0; }
    };
    ManyTactics many(mB, 1.0F, false);
    auto b = wrapV3(many);
    expectNames(b->validTactics().status(), {"plugin 'V3Toy'", "getNbTactics returned -3"});
    EXPECT_EQ(b->formatCombinationLimit(), 100);
}

TEST_F(PluginAdapterErrorsTest, ThrowingTeardownIsLoggedNotFatal)
{
    auto* plugin = new DynPlugin(mB, 1.0F);
    {
        auto a = PluginAdapter::wrapV2(plugin, PluginOwnership::kOWNED, mLogger);
        ASSERT_TRUE(a.isOk());
        a.value()->setLayerName("dyn0");
        ASSERT_TRUE(a.value()->initialize().isOk());
        mB->throwIn = "terminate";
    }
    EXPECT_TRUE(mLog.hasError("plugin 'Dyn' (version '1', IPluginV2DynamicExt) in layer 'dyn0' threw from terminate"));
    EXPECT_TRUE(mB->called("destroy"));
    EXPECT_EQ(mB->liveObjects.load(), 0);
}

TEST_F(PluginAdapterErrorsTest, StaticShapeAnswersAreChecked)
{
    // IPluginV2IOExt returning a bad rank and a negative extent from getOutputDimensions(Dims).
    struct Io : public IPluginV2IOExt
    {
        Dims answer{};
        char const* getPluginType() const noexcept override { return "IoBad"; }
        char const* getPluginVersion() const noexcept override { return "1"; }
        int32_t getNbOutputs() const noexcept override { return 1; }
        Dims getOutputDimensions(int32_t, Dims const*, int32_t) noexcept override { return answer; }
        int32_t initialize() noexcept override { return 0; }
        void terminate() noexcept override {}
        size_t getWorkspaceSize(int32_t) const noexcept override { return 0; }
        int32_t enqueue(int32_t, void const* const*, void* const*, void*, cudaStream_t) noexcept override { return 0; }
        size_t getSerializationSize() const noexcept override { return 0; }
        void serialize(void*) const noexcept override {}
        void destroy() noexcept override {}
        IPluginV2IOExt* clone() const noexcept override { return nullptr; }
        void setPluginNamespace(char const*) noexcept override {}
        char const* getPluginNamespace() const noexcept override { return ""; }
        DataType getOutputDataType(int32_t, DataType const*, int32_t) const noexcept override { return DataType::kFLOAT; }
        bool isOutputBroadcastAcrossBatch(int32_t, bool const*, int32_t) const noexcept override { return false; }
        bool canBroadcastInputAcrossBatch(int32_t) const noexcept override { return false; }
        void configurePlugin(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) noexcept override {}
        bool supportsFormatCombination(int32_t, PluginTensorDesc const*, int32_t, int32_t) const noexcept override
        {
            return true;
        }
    } io;
    auto a = PluginAdapter::wrapV2(&io, PluginOwnership::kBORROWED, mLogger);
    ASSERT_TRUE(a.isOk());
    a.value()->setLayerName("io");
    ShapeGraph graph;
    DimExpr k(&graph, graph.constant(2));
    io.answer = kiln::test::makeDims({2, 3});
    io.answer.nbDims = 9;
    expectNames(a.value()->outputShapes(graph, {{k}}, {}).status(),
        {"plugin 'IoBad'", "layer 'io'", "getOutputDimensions(0) returned nbDims 9"});
    io.answer = kiln::test::makeDims({2, -1});
    expectNames(a.value()->outputShapes(graph, {{k}}, {}).status(),
        {"getOutputDimensions(0) returned the negative extent -1 in dimension 1"});
    io.answer = kiln::test::makeDims({2, 3});
    auto ok = a.value()->outputShapes(graph, {{k}}, {});
    ASSERT_TRUE(ok.isOk());
    EXPECT_TRUE(ok.value().outputs[0][1].is(3));
}

} // namespace

KILN_IGNORE_DEPRECATED_END
