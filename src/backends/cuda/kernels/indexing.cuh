// Device-side index normalisation shared by the CUDA gather and scatter kernels: an index read from an INT32/INT64
// indices tensor, negative values counting from the end of the axis ([-extent, -1]), anything else out of range.
#pragma once

#include "backends/cuda/kernels/deviceTypes.cuh"

#include <cstdint>

namespace kiln::cuda::dev
{

//! indices[position] wrapped into [0, extent), or -1 when out of range.
__device__ __forceinline__ int64_t loadIndex(void const* indices, DataType t, int64_t position, int64_t extent)
{
    int64_t const raw = loadInt(indices, t, position);
    if (raw < -extent || raw >= extent)
    {
        return -1;
    }
    return raw < 0 ? raw + extent : raw;
}

} // namespace kiln::cuda::dev
