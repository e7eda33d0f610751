// CUDA kernel of IIdentityLayer: copies the input, converting it when the builder gave the output another type (the
// conversion kernel of cast.cu, ICastLayer's conversions; nothing when the builder aliased the output). Reformat
// nodes (attribute "reformat" = 1, inserted around plugins) get the reformat kernel of identityReformat.cu (formats
// and INT8 scales). kCONDITIONAL_INPUT nodes use this kernel too.
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{

StatusOr<std::unique_ptr<Kernel>> createReformatCudaKernel(KernelSetup const& setup); // identityReformat.cu

StatusOr<std::unique_ptr<Kernel>> createIdentityCudaKernel(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 1, 1, "Identity"));
    if (setup.node->attrs.getInt("reformat", 0) == 1)
    {
        return createReformatCudaKernel(setup);
    }
    if (!ew::isKernelType(setup.inputTypes[0]) || !ew::isKernelType(setup.outputTypes[0]))
    {
        return invalidArgument(nodeLabel(setup, "Identity") + ": cannot convert " + dataTypeName(setup.inputTypes[0])
            + " to " + dataTypeName(setup.outputTypes[0]));
    }
    return makeConvertCudaKernel(setup, "Identity"); // cast.cu: nothing to do when the output aliases the input
}

} // namespace kiln::cuda
