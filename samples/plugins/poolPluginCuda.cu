// poolPluginCuda.cu — PoolPlugin's CUDA path: max/average pooling over the last two dims, one thread per output
// element, FP32/FP16/INT8 I/O. It computes exactly what the host path computes (same window order, the sum in
// float, INT8 dequantized with the input scale and quantized round-to-nearest-even with the output scale).
#include "samplePluginsCuda.h"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace samples::cuda
{
namespace
{

__device__ float loadElement(void const* data, ElementType type, int64_t i, float scale)
{
    switch (type)
    {
    case ElementType::kFLOAT: return static_cast<float const*>(data)[i];
    case ElementType::kHALF: return __half2float(static_cast<__half const*>(data)[i]);
    // __fmul_rn: never contracted with the caller's sum into an FMA, so the host path's rounding is reproduced.
    case ElementType::kINT8: return __fmul_rn(static_cast<float>(static_cast<int8_t const*>(data)[i]), scale);
    case ElementType::kINT32: return static_cast<float>(static_cast<int32_t const*>(data)[i]);
    }
    return 0.0F;
}

__device__ void storeElement(void* data, ElementType type, int64_t i, float value, float scale)
{
    switch (type)
    {
    case ElementType::kFLOAT: static_cast<float*>(data)[i] = value; break;
    case ElementType::kHALF: static_cast<__half*>(data)[i] = __float2half_rn(value); break;
    case ElementType::kINT8:
    {
        float const q = fminf(fmaxf(rintf(value / scale), -128.0F), 127.0F);
        static_cast<int8_t*>(data)[i] = static_cast<int8_t>(q);
        break;
    }
    case ElementType::kINT32: static_cast<int32_t*>(data)[i] = static_cast<int32_t>(value); break;
    }
}

__global__ void poolKernel(PoolLaunch p)
{
    int64_t const total = p.planes * p.outH * p.outW;
    int64_t const step = static_cast<int64_t>(blockDim.x) * gridDim.x;
    for (int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; idx < total; idx += step)
    {
        int64_t const ox = idx % p.outW;
        int64_t const rest = idx / p.outW;
        int64_t const oy = rest % p.outH;
        int64_t const plane = rest / p.outH;
        float acc = p.mode == 0 ? -INFINITY : 0.0F;
        for (int32_t ky = 0; ky < p.kernel; ++ky)
        {
            for (int32_t kx = 0; kx < p.kernel; ++kx)
            {
                int64_t const iy = oy * p.stride + ky;
                int64_t const ix = ox * p.stride + kx;
                float const v = loadElement(p.input, p.type, (plane * p.inH + iy) * p.inW + ix, p.inScale);
                // Same selection as the host's std::max(acc, v): a NaN v never replaces acc.
                acc = p.mode == 0 ? (acc < v ? v : acc) : acc + v;
            }
        }
        if (p.mode != 0)
        {
            acc /= static_cast<float>(p.kernel * p.kernel);
        }
        storeElement(p.output, p.type, idx, acc, p.outScale);
    }
}

} // namespace

int32_t launchPool(PoolLaunch const& launch, CUstream_st* stream) noexcept
{
    int64_t const total = launch.planes * launch.outH * launch.outW;
    if (total <= 0)
    {
        return 0;
    }
    constexpr int32_t kTHREADS = 256;
    int64_t const blocks = (total + kTHREADS - 1) / kTHREADS;
    poolKernel<<<static_cast<unsigned>(blocks < 4096 ? blocks : 4096), kTHREADS, 0, stream>>>(launch);
    return static_cast<int32_t>(cudaGetLastError());
}

} // namespace samples::cuda
