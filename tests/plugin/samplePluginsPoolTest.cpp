// samplePluginsPoolTest.cpp — PoolPlugin (IPluginV2IOExt, samples/plugins/poolPlugin.h) on the CPU backend:
// max/average pooling in FP32 and FP16 at two shapes, the INT8 I/O path with scales from PluginTensorDesc::scale
// (FP32 network I/O, dynamic ranges, BuilderFlag::kINT8, builder-inserted quantize/dequantize), a serialization
// round trip in a fresh runtime, and the creator's refusals.
#include "samplePluginsTestUtils.h"

#include <cmath>

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::test
{
namespace
{
using namespace nvinfer1;
using samplesupport::createV2;
using samplesupport::int32Field;

struct PoolConfig
{
    int32_t mode;
    int32_t kernel;
    int32_t stride;
};

//! Pooling over the last two dims of `x` (values already as the plugin sees them), in double.
std::vector<double> poolReference(std::vector<double> const& x, Dims const& dims, PoolConfig const& p, Dims& outDims)
{
    int32_t const r = dims.nbDims;
    int64_t const h = dims.d[r - 2];
    int64_t const w = dims.d[r - 1];
    int64_t const oh = (h - p.kernel) / p.stride + 1;
    int64_t const ow = (w - p.kernel) / p.stride + 1;
    int64_t const planes = static_cast<int64_t>(x.size()) / (h * w);
    outDims = dims;
    outDims.d[r - 2] = oh;
    outDims.d[r - 1] = ow;
    std::vector<double> out(static_cast<size_t>(planes * oh * ow));
    for (int64_t pl = 0; pl < planes; ++pl)
    {
        for (int64_t y = 0; y < oh; ++y)
        {
            for (int64_t xo = 0; xo < ow; ++xo)
            {
                double acc = p.mode == 0 ? -1e300 : 0.0;
                for (int32_t ky = 0; ky < p.kernel; ++ky)
                {
                    for (int32_t kx = 0; kx < p.kernel; ++kx)
                    {
                        double const v = x[static_cast<size_t>((pl * h + y * p.stride + ky) * w + xo * p.stride + kx)];
                        acc = p.mode == 0 ? std::max(acc, v) : acc + v;
                    }
                }
                out[static_cast<size_t>((pl * oh + y) * ow + xo)] = p.mode == 0 ? acc : acc / (p.kernel * p.kernel);
            }
        }
    }
    return out;
}

std::vector<double> valuesOf(HostTensor const& t)
{
    std::vector<double> v(static_cast<size_t>(t.volume()));
    for (int64_t i = 0; i < t.volume(); ++i)
    {
        v[static_cast<size_t>(i)] = t.at(i);
    }
    return v;
}

IPluginV2Layer* addPool(NetworkRunner& runner, ITensor* x, PoolConfig const& p, int32_t int8Only = 0)
{
    std::vector<PluginField> const fields{int32Field("mode", p.mode), int32Field("kernel", p.kernel),
        int32Field("stride", p.stride), int32Field("int8Only", int8Only)};
    auto plugin = createV2("PoolPlugin", fields);
    EXPECT_NE(plugin, nullptr);
    if (plugin == nullptr)
    {
        return nullptr;
    }
    ITensor* inputs[] = {x};
    IPluginV2Layer* layer = runner.network().addPluginV2(inputs, 1, *plugin);
    EXPECT_NE(layer, nullptr) << runner.logger().allErrors();
    if (layer != nullptr)
    {
        layer->setName("pool");
    }
    return layer;
}

struct PoolCase
{
    DataType type;
    PoolConfig pool;
};

class PoolPluginFloat : public ::testing::TestWithParam<PoolCase>
{
};

TEST_P(PoolPluginFloat, MatchesReferenceAtTwoShapes)
{
    PoolCase const c = GetParam();
    std::mt19937 rng(42);
    for (std::vector<int64_t> const& shape : {std::vector<int64_t>{2, 3, 6, 8}, std::vector<int64_t>{1, 4, 7, 5}})
    {
        NetworkRunner runner;
        ITensor* x = runner.addInput("x", c.type, shape);
        IPluginV2Layer* layer = addPool(runner, x, c.pool);
        ASSERT_NE(layer, nullptr);
        runner.markOutput(layer->getOutput(0), "y");
        ASSERT_TRUE(runner.build()) << runner.logger().allErrors();

        HostTensor const input = HostTensor::random(c.type, makeDims(shape), rng, -4, 4);
        Dims outDims{};
        std::vector<double> const ref = poolReference(valuesOf(input), input.dims, c.pool, outDims);
        HostTensor const expected = HostTensor::fromValues(DataType::kFLOAT, outDims, ref);
        auto outputs = runner.run({{"x", input}});
        double const tol = c.type == DataType::kHALF ? 2e-3 : 1e-6;
        EXPECT_TRUE(allClose(outputs["y"], expected, tol, tol)) << dimsString(input.dims);
    }
}

INSTANTIATE_TEST_SUITE_P(SamplePlugins, PoolPluginFloat,
    ::testing::Values(PoolCase{DataType::kFLOAT, {0, 2, 2}}, PoolCase{DataType::kFLOAT, {1, 3, 1}},
        PoolCase{DataType::kHALF, {0, 2, 2}}, PoolCase{DataType::kHALF, {1, 2, 1}}),
    [](::testing::TestParamInfo<PoolCase> const& info) {
        std::string name = info.param.type == DataType::kHALF ? "FP16" : "FP32";
        name += info.param.pool.mode == 0 ? "Max" : "Average";
        return name + "K" + std::to_string(info.param.pool.kernel) + "S" + std::to_string(info.param.pool.stride);
    });

class PoolPluginInt8 : public ::testing::TestWithParam<int32_t>
{
};

TEST_P(PoolPluginInt8, QuantizesWithTheTensorScales)
{
    // FP32 network I/O; the plugin accepts only INT8, so the builder quantizes x with its dynamic range, hands the
    // plugin in[0].scale / out[0].scale, and dequantizes y. The reference quantizes the same way.
    PoolConfig const pool{GetParam(), 2, 2};
    float const inRange = 3.0F;
    float const outRange = 2.5F;
    float const inScale = inRange / 127.0F;
    float const outScale = outRange / 127.0F;
    std::mt19937 rng(7);
    for (std::vector<int64_t> const& shape : {std::vector<int64_t>{1, 2, 4, 6}, std::vector<int64_t>{2, 3, 8, 4}})
    {
        NetworkRunner runner;
        runner.config().setFlag(BuilderFlag::kINT8);
        ITensor* x = runner.addInput("x", DataType::kFLOAT, shape);
        ASSERT_TRUE(x->setDynamicRange(-inRange, inRange));
        IPluginV2Layer* layer = addPool(runner, x, pool, /*int8Only=*/1);
        ASSERT_NE(layer, nullptr);
        ASSERT_TRUE(layer->getOutput(0)->setDynamicRange(-outRange, outRange));
        runner.markOutput(layer->getOutput(0), "y");
        ASSERT_TRUE(runner.build()) << runner.logger().allErrors();
        EXPECT_EQ(runner.engine().getTensorDataType("y"), DataType::kFLOAT);

        HostTensor const input = HostTensor::random(DataType::kFLOAT, makeDims(shape), rng, -3.5, 3.5);
        std::vector<double> dequantized = valuesOf(input);
        for (double& v : dequantized)
        {
            v = static_cast<double>(samples::quantize(static_cast<float>(v), inScale)) * inScale;
        }
        Dims outDims{};
        std::vector<double> ref = poolReference(dequantized, input.dims, pool, outDims);
        for (double& v : ref)
        {
            v = static_cast<double>(samples::quantize(static_cast<float>(v), outScale)) * outScale;
        }
        auto outputs = runner.run({{"x", input}});
        HostTensor const& y = outputs["y"];
        // One quantum of slack for ties rounded the other way; every value must sit on the output's INT8 grid.
        EXPECT_TRUE(allClose(y, HostTensor::fromValues(DataType::kFLOAT, outDims, ref), outScale * 1.001, 0));
        int64_t offGrid = 0;
        for (int64_t i = 0; i < y.volume(); ++i)
        {
            double const q = y.at(i) / outScale;
            offGrid += std::fabs(q - std::nearbyint(q)) > 1e-3 || std::fabs(q) > 128.5 ? 1 : 0;
        }
        EXPECT_EQ(offGrid, 0) << "outputs not quantized with out[0].scale = " << outScale;
    }
}

INSTANTIATE_TEST_SUITE_P(SamplePlugins, PoolPluginInt8, ::testing::Values(0, 1),
    [](::testing::TestParamInfo<int32_t> const& info) { return std::string(info.param == 0 ? "Max" : "Average"); });

TEST(SamplePluginsPool, SerializedEngineRunsInAFreshRuntime)
{
    PoolConfig const pool{0, 2, 2};
    NetworkRunner runner;
    ITensor* x = runner.addInput("x", DataType::kFLOAT, {1, 2, 6, 6});
    IPluginV2Layer* layer = addPool(runner, x, pool);
    ASSERT_NE(layer, nullptr);
    runner.markOutput(layer->getOutput(0), "y");
    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();

    CapturingLogger logger;
    std::unique_ptr<IRuntime> runtime;
    auto engine = samplesupport::loadInFreshRuntime(runner.engineBytes(), logger, runtime);
    ASSERT_NE(engine, nullptr) << logger.allErrors();
    std::mt19937 rng(3);
    HostTensor const input = HostTensor::random(DataType::kFLOAT, makeDims({1, 2, 6, 6}), rng);
    Dims outDims{};
    auto const ref = poolReference(valuesOf(input), input.dims, pool, outDims);
    std::map<std::string, HostTensor> outputs;
    ASSERT_TRUE(samplesupport::runEngine(*engine, {{"x", input}}, outputs)) << logger.allErrors();
    EXPECT_TRUE(allClose(outputs["y"], HostTensor::fromValues(DataType::kFLOAT, outDims, ref), 1e-6, 1e-6));
}

TEST(SamplePluginsPool, CreatorRefusesBadFieldsAndBadBytes)
{
    ASSERT_TRUE(samples::registerSamplePlugins());
    auto* creator = getPluginRegistry()->getPluginCreator("PoolPlugin", "1", samples::kSAMPLE_NAMESPACE);
    ASSERT_NE(creator, nullptr);
    int32_t const badMode = 5;
    int32_t const zeroKernel = 0;
    for (PluginField const& field : {int32Field("mode", badMode), int32Field("kernel", zeroKernel)})
    {
        PluginFieldCollection fc{1, &field};
        EXPECT_EQ(creator->createPlugin("pool", &fc), nullptr) << field.name;
    }
    char const truncated[3] = {1, 2, 3};
    EXPECT_EQ(creator->deserializePlugin("pool", truncated, sizeof(truncated)), nullptr);
}

} // namespace
} // namespace kiln::test

KILN_IGNORE_DEPRECATED_END
