// pluginOutputCountTest.cpp — issue 17, item 2: an engine's recorded output count of an IPluginV3 layer is checked
// at load against the plugin. A V3 object created for the runtime phase need not answer getNbOutputs (it belongs to
// the build capability), so Kiln asks through getCapabilityInterface(kBUILD) when the object gives a valid build
// interface, and skips the check (the plugin still gets the recorded counts in onShapeChange) when it does not.
#include "common/networkRunner.h"
#include "engine/engineReader.h"
#include "plugin/pluginAdapterTestPlugins.h"
#include "plugin/pluginAdapterV3.h"
#include "plugin/samplePluginsTestUtils.h"
#include "runtime/enginePlugins.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::PluginCapabilityType;
using nvinfer1::TensorRTPhase;

std::unique_ptr<PluginAdapterV3> wrapRuntime(nvinfer1::IPluginV3& plugin, Logger const& logger)
{
    auto adapter = PluginAdapter::wrapV3(&plugin, PluginOwnership::kBORROWED, TensorRTPhase::kRUNTIME, logger);
    EXPECT_TRUE(adapter.isOk()) << adapter.status().message();
    if (!adapter.isOk())
    {
        return nullptr;
    }
    return std::unique_ptr<PluginAdapterV3>(static_cast<PluginAdapterV3*>(std::move(adapter).value().release()));
}

TEST(PluginOutputCount, RuntimeObjectIsAskedThroughItsBuildCapabilityWhenItHasOne)
{
    test::CapturingLogger log;
    Logger const logger(&log);
    auto behaviour = std::make_shared<adapter_test::Behaviour>();
    for (bool const nonzero : {false, true})
    {
        adapter_test::V3Plugin plugin(behaviour, 1.5F, nonzero);
        auto adapter = wrapRuntime(plugin, logger);
        ASSERT_NE(adapter, nullptr);
        EXPECT_EQ(adapter->build(), nullptr) << "a runtime-phase adapter holds no build capability";
        auto const n = adapter->nbOutputsIfKnown();
        ASSERT_TRUE(n.isOk()) << n.status().message();
        ASSERT_TRUE(n.value().has_value());
        EXPECT_EQ(*n.value(), nonzero ? 2 : 1);
    }
    // An absurd answer is refused as at build time.
    behaviour->nbOutputs = -3;
    adapter_test::V3Plugin bad(behaviour, 1.5F, false);
    auto adapter = wrapRuntime(bad, logger);
    ASSERT_NE(adapter, nullptr);
    auto const n = adapter->nbOutputsIfKnown();
    ASSERT_FALSE(n.isOk());
    EXPECT_NE(n.status().message().find("getNbOutputs returned -3"), std::string::npos) << n.status().message();
}

TEST(PluginOutputCount, RuntimeObjectWithoutAValidBuildCapabilityIsNotAsked)
{
    test::CapturingLogger log;
    Logger const logger(&log);
    auto behaviour = std::make_shared<adapter_test::Behaviour>();
    {
        adapter_test::V3Plugin plugin(behaviour, 1.5F, true);
        plugin.missing = PluginCapabilityType::kBUILD;
        auto adapter = wrapRuntime(plugin, logger);
        ASSERT_NE(adapter, nullptr);
        auto const n = adapter->nbOutputsIfKnown();
        ASSERT_TRUE(n.isOk()) << n.status().message();
        EXPECT_FALSE(n.value().has_value());
    }
    {
        // A build request answered with another kind of interface: not called through it.
        class Swapped : public adapter_test::V3Plugin
        {
        public:
            using adapter_test::V3Plugin::V3Plugin;
            nvinfer1::IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override
            {
                return V3Plugin::getCapabilityInterface(
                    type == PluginCapabilityType::kBUILD ? PluginCapabilityType::kRUNTIME : type);
            }
        };
        Swapped plugin(behaviour, 1.5F, true);
        behaviour->calls.clear();
        auto adapter = wrapRuntime(plugin, logger);
        ASSERT_NE(adapter, nullptr);
        auto const n = adapter->nbOutputsIfKnown();
        ASSERT_TRUE(n.isOk()) << n.status().message();
        EXPECT_FALSE(n.value().has_value());
        EXPECT_EQ(std::count(behaviour->calls.begin(), behaviour->calls.end(), "getNbOutputs"), 0);
    }
}

