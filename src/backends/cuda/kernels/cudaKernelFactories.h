// Declarations of the CUDA kernel factories (one per layer kind, defined in kernels/<kind>.cu; each returns a
// kiln::Kernel), of the tactics of kinds with several implementations, and of the few launchers one kind's kernel
// borrows from another's file.
#pragma once

#include "backends/cuda/cudaKernel.h"

#include <cuda_runtime_api.h>

namespace kiln::cuda
{

StatusOr<std::unique_ptr<Kernel>> createActivationCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createAttentionOutputCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createCastCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createConcatenationCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createConstantCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createCumulativeCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createDequantizeCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createElementWiseCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createFillCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createIdentityCudaKernel(KernelSetup const& setup); //!< also kCONDITIONAL_INPUT
StatusOr<std::unique_ptr<Kernel>> createMatrixMultiplyCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createParametricReLUCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createQuantizeCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createReduceCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createResizeCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createScaleCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createScatterCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createSelectCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createShapeCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createShuffleCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createSliceCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createSoftMaxCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createSqueezeCudaKernel(KernelSetup const& setup); //!< also kUNSQUEEZE
StatusOr<std::unique_ptr<Kernel>> createNormalizationCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createPaddingCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createGatherCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createTopKCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createUnaryCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createConvolutionCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createDeconvolutionCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createPoolingCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createAssertionCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createConditionalOutputCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createEinsumCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createGridSampleCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createLRNCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createNMSCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createNonZeroCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createOneHotCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<Kernel>> createReverseSequenceCudaKernel(KernelSetup const& setup);

//! Tactics of kinds with several implementations, best first.
std::vector<std::string> matrixMultiplyCudaTactics(KernelSetup const& setup);
std::vector<std::string> convolutionCudaTactics(KernelSetup const& setup);
std::vector<std::string> deconvolutionCudaTactics(KernelSetup const& setup);
std::vector<std::string> poolingCudaTactics(KernelSetup const& setup);

//! The kernel of ICastLayer and of plain IIdentityLayer nodes (checked by their factories): the output is the
//! input converted to the output's type (cast.cu). `kind` names the layer kind in messages.
std::unique_ptr<Kernel> makeConvertCudaKernel(KernelSetup const& setup, char const* kind);

//! Converts n contiguous elements from srcType to dstType on `stream` with ICastLayer's conversions (a plain
//! device copy when the types agree). Defined in kernels/cast.cu; used by identity, constant, reformat and
//! convolution.
Status launchConvert(void const* src, nvinfer1::DataType srcType, void* dst, nvinfer1::DataType dstType, int64_t n,
    cudaStream_t stream);

} // namespace kiln::cuda
