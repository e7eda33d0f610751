// CUDA kernels of IConcatenationLayer (one 2-D device copy per input into its band of the output, any storage
// type) and of ISqueezeLayer / IUnsqueezeLayer (a device copy unless the builder aliased the output), with the CPU
// reference's checks and messages (backends/cpu/kernels/concatenation.cpp, squeeze.cpp).
#include "backends/common/concatenationParams.h"
#include "backends/common/squeezeParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{

namespace
{

Status enqueueConcatenation(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx)
{
    KILN_ASSIGN_OR_RETURN(ConcatenationParams const p, makeConcatenationParams(setup, inputs, outputs));
    TensorView const& out = outputs[0];
    int32_t const axis = p.axis;
    int64_t const outer = p.outer;
    int64_t const innerBytes = p.innerBytes;
    int64_t const outPitch = p.axisTotal * innerBytes;
    int64_t offset = 0;
    for (TensorView const& in : inputs)
    {
        int64_t const chunk = in.dims.d[axis] * innerBytes;
        if (chunk > 0 && outer > 0)
        {
            KILN_CUDA_CHECK(cudaMemcpy2DAsync(static_cast<uint8_t*>(out.data) + offset, static_cast<size_t>(outPitch),
                in.data, static_cast<size_t>(chunk), static_cast<size_t>(chunk), static_cast<size_t>(outer),
                cudaMemcpyDeviceToDevice, ctx.stream));
        }
        offset += chunk;
    }
    return Status::ok();
}

Status enqueueCopy(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx)
{
    KILN_ASSIGN_OR_RETURN(int64_t const bytes, squeezeCopyBytes(setup, inputs, outputs));
    if (bytes > 0 && outputs[0].data != inputs[0].data)
    {
        KILN_CUDA_CHECK(cudaMemcpyAsync(outputs[0].data, inputs[0].data, static_cast<size_t>(bytes),
            cudaMemcpyDeviceToDevice, ctx.stream));
    }
    return Status::ok();
}

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createConcatenationCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Concatenation kernel: no plan node");
    }
    return makeCudaFunctionKernel(setup, enqueueConcatenation);
}

StatusOr<std::unique_ptr<CudaKernel>> createSqueezeCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Squeeze/Unsqueeze kernel: no plan node");
    }
    return makeCudaFunctionKernel(setup, enqueueCopy);
}

} // namespace kiln::cuda
