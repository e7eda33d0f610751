// CUDA kernel of IActivationLayer, as the CPU reference (backends/cpu/kernels/activation.cpp): computed in float
// (kRELU on INT32/INT64 exactly in int64), with alpha and beta as TensorRT defines them.
#include "backends/common/activationParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;

namespace
{
using Act = ActivationType;

__device__ __forceinline__ float softplusCore(float t)
{
    return t > 0.F ? t + log1pf(expf(-t)) : log1pf(expf(t));
}

__device__ __forceinline__ float applyActivation(Act type, float alpha, float beta, float v)
{
    switch (type)
    {
    case Act::kRELU: return v > 0.F ? v : 0.F;
    case Act::kSIGMOID:
    {
        if (v >= 0.F)
        {
            return 1.F / (1.F + expf(-v));
        }
        float const e = expf(v);
        return e / (1.F + e);
    }
    case Act::kTANH: return tanhf(v);
    case Act::kLEAKY_RELU: return v >= 0.F ? v : alpha * v;
    case Act::kELU: return v >= 0.F ? v : alpha * expm1f(v);
    case Act::kSELU: return v > 0.F ? beta * v : beta * (alpha * expf(v) - alpha);
    case Act::kSOFTSIGN: return v / (1.F + fabsf(v));
    case Act::kSOFTPLUS: return alpha * softplusCore(beta * v);
    case Act::kCLIP: return fmaxf(alpha, fminf(beta, v));
    case Act::kHARD_SIGMOID: return fmaxf(0.F, fminf(1.F, alpha * v + beta));
    case Act::kSCALED_TANH: return alpha * tanhf(beta * v);
    case Act::kTHRESHOLDED_RELU: return v > alpha ? v : 0.F;
    case Act::kGELU_ERF: return 0.5F * v * (1.F + erff(v * 0.70710678118654752F));
    case Act::kGELU_TANH:
    {
        float const inner = 0.79788456080286536F * (v + 0.044715F * v * v * v);
        return 0.5F * v * (1.F + tanhf(inner));
    }
    default: return v;
    }
}

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
