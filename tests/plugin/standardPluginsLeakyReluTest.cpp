// standardPluginsLeakyReluTest.cpp — LReLU_TRT (plugins/leakyRelu/) registered by initLibNvInferPlugins: idempotent
// registration per namespace, the "negSlope" and "neg_slope" fields, warnings and errors through the logger, runs
// at two (build-time) shapes in FP32 and FP16, and a serialization round trip in a fresh runtime.
#include "NvInferPlugin.h"
#include "samplePluginsTestUtils.h"

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::test
{
namespace
{
using namespace nvinfer1;

//! Keeps every message with its severity. initLibNvInferPlugins keeps the logger, so tests use one that lives
//! for the whole process.
class AllMessagesLogger : public ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mMessages.emplace_back(severity, msg);
    }
    bool has(Severity severity, std::string const& text) const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        return std::any_of(mMessages.begin(), mMessages.end(),
            [&](auto const& m) { return m.first == severity && m.second.find(text) != std::string::npos; });
    }
    int32_t count(Severity severity) const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        return static_cast<int32_t>(std::count_if(
            mMessages.begin(), mMessages.end(), [&](auto const& m) { return m.first == severity; }));
    }
    void clear()
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mMessages.clear();
    }

private:
    mutable std::mutex mMutex;
    std::vector<std::pair<Severity, std::string>> mMessages;
};

AllMessagesLogger& pluginLogger()
{
    static AllMessagesLogger* logger = new AllMessagesLogger();
    return *logger;
}

IPluginCreator* leakyReluCreator(char const* nspace = "")
{
    EXPECT_TRUE(initLibNvInferPlugins(&pluginLogger(), nspace));
    return getPluginRegistry()->getPluginCreator("LReLU_TRT", "1", nspace);
}

float leakyRelu(float x, float slope)
{
    return x >= 0.0F ? x : slope * x;
}

TEST(StandardPluginsLeakyRelu, InitRegistersOncePerNamespaceAndSecondCallSucceedsQuietly)
{
    pluginLogger().clear();
    EXPECT_TRUE(initLibNvInferPlugins(&pluginLogger(), ""));
    EXPECT_TRUE(initLibNvInferPlugins(&pluginLogger(), ""));
    EXPECT_TRUE(initLibNvInferPlugins(&pluginLogger(), "kilnStdTest"));
    EXPECT_TRUE(initLibNvInferPlugins(&pluginLogger(), "kilnStdTest"));
    EXPECT_EQ(pluginLogger().count(ILogger::Severity::kERROR), 0);
    EXPECT_EQ(pluginLogger().count(ILogger::Severity::kINTERNAL_ERROR), 0);

    IPluginCreator* plain = getPluginRegistry()->getPluginCreator("LReLU_TRT", "1", "");
    IPluginCreator* spaced = getPluginRegistry()->getPluginCreator("LReLU_TRT", "1", "kilnStdTest");
    ASSERT_NE(plain, nullptr);
    ASSERT_NE(spaced, nullptr);
    EXPECT_NE(plain, spaced);
    EXPECT_STREQ(plain->getPluginNamespace(), "");
    EXPECT_STREQ(spaced->getPluginNamespace(), "kilnStdTest");
    EXPECT_STREQ(plain->getPluginVersion(), "1");
    PluginFieldCollection const* fields = plain->getFieldNames();
    ASSERT_NE(fields, nullptr);
    ASSERT_EQ(fields->nbFields, 1);
    EXPECT_STREQ(fields->fields[0].name, "negSlope");
    EXPECT_EQ(fields->fields[0].type, PluginFieldType::kFLOAT32);
}

