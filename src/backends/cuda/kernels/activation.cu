// CUDA kernel of IActivationLayer, as the CPU reference (backends/cpu/kernels/activation.cpp): computed in float
// (kRELU on INT32/INT64 exactly in int64), with alpha and beta as TensorRT defines them.
#include "backends/common/activationParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/activationMath.cuh"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;

namespace
{
using Act = ActivationType;

template <typename C>
__global__ void activationKernel(Act type, float alpha, float beta, int64_t n, void const* in, DataType ti,
    void* out, DataType to)
{
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        C const v = dev::load<C>(in, ti, i);
        if constexpr (sizeof(C) == 8)
        {
            dev::store<C>(out, to, i, v > 0 ? v : 0); // integer inputs: only kRELU passes kernel creation
        }
        else
        {
            dev::store<C>(out, to, i, applyActivation(type, alpha, beta, v));
        }
    }
}

Status enqueueActivation(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx)
{
    KILN_ASSIGN_OR_RETURN(ActivationParams const p, makeActivationParams(setup, inputs, outputs));
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    int64_t const n = out.volume();
    if (n == 0)
    {
        return Status::ok();
    }
    if (ew::isFloatKernelType(in.type))
    {
        activationKernel<float><<<gridFor(n), kBLOCK, 0, ctx.stream>>>(p.type, p.alpha, p.beta, n, in.data,
            in.type, out.data, out.type);
    }
    else
    {
        activationKernel<int64_t><<<gridFor(n), kBLOCK, 0, ctx.stream>>>(p.type, p.alpha, p.beta, n, in.data,
            in.type, out.data, out.type);
    }
    return launchStatus("Activation kernel");
}

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createActivationCudaKernel(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(checkActivationSetup(setup));
    return makeCudaFunctionKernel(setup, enqueueActivation);
}

} // namespace kiln::cuda
