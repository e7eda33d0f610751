// Index helpers of the CPU kernels, sized for the largest rank so that a run needs no allocation: per-dimension
// arrays, row-major strides, and the odometer that walks a tensor's coordinates.
#pragma once

#include "NvInfer.h"

#include <array>
#include <cstdint>

namespace kiln
{

//! One value per dimension.
using DimArray = std::array<int64_t, nvinfer1::Dims::MAX_DIMS>;

//! Row-major strides (in elements) of `dims`.
inline DimArray stridesOf(nvinfer1::Dims const& dims)
{
    DimArray strides{};
    int64_t stride = 1;
    for (int32_t d = dims.nbDims - 1; d >= 0; --d)
    {
        strides[static_cast<size_t>(d)] = stride;
        stride *= dims.d[d];
    }
    return strides;
}

//! Advances `coord` to the next coordinates over the first `count` dimensions of `dims` (row-major: dimension
//! count - 1 fastest); back to all zeros after the last.
inline void advanceCoordinate(DimArray& coord, nvinfer1::Dims const& dims, int32_t count)
{
    for (int32_t d = count - 1; d >= 0; --d)
    {
        size_t const du = static_cast<size_t>(d);
        if (++coord[du] < dims.d[d])
        {
            return;
        }
        coord[du] = 0;
    }
}

} // namespace kiln