//! A real engine: x [R, C] -> NonZeroPlugin (IPluginV3, outputs indices and count), read back into its Plan.
Plan nonZeroPlan()
{
    test::NetworkRunner runner;
    nvinfer1::ITensor* x = runner.addInput("x", DataType::kFLOAT, {-1, -1});
    auto plugin = test::samplesupport::createV3("NonZeroPlugin");
    EXPECT_NE(plugin, nullptr);
    if (plugin == nullptr)
    {
        return Plan{};
    }
    nvinfer1::ITensor* inputs[] = {x};
    nvinfer1::IPluginV3Layer* layer = runner.network().addPluginV3(inputs, 1, nullptr, 0, *plugin);
    EXPECT_NE(layer, nullptr) << runner.logger().allErrors();
    if (layer == nullptr)
    {
        return Plan{};
    }
    runner.markOutput(layer->getOutput(0), "indices");
    runner.markOutput(layer->getOutput(1), "count");
    runner.setProfileDims("x", {1, 1}, {4, 6}, {8, 10});
    EXPECT_TRUE(runner.build()) << runner.logger().allErrors();
    std::vector<uint8_t> const bytes = runner.engineBytes();
    auto plan = readEngine(bytes.data(), bytes.size());
    EXPECT_TRUE(plan.isOk()) << plan.status().message();
    return plan.isOk() ? std::move(plan).value() : Plan{};
}

TEST(PluginOutputCount, EngineRecordingAnotherCountThanTheRuntimePluginIsRefusedAtLoad)
{
    EngineData data;
    data.plan = nonZeroPlan();
    size_t pluginNode = data.plan.nodes.size();
    for (size_t n = 0; n < data.plan.nodes.size(); ++n)
    {
        if (data.plan.nodes[n].kind == nvinfer1::LayerType::kPLUGIN_V3)
        {
            pluginNode = n;
        }
    }
    ASSERT_LT(pluginNode, data.plan.nodes.size());
    ASSERT_EQ(data.plan.nodes[pluginNode].outputs.size(), 2U);

    test::CapturingLogger log;
    auto logger = std::make_shared<Logger const>(&log);
    {
        auto plugins = EnginePlugins::load(data, EngineLoadOptions{}, logger);
        ASSERT_TRUE(plugins.isOk()) << plugins.status().message();
        EXPECT_NE(plugins.value()->node(pluginNode), nullptr);
    }
    // One output fewer than the plugin writes (its enqueue would store through a missing output pointer), then one
    // more: both refused, naming the layer, the plugin and both counts.
    PlanNode& node = data.plan.nodes[pluginNode];
    int32_t const dropped = node.outputs.back();
    node.outputs.pop_back();
    auto fewer = EnginePlugins::load(data, EngineLoadOptions{}, logger);
    ASSERT_FALSE(fewer.isOk());
    std::string const& message = fewer.status().message();
    EXPECT_NE(message.find("layer '" + node.name + "'"), std::string::npos) << message;
    EXPECT_NE(message.find("records 1 outputs for plugin 'NonZeroPlugin', but the plugin reports 2"), std::string::npos)
        << message;
    node.outputs.push_back(dropped);
    node.outputs.push_back(dropped);
    auto more = EnginePlugins::load(data, EngineLoadOptions{}, logger);
    ASSERT_FALSE(more.isOk());
    EXPECT_NE(more.status().message().find("records 3 outputs for plugin 'NonZeroPlugin', but the plugin reports 2"),
        std::string::npos)
        << more.status().message();
}

} // namespace
} // namespace kiln

KILN_IGNORE_DEPRECATED_END
