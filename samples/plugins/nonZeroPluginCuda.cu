// nonZeroPluginCuda.cu — NonZeroPlugin's CUDA path: one block counts the non-zero elements (K), then walks the
// input in tiles of blockDim elements, giving each non-zero its row-major rank with a warp ballot and a scan of
// the warp counts, and writes row indices to [0, K), column indices to [K, 2K) and K to the size tensor. One block
// keeps the order without a second launch or a workspace; it is meant for the sample's small inputs.
#include "samplePluginsCuda.h"

#include <cuda_runtime.h>

namespace samples::cuda
{
namespace
{

constexpr int32_t kTHREADS = 1024;
constexpr int32_t kWARPS = kTHREADS / 32;

__device__ bool isNonZero(void const* input, ElementType type, int64_t i)
{
    return type == ElementType::kFLOAT ? static_cast<float const*>(input)[i] != 0.0F
                                       : static_cast<int32_t const*>(input)[i] != 0;
}

__global__ void nonZeroKernel(
    void const* input, ElementType type, int64_t total, int64_t cols, int32_t* indices, int32_t* count)
{
    __shared__ long long warpSums[kWARPS];
    __shared__ int32_t warpOffsets[kWARPS];
    __shared__ long long blockTotal;
    __shared__ long long tileBase;
    int32_t const lane = static_cast<int32_t>(threadIdx.x) & 31;
    int32_t const warp = static_cast<int32_t>(threadIdx.x) >> 5;

    // Pass 1: K.
    long long local = 0;
    for (int64_t i = threadIdx.x; i < total; i += blockDim.x)
    {
        local += isNonZero(input, type, i) ? 1 : 0;
    }
    for (int32_t offset = 16; offset > 0; offset /= 2)
    {
        local += __shfl_down_sync(0xFFFFFFFFU, local, offset);
    }
    if (lane == 0)
    {
        warpSums[warp] = local;
    }
    __syncthreads();
    if (threadIdx.x == 0)
    {
        long long sum = 0;
        for (int32_t w = 0; w < kWARPS; ++w)
        {
            sum += warpSums[w];
        }
        blockTotal = sum;
        tileBase = 0;
    }
    __syncthreads();
    long long const k = blockTotal;

    // Pass 2: every non-zero's rank = non-zeros before its tile + before its warp in the tile + before its lane.
    for (int64_t tileStart = 0; tileStart < total; tileStart += blockDim.x)
    {
        int64_t const i = tileStart + threadIdx.x;
        bool const flag = i < total && isNonZero(input, type, i);
        unsigned const mask = __ballot_sync(0xFFFFFFFFU, flag);
        int32_t const lanePrefix = __popc(mask & ((1U << lane) - 1U));
        if (lane == 0)
        {
            warpOffsets[warp] = __popc(mask);
        }
        __syncthreads();
        if (threadIdx.x == 0)
        {
            int32_t running = 0;
            for (int32_t w = 0; w < kWARPS; ++w)
            {
                int32_t const c = warpOffsets[w];
                warpOffsets[w] = running;
                running += c;
            }
            warpSums[0] = running; // this tile's count, added to tileBase below
        }
        __syncthreads();
        if (flag)
        {
            long long const position = tileBase + warpOffsets[warp] + lanePrefix;
            indices[position] = static_cast<int32_t>(i / cols);
            indices[k + position] = static_cast<int32_t>(i % cols);
        }
        __syncthreads();
        if (threadIdx.x == 0)
        {
            tileBase += warpSums[0];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
    {
        *count = static_cast<int32_t>(k);
    }
}

} // namespace

int32_t launchNonZero(void const* input, ElementType type, int64_t rows, int64_t cols, int32_t* indices,
    int32_t* count, CUstream_st* stream) noexcept
{
    if (rows < 0 || cols < 0 || (type != ElementType::kFLOAT && type != ElementType::kINT32))
    {
        return static_cast<int32_t>(cudaErrorInvalidValue);
    }
    // Always launched, even for an empty input: the size tensor must be written (K = 0).
    nonZeroKernel<<<1, kTHREADS, 0, stream>>>(input, type, rows * cols, cols > 0 ? cols : 1, indices, count);
    return static_cast<int32_t>(cudaGetLastError());
}

} // namespace samples::cuda
