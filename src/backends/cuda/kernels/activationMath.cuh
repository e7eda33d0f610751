// Device-side math of TensorRT's activation types, shared by IActivationLayer's kernel and the fused epilogues of
// other kernels (convolution, matrix multiply, fused pointwise chains). Computed in float, as the CPU reference.
#pragma once

#include "NvInfer.h"

namespace kiln::cuda
{

__device__ __forceinline__ float softplusCore(float t)
{
    return t > 0.F ? t + log1pf(expf(-t)) : log1pf(expf(t));
}

__device__ __forceinline__ float applyActivation(nvinfer1::ActivationType type, float alpha, float beta, float v)
{
    switch (type)
    {
    case nvinfer1::ActivationType::kRELU: return v > 0.F ? v : 0.F;
    case nvinfer1::ActivationType::kSIGMOID:
    {
        if (v >= 0.F)
        {
            return 1.F / (1.F + expf(-v));
        }
        float const e = expf(v);
        return e / (1.F + e);
    }
    case nvinfer1::ActivationType::kTANH: return tanhf(v);
    case nvinfer1::ActivationType::kLEAKY_RELU: return v >= 0.F ? v : alpha * v;
    case nvinfer1::ActivationType::kELU: return v >= 0.F ? v : alpha * expm1f(v);
    case nvinfer1::ActivationType::kSELU: return v > 0.F ? beta * v : beta * (alpha * expf(v) - alpha);
    case nvinfer1::ActivationType::kSOFTSIGN: return v / (1.F + fabsf(v));
    case nvinfer1::ActivationType::kSOFTPLUS: return alpha * softplusCore(beta * v);
    case nvinfer1::ActivationType::kCLIP: return fmaxf(alpha, fminf(beta, v));
    case nvinfer1::ActivationType::kHARD_SIGMOID: return fmaxf(0.F, fminf(1.F, alpha * v + beta));
    case nvinfer1::ActivationType::kSCALED_TANH: return alpha * tanhf(beta * v);
    case nvinfer1::ActivationType::kTHRESHOLDED_RELU: return v > alpha ? v : 0.F;
    case nvinfer1::ActivationType::kGELU_ERF: return 0.5F * v * (1.F + erff(v * 0.70710678118654752F));
    case nvinfer1::ActivationType::kGELU_TANH:
    {
        float const inner = 0.79788456080286536F * (v + 0.044715F * v * v * v);
        return 0.5F * v * (1.F + tanhf(inner));
    }
    default: return v;
    }
}

} // namespace kiln::cuda
