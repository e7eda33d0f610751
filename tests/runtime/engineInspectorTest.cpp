// Tests of IEngineInspector: TensorRT's JSON/one-line layout, the detail allowed by each ProfilingVerbosity,
// tactic names, and concrete dimensions once an execution context is attached.
#include "runtimeTestPlans.h"

#include <gtest/gtest.h>

namespace kiln::test
{
namespace
{

using namespace nvinfer1;

bool contains(char const* text, std::string const& what)
{
    return text != nullptr && std::string(text).find(what) != std::string::npos;
}

TEST(EngineInspectorTest, DetailedJsonNamesLayersAndTactics)
{
    Plan plan = makeChainPlan();
    plan.nodes[0].tactic = "fast-copy";
    plan.nodes[0].attrs.setInt("answer", 42);
    LoadedEngine l(plan);
    std::unique_ptr<IEngineInspector> inspector(l.engine->createEngineInspector());
    ASSERT_NE(inspector, nullptr);
    char const* info = inspector->getEngineInformation(LayerInformationFormat::kJSON);
    ASSERT_NE(info, nullptr);
    std::string const text(info);
    EXPECT_TRUE(contains(info, "\"Layers\"")) << text;
    EXPECT_TRUE(contains(info, "\"Bindings\"")) << text;
    EXPECT_TRUE(contains(info, "\"Name\": \"first\"")) << text;
    EXPECT_TRUE(contains(info, "\"Name\": \"second\"")) << text;
    EXPECT_TRUE(contains(info, "\"TacticName\": \"fast-copy\"")) << text;
    EXPECT_TRUE(contains(info, "\"TacticName\": \"reference\"")) << text;
    EXPECT_TRUE(contains(info, "\"LayerType\": \"Identity\"")) << text;
    EXPECT_TRUE(contains(info, "\"answer\":42")) << text;
    EXPECT_TRUE(contains(info, "\"Dimensions\": [-1,4]")) << text;
    EXPECT_TRUE(contains(info, "\"Format/Datatype\": \"Row major linear FP32\"")) << text;
    EXPECT_TRUE(contains(info, "\"Metadata\": \"meta:first\"")) << text;

    char const* layer = inspector->getLayerInformation(1, LayerInformationFormat::kJSON);
    EXPECT_TRUE(contains(layer, "\"Name\": \"second\"")) << layer;
    char const* line = inspector->getLayerInformation(0, LayerInformationFormat::kONELINE);
    EXPECT_TRUE(contains(line, "Name: first")) << line;
    EXPECT_TRUE(contains(line, "TacticName: fast-copy")) << line;
    EXPECT_FALSE(contains(line, "\"")) << line;
    EXPECT_EQ(inspector->getLayerInformation(2, LayerInformationFormat::kJSON), nullptr);
    EXPECT_TRUE(l.logger.hasError("layer index 2"));
}

TEST(EngineInspectorTest, ContextGivesConcreteDimensions)
{
    LoadedEngine l(makeChainPlan());
    std::unique_ptr<IExecutionContext> ctx(l.engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr);
    ASSERT_TRUE(ctx->setInputShape("x", dimsOf({5, 4})));
    std::unique_ptr<IEngineInspector> inspector(l.engine->createEngineInspector());
    EXPECT_TRUE(inspector->setExecutionContext(ctx.get()));
    EXPECT_EQ(inspector->getExecutionContext(), ctx.get());
    char const* info = inspector->getLayerInformation(0, LayerInformationFormat::kJSON);
    EXPECT_TRUE(contains(info, "\"Dimensions\": [5,4]")) << info;

    LoadedEngine other(makeChainPlan());
    std::unique_ptr<IExecutionContext> foreign(other.engine->createExecutionContext());
    EXPECT_FALSE(inspector->setExecutionContext(foreign.get()));
    EXPECT_TRUE(inspector->setExecutionContext(nullptr));
}

TEST(EngineInspectorTest, VerbosityLimitsDetail)
{
    Plan plan = makeChainPlan();
    plan.profilingVerbosity = ProfilingVerbosity::kLAYER_NAMES_ONLY;
    LoadedEngine names(plan);
    std::unique_ptr<IEngineInspector> inspector(names.engine->createEngineInspector());
    char const* info = inspector->getEngineInformation(LayerInformationFormat::kJSON);
    EXPECT_TRUE(contains(info, "\"first\"")) << info;
    EXPECT_FALSE(contains(info, "TacticName")) << info;
    EXPECT_STREQ(inspector->getLayerInformation(1, LayerInformationFormat::kONELINE), "second");

    plan.profilingVerbosity = ProfilingVerbosity::kNONE;
    LoadedEngine none(plan);
    std::unique_ptr<IEngineInspector> quiet(none.engine->createEngineInspector());
    char const* nothing = quiet->getEngineInformation(LayerInformationFormat::kJSON);
    EXPECT_FALSE(contains(nothing, "first")) << nothing;
    EXPECT_TRUE(contains(nothing, "\"x\"")) << nothing; // bindings are still listed

    // Profilers see layer indices when names are not kept.
    std::unique_ptr<IExecutionContext> ctx(none.engine->createExecutionContext());
    CountingProfiler profiler;
    ctx->setProfiler(&profiler);
    std::vector<float> x(4, 1.0F), y(4);
    ASSERT_TRUE(ctx->setInputShape("x", dimsOf({1, 4})));
    void* bindings[2] = {x.data(), y.data()};
    ASSERT_TRUE(ctx->executeV2(bindings));
    ASSERT_EQ(profiler.names.size(), 2U);
    EXPECT_EQ(profiler.names[0], "0");
    EXPECT_EQ(profiler.names[1], "1");
}

} // namespace
} // namespace kiln::test
