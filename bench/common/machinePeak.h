// Measured FP32 peak of this machine: FMA throughput of one core with the widest vector unit the CPU has,
// times the number of cores the engine may use. Benchmarks report their GFLOP/s as a fraction of it.
#pragma once

namespace kiln::bench
{

//! GFLOP/s one core reaches on independent FMA chains (measured once, cached).
double singleCorePeakGflops();
//! singleCorePeakGflops() times std::thread::hardware_concurrency().
double machinePeakGflops();

} // namespace kiln::bench
