// MatrixMultiplyLayer: nvinfer1::IMatrixMultiplyLayer (batched matrix/vector products with batch broadcasting).
// Attributes: "op0", "op1" (int, nvinfer1::MatrixOperation of input 0 and input 1). No weights.
// Shapes: kNONE/kTRANSPOSE take [batch..., rows, cols], kVECTOR takes [batch..., length]; both inputs have the same
// number of batch dimensions, which broadcast where one side is 1. The output is [batch..., M?, N?] where M appears
// when input 0 is a matrix and N when input 1 is a matrix.
#pragma once

#include "network/layer.h"

namespace kiln
{

class MatrixMultiplyLayer final : public LayerBase<nvinfer1::IMatrixMultiplyLayer>
{
public:
    MatrixMultiplyLayer(NetworkDefinition& network, Tensor* input0, nvinfer1::MatrixOperation op0, Tensor* input1,
        nvinfer1::MatrixOperation op1);

    void setOperation(int32_t index, nvinfer1::MatrixOperation op) noexcept override;
    nvinfer1::MatrixOperation getOperation(int32_t index) const noexcept override;
};

//! Name of a MatrixOperation value ("kTRANSPOSE").
char const* matrixOperationName(nvinfer1::MatrixOperation op);

} // namespace kiln
