// CUDA kernel entry points of IDeconvolutionLayer: the kernel object is shared with convolution (convolution.cu,
// cuDNN's backward-data convolution or the direct kernel of convolutionDirect.cu).
#include "backends/cuda/kernels/convolution.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"

namespace kiln::cuda
{

StatusOr<std::unique_ptr<Kernel>> createDeconvolutionCudaKernel(KernelSetup const& setup)
{
    return createConvolutionLikeCudaKernel(setup, true);
}

std::vector<std::string> deconvolutionCudaTactics(KernelSetup const& setup)
{
    return convolutionLikeCudaTactics(setup, true);
}

} // namespace kiln::cuda
