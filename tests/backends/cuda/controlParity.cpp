// Parity of the CUDA control and reformat kernels with the CPU reference: conditional outputs (both branches, the
// condition read on the device), assertions (the failure path: CPU and GPU fail with the same message naming the
// layer and the first false element; passing assertions are in the assertion layer tests' CUDA instances), reformat nodes (identity with "reformat" = 1)
// between kLINEAR and every vectorized / channel-last format and between two non-linear formats, with type changes
// and INT8 scales. The factories' refusals are compared with the CPU's without a GPU.
#include "cudaParity.h"

#include "backends/cuda/cudaKernel.h"
#include "common/kernelRun.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

namespace kiln::test::cuda
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::INetworkDefinition;
using nvinfer1::LayerType;
using nvinfer1::TensorFormat;

KernelSetup setupFor(PlanNode const& node, std::vector<DataType> const& ins, std::vector<int32_t> const& inRanks,
    std::vector<DataType> const& outs, std::vector<int32_t> const& outRanks)
{
    KernelSetup s;
    s.node = &node;
    s.inputTypes = ins;
    s.inputPresent.assign(ins.size(), true);
    s.inputRanks = inRanks;
    s.outputTypes = outs;
    s.outputRanks = outRanks;
    return s;
}

TEST(CudaKernelTable, ListsTheRemainingKinds)
{
    for (LayerType k : {LayerType::kEINSUM, LayerType::kGRID_SAMPLE, LayerType::kLRN, LayerType::kONE_HOT,
             LayerType::kREVERSE_SEQUENCE, LayerType::kNON_ZERO, LayerType::kNMS, LayerType::kASSERTION,
             LayerType::kCONDITIONAL_INPUT, LayerType::kCONDITIONAL_OUTPUT})
    {
        EXPECT_NE(::kiln::cuda::cudaKernelFactory(k), nullptr) << static_cast<int>(k);
        auto tactics = ::kiln::cuda::cudaKernelTactics(k);
        ASSERT_NE(tactics, nullptr) << static_cast<int>(k);
        PlanNode node;
        node.kind = k;
        EXPECT_EQ(tactics(setupFor(node, {}, {}, {}, {})), std::vector<std::string>{"kiln"});
    }
    // Loops stay on the CPU for now.
    for (LayerType k : {LayerType::kRECURRENCE, LayerType::kITERATOR, LayerType::kTRIP_LIMIT, LayerType::kLOOP_OUTPUT})
    {
        EXPECT_EQ(::kiln::cuda::cudaKernelFactory(k), nullptr) << static_cast<int>(k);
    }
}

TEST(CudaParity, ConditionalBothBranches)
{
    for (bool taken : {true, false})
    {
        for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kINT32})
        {
            SCOPED_TRACE(std::string("condition ") + (taken ? "true" : "false"));
            ParityOptions o;
            o.inputs["c"] = HostTensor::fromValues(DataType::kBOOL, dims({}), {taken ? 1.0 : 0.0});
            checkParity([&](INetworkDefinition& n) {
                auto* c = n.addInput("c", DataType::kBOOL, dims({}));
                auto* x = n.addInput("x", t, dims({4, 3}));
                auto* y = n.addInput("y", t, dims({4, 3}));
                auto* cond = n.addIfConditional();
                ASSERT_NE(cond, nullptr);
                cond->setCondition(*c);
                auto* xin = cond->addInput(*x);
                auto* yin = cond->addInput(*y);
                auto* prod = n.addElementWise(*xin->getOutput(0), *xin->getOutput(0), nvinfer1::ElementWiseOperation::kPROD);
                auto* diff = n.addElementWise(*yin->getOutput(0), *xin->getOutput(0), nvinfer1::ElementWiseOperation::kSUB);
                auto* out = cond->addOutput(*prod->getOutput(0), *diff->getOutput(0));
                ASSERT_NE(out, nullptr);
                n.markOutput(*out->getOutput(0));
            }, o);
        }
    }
}