//! A foreign creator that takes the LReLU_TRT key first.
class ClashingCreator : public IPluginCreator
{
public:
    char const* getPluginName() const noexcept override { return "LReLU_TRT"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    PluginFieldCollection const* getFieldNames() noexcept override { return &mFields; }
    IPluginV2* createPlugin(char const*, PluginFieldCollection const*) noexcept override { return nullptr; }
    IPluginV2* deserializePlugin(char const*, void const*, size_t) noexcept override { return nullptr; }
    void setPluginNamespace(char const* nspace) noexcept override { mNamespace = nspace; }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    PluginFieldCollection mFields{0, nullptr};
    std::string mNamespace;
};

TEST(StandardPluginsLeakyRelu, InitFailsWithAnErrorWhenTheKeyIsTaken)
{
    static ClashingCreator clash; // stays registered: the registry keeps a pointer
    ASSERT_TRUE(getPluginRegistry()->registerCreator(static_cast<IPluginCreatorInterface&>(clash), "kilnStdClash"));
    pluginLogger().clear();
    EXPECT_FALSE(initLibNvInferPlugins(&pluginLogger(), "kilnStdClash"));
    EXPECT_TRUE(pluginLogger().has(ILogger::Severity::kERROR,
        "initLibNvInferPlugins: could not register plugin 'LReLU_TRT' (version '1') under namespace 'kilnStdClash'"));
    EXPECT_EQ(getPluginRegistry()->getPluginCreator("LReLU_TRT", "1", "kilnStdClash"), &clash);
    EXPECT_TRUE(getPluginRegistry()->deregisterCreator(static_cast<IPluginCreatorInterface const&>(clash)));
}

TEST(StandardPluginsLeakyRelu, BothFieldSpellingsSetTheSlope)
{
    IPluginCreator* creator = leakyReluCreator();
    ASSERT_NE(creator, nullptr);
    for (char const* fieldName : {"negSlope", "neg_slope"})
    {
        float const slope = 0.25F;
        PluginField const field = samplesupport::floatField(fieldName, slope);
        PluginFieldCollection const fc{1, &field};
        IPluginV2* plugin = creator->createPlugin("lrelu", &fc);
        ASSERT_NE(plugin, nullptr) << fieldName;
        ASSERT_EQ(plugin->getSerializationSize(), sizeof(float));
        float stored = 0.0F;
        plugin->serialize(&stored);
        EXPECT_EQ(stored, slope) << fieldName;
        EXPECT_STREQ(plugin->getPluginType(), "LReLU_TRT");
        plugin->destroy();
    }
}

TEST(StandardPluginsLeakyRelu, UnknownFieldWarnsAndBadFieldOrBytesFailWithAnError)
{
    IPluginCreator* creator = leakyReluCreator();
    ASSERT_NE(creator, nullptr);
    pluginLogger().clear();
    float const value = 0.5F;
    PluginField const unknown = samplesupport::floatField("slope", value);
    PluginFieldCollection const fcUnknown{1, &unknown};
    IPluginV2* plugin = creator->createPlugin("lreluUnknown", &fcUnknown);
    ASSERT_NE(plugin, nullptr);
    plugin->destroy();
    EXPECT_TRUE(pluginLogger().has(ILogger::Severity::kWARNING, "unknown field 'slope'"));
    EXPECT_TRUE(pluginLogger().has(ILogger::Severity::kWARNING, "LReLU_TRT"));

    int32_t const wrongType = 1;
    PluginField const bad = samplesupport::int32Field("negSlope", wrongType);
    PluginFieldCollection const fcBad{1, &bad};
    EXPECT_EQ(creator->createPlugin("lreluBad", &fcBad), nullptr);
    EXPECT_TRUE(pluginLogger().has(ILogger::Severity::kERROR, "field 'negSlope' must be one kFLOAT32 value"));

    char const bytes[3] = {0, 0, 0};
    EXPECT_EQ(creator->deserializePlugin("lrelu", bytes, sizeof(bytes)), nullptr);
    EXPECT_TRUE(pluginLogger().has(ILogger::Severity::kERROR, "LReLU_TRT deserializePlugin: expected 4 bytes, got 3"));
}

//! x[rows, 6] -> LReLU_TRT(slope) -> y. A plain IPluginV2 needs build-time shapes (as in TensorRT), so each shape
//! gets its own build.
void buildLeakyReluNetwork(NetworkRunner& runner, DataType type, float slope, int64_t rows)
{
    IPluginCreator* creator = leakyReluCreator();
    ASSERT_NE(creator, nullptr);
    PluginField const field = samplesupport::floatField("negSlope", slope);
    PluginFieldCollection const fc{1, &field};
    std::unique_ptr<IPluginV2, void (*)(IPluginV2*)> plugin(
        creator->createPlugin("lrelu", &fc), [](IPluginV2* p) { p->destroy(); });
    ASSERT_NE(plugin, nullptr);
    ITensor* x = runner.addInput("x", type, {rows, 6});
    ITensor* inputs[] = {x};
    IPluginV2Layer* layer = runner.network().addPluginV2(inputs, 1, *plugin);
    ASSERT_NE(layer, nullptr) << runner.logger().allErrors();
    layer->setName("lrelu");
    runner.markOutput(layer->getOutput(0), "y");
}

class LeakyReluTypes : public ::testing::TestWithParam<DataType>
{
};

TEST_P(LeakyReluTypes, MatchesReferenceAtTwoShapes)
{
    DataType const type = GetParam();
    float const slope = 0.125F; // exact in FP16 too
    std::mt19937 rng(11);
    for (int64_t rows : {3, 13})
    {
        NetworkRunner runner;
        buildLeakyReluNetwork(runner, type, slope, rows);
        ASSERT_TRUE(runner.build()) << runner.logger().allErrors();
        HostTensor const x = HostTensor::random(type, makeDims({rows, 6}), rng, -8, 8);
        HostTensor expected(DataType::kFLOAT, x.dims);
        for (int64_t i = 0; i < x.volume(); ++i)
        {
            expected.set(i, leakyRelu(static_cast<float>(x.at(i)), slope));
        }
        auto outputs = runner.run({{"x", x}});
        double const tol = type == DataType::kHALF ? 1e-3 : 0.0;
        EXPECT_TRUE(allClose(outputs["y"], expected, tol, tol)) << "rows " << rows;
    }
}

INSTANTIATE_TEST_SUITE_P(StandardPlugins, LeakyReluTypes, ::testing::Values(DataType::kFLOAT, DataType::kHALF),
    [](::testing::TestParamInfo<DataType> const& info) {
        return std::string(info.param == DataType::kHALF ? "FP16" : "FP32");
    });

TEST(StandardPluginsLeakyRelu, SerializedEngineRunsInAFreshRuntime)
{
    float const slope = 0.3F;
    NetworkRunner runner;
    buildLeakyReluNetwork(runner, DataType::kFLOAT, slope, 5);
    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();
    CapturingLogger logger;
    std::unique_ptr<IRuntime> runtime;
    auto engine = samplesupport::loadInFreshRuntime(runner.engineBytes(), logger, runtime);
    ASSERT_NE(engine, nullptr) << logger.allErrors();
    std::mt19937 rng(12);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({5, 6}), rng, -3, 3);
    HostTensor expected(DataType::kFLOAT, x.dims);
    for (int64_t i = 0; i < x.volume(); ++i)
    {
        expected.set(i, leakyRelu(static_cast<float>(x.at(i)), slope));
    }
    std::map<std::string, HostTensor> outputs;
    ASSERT_TRUE(samplesupport::runEngine(*engine, {{"x", x}}, outputs)) << logger.allErrors();
    EXPECT_TRUE(sameBits(outputs["y"], expected));
}

} // namespace
} // namespace kiln::test

KILN_IGNORE_DEPRECATED_END
