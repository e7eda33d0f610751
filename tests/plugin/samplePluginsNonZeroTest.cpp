// samplePluginsNonZeroTest.cpp — NonZeroPlugin (IPluginV3, samples/plugins/nonZeroPlugin.h): a data-dependent output
// [2, K] declared with declareSizeTensor and a size-tensor output K, run through an IOutputAllocator
// (reallocateOutputAsync + notifyShape checked) at two input shapes, FP32 and INT32, also in a fresh runtime.
#include "samplePluginsTestUtils.h"

namespace kiln::test
{
namespace
{
using namespace nvinfer1;
using samplesupport::RecordingOutputAllocator;

//! Random values with roughly `zeroFraction` of them zero (at least one non-zero, at least one zero).
HostTensor sparseRandom(DataType type, int64_t rows, int64_t cols, std::mt19937& rng, double zeroFraction)
{
    HostTensor t = HostTensor::random(type, makeDims({rows, cols}), rng, 1, 9);
    std::bernoulli_distribution zero(zeroFraction);
    for (int64_t i = 0; i < t.volume(); ++i)
    {
        if (i != 0 && (zero(rng) || i == 1))
        {
            t.set(i, 0);
        }
        else if (i % 3 == 0)
        {
            t.set(i, -t.at(i)); // negatives are non-zero too
        }
    }
    return t;
}

//! Reference [2, K]: row indices then column indices of the non-zeros in row-major order.
HostTensor nonZeroReference(HostTensor const& x)
{
    int64_t const cols = x.dims.d[1];
    std::vector<double> rowsIdx;
    std::vector<double> colsIdx;
    for (int64_t i = 0; i < x.volume(); ++i)
    {
        if (x.at(i) != 0)
        {
            rowsIdx.push_back(static_cast<double>(i / cols));
            colsIdx.push_back(static_cast<double>(i % cols));
        }
    }
    std::vector<double> values = rowsIdx;
    values.insert(values.end(), colsIdx.begin(), colsIdx.end());
    return HostTensor::fromValues(DataType::kINT32, makeDims({2, static_cast<int64_t>(rowsIdx.size())}), values);
}

void buildNonZeroNetwork(NetworkRunner& runner, DataType type)
{
    ITensor* x = runner.addInput("x", type, {-1, -1});
    auto plugin = samplesupport::createV3("NonZeroPlugin");
    ASSERT_NE(plugin, nullptr);
    ITensor* inputs[] = {x};
    IPluginV3Layer* layer = runner.network().addPluginV3(inputs, 1, nullptr, 0, *plugin);
    ASSERT_NE(layer, nullptr) << runner.logger().allErrors();
    layer->setName("nonZero");
    ASSERT_EQ(layer->getNbOutputs(), 2);
    runner.markOutput(layer->getOutput(0), "indices");
    runner.markOutput(layer->getOutput(1), "count");
    runner.setProfileDims("x", {1, 1}, {4, 6}, {8, 10});
}

void checkRun(ICudaEngine& engine, HostTensor const& x, CapturingLogger& logger)
{
    RecordingOutputAllocator allocator;
    std::map<std::string, HostTensor> outputs;
    ASSERT_TRUE(samplesupport::runEngine(engine, {{"x", x}}, outputs, 0, {{"indices", &allocator}}))
        << logger.allErrors();
    HostTensor const expected = nonZeroReference(x);
    int64_t const k = expected.dims.d[1];
    // The output allocator saw the real size and the real shape.
    EXPECT_GE(allocator.reallocations, 1);
    EXPECT_EQ(allocator.lastName, "indices");
    EXPECT_GE(allocator.requestedBytes, static_cast<uint64_t>(2 * k * sizeof(int32_t)));
    EXPECT_EQ(allocator.notifications, 1);
    EXPECT_EQ(allocator.notifiedName, "indices");
    EXPECT_EQ(dimsString(allocator.shape), dimsString(expected.dims));
    EXPECT_TRUE(sameBits(outputs["indices"], expected)) << dimsString(x.dims);
    // The size tensor holds K.
    ASSERT_EQ(outputs.count("count"), 1U);
    EXPECT_EQ(outputs["count"].dims.nbDims, 0);
    EXPECT_EQ(outputs["count"].at(0), static_cast<double>(k));
}

class NonZeroTypes : public ::testing::TestWithParam<DataType>
{
};

TEST_P(NonZeroTypes, DataDependentOutputThroughOutputAllocator)
{
    NetworkRunner runner;
    buildNonZeroNetwork(runner, GetParam());
    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();
    std::mt19937 rng(21);
    for (auto const& [rows, cols, zeros] : {std::tuple{3, 5, 0.5}, std::tuple{8, 10, 0.2}, std::tuple{2, 2, 0.7}})
    {
        checkRun(runner.engine(), sparseRandom(GetParam(), rows, cols, rng, zeros), runner.logger());
    }
}

INSTANTIATE_TEST_SUITE_P(SamplePlugins, NonZeroTypes, ::testing::Values(DataType::kFLOAT, DataType::kINT32),
    [](::testing::TestParamInfo<DataType> const& info) {
        return std::string(info.param == DataType::kFLOAT ? "FP32" : "INT32");
    });

TEST(SamplePluginsNonZero, OutputExtentIsUnknownBeforeTheRun)
{
    NetworkRunner runner;
    buildNonZeroNetwork(runner, DataType::kFLOAT);
    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();
    std::unique_ptr<IExecutionContext> ctx(runner.engine().createExecutionContext());
    ASSERT_NE(ctx, nullptr);
    ASSERT_TRUE(ctx->setInputShape("x", makeDims({3, 4})));
    Dims const before = ctx->getTensorShape("indices");
    ASSERT_EQ(before.nbDims, 2);
    EXPECT_EQ(before.d[0], 2);
    EXPECT_EQ(before.d[1], -1) << "K is only known after the plugin ran";
}

TEST(SamplePluginsNonZero, SerializedEngineRunsInAFreshRuntime)
{
    NetworkRunner runner;
    buildNonZeroNetwork(runner, DataType::kFLOAT);
    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();
    CapturingLogger logger;
    std::unique_ptr<IRuntime> runtime;
    auto engine = samplesupport::loadInFreshRuntime(runner.engineBytes(), logger, runtime);
    ASSERT_NE(engine, nullptr) << logger.allErrors();
    std::mt19937 rng(22);
    checkRun(*engine, sparseRandom(DataType::kFLOAT, 6, 7, rng, 0.4), logger);
    checkRun(*engine, sparseRandom(DataType::kFLOAT, 2, 9, rng, 0.6), logger);
}

} // namespace
} // namespace kiln::test
