// CUDA kernel of IIdentityLayer: copies the input, converting it when the builder gave the output another type
// (launchConvert, ICastLayer's conversions). Reformat nodes (attribute "reformat" = 1, inserted around plugins) get
// the reformat kernel of identityReformat.cu (formats and INT8 scales). kCONDITIONAL_INPUT nodes use this kernel too.
#include "backends/common/unaryParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{

StatusOr<std::unique_ptr<CudaKernel>> createReformatCudaKernel(KernelSetup const& setup); // identityReformat.cu

namespace
{

Status enqueueIdentity(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx)
{
    KILN_RETURN_IF_ERROR(checkUnaryViews(setup, inputs, outputs));
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    if (in.data == out.data && in.type == out.type)
    {
        return Status::ok(); // the builder aliased the output onto the input
    }
    return launchConvert(in.data, in.type, out.data, out.type, out.volume(), ctx.stream);
}

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createIdentityCudaKernel(KernelSetup const& setup)
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
    return makeCudaFunctionKernel(setup, enqueueIdentity);
}

} // namespace kiln::cuda
