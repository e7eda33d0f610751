// FMA-throughput probe for machinePeak.h. Twelve independent accumulators hide FMA latency; the widest
// vector ISA the CPU supports is chosen at run time (AVX-512, AVX2+FMA, or scalar).
#include "common/machinePeak.h"

#include <chrono>
#include <thread>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace kiln::bench
{
namespace
{
constexpr int kCHAINS = 12;
constexpr long kITERATIONS = 20'000'000;

#if defined(__x86_64__)
__attribute__((target("avx512f"))) double probeAvx512()
{
    __m512 acc[kCHAINS];
    for (auto& a : acc)
    {
        a = _mm512_set1_ps(0.F);
    }
    __m512 const x = _mm512_set1_ps(0.999999F);
    __m512 const y = _mm512_set1_ps(1e-7F);
    auto const start = std::chrono::steady_clock::now();
    for (long i = 0; i < kITERATIONS; ++i)
    {
        for (auto& a : acc)
        {
            a = _mm512_fmadd_ps(a, x, y);
        }
    }
    double const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    float sink = 0.F;
    for (auto& a : acc)
    {
        sink += _mm512_reduce_add_ps(a);
    }
    volatile float keep = sink;
    (void) keep;
    return static_cast<double>(kITERATIONS) * kCHAINS * 16 * 2 / seconds * 1e-9;
}

__attribute__((target("avx2,fma"))) double probeAvx2()
{
    __m256 acc[kCHAINS];
    for (auto& a : acc)
    {
        a = _mm256_set1_ps(0.F);
    }
    __m256 const x = _mm256_set1_ps(0.999999F);
    __m256 const y = _mm256_set1_ps(1e-7F);
    auto const start = std::chrono::steady_clock::now();
    for (long i = 0; i < kITERATIONS; ++i)
    {
        for (auto& a : acc)
        {
            a = _mm256_fmadd_ps(a, x, y);
        }
    }
    double const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    alignas(32) float lanes[8];
    float sink = 0.F;
    for (auto& a : acc)
    {
        _mm256_store_ps(lanes, a);
        sink += lanes[0];
    }
    volatile float keep = sink;
    (void) keep;
    return static_cast<double>(kITERATIONS) * kCHAINS * 8 * 2 / seconds * 1e-9;
}
#endif

double probeScalar()
{
    float acc[kCHAINS] = {};
    auto const start = std::chrono::steady_clock::now();
    for (long i = 0; i < kITERATIONS / 4; ++i)
    {
        for (auto& a : acc)
        {
            a = a * 0.999999F + 1e-7F;
        }
    }
    double const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    volatile float keep = acc[0];
    (void) keep;
    return static_cast<double>(kITERATIONS / 4) * kCHAINS * 2 / seconds * 1e-9;
}
} // namespace

double singleCorePeakGflops()
{
    static double const peak = [] {
#if defined(__x86_64__)
        if (__builtin_cpu_supports("avx512f"))
        {
            return probeAvx512();
        }
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        {
            return probeAvx2();
        }
#endif
        return probeScalar();
    }();
    return peak;
}

double machinePeakGflops()
{
    unsigned const cores = std::thread::hardware_concurrency();
    return singleCorePeakGflops() * (cores == 0 ? 1 : cores);
}

} // namespace kiln::bench
