// CPU application of a fused epilogue (backends/common/fusedEpilogue.h): after a convolution, deconvolution or
// matrix multiply kernel has written its result, output = act(output + add) is applied in place, computed in float
// (the same formulas as IActivationLayer's CPU kernel) and stored back in the output's type.
#pragma once

#include "backends/common/fusedEpilogue.h"
#include "backends/cpu/cpuKernel.h"

namespace kiln
{

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
