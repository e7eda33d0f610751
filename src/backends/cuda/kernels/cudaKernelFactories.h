// Declarations of the CUDA kernel factories (one per layer kind, defined in kernels/<kind>.cu) and of the few
// launchers one kind's kernel borrows from another's file.
#pragma once

#include "backends/cuda/cudaKernel.h"

namespace kiln::cuda
{

StatusOr<std::unique_ptr<CudaKernel>> createActivationCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createCastCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createConcatenationCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createConstantCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createCumulativeCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createElementWiseCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createFillCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createIdentityCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createMatrixMultiplyCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createParametricReLUCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createReduceCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createResizeCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createScaleCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createScatterCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createSelectCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createShapeCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createShuffleCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createSliceCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createSoftMaxCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createSqueezeCudaKernel(KernelSetup const& setup); //!< also kUNSQUEEZE
StatusOr<std::unique_ptr<CudaKernel>> createNormalizationCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createPaddingCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createGatherCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createTopKCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createUnaryCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createConvolutionCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createDeconvolutionCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createPoolingCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createAssertionCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createConditionalOutputCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createEinsumCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createGridSampleCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createLRNCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createNMSCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createNonZeroCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createOneHotCudaKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CudaKernel>> createReverseSequenceCudaKernel(KernelSetup const& setup);

//! Tactics of kinds with several implementations, best first.
std::vector<std::string> matrixMultiplyCudaTactics(KernelSetup const& setup);
std::vector<std::string> convolutionCudaTactics(KernelSetup const& setup);
std::vector<std::string> deconvolutionCudaTactics(KernelSetup const& setup);
std::vector<std::string> poolingCudaTactics(KernelSetup const& setup);

//! A stateless kernel: a function of the setup, the views and the run context.
using CudaKernelFunction = Status (*)(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx);
std::unique_ptr<CudaKernel> makeCudaFunctionKernel(KernelSetup const& setup, CudaKernelFunction fn);

//! Converts n contiguous elements from srcType to dstType on `stream` with ICastLayer's conversions (a plain
//! device copy when the types agree). Defined in kernels/cast.cu; used by identity and constant.
Status launchConvert(void const* src, nvinfer1::DataType srcType, void* dst, nvinfer1::DataType dstType, int64_t n,
    cudaStream_t stream);

} // namespace kiln::cuda
