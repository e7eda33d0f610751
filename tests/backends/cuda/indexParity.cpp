// The CUDA reverse-sequence kernel's error for a length out of range when the lengths have host values, the same as
// the CPU kernel's (no GPU needed: the check comes before any device work). The one-hot and reverse-sequence
// results are checked by the layer tests' CUDA instances (tests/layers, kilnGpuTests).
#include "cudaParity.h"

#include "backends/cuda/cudaKernel.h"
#include "common/kernelRun.h"

#include <gtest/gtest.h>

namespace kiln::test::cuda
{
namespace
{
using nvinfer1::DataType;

TEST(CudaParity, ReverseSequenceHostLengthOutOfRange)
{
    PlanNode node;
    node.kind = nvinfer1::LayerType::kREVERSE_SEQUENCE;
    node.name = "rev";
    node.attrs.setInt("batchAxis", 1);
    node.attrs.setInt("sequenceAxis", 0);
    KernelSetup setup;
    setup.node = &node;
    setup.inputTypes = {DataType::kFLOAT, DataType::kINT32};
    setup.inputPresent = {true, true};
    setup.inputRanks = {2, 1};
    setup.outputTypes = {DataType::kFLOAT};
    setup.outputRanks = {2};
    // Host-side views: the CPU kernel reads them; the CUDA kernel must fail on the host values before any launch.
    std::vector<float> data(8, 1.F);
    std::vector<float> out(8, 0.F);
    std::vector<int32_t> lens = {2, 5};
    std::vector<int64_t> lensValues = {2, 5};
    TensorView in{data.data(), DataType::kFLOAT, dims({4, 2})};
    TensorView lv{lens.data(), DataType::kINT32, dims({2})};
    lv.values = lensValues.data();
    TensorView ov{out.data(), DataType::kFLOAT, dims({4, 2})};
    auto cpu = cpuKernelFactory(node.kind)(setup);
    ASSERT_TRUE(cpu.isOk());
    Status const cpuStatus = kiln::test::reshapeAndRun(*(*cpu), {in, lv}, {ov});
    auto gpu = ::kiln::cuda::cudaKernelFactory(node.kind)(setup);
    ASSERT_TRUE(gpu.isOk()) << gpu.status().message();
    Status gpuStatus = (*gpu)->reshape({in, lv}, {ov});
    gpuStatus = gpuStatus.isOk() ? (*gpu)->run({in, lv}, {ov}, RunContext{}) : gpuStatus;
    ASSERT_FALSE(cpuStatus.isOk());
    ASSERT_FALSE(gpuStatus.isOk());
    EXPECT_EQ(gpuStatus.message(), cpuStatus.message());
    EXPECT_NE(gpuStatus.message().find("layer 'rev' (ReverseSequence): sequenceLens[1] = 5 is out of range [0, 4]"),
        std::string::npos)
        << gpuStatus.message();
}

} // namespace
} // namespace kiln::test::cuda
