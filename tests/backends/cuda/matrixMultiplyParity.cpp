// Parity of the CUDA matrix multiply (cuBLASLt tactic and Kiln's own kernel) with the CPU reference: every pair of
// operations (kNONE / kTRANSPOSE / kVECTOR), FP32 / FP16 / BF16, batches that are uniform, broadcast as a whole and
// broadcast per dimension, and the empty reduction (K = 0).
#include "cudaParity.h"

#include "backends/cuda/cudaKernel.h"

#include <gtest/gtest.h>

namespace kiln::test::cuda
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::INetworkDefinition;
using nvinfer1::MatrixOperation;

//! FP32 products accumulate K terms in a different order than the CPU's double reference: allow for that.
Tolerance matmulTolerance()
{
    Tolerance t;
    t.fp32Atol = 1e-4;
    t.fp32Rtol = 1e-4;
    t.fp16Atol = 2e-2; // FP16/BF16 outputs of sums of K products: a few output ulps
    t.fp16Rtol = 4e-3;
    t.bf16Atol = 1e-1;
    t.bf16Rtol = 2e-2;
    return t;
}

//! Operand dims for op with matrix extents (rows, cols) of op(X) and the batch prefix.
std::vector<int64_t> operand(MatrixOperation op, std::vector<int64_t> batch, int64_t rows, int64_t cols, bool isB)
{
    if (op == MatrixOperation::kVECTOR)
    {
        batch.push_back(isB ? rows : cols); // A vector holds K (cols of op(A)); B vector holds K (rows of op(B))
    }
    else if (op == MatrixOperation::kNONE)
    {
        batch.push_back(rows);
        batch.push_back(cols);
    }
    else
    {
        batch.push_back(cols);
        batch.push_back(rows);
    }
    return batch;
}

void matmul(DataType t, MatrixOperation op0, MatrixOperation op1, std::vector<int64_t> const& batchA,
    std::vector<int64_t> const& batchB, int64_t m, int64_t n, int64_t k)
{
    SCOPED_TRACE("matmul type " + std::to_string(static_cast<int>(t)) + " ops " + std::to_string(static_cast<int>(op0))
        + "/" + std::to_string(static_cast<int>(op1)) + " m n k " + std::to_string(m) + " " + std::to_string(n) + " "
        + std::to_string(k));
    ParityOptions o;
    o.tolerance = matmulTolerance();
    o.lo = -1.0;
    o.hi = 1.0;
    checkParity([&](INetworkDefinition& net) {
        auto* a = net.addInput("a", t, dims(operand(op0, batchA, m, k, false)));
        auto* b = net.addInput("b", t, dims(operand(op1, batchB, k, n, true)));
        auto* l = net.addMatrixMultiply(*a, op0, *b, op1);
        net.markOutput(*l->getOutput(0));
    }, o);
}

TEST(CudaParity, MatrixMultiplyOperations)
{
    std::vector<MatrixOperation> const ops{MatrixOperation::kNONE, MatrixOperation::kTRANSPOSE, MatrixOperation::kVECTOR};
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        for (MatrixOperation op0 : ops)
        {
            for (MatrixOperation op1 : ops)
            {
                int64_t const m = op0 == MatrixOperation::kVECTOR ? 1 : 13;
                int64_t const n = op1 == MatrixOperation::kVECTOR ? 1 : 24;
                matmul(t, op0, op1, {3}, {3}, m, n, 40);
            }
        }
    }
}

TEST(CudaParity, MatrixMultiplyBatchesAndEmpty)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF})
    {
        matmul(t, MatrixOperation::kNONE, MatrixOperation::kNONE, {}, {}, 64, 32, 128);          // no batch
        matmul(t, MatrixOperation::kNONE, MatrixOperation::kNONE, {2, 3}, {1, 1}, 8, 16, 32);    // B broadcast whole
        matmul(t, MatrixOperation::kTRANSPOSE, MatrixOperation::kNONE, {2, 1}, {1, 3}, 5, 7, 9); // per dimension
        matmul(t, MatrixOperation::kNONE, MatrixOperation::kTRANSPOSE, {4}, {4}, 9, 11, 0);      // K = 0: zeros
        matmul(t, MatrixOperation::kNONE, MatrixOperation::kNONE, {0}, {1}, 4, 4, 4);            // empty batch
    }
}

TEST(CudaParity, MatrixMultiplyKilnTactic)
{
    // Mixed input types (not a cuBLASLt problem) and the plain kernel on a same-type problem.
    PlanNode node;
    node.kind = nvinfer1::LayerType::kMATRIX_MULTIPLY;
    node.name = "mm";
    node.tactic = "kiln";
    node.attrs.setInt("op0", static_cast<int64_t>(MatrixOperation::kTRANSPOSE));
    node.attrs.setInt("op1", static_cast<int64_t>(MatrixOperation::kNONE));
    std::mt19937 rng(5);
    for (DataType tb : {DataType::kFLOAT, DataType::kHALF})
    {
        HostTensor a = HostTensor::random(DataType::kFLOAT, dims({2, 1, 6, 5}), rng);
        HostTensor b = HostTensor::random(tb, dims({1, 3, 6, 7}), rng);
        checkKernel(node, {a, b}, {HostTensor(DataType::kFLOAT, dims({2, 3, 5, 7}))}, {}, matmulTolerance());
    }
}

TEST(CudaKernelTable, MatrixMultiplyTactics)
{
    PlanNode node;
    node.kind = nvinfer1::LayerType::kMATRIX_MULTIPLY;
    node.name = "mm";
    node.attrs.setInt("op0", 0);
    node.attrs.setInt("op1", 0);
    KernelSetup s;
    s.node = &node;
    s.inputTypes = {DataType::kHALF, DataType::kHALF};
    s.inputPresent = {true, true};
    s.inputRanks = {2, 2};
    s.outputTypes = {DataType::kHALF};
    s.outputRanks = {2};
    auto tactics = ::kiln::cuda::cudaKernelTactics(nvinfer1::LayerType::kMATRIX_MULTIPLY);
    ASSERT_NE(tactics, nullptr);
    EXPECT_EQ(tactics(s), (std::vector<std::string>{"cublaslt", "kiln"}));
    s.inputTypes[1] = DataType::kFLOAT;
    EXPECT_EQ(tactics(s), std::vector<std::string>{"kiln"});
    // A cuBLASLt tactic recorded for a problem it cannot run is refused at kernel creation.
    node.tactic = "cublaslt";
    auto r = ::kiln::cuda::cudaKernelFactory(nvinfer1::LayerType::kMATRIX_MULTIPLY)(s);
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("tactic cublaslt needs"), std::string::npos) << r.status().message();
    node.attrs.setInt("op0", 7);
    r = ::kiln::cuda::cudaKernelFactory(nvinfer1::LayerType::kMATRIX_MULTIPLY)(s);
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("invalid MatrixOperation"), std::string::npos);
}

} // namespace
} // namespace kiln::test::cuda
