// samplePluginsTileToShapeTest.cpp — TileToShapePlugin (IPluginV3, samples/plugins/tileToShapePlugin.h): a shape-tensor
// input given to addPluginV3 as shapeInputs, fed by a network input shape tensor (profile shape values, host values
// at run time); the output takes the tensor's values as its shape. Two shape values and two data shapes, FP32 and
// INT32, plus a fresh-runtime round trip.
#include "samplePluginsTestUtils.h"

namespace kiln::test
{
namespace
{
using namespace nvinfer1;

//! NumPy broadcast of `x` to `shape`.
HostTensor broadcastReference(HostTensor const& x, std::vector<int64_t> const& shape)
{
    HostTensor out(x.type, makeDims(shape));
    int32_t const rank = static_cast<int32_t>(shape.size());
    int32_t const offset = rank - x.dims.nbDims;
    for (int64_t o = 0; o < out.volume(); ++o)
    {
        std::vector<int64_t> index(rank);
        int64_t rest = o;
        for (int32_t d = rank - 1; d >= 0; --d)
        {
            index[d] = rest % shape[d];
            rest /= shape[d];
        }
        int64_t in = 0;
        for (int32_t d = 0; d < x.dims.nbDims; ++d)
        {
            int64_t const i = x.dims.d[d] == 1 ? 0 : index[d + offset];
            in = in * x.dims.d[d] + i;
        }
        out.set(o, x.at(in));
    }
    return out;
}

void buildTileNetwork(NetworkRunner& runner, DataType type)
{
    ITensor* data = runner.addInput("data", type, {-1, -1});
    ITensor* shape = runner.addInput("shape", DataType::kINT32, {2});
    auto plugin = samplesupport::createV3("TileToShapePlugin");
    ASSERT_NE(plugin, nullptr);
    ITensor* inputs[] = {data};
    ITensor* shapeInputs[] = {shape};
    IPluginV3Layer* layer = runner.network().addPluginV3(inputs, 1, shapeInputs, 1, *plugin);
    ASSERT_NE(layer, nullptr) << runner.logger().allErrors();
    layer->setName("tile");
    runner.markOutput(layer->getOutput(0), "y");
    runner.setProfileDims("data", {1, 1}, {1, 3}, {4, 8});
    runner.setProfileValues("shape", {1, 1}, {4, 3}, {8, 8});
}

struct TileCase
{
    std::vector<int64_t> dataDims;
    std::vector<int64_t> shape;
};

void runCases(ICudaEngine& engine, DataType type, std::vector<TileCase> const& cases, CapturingLogger& logger)
{
    std::mt19937 rng(31);
    for (TileCase const& c : cases)
    {
        HostTensor const data = HostTensor::random(type, makeDims(c.dataDims), rng, -20, 20);
        std::vector<double> const shapeValues(c.shape.begin(), c.shape.end());
        HostTensor const shape = HostTensor::fromValues(DataType::kINT32, makeDims({2}), shapeValues);
        std::map<std::string, HostTensor> outputs;
        ASSERT_TRUE(samplesupport::runEngine(engine, {{"data", data}, {"shape", shape}}, outputs))
            << logger.allErrors();
        EXPECT_TRUE(sameBits(outputs["y"], broadcastReference(data, c.shape)))
            << dimsString(data.dims) << " -> " << dimsString(makeDims(c.shape));
    }
}

std::vector<TileCase> const kCASES{{{1, 3}, {4, 3}}, {{1, 3}, {2, 3}}, {{2, 1}, {2, 5}}, {{3, 4}, {3, 4}}};

class TileToShapeTypes : public ::testing::TestWithParam<DataType>
{
};

TEST_P(TileToShapeTypes, OutputShapeComesFromShapeInputValues)
{
    NetworkRunner runner;
    buildTileNetwork(runner, GetParam());
    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();
    runCases(runner.engine(), GetParam(), kCASES, runner.logger());
}

INSTANTIATE_TEST_SUITE_P(SamplePlugins, TileToShapeTypes, ::testing::Values(DataType::kFLOAT, DataType::kINT32),
    [](::testing::TestParamInfo<DataType> const& info) {
        return std::string(info.param == DataType::kFLOAT ? "FP32" : "INT32");
    });

TEST(SamplePluginsTileToShape, ShapeOfLowerRankFailsTheBuildNamingThePlugin)
{
    // getOutputShapes returns 2 when the shape input has fewer values than the data has dims.
    NetworkRunner runner;
    ITensor* data = runner.addInput("data", DataType::kFLOAT, {2, 3});
    ITensor* shape = runner.addInput("shape", DataType::kINT32, {1});
    auto plugin = samplesupport::createV3("TileToShapePlugin");
    ASSERT_NE(plugin, nullptr);
    ITensor* inputs[] = {data};
    ITensor* shapeInputs[] = {shape};
    IPluginV3Layer* layer = runner.network().addPluginV3(inputs, 1, shapeInputs, 1, *plugin);
    if (layer != nullptr) // the network may already refuse it (shape queries at addPluginV3)
    {
        runner.markOutput(layer->getOutput(0), "y");
        runner.setProfileValues("shape", {3}, {3}, {3});
        EXPECT_FALSE(runner.build());
    }
    EXPECT_TRUE(runner.logger().hasError("TileToShapePlugin")) << runner.logger().allErrors();
    EXPECT_TRUE(runner.logger().hasError("getOutputShapes")) << runner.logger().allErrors();
}

TEST(SamplePluginsTileToShape, SerializedEngineRunsInAFreshRuntime)
{
    NetworkRunner runner;
    buildTileNetwork(runner, DataType::kFLOAT);
    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();
    CapturingLogger logger;
    std::unique_ptr<IRuntime> runtime;
    auto engine = samplesupport::loadInFreshRuntime(runner.engineBytes(), logger, runtime);
    ASSERT_NE(engine, nullptr) << logger.allErrors();
    runCases(*engine, DataType::kFLOAT, kCASES, logger);
}

} // namespace
} // namespace kiln::test
