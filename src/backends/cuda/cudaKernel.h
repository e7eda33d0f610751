// The CUDA backend's kernel table, the GPU counterpart of backends/cpu/kernelTable.cpp. Every CUDA kernel is a
// kiln::Kernel (backends/kernel.h) created per plan node per execution context from the node's KernelSetup; the
// session's library handles (CudaLibraries, cudaLibraries.h) come as KernelSetup::sessionState. create reads and
// checks the node, reshape prepares everything that depends on shapes (launch arguments, cuDNN descriptors and
// algorithms, cuBLASLt plans, workspace layouts), run only launches on RunContext::stream: no host synchronisation
// (IAssertionLayer's kernel is the documented exception), no allocation (device memory comes from workspaceSize()).
#pragma once

#include "backends/kernel.h"

#include <string>
#include <vector>

namespace kiln::cuda
{

//! Candidate tactics for a node, best first (e.g. {"cublaslt", "kiln"}); empty = unsupported with these types.
using CudaTacticsFn = std::vector<std::string> (*)(KernelSetup const& setup);

//! Kernel table (cudaKernelTable.cpp): factory and tactics per layer kind; nullptr where the CUDA backend has no
//! kernel for the kind.
KernelFactory cudaKernelFactory(nvinfer1::LayerType kind);
CudaTacticsFn cudaKernelTactics(nvinfer1::LayerType kind);

} // namespace kiln::cuda
