// Device-side typed access shared by the CUDA kernels: load any Kiln storage type (FLOAT/HALF/BF16/INT8/UINT8/
// INT32/INT64/BOOL) as a compute value (float or int64_t) and store a compute value back, with exactly the
// conversions of the CPU reference (its loadChunk/storeChunk): float -> integer truncates toward
// zero and saturates (NaN gives 0), int64 -> narrower integer wraps, -> BOOL is v != 0, BOOL reads as 0/1.
// The storage type is a run-time argument: one kernel instantiation serves every type (lean compiles).
#pragma once

#include "NvInfer.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace kiln::cuda::dev
{

using nvinfer1::DataType;

template <typename T>
struct IntLimits;
template <>
struct IntLimits<int8_t>
{
    static constexpr double kMIN = -128.0;
    static constexpr double kMAX = 127.0;
};
template <>
struct IntLimits<uint8_t>
{
    static constexpr double kMIN = 0.0;
    static constexpr double kMAX = 255.0;
};
template <>
struct IntLimits<int32_t>
{
    static constexpr double kMIN = -2147483648.0;
    static constexpr double kMAX = 2147483647.0;
};

//! float -> integer: truncate toward zero, saturate, NaN gives 0 (CPU: ew::floatToInt).
template <typename T>
__device__ __forceinline__ T floatToInt(float v)
{
    if (v != v)
    {
        return T(0);
    }
    if constexpr (sizeof(T) == 8)
    {
        if (v >= 9.2233720368547758e18F)
        {
            return static_cast<T>(0x7fffffffffffffffLL);
        }
        if (v <= -9.2233720368547758e18F)
        {
            return static_cast<T>(-0x7fffffffffffffffLL - 1);
        }
        return static_cast<T>(v);
    }
    else
    {
        double const d = static_cast<double>(v);
        if (d >= IntLimits<T>::kMAX)
        {
            return static_cast<T>(IntLimits<T>::kMAX);
        }
        if (d <= IntLimits<T>::kMIN)
        {
            return static_cast<T>(IntLimits<T>::kMIN);
        }
        return static_cast<T>(d);
    }
}

__device__ __forceinline__ float loadFloat(void const* p, DataType t, int64_t i)
{
    switch (t)
    {
    case DataType::kFLOAT: return static_cast<float const*>(p)[i];
    case DataType::kHALF: return __half2float(static_cast<__half const*>(p)[i]);
    case DataType::kBF16: return __bfloat162float(static_cast<__nv_bfloat16 const*>(p)[i]);
    case DataType::kINT8: return static_cast<float>(static_cast<int8_t const*>(p)[i]);
    case DataType::kUINT8: return static_cast<float>(static_cast<uint8_t const*>(p)[i]);
    case DataType::kINT32: return static_cast<float>(static_cast<int32_t const*>(p)[i]);
    case DataType::kINT64: return static_cast<float>(static_cast<int64_t const*>(p)[i]);
    case DataType::kBOOL: return static_cast<uint8_t const*>(p)[i] != 0 ? 1.F : 0.F;
    default: return 0.F;
    }
}

__device__ __forceinline__ int64_t loadInt(void const* p, DataType t, int64_t i)
{
    switch (t)
    {
    case DataType::kFLOAT: return floatToInt<int64_t>(static_cast<float const*>(p)[i]);
    case DataType::kHALF: return floatToInt<int64_t>(__half2float(static_cast<__half const*>(p)[i]));
    case DataType::kBF16: return floatToInt<int64_t>(__bfloat162float(static_cast<__nv_bfloat16 const*>(p)[i]));
    case DataType::kINT8: return static_cast<int8_t const*>(p)[i];
    case DataType::kUINT8: return static_cast<uint8_t const*>(p)[i];
    case DataType::kINT32: return static_cast<int32_t const*>(p)[i];
    case DataType::kINT64: return static_cast<int64_t const*>(p)[i];
    case DataType::kBOOL: return static_cast<uint8_t const*>(p)[i] != 0 ? 1 : 0;
    default: return 0;
    }
}

__device__ __forceinline__ void storeFloat(void* p, DataType t, int64_t i, float v)
{
    switch (t)
    {
    case DataType::kFLOAT: static_cast<float*>(p)[i] = v; break;
    case DataType::kHALF: static_cast<__half*>(p)[i] = __float2half_rn(v); break;
    case DataType::kBF16: static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(v); break;
    case DataType::kINT8: static_cast<int8_t*>(p)[i] = floatToInt<int8_t>(v); break;
    case DataType::kUINT8: static_cast<uint8_t*>(p)[i] = floatToInt<uint8_t>(v); break;
    case DataType::kINT32: static_cast<int32_t*>(p)[i] = floatToInt<int32_t>(v); break;
    case DataType::kINT64: static_cast<int64_t*>(p)[i] = floatToInt<int64_t>(v); break;
    case DataType::kBOOL: static_cast<uint8_t*>(p)[i] = v != 0.F ? 1 : 0; break;
    default: break;
    }
}

__device__ __forceinline__ void storeInt(void* p, DataType t, int64_t i, int64_t v)
{
    switch (t)
    {
    case DataType::kFLOAT: static_cast<float*>(p)[i] = static_cast<float>(v); break;
    case DataType::kHALF: static_cast<__half*>(p)[i] = __float2half_rn(static_cast<float>(v)); break;
    case DataType::kBF16: static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(static_cast<float>(v)); break;
    case DataType::kINT8: static_cast<int8_t*>(p)[i] = static_cast<int8_t>(v); break;
    case DataType::kUINT8: static_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v); break;
    case DataType::kINT32: static_cast<int32_t*>(p)[i] = static_cast<int32_t>(v); break;
    case DataType::kINT64: static_cast<int64_t*>(p)[i] = v; break;
    case DataType::kBOOL: static_cast<uint8_t*>(p)[i] = v != 0 ? 1 : 0; break;
    default: break;
    }
}

//! Compute-type dispatch: load<float> / load<int64_t>, store<float> / store<int64_t>.
template <typename C>
__device__ __forceinline__ C load(void const* p, DataType t, int64_t i)
{
    if constexpr (sizeof(C) == 8)
    {
        return loadInt(p, t, i);
    }
    else
    {
        return loadFloat(p, t, i);
    }
}

template <typename C>
__device__ __forceinline__ void store(void* p, DataType t, int64_t i, C v)
{
    if constexpr (sizeof(C) == 8)
    {
        storeInt(p, t, i, v);
    }
    else
    {
        storeFloat(p, t, i, v);
    }
}

//! Copies one element of `size` bytes (1, 2, 4 or 8) bit for bit.
__device__ __forceinline__ void copyElement(void* dst, int64_t di, void const* src, int64_t si, int32_t size)
{
    switch (size)
    {
    case 1: static_cast<uint8_t*>(dst)[di] = static_cast<uint8_t const*>(src)[si]; break;
    case 2: static_cast<uint16_t*>(dst)[di] = static_cast<uint16_t const*>(src)[si]; break;
    case 4: static_cast<uint32_t*>(dst)[di] = static_cast<uint32_t const*>(src)[si]; break;
    default: static_cast<uint64_t*>(dst)[di] = static_cast<uint64_t const*>(src)[si]; break;
    }
}

//! Grid-stride loop bounds.
__device__ __forceinline__ int64_t globalThread()
{
    return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t gridThreads()
{
    return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

} // namespace kiln::cuda::dev
