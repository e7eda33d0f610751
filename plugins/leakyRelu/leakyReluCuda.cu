// leakyReluCuda.cu — LReLU_TRT on the GPU: one thread per element (grid-stride), FP32 or FP16 computed in float,
// the same arithmetic as the host path (so the CPU and CUDA backends agree bit for bit on finite values).
#include "leakyReluCuda.h"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace kiln::plugins::cuda
{
namespace
{

__global__ void leakyReluFloat(float const* x, float* y, int64_t count, float negSlope)
{
    int64_t const step = static_cast<int64_t>(blockDim.x) * gridDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step)
    {
        float const v = x[i];
        y[i] = v >= 0.0F ? v : negSlope * v;
    }
}

__global__ void leakyReluHalf(__half const* x, __half* y, int64_t count, float negSlope)
{
    int64_t const step = static_cast<int64_t>(blockDim.x) * gridDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step)
    {
        float const v = __half2float(x[i]);
        y[i] = __float2half_rn(v >= 0.0F ? v : negSlope * v);
    }
}

} // namespace

bool isDeviceMemory(void const* pointer) noexcept
{
    if (pointer == nullptr)
    {
        return false;
    }
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess)
    {
        (void) cudaGetLastError(); // no driver / no device: host memory, and no error left behind
        return false;
    }
    return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
}

int32_t leakyRelu(void const* x, void* y, int64_t count, bool half, float negSlope, CUstream_st* stream) noexcept
{
    if (count <= 0)
    {
        return 0;
    }
    constexpr int32_t kTHREADS = 256;
    int64_t const blocks = (count + kTHREADS - 1) / kTHREADS;
    unsigned const grid = static_cast<unsigned>(blocks < 8192 ? blocks : 8192);
    if (half)
    {
        leakyReluHalf<<<grid, kTHREADS, 0, stream>>>(
            static_cast<__half const*>(x), static_cast<__half*>(y), count, negSlope);
    }
    else
    {
        leakyReluFloat<<<grid, kTHREADS, 0, stream>>>(
            static_cast<float const*>(x), static_cast<float*>(y), count, negSlope);
    }
    return static_cast<int32_t>(cudaGetLastError());
}

char const* errorString(int32_t code) noexcept
{
    return cudaGetErrorString(static_cast<cudaError_t>(code));
}

} // namespace kiln::plugins::cuda
