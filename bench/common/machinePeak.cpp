// FMA-throughput probe for machinePeak.h. Twelve independent accumulators (with distinct values, so the
// compiler cannot merge them) hide FMA latency; the widest vector ISA the CPU supports is chosen at run time
// (AVX-512, AVX2+FMA, or a scalar loop that is only a rough lower bound for CPUs without either).
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
// Twelve named accumulators (an array would be kept in memory by the compiler and measure load/store
// latency instead of FMA throughput).
#define KILN_FMA12(FMA)                                                                                          \
    a0 = FMA(a0, x, y);                                                                                        \
    a1 = FMA(a1, x, y);                                                                                        \
    a2 = FMA(a2, x, y);                                                                                        \
    a3 = FMA(a3, x, y);                                                                                        \
    a4 = FMA(a4, x, y);                                                                                        \
    a5 = FMA(a5, x, y);                                                                                        \
    a6 = FMA(a6, x, y);                                                                                        \
    a7 = FMA(a7, x, y);                                                                                        \
    a8 = FMA(a8, x, y);                                                                                        \
    a9 = FMA(a9, x, y);                                                                                        \
    a10 = FMA(a10, x, y);                                                                                      \
    a11 = FMA(a11, x, y)

#define KILN_PROBE_BODY(V, SET1, FMA, ADD, FIRST, LANES)                                                       \
    V a0 = SET1(0.F), a1 = SET1(1.F), a2 = SET1(2.F), a3 = SET1(3.F), a4 = SET1(4.F), a5 = SET1(5.F);          \
    V a6 = SET1(6.F), a7 = SET1(7.F), a8 = SET1(8.F), a9 = SET1(9.F), a10 = SET1(10.F), a11 = SET1(11.F);      \
    V const x = SET1(0.999999F);                                                                               \
    V const y = SET1(1e-7F);                                                                                   \
    auto const start = std::chrono::steady_clock::now();                                                       \
    for (long i = 0; i < kITERATIONS; ++i)                                                                     \
    {                                                                                                          \
        KILN_FMA12(FMA);                                                                                       \
    }                                                                                                          \
    double const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();   \
    V sum = ADD(ADD(ADD(a0, a1), ADD(a2, a3)), ADD(ADD(a4, a5), ADD(a6, a7)));                                  \
    sum = ADD(sum, ADD(ADD(a8, a9), ADD(a10, a11)));                                                           \
    volatile float keep = FIRST(sum);                                                                          \
    (void) keep;                                                                                               \
    return static_cast<double>(kITERATIONS) * kCHAINS * (LANES) * 2 / seconds * 1e-9

__attribute__((target("avx512f"))) double probeAvx512()
{
    KILN_PROBE_BODY(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, _mm512_cvtss_f32, 16);
}

__attribute__((target("avx2,fma"))) double probeAvx2()
{
    KILN_PROBE_BODY(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, _mm256_cvtss_f32, 8);
}
#endif

double probeScalar()
{
    float acc[kCHAINS];
    for (int i = 0; i < kCHAINS; ++i)
    {
        acc[i] = static_cast<float>(i);
    }
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
