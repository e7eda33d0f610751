// Backend-neutral host-side logic of IMatrixMultiplyLayer kernels (CPU and CUDA): the concrete problem (batch dims
// of A, B and the output, matrix extents) derived from the run's shapes, with the validation messages.
#pragma once

#include "backends/kernel.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace kiln
{

//! Concrete problem: batch dims of A, B and the output, and the matrix extents.
struct MatmulShape
{
    int32_t nbBatch{0};
    std::vector<int64_t> batchA;
    std::vector<int64_t> batchB;
    std::vector<int64_t> batchOut;
    int64_t m{1};
    int64_t n{1};
    int64_t k{0};
    int64_t batches{1}; //!< product of batchOut
};

//! Reads the node's "op0" and "op1" (the operations on A and B).
StatusOr<std::pair<nvinfer1::MatrixOperation, nvinfer1::MatrixOperation>> readMatmulOps(PlanNode const& node);

//! FLOAT, HALF and BF16: the storage types a matrix multiply reads and writes.
bool isMatmulStorage(nvinfer1::DataType t);

//! Checks the operands of a matrix multiply (counts, types, ranks, reduction extents, batch broadcasting, output
//! dims, buffers) and derives the problem. Messages name the layer of `setup`.
StatusOr<MatmulShape> makeMatmulShape(KernelSetup const& setup, nvinfer1::MatrixOperation op0,
    nvinfer1::MatrixOperation op1, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

//! makeMatmulShape without the buffer checks (data not looked at: at reshape).
StatusOr<MatmulShape> matmulShapes(KernelSetup const& setup, nvinfer1::MatrixOperation op0,
    nvinfer1::MatrixOperation op1, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

//! Offsets, in whole matrices, of output batch `bi` (row-major over batchOut) in A and in B; extent-1 batch
//! dimensions broadcast.
void matmulBatchOffsets(MatmulShape const& s, int64_t bi, int64_t& offA, int64_t& offB);

} // namespace kiln
