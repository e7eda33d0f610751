// 16-byte vectors of eight FP16 or BF16 values for CUDA kernels: the storage type's conversions (single values and
// pairs, with FP32 as a trivial storage type) and the unpacking of a uint4 into eight floats and back.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace kiln::cuda
{

constexpr int32_t kVECTOR8 = 8; //!< values of a 16-byte FP16/BF16 vector

//! Conversions of a storage type: single values (float, FP16, BF16) and pairs (FP16, BF16).
template <typename T>
struct Storage;
template <>
struct Storage<float>
{
    static __device__ __forceinline__ float toFloat(float v) { return v; }
    static __device__ __forceinline__ float fromFloat(float v) { return v; }
};
template <>
struct Storage<__half>
{
    using Pair = __half2;
    static __device__ __forceinline__ float toFloat(__half v) { return __half2float(v); }
    static __device__ __forceinline__ __half fromFloat(float v) { return __float2half_rn(v); }
    static __device__ __forceinline__ float2 toFloat2(__half2 v) { return __half22float2(v); }
    static __device__ __forceinline__ __half2 fromFloats(float a, float b) { return __floats2half2_rn(a, b); }
};
template <>
struct Storage<__nv_bfloat16>
{
    using Pair = __nv_bfloat162;
    static __device__ __forceinline__ float toFloat(__nv_bfloat16 v) { return __bfloat162float(v); }
    static __device__ __forceinline__ __nv_bfloat16 fromFloat(float v) { return __float2bfloat16_rn(v); }
    static __device__ __forceinline__ float2 toFloat2(__nv_bfloat162 v) { return __bfloat1622float2(v); }
    static __device__ __forceinline__ __nv_bfloat162 fromFloats(float a, float b) { return __floats2bfloat162_rn(a, b); }
};

template <typename T>
__device__ __forceinline__ void unpack8(uint4 const& u, float (&f)[kVECTOR8])
{
    using P = typename Storage<T>::Pair;
    P const* p = reinterpret_cast<P const*>(&u);
#pragma unroll
    for (int32_t i = 0; i < kVECTOR8 / 2; ++i)
    {
        float2 const v = Storage<T>::toFloat2(p[i]);
        f[2 * i] = v.x;
        f[2 * i + 1] = v.y;
    }
}

template <typename T>
__device__ __forceinline__ uint4 pack8(float const (&f)[kVECTOR8])
{
    using P = typename Storage<T>::Pair;
    uint4 u;
    P* p = reinterpret_cast<P*>(&u);
#pragma unroll
    for (int32_t i = 0; i < kVECTOR8 / 2; ++i)
    {
        p[i] = Storage<T>::fromFloats(f[2 * i], f[2 * i + 1]);
    }
    return u;
}

} // namespace kiln::cuda
