// samplePluginsGpuTest.cpp — the seeds' plugins on the GPU: BarPlugin (IPluginV2DynamicExt), PoolPlugin
// (IPluginV2IOExt, FP32/FP16/INT8), LReLU_TRT (IPluginV2, standard library) and NonZeroPlugin (IPluginV3 with a
// data-dependent output through an IOutputAllocator that hands out device memory). Each network is built twice,
// for the CPU backend and for the CUDA backend, and run on the same random inputs; the CUDA run uses device
// buffers and a real stream, so the plugins take their CUDA path, and must reproduce the CPU backend's results
// (bit for bit where both compute the same float operations). The CPU half runs everywhere; the CUDA half skips
// visibly without a GPU.
#include "gpuTestUtils.h"
#include "plugin/samplePluginsTestUtils.h"

#include "NvInferPlugin.h"

#include <cmath>

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::test::gpu
{
namespace
{
using namespace nvinfer1;
using samplesupport::createV2;
using samplesupport::createV3;
using samplesupport::int32Field;

using NetworkBody = std::function<void(NetworkRunner&)>;

//! Builds `body` for `backend` and runs it once on `inputs`; empty outputs (and a test failure) on error.
std::map<std::string, HostTensor> buildAndRun(BackendKind backend, NetworkBody const& body,
    std::map<std::string, HostTensor> const& inputs, std::map<std::string, TestOutputAllocator*> const& allocators = {},
    uint32_t networkFlags = 0)
{
    std::unique_ptr<NetworkRunner> runner = buildFor(backend, body, networkFlags);
    if (runner == nullptr)
    {
        return {};
    }
    std::map<std::string, HostTensor> outputs;
    std::string error;
    if (!runEngine(runner->engine(), backend, inputs, outputs, error, allocators))
    {
        ADD_FAILURE() << (backend == BackendKind::kCUDA ? "CUDA" : "CPU") << " run failed: " << error << "\n"
                      << runner->logger().allErrors();
        return {};
    }
    return outputs;
}

// ---- BarPlugin ---------------------------------------------------------------------------------------------------

class BarPluginGpu : public ::testing::TestWithParam<DataType>
{
};

TEST_P(BarPluginGpu, MatchesTheCpuBackend)
{
    DataType const type = GetParam();
    std::mt19937 rng(101);
    HostTensor const a = HostTensor::random(type, makeDims({3, 4, 5}), rng, -9, 9);
    HostTensor const b = HostTensor::random(type, makeDims({2, 4, 5}), rng, -9, 9);
    NetworkBody const body = [&](NetworkRunner& runner) {
        auto plugin = createV2("BarPlugin");
        ASSERT_NE(plugin, nullptr);
        ITensor* inputs[] = {runner.addInput("a", type, {3, 4, 5}), runner.addInput("b", type, {2, 4, 5})};
        IPluginV2Layer* layer = runner.network().addPluginV2(inputs, 2, *plugin);
        ASSERT_NE(layer, nullptr) << runner.logger().allErrors();
        layer->setName("bar");
        runner.markOutput(layer->getOutput(0), "concat");
        runner.markOutput(layer->getOutput(1), "copy");
    };
    auto cpu = buildAndRun(BackendKind::kCPU, body, {{"a", a}, {"b", b}});
    ASSERT_EQ(cpu.size(), 2U);
    // The CPU result against an independent reference: concatenation along dim 0 and a copy of a.
    HostTensor expected(type, makeDims({5, 4, 5}));
    std::memcpy(expected.data(), a.data(), a.bytes.size());
    std::memcpy(static_cast<uint8_t*>(expected.data()) + a.bytes.size(), b.data(), b.bytes.size());
    EXPECT_TRUE(sameBits(cpu["concat"], expected));
    EXPECT_TRUE(sameBits(cpu["copy"], a));

    KILN_REQUIRE_CUDA_BACKEND();
    auto gpu = buildAndRun(BackendKind::kCUDA, body, {{"a", a}, {"b", b}});
    ASSERT_EQ(gpu.size(), 2U);
    EXPECT_TRUE(sameBits(gpu["concat"], cpu["concat"]));
    EXPECT_TRUE(sameBits(gpu["copy"], cpu["copy"]));
}

INSTANTIATE_TEST_SUITE_P(SamplePlugins, BarPluginGpu, ::testing::Values(DataType::kFLOAT, DataType::kHALF, DataType::kINT32),
    [](::testing::TestParamInfo<DataType> const& info) {
        return std::string(info.param == DataType::kFLOAT ? "FP32" : info.param == DataType::kHALF ? "FP16" : "INT32");
    });

// ---- PoolPlugin --------------------------------------------------------------------------------------------------

struct PoolCase
{
    DataType type;
    int32_t mode;
    int32_t kernel;
    int32_t stride;
};

NetworkBody poolBody(PoolCase const& c, std::vector<int64_t> const& shape, int32_t int8Only)
{
    return [=](NetworkRunner& runner) {
        std::vector<PluginField> const fields{int32Field("mode", c.mode), int32Field("kernel", c.kernel),
            int32Field("stride", c.stride), int32Field("int8Only", int8Only)};
        auto plugin = createV2("PoolPlugin", fields);
        ASSERT_NE(plugin, nullptr);
        ITensor* x = runner.addInput("x", int8Only != 0 ? DataType::kFLOAT : c.type, shape);
        ITensor* inputs[] = {x};
        IPluginV2Layer* layer = runner.network().addPluginV2(inputs, 1, *plugin);
        ASSERT_NE(layer, nullptr) << runner.logger().allErrors();
        layer->setName("pool");
        if (int8Only != 0)
        {
            runner.config().setFlag(BuilderFlag::kINT8);
            ASSERT_TRUE(x->setDynamicRange(-3.0F, 3.0F));
            ASSERT_TRUE(layer->getOutput(0)->setDynamicRange(-2.5F, 2.5F));
        }
        runner.markOutput(layer->getOutput(0), "y");
    };
}

class PoolPluginGpu : public ::testing::TestWithParam<PoolCase>
{
};

TEST_P(PoolPluginGpu, MatchesTheCpuBackend)
{
    PoolCase const c = GetParam();
    bool const int8 = c.type == DataType::kINT8;
    std::mt19937 rng(202);
    for (std::vector<int64_t> const& shape : {std::vector<int64_t>{2, 3, 6, 8}, std::vector<int64_t>{1, 5, 9, 7}})
    {
        NetworkBody const body = poolBody(c, shape, int8 ? 1 : 0);
        HostTensor const x = HostTensor::random(int8 ? DataType::kFLOAT : c.type, makeDims(shape), rng, -3.5, 3.5);
        auto cpu = buildAndRun(BackendKind::kCPU, body, {{"x", x}});
        ASSERT_EQ(cpu.count("y"), 1U);
        int64_t const outH = (shape[2] - c.kernel) / c.stride + 1;
        int64_t const outW = (shape[3] - c.kernel) / c.stride + 1;
        EXPECT_EQ(dimsString(cpu["y"].dims), dimsString(makeDims({shape[0], shape[1], outH, outW})));

        KILN_REQUIRE_CUDA_BACKEND();
        auto gpu = buildAndRun(BackendKind::kCUDA, body, {{"x", x}});
        ASSERT_EQ(gpu.count("y"), 1U);
        if (int8)
        {
            // The quantize/dequantize around the plugin may round a tie the other way: one output quantum.
            EXPECT_TRUE(allClose(gpu["y"], cpu["y"], 2.5 / 127.0 * 1.001, 0)) << dimsString(x.dims);
        }
        else
        {
            EXPECT_TRUE(sameBits(gpu["y"], cpu["y"])) << dimsString(x.dims);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(SamplePlugins, PoolPluginGpu,
    ::testing::Values(PoolCase{DataType::kFLOAT, 0, 2, 2}, PoolCase{DataType::kFLOAT, 1, 3, 1},
        PoolCase{DataType::kHALF, 0, 2, 2}, PoolCase{DataType::kHALF, 1, 2, 1}, PoolCase{DataType::kINT8, 0, 2, 2},
        PoolCase{DataType::kINT8, 1, 2, 2}),
    [](::testing::TestParamInfo<PoolCase> const& info) {
        PoolCase const& c = info.param;
        std::string name = c.type == DataType::kHALF ? "FP16" : c.type == DataType::kINT8 ? "INT8" : "FP32";
        name += c.mode == 0 ? "Max" : "Average";
        return name + "K" + std::to_string(c.kernel) + "S" + std::to_string(c.stride);
    });

// ---- LReLU_TRT ---------------------------------------------------------------------------------------------------

IPluginCreator* leakyReluCreator()
{
    static CapturingLogger logger; // initLibNvInferPlugins keeps it
    EXPECT_TRUE(initLibNvInferPlugins(&logger, ""));
    return getPluginRegistry()->getPluginCreator("LReLU_TRT", "1", "");
}

class LeakyReluGpu : public ::testing::TestWithParam<DataType>
{
};

TEST_P(LeakyReluGpu, MatchesTheCpuBackend)
{
    DataType const type = GetParam();
    float const slope = 0.2F;
    std::mt19937 rng(303);
    HostTensor const x = HostTensor::random(type, makeDims({37, 29}), rng, -6, 6);
    NetworkBody const body = [&](NetworkRunner& runner) {
        IPluginCreator* creator = leakyReluCreator();
        ASSERT_NE(creator, nullptr);
        PluginField const field{"negSlope", &slope, PluginFieldType::kFLOAT32, 1};
        PluginFieldCollection const fc{1, &field};
        std::unique_ptr<IPluginV2, void (*)(IPluginV2*)> plugin(
            creator->createPlugin("lrelu", &fc), [](IPluginV2* p) { p->destroy(); });
        ASSERT_NE(plugin, nullptr);
        ITensor* inputs[] = {runner.addInput("x", type, {37, 29})};
        IPluginV2Layer* layer = runner.network().addPluginV2(inputs, 1, *plugin);
        ASSERT_NE(layer, nullptr) << runner.logger().allErrors();
        layer->setName("lrelu");
        runner.markOutput(layer->getOutput(0), "y");
    };
    auto cpu = buildAndRun(BackendKind::kCPU, body, {{"x", x}});
    ASSERT_EQ(cpu.count("y"), 1U);
    HostTensor expected(DataType::kFLOAT, x.dims);
    for (int64_t i = 0; i < x.volume(); ++i)
    {
        double const v = x.at(i);
        expected.set(i, v >= 0 ? v : static_cast<double>(slope) * v);
    }
    double const tol = type == DataType::kHALF ? 1e-3 : 1e-6;
    EXPECT_TRUE(allClose(cpu["y"], expected, tol, tol));

    KILN_REQUIRE_CUDA_BACKEND();
    auto gpu = buildAndRun(BackendKind::kCUDA, body, {{"x", x}});
    ASSERT_EQ(gpu.count("y"), 1U);
    EXPECT_TRUE(sameBits(gpu["y"], cpu["y"]));
}

INSTANTIATE_TEST_SUITE_P(StandardPlugins, LeakyReluGpu, ::testing::Values(DataType::kFLOAT, DataType::kHALF),
    [](::testing::TestParamInfo<DataType> const& info) {
        return std::string(info.param == DataType::kFLOAT ? "FP32" : "FP16");
    });

// ---- NonZeroPlugin -----------------------------------------------------------------------------------------------

//! Random [rows, cols] values with about a third of them zero (at least one zero and one non-zero).
HostTensor sparseRandom(DataType type, int64_t rows, int64_t cols, std::mt19937& rng)
{
    HostTensor t = HostTensor::random(type, makeDims({rows, cols}), rng, 1, 9);
    std::bernoulli_distribution zero(0.35);
    for (int64_t i = 0; i < t.volume(); ++i)
    {
        if (i == 1 || (i != 0 && zero(rng)))
        {
            t.set(i, 0);
        }
        else if (i % 3 == 0)
        {
            t.set(i, -t.at(i));
        }
    }
    return t;
}

class NonZeroGpu : public ::testing::TestWithParam<DataType>
{
};

TEST_P(NonZeroGpu, OutputAllocatorGetsDeviceMemoryAndTheCpuResult)
{
    DataType const type = GetParam();
    std::mt19937 rng(404);
    NetworkBody const body = [&](NetworkRunner& runner) {
        auto plugin = createV3("NonZeroPlugin");
        ASSERT_NE(plugin, nullptr);
        ITensor* inputs[] = {runner.addInput("x", type, {-1, -1})};
        IPluginV3Layer* layer = runner.network().addPluginV3(inputs, 1, nullptr, 0, *plugin);
        ASSERT_NE(layer, nullptr) << runner.logger().allErrors();
        layer->setName("nonZero");
        runner.markOutput(layer->getOutput(0), "indices");
        runner.markOutput(layer->getOutput(1), "count");
        runner.setProfileDims("x", {1, 1}, {8, 40}, {64, 80});
    };
    // 64 x 70 = 4480 elements: more than one tile of the CUDA kernel's block.
    for (auto const& [rows, cols] : {std::pair<int64_t, int64_t>{5, 7}, std::pair<int64_t, int64_t>{64, 70}})
    {
        HostTensor const x = sparseRandom(type, rows, cols, rng);
        std::vector<double> rowIdx;
        std::vector<double> colIdx;
        for (int64_t i = 0; i < x.volume(); ++i)
        {
            if (x.at(i) != 0)
            {
                rowIdx.push_back(static_cast<double>(i / cols));
                colIdx.push_back(static_cast<double>(i % cols));
            }
        }
        int64_t const k = static_cast<int64_t>(rowIdx.size());
        rowIdx.insert(rowIdx.end(), colIdx.begin(), colIdx.end());
        HostTensor const expected = HostTensor::fromValues(DataType::kINT32, makeDims({2, k}), rowIdx);

        TestOutputAllocator cpuAllocator(/*device=*/false);
        auto cpu = buildAndRun(BackendKind::kCPU, body, {{"x", x}}, {{"indices", &cpuAllocator}});
        ASSERT_EQ(cpu.count("indices"), 1U);
        EXPECT_TRUE(sameBits(cpu["indices"], expected)) << rows << "x" << cols;
        ASSERT_EQ(cpu.count("count"), 1U);
        EXPECT_EQ(cpu["count"].at(0), static_cast<double>(k));

        KILN_REQUIRE_CUDA_BACKEND();
        TestOutputAllocator gpuAllocator(/*device=*/true);
        auto gpu = buildAndRun(BackendKind::kCUDA, body, {{"x", x}}, {{"indices", &gpuAllocator}});
        ASSERT_EQ(gpu.count("indices"), 1U);
        EXPECT_GE(gpuAllocator.reallocations, 1);
        EXPECT_EQ(gpuAllocator.notifications, 1);
        EXPECT_EQ(dimsString(gpuAllocator.shape), dimsString(expected.dims));
        EXPECT_TRUE(isDeviceMemory(gpuAllocator.memory()));
        EXPECT_TRUE(sameBits(gpu["indices"], cpu["indices"])) << rows << "x" << cols;
        ASSERT_EQ(gpu.count("count"), 1U);
        EXPECT_TRUE(sameBits(gpu["count"], cpu["count"]));
    }
}

INSTANTIATE_TEST_SUITE_P(SamplePlugins, NonZeroGpu, ::testing::Values(DataType::kFLOAT, DataType::kINT32),
    [](::testing::TestParamInfo<DataType> const& info) {
        return std::string(info.param == DataType::kFLOAT ? "FP32" : "INT32");
    });

} // namespace
} // namespace kiln::test::gpu

KILN_IGNORE_DEPRECATED_END