TEST(CudaParity, AssertionFailureMessage)
{
    PlanNode node;
    node.kind = LayerType::kASSERTION;
    node.name = "assert1";
    node.attrs.setString("message", "x must stay positive");
    KernelSetup const setup = setupFor(node, {DataType::kBOOL}, {2}, {}, {});
    std::mt19937 rng(3);
    std::vector<HostTensor> conditions;
    std::vector<Status> cpuStatuses;
    for (int64_t firstFalse : {int64_t{-1}, int64_t{0}, int64_t{37}, int64_t{599}})
    {
        HostTensor cond(DataType::kBOOL, dims({20, 30}));
        for (int64_t i = 0; i < cond.volume(); ++i)
        {
            // Beyond the first false element, random truth values (more false ones).
            cond.set(i, firstFalse >= 0 && i > firstFalse ? static_cast<double>(rng() % 2) : 1.0);
        }
        if (firstFalse >= 0)
        {
            cond.set(firstFalse, 0.0);
        }
        TensorView hostView{cond.data(), DataType::kBOOL, cond.dims};
        auto cpu = cpuKernelFactory(node.kind)(setup);
        ASSERT_TRUE(cpu.isOk());
        Status const cpuStatus = kiln::test::reshapeAndRun(*(*cpu), {hostView}, {});
        EXPECT_EQ(cpuStatus.isOk(), firstFalse < 0);
        if (firstFalse >= 0)
        {
            EXPECT_NE(cpuStatus.message().find("assert1"), std::string::npos) << cpuStatus.message();
            EXPECT_NE(cpuStatus.message().find("element " + std::to_string(firstFalse) + " "), std::string::npos)
                << cpuStatus.message();
        }
        conditions.push_back(cond);
        cpuStatuses.push_back(cpuStatus);
    }
    KILN_REQUIRE_GPU();
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    auto gpu = ::kiln::cuda::cudaKernelFactory(node.kind)(setup);
    ASSERT_TRUE(gpu.isOk()) << gpu.status().message();
    for (size_t k = 0; k < conditions.size(); ++k)
    {
        HostTensor const& cond = conditions[k];
        void* device = nullptr;
        void* workspace = nullptr;
        ASSERT_EQ(cudaMalloc(&device, cond.bytes.size()), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(device, cond.data(), cond.bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
        TensorView deviceView{device, DataType::kBOOL, cond.dims};
        int64_t const bytes = (*gpu)->workspaceSize({deviceView}, {});
        ASSERT_EQ(cudaMalloc(&workspace, static_cast<size_t>(bytes)), cudaSuccess);
        RunContext const ctx{stream, workspace, bytes};
        // The same kernel object runs every condition: its pinned result buffer is reused.
        Status gpuStatus = (*gpu)->reshape({deviceView}, {});
        gpuStatus = gpuStatus.isOk() ? (*gpu)->run({deviceView}, {}, ctx) : gpuStatus;
        EXPECT_EQ(gpuStatus.isOk(), cpuStatuses[k].isOk());
        EXPECT_EQ(gpuStatus.message(), cpuStatuses[k].message());
        EXPECT_EQ(gpuStatus.code(), cpuStatuses[k].code());
        (void) cudaFree(workspace);
        (void) cudaFree(device);
    }
    (void) cudaStreamDestroy(stream);
}

TEST(CudaParity, ControlFactoryErrorsMatchTheCpu)
{
    // Assertion on a non-BOOL condition.
    PlanNode a;
    a.kind = LayerType::kASSERTION;
    a.name = "badAssert";
    KernelSetup const as = setupFor(a, {DataType::kINT32}, {1}, {}, {});
    // Conditional output whose condition is not a 0-D BOOL.
    PlanNode c;
    c.kind = LayerType::kCONDITIONAL_OUTPUT;
    c.name = "badOut";
    KernelSetup const cs = setupFor(c, {DataType::kFLOAT, DataType::kFLOAT, DataType::kFLOAT}, {1, 1, 0},
        {DataType::kFLOAT}, {1});
    // Reformat to a DLA format.
    PlanNode r;
    r.kind = LayerType::kIDENTITY;
    r.name = "badReformat";
    r.attrs.setInt("reformat", 1);
    r.attrs.setInt("inFormat", static_cast<int64_t>(TensorFormat::kLINEAR));
    r.attrs.setInt("outFormat", static_cast<int64_t>(TensorFormat::kDLA_HWC4));
    KernelSetup const rs = setupFor(r, {DataType::kFLOAT}, {4}, {DataType::kFLOAT}, {4});
    for (KernelSetup const* s : {&as, &cs, &rs})
    {
        auto cpu = cpuKernelFactory(s->node->kind)(*s);
        auto gpu = ::kiln::cuda::cudaKernelFactory(s->node->kind)(*s);
        ASSERT_FALSE(cpu.isOk()) << s->node->name;
        ASSERT_FALSE(gpu.isOk()) << s->node->name;
        EXPECT_EQ(gpu.status().message(), cpu.status().message());
        EXPECT_NE(gpu.status().message().find(s->node->name), std::string::npos) << gpu.status().message();
    }
}

struct ReformatCase
{
    TensorFormat in;
    TensorFormat out;
    std::vector<int64_t> shape; //!< channels a multiple of the vector size (the harness's buffers hold no padding)
    DataType inType;
    DataType outType;
    double inScale;
    double outScale;
};

TEST(CudaParity, ReformatFormatsAndScales)
{
    using F = TensorFormat;
    std::vector<ReformatCase> const cases = {
        {F::kLINEAR, F::kCHW2, {2, 4, 3, 5}, DataType::kFLOAT, DataType::kFLOAT, -1, -1},
        {F::kCHW2, F::kLINEAR, {2, 4, 3, 5}, DataType::kHALF, DataType::kFLOAT, -1, -1},
        {F::kLINEAR, F::kCHW4, {2, 8, 3, 5}, DataType::kFLOAT, DataType::kHALF, -1, -1},
        {F::kCHW4, F::kLINEAR, {3, 4, 2, 2}, DataType::kINT32, DataType::kINT32, -1, -1},
        {F::kLINEAR, F::kCHW16, {1, 16, 2, 5}, DataType::kHALF, DataType::kHALF, -1, -1},
        {F::kCHW32, F::kLINEAR, {1, 32, 2, 3}, DataType::kFLOAT, DataType::kFLOAT, -1, -1},
        {F::kLINEAR, F::kHWC8, {2, 16, 3, 3}, DataType::kHALF, DataType::kHALF, -1, -1},
        {F::kHWC16, F::kLINEAR, {1, 16, 3, 2}, DataType::kHALF, DataType::kFLOAT, -1, -1},
        {F::kLINEAR, F::kHWC, {2, 3, 4, 5}, DataType::kFLOAT, DataType::kFLOAT, -1, -1},
        {F::kHWC, F::kLINEAR, {2, 5, 3, 4}, DataType::kBF16, DataType::kFLOAT, -1, -1},
        {F::kLINEAR, F::kDHWC8, {1, 8, 2, 3, 4}, DataType::kFLOAT, DataType::kFLOAT, -1, -1},
        {F::kCDHW32, F::kLINEAR, {1, 32, 2, 2, 3}, DataType::kFLOAT, DataType::kHALF, -1, -1},
        {F::kCHW4, F::kHWC8, {2, 8, 3, 3}, DataType::kFLOAT, DataType::kFLOAT, -1, -1},
        {F::kLINEAR, F::kCHW4, {2, 4, 3, 3}, DataType::kFLOAT, DataType::kINT8, -1, 0.05},
        {F::kCHW32, F::kLINEAR, {1, 32, 2, 2}, DataType::kINT8, DataType::kFLOAT, 0.1, -1},
        {F::kCHW4, F::kCHW32, {1, 32, 2, 3}, DataType::kINT8, DataType::kINT8, 0.1, 0.07},
        {F::kLINEAR, F::kLINEAR, {3, 7}, DataType::kINT8, DataType::kHALF, 0.25, -1},
        // Plain transposes (linear <-> channel-last without padding): partial 32x32 tiles, several batches.
        {F::kHWC8, F::kLINEAR, {2, 40, 33, 35}, DataType::kHALF, DataType::kHALF, -1, -1},
        {F::kLINEAR, F::kHWC8, {3, 48, 7, 37}, DataType::kBF16, DataType::kBF16, -1, -1},
        {F::kDHWC8, F::kLINEAR, {1, 16, 3, 5, 7}, DataType::kHALF, DataType::kHALF, -1, -1},
        {F::kHWC, F::kLINEAR, {2, 33, 4, 9}, DataType::kFLOAT, DataType::kFLOAT, -1, -1},
        {F::kLINEAR, F::kHWC8, {2, 8, 5, 7}, DataType::kHALF, DataType::kHALF, -1, -1}, // one 16-byte pixel a thread
    };
    std::mt19937 rng(41);
    int32_t index = 0;
    for (ReformatCase const& c : cases)
    {
        SCOPED_TRACE("reformat case " + std::to_string(index++));
        PlanNode node;
        node.kind = LayerType::kIDENTITY;
        node.name = "reformat" + std::to_string(index);
        node.attrs.setInt("reformat", 1);
        node.attrs.setInt("inFormat", static_cast<int64_t>(c.in));
        node.attrs.setInt("outFormat", static_cast<int64_t>(c.out));
        node.attrs.setFloat("inScale", c.inScale);
        node.attrs.setFloat("outScale", c.outScale);
        double const range = c.inType == DataType::kINT8 ? 120.0 : 4.0;
        HostTensor in = HostTensor::random(c.inType, dims(c.shape), rng, -range, range);
        HostTensor out(c.outType, dims(c.shape));
        checkKernel(node, {in}, {out});
    }
}

} // namespace
} // namespace kiln::test::cuda
