// Backend-neutral host-side logic of IMatrixMultiplyLayer kernels: operand checks, problem derivation and batch
// offsets shared by the CPU kernel (backends/cpu/kernels/matrixMultiply.cpp) and the CUDA kernel
// (backends/cuda/kernels/matrixMultiply.cu).
#include "backends/common/matrixMultiplyParams.h"

#include <string>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::MatrixOperation;

StatusOr<std::pair<MatrixOperation, MatrixOperation>> readMatmulOps(PlanNode const& node)
{
    KILN_ASSIGN_OR_RETURN(int64_t op0, node.attrs.requireInt("op0"));
    KILN_ASSIGN_OR_RETURN(int64_t op1, node.attrs.requireInt("op1"));
    int32_t const n = nvinfer1::EnumMax<MatrixOperation>();
    if (op0 < 0 || op0 >= n || op1 < 0 || op1 >= n)
    {
        return invalidArgument("layer '" + node.name + "': invalid MatrixOperation attribute");
    }
    return std::make_pair(static_cast<MatrixOperation>(op0), static_cast<MatrixOperation>(op1));
}

bool isMatmulStorage(DataType t)
{
    return t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
}

StatusOr<MatmulShape> makeMatmulShape(KernelSetup const& setup, MatrixOperation op0, MatrixOperation op1,
    std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_ASSIGN_OR_RETURN(MatmulShape s, matmulShapes(setup, op0, op1, inputs, outputs));
    TensorView const& a = inputs[0];
    TensorView const& b = inputs[1];
    TensorView const& out = outputs[0];
    if ((a.data == nullptr && a.volume() != 0) || (b.data == nullptr && b.volume() != 0)
        || (out.data == nullptr && out.volume() != 0))
    {
        return invalidArgument("layer '" + setup.node->name + "': missing input or output buffer");
    }
    return s;
}

StatusOr<MatmulShape> matmulShapes(KernelSetup const& setup, MatrixOperation op0, MatrixOperation op1,
    std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    auto const fail = [&setup](std::string const& msg) {
        return invalidArgument("layer '" + setup.node->name + "': " + msg);
    };
    if (inputs.size() != 2 || outputs.size() != 1)
    {
        return fail("expected 2 inputs and 1 output");
    }
    TensorView const& a = inputs[0];
    TensorView const& b = inputs[1];
    TensorView const& out = outputs[0];
    if (!isMatmulStorage(a.type) || !isMatmulStorage(b.type) || !isMatmulStorage(out.type))
    {
        return fail("unsupported input/output type");
    }
    int32_t const matA = op0 == MatrixOperation::kVECTOR ? 1 : 2;
    int32_t const matB = op1 == MatrixOperation::kVECTOR ? 1 : 2;
    if (a.dims.nbDims < matA || b.dims.nbDims < matB || a.dims.nbDims - matA != b.dims.nbDims - matB)
    {
        return fail("input ranks do not fit the matrix operations");
    }
    MatmulShape s;
    s.nbBatch = a.dims.nbDims - matA;
    int64_t kA = 0;
    int64_t kB = 0;
    int32_t const ra = a.dims.nbDims;
    int32_t const rb = b.dims.nbDims;
    switch (op0)
    {
    case MatrixOperation::kNONE: s.m = a.dims.d[ra - 2]; kA = a.dims.d[ra - 1]; break;
    case MatrixOperation::kTRANSPOSE: s.m = a.dims.d[ra - 1]; kA = a.dims.d[ra - 2]; break;
    case MatrixOperation::kVECTOR: s.m = 1; kA = a.dims.d[ra - 1]; break;
    }
    switch (op1)
    {
    case MatrixOperation::kNONE: kB = b.dims.d[rb - 2]; s.n = b.dims.d[rb - 1]; break;
    case MatrixOperation::kTRANSPOSE: kB = b.dims.d[rb - 1]; s.n = b.dims.d[rb - 2]; break;
    case MatrixOperation::kVECTOR: kB = b.dims.d[rb - 1]; s.n = 1; break;
    }
    if (kA != kB)
    {
        return fail("reduction extents differ (" + std::to_string(kA) + " vs " + std::to_string(kB) + ")");
    }
    s.k = kA;
    std::vector<int64_t> expected;
    for (int32_t i = 0; i < s.nbBatch; ++i)
    {
        int64_t const x = a.dims.d[i];
        int64_t const y = b.dims.d[i];
        if (x != y && x != 1 && y != 1)
        {
            return fail("batch dimension " + std::to_string(i) + " cannot be broadcast (" + std::to_string(x) + " vs "
                + std::to_string(y) + ")");
        }
        int64_t const o = x == 1 ? y : x;
        s.batchA.push_back(x);
        s.batchB.push_back(y);
        s.batchOut.push_back(o);
        expected.push_back(o);
        s.batches *= o;
    }
    if (op0 != MatrixOperation::kVECTOR)
    {
        expected.push_back(s.m);
    }
    if (op1 != MatrixOperation::kVECTOR)
    {
        expected.push_back(s.n);
    }
    if (std::vector<int64_t>(out.dims.d, out.dims.d + out.dims.nbDims) != expected)
    {
        return fail("output dimensions do not match the operands");
    }
    return s;
}

void matmulBatchOffsets(MatmulShape const& s, int64_t bi, int64_t& offA, int64_t& offB)
{
    offA = 0;
    offB = 0;
    int64_t rest = bi;
    int64_t strideA = 1;
    int64_t strideB = 1;
    for (int32_t d = s.nbBatch - 1; d >= 0; --d)
    {
        auto const j = static_cast<size_t>(d);
        int64_t const c = rest % s.batchOut[j];
        rest /= s.batchOut[j];
        offA += (s.batchA[j] == 1 ? 0 : c) * strideA;
        offB += (s.batchB[j] == 1 ? 0 : c) * strideB;
        strideA *= s.batchA[j];
        strideB *= s.batchB[j];
    }
}

} // namespace kiln
