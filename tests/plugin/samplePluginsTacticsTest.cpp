// samplePluginsTacticsTest.cpp — ScaleTacticsPlugin (IPluginV3, samples/plugins/scaleTacticsPlugin.h) with two custom
// tactics, the first deliberately slow: the builder times both, picks tactic 2, and the engine records it (engine
// inspector). Both tactics compute the same values, checked against a reference at two shapes and after a
// fresh-runtime round trip.
#include "samplePluginsTestUtils.h"
#include "scaleTacticsPlugin.h"

namespace kiln::test
{
namespace
{
using namespace nvinfer1;

constexpr float kALPHA = -1.75F;

void buildScaleNetwork(NetworkRunner& runner)
{
    float const alpha = kALPHA;
    auto plugin = samplesupport::createV3("ScaleTacticsPlugin", {samplesupport::floatField("alpha", alpha)});
    ASSERT_NE(plugin, nullptr);
    ITensor* x = runner.addInput("x", DataType::kFLOAT, {-1, 1024});
    ITensor* inputs[] = {x};
    IPluginV3Layer* layer = runner.network().addPluginV3(inputs, 1, nullptr, 0, *plugin);
    ASSERT_NE(layer, nullptr) << runner.logger().allErrors();
    layer->setName("scale");
    runner.markOutput(layer->getOutput(0), "y");
    // Timing runs at the opt shape: large enough that 64 passes clearly lose to one.
    runner.setProfileDims("x", {1, 1024}, {64, 1024}, {128, 1024});
    runner.config().setProfilingVerbosity(ProfilingVerbosity::kDETAILED);
}

void checkValues(ICudaEngine& engine, CapturingLogger& logger)
{
    std::mt19937 rng(41);
    for (int64_t rows : {3, 70})
    {
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({rows, 1024}), rng, -5, 5);
        HostTensor expected(DataType::kFLOAT, x.dims);
        for (int64_t i = 0; i < x.volume(); ++i)
        {
            expected.set(i, kALPHA * static_cast<float>(x.at(i)));
        }
        std::map<std::string, HostTensor> outputs;
        ASSERT_TRUE(samplesupport::runEngine(engine, {{"x", x}}, outputs)) << logger.allErrors();
        EXPECT_TRUE(sameBits(outputs["y"], expected)) << "rows " << rows;
    }
}

std::string engineInformation(ICudaEngine& engine)
{
    std::unique_ptr<IEngineInspector> inspector(engine.createEngineInspector());
    if (inspector == nullptr)
    {
        return {};
    }
    char const* info = inspector->getEngineInformation(LayerInformationFormat::kJSON);
    return info == nullptr ? std::string() : std::string(info);
}

TEST(SamplePluginsTactics, BuilderPicksTheFastTacticAndTheEngineRecordsIt)
{
    NetworkRunner runner;
    buildScaleNetwork(runner);
    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();
    std::string const info = engineInformation(runner.engine());
    EXPECT_NE(info.find("plugin:" + std::to_string(samples::ScaleTacticsPlugin::kFAST_TACTIC)), std::string::npos)
        << info;
    EXPECT_EQ(info.find("plugin:" + std::to_string(samples::ScaleTacticsPlugin::kSLOW_TACTIC)), std::string::npos)
        << info;
    checkValues(runner.engine(), runner.logger());
}

TEST(SamplePluginsTactics, BothTacticsComputeTheSameValues)
{
    // Run the plugin object directly with each tactic: the slow tactic is slower, never different.
    float const alpha = kALPHA;
    auto plugin = samplesupport::createV3("ScaleTacticsPlugin", {samplesupport::floatField("alpha", alpha)});
    ASSERT_NE(plugin, nullptr);
    auto* build = static_cast<IPluginV3OneBuild*>(plugin->getCapabilityInterface(PluginCapabilityType::kBUILD));
    auto* runtime = static_cast<IPluginV3OneRuntime*>(plugin->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
    ASSERT_NE(build, nullptr);
    ASSERT_NE(runtime, nullptr);
    ASSERT_EQ(build->getNbTactics(), 2);
    int32_t tactics[2] = {0, 0};
    ASSERT_EQ(build->getValidTactics(tactics, 2), 0);
    EXPECT_EQ(tactics[0], samples::ScaleTacticsPlugin::kSLOW_TACTIC);
    EXPECT_EQ(tactics[1], samples::ScaleTacticsPlugin::kFAST_TACTIC);

    std::mt19937 rng(43);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({4, 33}), rng, -2, 2);
    PluginTensorDesc desc{x.dims, DataType::kFLOAT, TensorFormat::kLINEAR, -1.0F};
    std::vector<HostTensor> results;
    for (int32_t tactic : tactics)
    {
        ASSERT_EQ(runtime->setTactic(tactic), 0);
        HostTensor y(DataType::kFLOAT, x.dims);
        std::fill(y.bytes.begin(), y.bytes.end(), uint8_t{0xA5});
        void const* inputs[] = {x.data()};
        void* outputs[] = {y.data()};
        ASSERT_EQ(runtime->enqueue(&desc, &desc, inputs, outputs, nullptr, nullptr), 0);
        results.push_back(y);
    }
    EXPECT_TRUE(sameBits(results[0], results[1]));
    EXPECT_NE(runtime->setTactic(7), 0) << "an unknown tactic must be refused";
}

TEST(SamplePluginsTactics, SerializedEngineKeepsTheTacticInAFreshRuntime)
{
    NetworkRunner runner;
    buildScaleNetwork(runner);
    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();
    CapturingLogger logger;
    std::unique_ptr<IRuntime> runtime;
    auto engine = samplesupport::loadInFreshRuntime(runner.engineBytes(), logger, runtime);
    ASSERT_NE(engine, nullptr) << logger.allErrors();
    EXPECT_NE(engineInformation(*engine).find("plugin:2"), std::string::npos);
    checkValues(*engine, logger);
}

} // namespace
} // namespace kiln::test
