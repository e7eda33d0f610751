// Parity of the CUDA one-hot and reverse-sequence kernels with the CPU reference: one-hot along every axis with
// indices in and out of [-depth, depth), INT32/INT64 indices and values of several types; reverse-sequence with
// both axis orders, random lengths (0 and the full extent included) and several element sizes. Also the
// reverse-sequence error for a length out of range when the lengths have host values (no GPU needed: the check
// comes before any device work).
#include "cudaParity.h"

#include "backends/cuda/cudaKernel.h"
#include "common/kernelRun.h"

#include <gtest/gtest.h>

namespace kiln::test::cuda
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::INetworkDefinition;
using nvinfer1::Weights;

TEST(CudaParity, OneHotAxesAndTypes)
{
    static int32_t const depth = 4;
    for (DataType indexType : {DataType::kINT32, DataType::kINT64})
    {
        for (DataType valueType : {DataType::kFLOAT, DataType::kHALF, DataType::kINT32, DataType::kINT64, DataType::kBOOL})
        {
            for (int32_t axis : {-1, 0, 1, 2})
            {
                SCOPED_TRACE("indices " + std::to_string(static_cast<int>(indexType)) + " values "
                    + std::to_string(static_cast<int>(valueType)) + " axis " + std::to_string(axis));
                ParityOptions o;
                o.lo = -6.0; // indices beyond [-depth, depth) give all-off rows
                o.hi = 6.0;
                checkParity([&](INetworkDefinition& n) {
                    auto* indices = n.addInput("indices", indexType, dims({3, 5}));
                    auto* values = n.addInput("values", valueType, dims({2}));
                    auto* d = n.addConstant(dims({}), Weights{DataType::kINT32, &depth, 1});
                    auto* l = n.addOneHot(*indices, *values, *d->getOutput(0), axis);
                    ASSERT_NE(l, nullptr);
                    n.markOutput(*l->getOutput(0));
                }, o);
            }
        }
    }
}

TEST(CudaParity, ReverseSequenceAxesAndTypes)
{
    struct Case
    {
        std::vector<int64_t> shape;
        int32_t batchAxis;
        int32_t seqAxis;
    };
    std::vector<Case> const cases = {{{5, 3, 4}, 1, 0}, {{3, 6, 2}, 0, 1}, {{4, 2, 3, 7}, 1, 0}};
    std::mt19937 rng(5);
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kINT8, DataType::kINT64, DataType::kBOOL})
    {
        for (DataType lenType : {DataType::kINT32, DataType::kINT64})
        {
            for (Case const& c : cases)
            {
                int64_t const seqLen = c.shape[static_cast<size_t>(c.seqAxis)];
                int64_t const batch = c.shape[static_cast<size_t>(c.batchAxis)];
                HostTensor lens = HostTensor::random(lenType, dims({batch}), rng, 0.0, static_cast<double>(seqLen));
                lens.set(0, static_cast<double>(seqLen)); // the whole sequence
                lens.set(batch - 1, 0.0);                 // nothing reversed
                ParityOptions o;
                o.inputs["lens"] = lens;
                o.lo = -100.0;
                o.hi = 100.0;
                checkParity([&](INetworkDefinition& n) {
                    auto* l = n.addReverseSequence(*n.addInput("x", t, dims(c.shape)), *n.addInput("lens", lenType, dims({batch})));
                    ASSERT_NE(l, nullptr);
                    l->setBatchAxis(c.batchAxis);
                    l->setSequenceAxis(c.seqAxis);
                    n.markOutput(*l->getOutput(0));
                }, o);
            }
        }
    }
}

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
