// samplePluginsBarTest.cpp — BarPlugin (IPluginV2DynamicExt, samples/plugins/barPlugin.h) end to end on the CPU
// backend: concatenation along dim 0 and a copy of input 0 (the seed's code, not its prose), FP32/FP16/INT32,
// dynamic shapes with two profiles, serialization round trip in a fresh runtime, and a failing enqueue.
#include "samplePluginsTestUtils.h"

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::test
{
namespace
{
using namespace nvinfer1;
using samplesupport::createV2;

//! Reference: rows of a, then rows of b (row-major, same trailing dims).
HostTensor concatReference(HostTensor const& a, HostTensor const& b)
{
    Dims dims = a.dims;
    dims.d[0] = a.dims.d[0] + b.dims.d[0];
    HostTensor out(a.type, dims);
    for (int64_t i = 0; i < a.volume(); ++i)
    {
        out.set(i, a.at(i));
    }
    for (int64_t i = 0; i < b.volume(); ++i)
    {
        out.set(a.volume() + i, b.at(i));
    }
    return out;
}

//! Network: a[-1,2,3], b[-1,2,3] -> BarPlugin -> concat, copy. Two profiles with different ranges.
void buildBarNetwork(NetworkRunner& runner, DataType type)
{
    ITensor* a = runner.addInput("a", type, {-1, 2, 3});
    ITensor* b = runner.addInput("b", type, {-1, 2, 3});
    auto plugin = createV2("BarPlugin");
    ASSERT_NE(plugin, nullptr);
    ITensor* inputs[] = {a, b};
    IPluginV2Layer* layer = runner.network().addPluginV2(inputs, 2, *plugin);
    ASSERT_NE(layer, nullptr) << runner.logger().allErrors();
    layer->setName("bar");
    ASSERT_EQ(layer->getNbOutputs(), 2);
    runner.markOutput(layer->getOutput(0), "concat");
    runner.markOutput(layer->getOutput(1), "copy");
    runner.setProfileDims("a", {1, 2, 3}, {2, 2, 3}, {4, 2, 3}, 0);
    runner.setProfileDims("b", {1, 2, 3}, {3, 2, 3}, {5, 2, 3}, 0);
    runner.setProfileDims("a", {5, 2, 3}, {6, 2, 3}, {8, 2, 3}, 1);
    runner.setProfileDims("b", {1, 2, 3}, {1, 2, 3}, {2, 2, 3}, 1);
}

class BarPluginTypes : public ::testing::TestWithParam<DataType>
{
};

TEST_P(BarPluginTypes, ConcatenatesAlongDim0AndCopiesInput0)
{
    DataType const type = GetParam();
    NetworkRunner runner;
    buildBarNetwork(runner, type);
    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();
    EXPECT_EQ(runner.engine().getTensorDataType("concat"), type);
    EXPECT_EQ(runner.engine().getTensorDataType("copy"), type);

    std::mt19937 rng(1234);
    struct Case
    {
        int64_t rowsA;
        int64_t rowsB;
        int32_t profile;
    };
    for (Case const c : {Case{2, 3, 0}, Case{4, 1, 0}, Case{1, 5, 0}, Case{7, 2, 1}})
    {
        HostTensor const a = HostTensor::random(type, makeDims({c.rowsA, 2, 3}), rng, -50, 50);
        HostTensor const b = HostTensor::random(type, makeDims({c.rowsB, 2, 3}), rng, -50, 50);
        auto outputs = runner.run({{"a", a}, {"b", b}}, c.profile);
        ASSERT_EQ(outputs.count("concat"), 1U);
        // Output 0: the concatenation (seed 002's getOutputDimensions case 0, kSUM of the first dims).
        EXPECT_TRUE(sameBits(outputs["concat"], concatReference(a, b))) << "rows " << c.rowsA << "+" << c.rowsB;
        // Output 1: a copy of input 0 (the seed's code returns inputs[0]; its prose says "second input").
        EXPECT_TRUE(sameBits(outputs["copy"], a)) << "rows " << c.rowsA << "+" << c.rowsB;
    }
}

INSTANTIATE_TEST_SUITE_P(SamplePlugins, BarPluginTypes,
    ::testing::Values(DataType::kFLOAT, DataType::kHALF, DataType::kINT32),
    [](::testing::TestParamInfo<DataType> const& info) {
        switch (info.param)
        {
        case DataType::kFLOAT: return std::string("FP32");
        case DataType::kHALF: return std::string("FP16");
        default: return std::string("INT32");
        }
    });

TEST(SamplePluginsBar, SerializedEngineRunsInAFreshRuntime)
{
    NetworkRunner runner;
    buildBarNetwork(runner, DataType::kFLOAT);
    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();

    CapturingLogger logger;
    std::unique_ptr<IRuntime> runtime;
    auto engine = samplesupport::loadInFreshRuntime(runner.engineBytes(), logger, runtime);
    ASSERT_NE(engine, nullptr) << logger.allErrors();

    std::mt19937 rng(99);
    for (int64_t rows : {1, 3})
    {
        HostTensor const a = HostTensor::random(DataType::kFLOAT, makeDims({rows, 2, 3}), rng);
        HostTensor const b = HostTensor::random(DataType::kFLOAT, makeDims({rows + 1, 2, 3}), rng);
        std::map<std::string, HostTensor> outputs;
        ASSERT_TRUE(samplesupport::runEngine(*engine, {{"a", a}, {"b", b}}, outputs)) << logger.allErrors();
        EXPECT_TRUE(sameBits(outputs["concat"], concatReference(a, b)));
        EXPECT_TRUE(sameBits(outputs["copy"], a));
    }
}

TEST(SamplePluginsBar, MismatchedTrailingDimsFailEnqueueNamingThePlugin)
{
    // Output shapes come from input 0, so the build succeeds; BarPlugin::enqueue refuses to concatenate tensors
    // whose trailing dims differ (returns 2) and the run must fail with a message naming the plugin and the call.
    NetworkRunner runner;
    ITensor* a = runner.addInput("a", DataType::kFLOAT, {-1, 3});
    ITensor* b = runner.addInput("b", DataType::kFLOAT, {-1, 4});
    auto plugin = createV2("BarPlugin");
    ASSERT_NE(plugin, nullptr);
    ITensor* inputs[] = {a, b};
    IPluginV2Layer* layer = runner.network().addPluginV2(inputs, 2, *plugin);
    ASSERT_NE(layer, nullptr);
    layer->setName("badBar");
    runner.markOutput(layer->getOutput(0), "concat");
    runner.markOutput(layer->getOutput(1), "copy");
    runner.setProfileDims("a", {1, 3}, {2, 3}, {4, 3});
    runner.setProfileDims("b", {1, 4}, {2, 4}, {4, 4});
    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();

    std::mt19937 rng(5);
    runner.logger().clear();
    std::map<std::string, HostTensor> outputs;
    EXPECT_FALSE(runner.tryRun({{"a", HostTensor::random(DataType::kFLOAT, makeDims({2, 3}), rng)},
                                   {"b", HostTensor::random(DataType::kFLOAT, makeDims({2, 4}), rng)}},
        outputs));
    EXPECT_TRUE(runner.logger().hasError("BarPlugin")) << runner.logger().allErrors();
    EXPECT_TRUE(runner.logger().hasError("enqueue")) << runner.logger().allErrors();
}

} // namespace
} // namespace kiln::test

KILN_IGNORE_DEPRECATED_END
