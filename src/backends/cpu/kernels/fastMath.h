// Vectorised float functions for the CPU kernels (GCC/Clang vector extensions, so that they need no intrinsics and
// compile for whatever instruction set the caller is built or cloned for; simd.h).
//   expNonPositiveInPlace(v, n): v[i] = e^v[i] for v[i] <= 0 (softmax's x - max), relative error below 2e-7 down to
//   -87; anything below e^-87, and -inf, gives 0.
//   erfInto(x, r, n): r[i] = erf(x[i]), absolute error below 2e-7 (relative below 1e-6): an odd Taylor polynomial for
//   |x| < 0.5, Abramowitz and Stegun's 7.1.26 with the exponential above beyond. NaN stays NaN.
//   rowSumDouble(x, n): the sum of x[i] in double; rowSquaredDeviations(x, n, mean): the sum of (x[i] - mean)^2 in
//   double; rowMax(x, n): the largest x[i] (-inf for n = 0; NaN is skipped). All keep four independent vector
//   accumulators, so that a row's reduction is not one chain of dependent operations.
#pragma once

#include <cstdint>
#include <cstring>

namespace kiln
{

namespace detail
{
typedef float Float8 __attribute__((vector_size(32)));
typedef int32_t Int8 __attribute__((vector_size(32)));
typedef double Double8 __attribute__((vector_size(64)));

//! Eight doubles from eight floats at p (by reference, as above).
__attribute__((always_inline)) inline void loadAsDouble8(float const* p, Double8& d)
{
    Float8 v;
    std::memcpy(&v, p, sizeof(v));
    d = __builtin_convertvector(v, Double8);
}

//! acc += (x - center), or its square, for eight floats at x.
template <bool kSQUARED>
__attribute__((always_inline)) inline void addDeviation(float const* x, double center, Double8& acc)
{
    Double8 d;
    loadAsDouble8(x, d);
    d -= center;
    acc += kSQUARED ? d * d : d;
}

//! The sum of x[i] - center (kSQUARED: of its square) over a row, in double. Four named accumulators (an array of
//! them indexed in a loop stayed in memory: a store-forwarding chain).
template <bool kSQUARED>
__attribute__((always_inline)) inline double rowMoment(float const* x, int64_t n, double center)
{
    Double8 a0 = {};
    Double8 a1 = {};
    Double8 a2 = {};
    Double8 a3 = {};
    int64_t i = 0;
    for (; i + 32 <= n; i += 32)
    {
        addDeviation<kSQUARED>(x + i, center, a0);
        addDeviation<kSQUARED>(x + i + 8, center, a1);
        addDeviation<kSQUARED>(x + i + 16, center, a2);
        addDeviation<kSQUARED>(x + i + 24, center, a3);
    }
    for (; i + 8 <= n; i += 8)
    {
        addDeviation<kSQUARED>(x + i, center, a0);
    }
    double sum = 0.0;
    for (; i < n; ++i)
    {
        double const d = static_cast<double>(x[i]) - center;
        sum += kSQUARED ? d * d : d;
    }
    // Horizontal steps in registers (subscripting each lane went through memory: a store-forwarding stall a row).
    Double8 t = (a0 + a1) + (a2 + a3);
    t += __builtin_shufflevector(t, t, 4, 5, 6, 7, 0, 1, 2, 3);
    t += __builtin_shufflevector(t, t, 2, 3, 0, 1, 4, 5, 6, 7);
    t += __builtin_shufflevector(t, t, 1, 0, 2, 3, 4, 5, 6, 7);
    return sum + t[0];
}

//! m = max(m, eight floats at x) (NaN in x is skipped).
__attribute__((always_inline)) inline void maxInto(float const* x, Float8& m)
{
    Float8 v;
    std::memcpy(&v, x, sizeof(v));
    m = v > m ? v : m;
}

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
//! erf of eight values (by reference, as above).
__attribute__((always_inline)) inline void erf8(Float8& v)
{
    Float8 const x = v;
    Float8 const a = x < 0.F ? -x : x;
    // |x| < 0.5: 2/sqrt(pi) * (x - x^3/3 + x^5/10 - x^7/42 + x^9/216 - x^11/1320).
    Float8 const x2 = x * x;
    Float8 small = Float8{} - 1.1283791670955126F / 1320.F;
    small = small * x2 + 1.1283791670955126F / 216.F;
    small = small * x2 - 1.1283791670955126F / 42.F;
    small = small * x2 + 1.1283791670955126F / 10.F;
    small = small * x2 - 1.1283791670955126F / 3.F;
    small = small * x2 + 1.1283791670955126F;
    small = small * x;
    // |x| >= 0.5: 1 - t (a1 + t (a2 + t (a3 + t (a4 + t a5)))) e^(-x^2), t = 1 / (1 + p |x|).
    Float8 const t = 1.F / (1.F + 0.3275911F * a);
    Float8 poly = Float8{} + 1.061405429F;
    poly = poly * t - 1.453152027F;
    poly = poly * t + 1.421413741F;
    poly = poly * t - 0.284496736F;
    poly = poly * t + 0.254829592F;
    Float8 e = -x2;
    e = e < -87.F ? Float8{} - 87.F : e; // expNonPositive8 below flushes it to 0 anyway
    Float8 const clampedSquare = e;
    expNonPositive8(e);
    e = clampedSquare < -86.F ? Float8{} : e;
    Float8 const large = 1.F - poly * t * e;
    Float8 const signedLarge = x < 0.F ? -large : large;
    v = a < 0.5F ? small : signedLarge;
}

//! r[i] = F(x[i]) eight at a time (the tail through a zero-padded vector); x and r may be the same.
template <void (*F)(Float8&)>
__attribute__((always_inline)) inline void eachEight(float const* x, float* r, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
    {
        Float8 v;
        std::memcpy(&v, x + i, sizeof(v));
        F(v);
        std::memcpy(r + i, &v, sizeof(v));
    }
    if (i < n)
    {
        Float8 v{};
        std::memcpy(&v, x + i, static_cast<size_t>(n - i) * sizeof(float));
        F(v);
        std::memcpy(r + i, &v, static_cast<size_t>(n - i) * sizeof(float));
    }
}
} // namespace detail

__attribute__((always_inline)) inline double rowSumDouble(float const* x, int64_t n)
{
    return detail::rowMoment<false>(x, n, 0.0);
}

__attribute__((always_inline)) inline double rowSquaredDeviations(float const* x, int64_t n, double mean)
{
    return detail::rowMoment<true>(x, n, mean);
}

__attribute__((always_inline)) inline float rowMax(float const* x, int64_t n)
{
    using detail::Float8;
    Float8 const lowest = Float8{} - __builtin_inff();
    Float8 a0 = lowest;
    Float8 a1 = lowest;
    Float8 a2 = lowest;
    Float8 a3 = lowest;
    int64_t i = 0;
    for (; i + 32 <= n; i += 32)
    {
        detail::maxInto(x + i, a0);
        detail::maxInto(x + i + 8, a1);
        detail::maxInto(x + i + 16, a2);
        detail::maxInto(x + i + 24, a3);
    }
    for (; i + 8 <= n; i += 8)
    {
        detail::maxInto(x + i, a0);
    }
    float result = -__builtin_inff();
    for (; i < n; ++i)
    {
        result = x[i] > result ? x[i] : result;
    }
    Float8 const a = a0 > a1 ? a0 : a1;
    Float8 const b = a2 > a3 ? a2 : a3;
    Float8 m = a > b ? a : b;
    Float8 h = __builtin_shufflevector(m, m, 4, 5, 6, 7, 0, 1, 2, 3);
    m = h > m ? h : m;
    h = __builtin_shufflevector(m, m, 2, 3, 0, 1, 4, 5, 6, 7);
    m = h > m ? h : m;
    h = __builtin_shufflevector(m, m, 1, 0, 2, 3, 4, 5, 6, 7);
    m = h > m ? h : m;
    return m[0] > result ? m[0] : result;
}

__attribute__((always_inline)) inline void expNonPositiveInPlace(float* v, int64_t n)
{
    detail::eachEight<detail::expNonPositive8>(v, v, n);
}

__attribute__((always_inline)) inline void erfInto(float const* x, float* r, int64_t n)
{
    detail::eachEight<detail::erf8>(x, r, n);
}

} // namespace kiln
