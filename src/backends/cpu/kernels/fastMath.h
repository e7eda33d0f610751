// Vectorised float functions for the CPU kernels (GCC/Clang vector extensions, so that they need no intrinsics and
// compile for whatever instruction set the caller is built or cloned for; simd.h).
//   expNonPositiveInPlace(v, n): v[i] = e^v[i] for v[i] <= 0 (softmax's x - max), relative error below 2e-7 down to
//   -87; anything below e^-87, and -inf, gives 0.
#pragma once

#include <cstdint>
#include <cstring>

namespace kiln
{

namespace detail
{
typedef float Float8 __attribute__((vector_size(32)));
typedef int32_t Int8 __attribute__((vector_size(32)));

//! In place on eight values (by reference: a 32-byte vector passed by value would depend on the AVX ABI).
__attribute__((always_inline)) inline void expNonPositive8(Float8& v)
{
    Float8 const x = v;
    // e^x = 2^n * e^r with n = round(x / ln 2) and |r| <= ln(2) / 2; e^r from its Taylor series to r^7 (the next
    // term is below 2e-8 relative there).
    Float8 const clamped = x < -87.F ? Float8{} - 87.F : x;
    Int8 const ni = __builtin_convertvector(clamped * 1.44269504088896341F - 0.5F, Int8); // x <= 0: round half down
    Float8 const n = __builtin_convertvector(ni, Float8);
    Float8 const r = (clamped - n * 0.693359375F) - n * -2.12194440e-4F; // ln 2 in two parts
    Float8 p = Float8{} + 1.F / 5040.F;
    p = p * r + 1.F / 720.F;
    p = p * r + 1.F / 120.F;
    p = p * r + 1.F / 24.F;
    p = p * r + 1.F / 6.F;
    p = p * r + 0.5F;
    p = p * r + 1.F;
    p = p * r + 1.F;
    Float8 const scale = reinterpret_cast<Float8>((ni + 127) << 23);
    Float8 const y = p * scale;
    v = x < -87.F ? Float8{} : y;
}
} // namespace detail

__attribute__((always_inline)) inline void expNonPositiveInPlace(float* v, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
    {
        detail::Float8 x;
        std::memcpy(&x, v + i, sizeof(x));
        detail::expNonPositive8(x);
        std::memcpy(v + i, &x, sizeof(x));
    }
    if (i < n)
    {
        detail::Float8 x{};
        std::memcpy(&x, v + i, static_cast<size_t>(n - i) * sizeof(float));
        detail::expNonPositive8(x);
        std::memcpy(v + i, &x, static_cast<size_t>(n - i) * sizeof(float));
    }
}

} // namespace kiln
