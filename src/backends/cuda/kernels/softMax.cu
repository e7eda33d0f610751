// CUDA kernel of ISoftMaxLayer with the CPU reference's semantics (backends/cpu/kernels/softMax.cpp): numerically
// stable softmax (max subtracted) along one axis, FP16/BF16 storage computed in float. The sum accumulates in
// float here (the CPU uses double). One thread per slice for now: correct for any shape, not yet fast for long
// rows (a warp-per-row kernel is the next step).
#include "backends/common/softMaxParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

__global__ void softMaxKernel(int64_t slices, int64_t n, int64_t inner, void const* in, void* out, DataType t)
{
    for (int64_t s = dev::globalThread(); s < slices; s += dev::gridThreads())
    {
        int64_t const base = (s / inner) * n * inner + s % inner;
        float maxValue = -INFINITY;
        for (int64_t j = 0; j < n; ++j)
        {
            float const x = dev::loadFloat(in, t, base + j * inner);
            maxValue = x > maxValue ? x : maxValue;
        }
        float sum = 0.F;
        for (int64_t j = 0; j < n; ++j)
        {
            sum += expf(dev::loadFloat(in, t, base + j * inner) - maxValue);
        }
        float const scale = 1.F / sum;
        for (int64_t j = 0; j < n; ++j)
        {
            dev::storeFloat(out, t, base + j * inner, expf(dev::loadFloat(in, t, base + j * inner) - maxValue) * scale);
        }
    }
}

Status enqueueSoftMax(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx)
{
    KILN_ASSIGN_OR_RETURN(SoftMaxParams const p, makeSoftMaxParams(setup, inputs, outputs));
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    if (!ew::isFloatKernelType(in.type))
    {
        return softMaxError(setup, std::string("type ") + dataTypeName(in.type) + " is not supported");
    }
    if (p.outer * p.n * p.inner == 0)
    {
        return Status::ok();
    }
    int64_t const slices = p.outer * p.inner;
    softMaxKernel<<<gridFor(slices), kBLOCK, 0, ctx.stream>>>(slices, p.n, p.inner, in.data, out.data, in.type);
    return launchStatus("SoftMax kernel");
}

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createSoftMaxCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("SoftMax kernel: no plan node");
    }
    return makeCudaFunctionKernel(setup, enqueueSoftMax);
}

} // namespace kiln::cuda
