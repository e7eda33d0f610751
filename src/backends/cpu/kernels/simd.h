// KILN_CPU_CLONES: function multiversioning for the CPU kernels' hottest loops. The library is built for the
// baseline of its architecture (no -march, so that packages run on any x86-64); GCC compiles a function marked
// with it once per listed instruction set and picks the best at load time (an ifunc). Elsewhere it is empty.
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define KILN_CPU_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define KILN_CPU_CLONES
#endif
