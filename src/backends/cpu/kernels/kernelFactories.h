// Declarations of every CPU kernel factory (one per layer kind, defined in kernels/<kind>.cpp) and of the
// tactic lists of kinds that have more than one implementation.
#pragma once

#include "backends/cpu/cpuKernel.h"

namespace kiln
{

StatusOr<std::unique_ptr<CpuKernel>> createActivationKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createCastKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createConcatenationKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createConstantKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createConvolutionKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createCumulativeKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createDeconvolutionKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createEinsumKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createElementWiseKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createFillKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createGatherKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createGridSampleKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createIdentityKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createLRNKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createMatrixMultiplyKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createNMSKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createNonZeroKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createNormalizationKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createOneHotKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createPaddingKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createParametricReLUKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createPoolingKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createReduceKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createResizeKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createReverseSequenceKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createScaleKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createScatterKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createSelectKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createShapeKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createShuffleKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createSliceKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createSoftMaxKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createSqueezeKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createTopKKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createAssertionKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createUnaryKernel(KernelSetup const& setup);
StatusOr<std::unique_ptr<CpuKernel>> createUnsqueezeKernel(KernelSetup const& setup);

// Kinds with several implementations list them best first; the builder records the choice in the node.
std::vector<std::string> convolutionTactics(KernelSetup const& setup);
std::vector<std::string> deconvolutionTactics(KernelSetup const& setup);
std::vector<std::string> matrixMultiplyTactics(KernelSetup const& setup);
std::vector<std::string> poolingTactics(KernelSetup const& setup);
//! Plugin nodes run the plugin's own enqueue(); the builder records "plugin" or "plugin:<tactic>" itself.

} // namespace kiln
