// CPU application of a fused epilogue (backends/common/fusedEpilogue.h): after a convolution, deconvolution or
// matrix multiply kernel has written its result, output = act(output + add + residual) is applied in place, computed
// in float (the same formulas as IActivationLayer's CPU kernel) and stored back in the output's type.
#pragma once

#include "backends/common/fusedEpilogue.h"
#include "backends/kernel.h"

#include <array>

namespace kiln
{

//! An epilogue prepared for one output shape (at a kernel's reshape): the added tensor's strides over the output (a
//! residual has the output's shape and is read at the output's offsets).
struct FusedEpiloguePlan
{
    FusedEpilogue epilogue;
    nvinfer1::Dims outDims{};
    int64_t volume{0};
    std::array<int64_t, nvinfer1::Dims::MAX_DIMS> addStrides{}; //!< 0 along broadcast dimensions
};

//! Checks the epilogue against the output's type and dims and the added tensor's type and dims (`add`: required when
//! epilogue.hasAdd; `residual`: required when epilogue.hasResidual, of the output's dims; their data is not looked
//! at) and derives the plan. Errors as applyFusedEpilogueCpu's.
StatusOr<FusedEpiloguePlan> prepareFusedEpilogueCpu(FusedEpilogue const& epilogue, nvinfer1::DataType outputType,
    nvinfer1::Dims const& outputDims, TensorView const* add, TensorView const* residual = nullptr);

//! Runs a prepared epilogue on `output` in place (`add`: the added tensor, of the prepared shape, when hasAdd;
//! `residual` when hasResidual).
void runFusedEpilogueCpu(
    FusedEpiloguePlan const& plan, TensorView const& output, TensorView const* add, TensorView const* residual = nullptr);

//! Applies `epilogue` to `output` in place. `add` is the fused addition's tensor (required when epilogue.hasAdd,
//! ignored otherwise): its dims must equal the output's or broadcast to them (same rank after left-padding with 1s,
//! every extent equal to the output's or 1). Output types: kFLOAT, kHALF, kBF16 (kINT8/kINT32 are refused). Errors
//! name the problem (mismatched shapes, unsupported types, missing tensor).
Status applyFusedEpilogueCpu(FusedEpilogue const& epilogue, TensorView const& output, TensorView const* add);

//! True when applyFusedEpilogueCpu supports `outputType` / `addType`.
bool fusedEpilogueCpuSupports(nvinfer1::DataType outputType, nvinfer1::DataType addType);

//! Host activation of one value (the formulas of IActivationLayer, in float).
float fusedActivationCpu(nvinfer1::ActivationType type, float alpha, float beta, float v);

} // namespace kiln
