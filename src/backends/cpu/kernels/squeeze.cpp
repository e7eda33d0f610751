// CPU kernels of ISqueezeLayer and IUnsqueezeLayer: the element order does not change, so both copy the bytes of
// input 0 into the output (shape inference already produced the new dimensions).
#include "backends/common/squeezeParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cstring>

namespace kiln
{
namespace
{

Status executeCopy(KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_ASSIGN_OR_RETURN(int64_t const bytes, squeezeCopyBytes(setup, inputs, outputs));
    if (bytes > 0 && outputs[0].data != inputs[0].data)
    {
        std::memmove(outputs[0].data, inputs[0].data, static_cast<size_t>(bytes));
    }
    return Status::ok();
}

StatusOr<std::unique_ptr<CpuKernel>> createCopyKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Squeeze/Unsqueeze kernel: no plan node");
    }
    return makeFunctionKernel(setup, executeCopy);
}

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createSqueezeKernel(KernelSetup const& setup)
{
    return createCopyKernel(setup);
}

StatusOr<std::unique_ptr<CpuKernel>> createUnsqueezeKernel(KernelSetup const& setup)
{
    return createCopyKernel(setup);
}

} // namespace kiln
