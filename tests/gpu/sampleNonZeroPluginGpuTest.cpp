// sampleNonZeroPluginGpuTest.cpp — samples/sampleNonZeroPlugin (TensorRT's sampleNonZeroPlugin flow: a NonZero
// IPluginV3 with a size tensor, output buffers sized by the application, no IOutputAllocator) on both backends. On the
// CUDA backend the buffers are device memory and the run goes on a real stream; the plugin takes its CUDA path and
// writes straight into the application's buffer. Each run is checked against a reference by the sample itself; the
// test adds that the verbose log says the application's buffer size is trusted. The CUDA half skips without a GPU.
#include "gpuTestUtils.h"
#include "sampleNonZero.h"

namespace kiln::test::gpu
{
namespace
{

void runSample(samples::SampleDevice device)
{
    CapturingLogger logger;
    samples::SampleNonZeroParams params;
    params.device = device;
    params.seed = 777;
    // Row counts up to the profile's maximum, an all-zero input (K = 0) and a dense one.
    params.runs = {{7, 0.5}, {64, 0.9}, {3, 0.0}, {33, 0.3}, {64, 1.0}};
    samples::SampleNonZeroPlugin sample(params, logger);
    ASSERT_TRUE(sample.build()) << sample.error() << "\n" << logger.allErrors();
    ASSERT_TRUE(sample.infer()) << sample.error() << "\n" << logger.allErrors();
    EXPECT_GE(logger.countMessages("the application's buffer size is trusted"), 1);
    EXPECT_EQ(logger.countMessages("set an IOutputAllocator"), 0);
}

TEST(SampleNonZeroPluginGpu, CpuBackendWritesTheApplicationBuffers)
{
    runSample(samples::SampleDevice::kCPU);
}

TEST(SampleNonZeroPluginGpu, CudaBackendWritesTheApplicationDeviceBuffers)
{
    KILN_REQUIRE_CUDA_BACKEND();
    runSample(samples::SampleDevice::kCUDA);
}

} // namespace
} // namespace kiln::test::gpu
