// samplePluginsCuda.cu — what the sample plugins share on the GPU: where a pointer lives (the test that picks a
// plugin's CUDA or host path), stream-ordered copies (BarPlugin's concatenation and copy) and ScaleTacticsPlugin's
// kernel.
#include "samplePluginsCuda.h"

#include <cuda_runtime.h>

#include <algorithm>

namespace samples::cuda
{

bool isDeviceMemory(void const* pointer) noexcept
{
    if (pointer == nullptr)
    {
        return false;
    }
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess)
    {
        // No driver or no device (a CPU-only machine): the pointer can only be host memory. Clear the error so
        // that the next CUDA call of the application does not report it.
        (void) cudaGetLastError();
        return false;
    }
    return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
}

int32_t copyAsync(void* dst, void const* src, size_t bytes, CUstream_st* stream) noexcept
{
    if (bytes == 0)
    {
        return 0;
    }
    return static_cast<int32_t>(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream));
}

namespace
{
__global__ void scaleKernel(float const* x, float* y, int64_t count, float alpha)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        y[i] = alpha * x[i];
    }
}
} // namespace

int32_t launchScale(float const* x, float* y, int64_t count, float alpha, int32_t repeats, CUstream_st* stream) noexcept
{
    if (count == 0)
    {
        return 0;
    }
    int32_t const threads = 256;
    auto const blocks = static_cast<uint32_t>(std::min<int64_t>((count + threads - 1) / threads, 4096));
    for (int32_t r = 0; r < repeats; ++r)
    {
        scaleKernel<<<blocks, threads, 0, stream>>>(x, y, count, alpha);
    }
    return static_cast<int32_t>(cudaGetLastError());
}

} // namespace samples::cuda
