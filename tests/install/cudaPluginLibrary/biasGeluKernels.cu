// biasGeluKernels.cu — the two kernels of KilnBiasGelu: the bias add writes its result to the plugin's workspace,
// the GELU reads it from there (a split that exists to exercise the workspace Kiln hands the plugin).
#include "cudaPlugins.h"

#include <cuda_runtime.h>

namespace kiln_cuda_plugins
{
namespace
{

__global__ void addBias(float const* x, float const* bias, float* t, int64_t count, int64_t channels)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(blockDim.x) * gridDim.x)
    {
        t[i] = x[i] + bias[i % channels];
    }
}

__global__ void gelu(float const* t, float* y, int64_t count, bool approximate)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(blockDim.x) * gridDim.x)
    {
        float const v = t[i];
        if (approximate)
        {
            float const inner = 0.7978845608028654F * (v + 0.044715F * v * v * v); // sqrt(2/pi)
            y[i] = 0.5F * v * (1.0F + tanhf(inner));
        }
        else
        {
            y[i] = 0.5F * v * (1.0F + erff(v * 0.7071067811865476F)); // 1/sqrt(2)
        }
    }
}

} // namespace

int32_t launchBiasGelu(float const* x, float const* bias, float* scratch, float* y, int64_t count, int64_t channels,
    bool approximate, cudaStream_t stream) noexcept
{
    if (count == 0)
    {
        return 0;
    }
    int32_t const threads = 256;
    int64_t const blocks = (count + threads - 1) / threads;
    unsigned const grid = static_cast<unsigned>(blocks < 4096 ? blocks : 4096);
    addBias<<<grid, threads, 0, stream>>>(x, bias, scratch, count, channels);
    gelu<<<grid, threads, 0, stream>>>(scratch, y, count, approximate);
    return static_cast<int32_t>(cudaGetLastError());
}

} // namespace kiln_cuda_plugins
