//! \file KilnCpuThreads.h
//! \brief Kiln extension: the threads of the CPU backend, and its thread pool for plugins' host work.
//!
//! The CPU backend runs each execution context's layers on the calling thread of enqueueV3/executeV2, and splits
//! the work of large layers over one process-wide pool of threads. oneDNN (convolution, matrix multiply, pooling)
//! runs on its own OpenMP threads, which Kiln sets to the same count on the thread that runs the context.
//!
//! The thread count is, in order of precedence:
//! - the value given to setCpuThreadCount() (0 goes back to the default);
//! - the environment variable KILN_CPU_THREADS (a count from 1 to 1024), read when the pool is first used;
//! - the number of CPUs the process may run on (its CPU affinity mask, e.g. as set by `taskset` or a container).
//!
//! \code
//!     kiln::setCpuThreadCount(4);          // four threads for every CPU engine of the process
//!     int32_t n = kiln::getCpuThreadCount();
//! \endcode
//!
//! A plugin's enqueue() on the CPU backend may share the pool for its host work:
//!
//! \code
//!     struct Args { float const* in; float* out; };
//!     Args args{in, out};
//!     kiln::cpuParallelFor(count, 16384, [](void* user, int64_t begin, int64_t end) {
//!         Args* a = static_cast<Args*>(user);
//!         for (int64_t i = begin; i < end; ++i) a->out[i] = a->in[i] * 2.F;
//!     }, &args);
//! \endcode
//!
//! The pool runs one call at a time: a call made while it is busy (another context's layer on another thread, or
//! a call from inside one of its tasks) runs all of its pieces on the calling thread. The functions are safe to
//! call from any thread; setCpuThreadCount waits for a call in flight to finish.
#ifndef KILN_CPU_THREADS_H
#define KILN_CPU_THREADS_H

#include "NvInferRuntimeBase.h"

#include <cstdint>

namespace kiln
{

//! Set the CPU backend's thread count (1 to 1024), or 0 for the default (KILN_CPU_THREADS, else the CPUs of the
//! affinity mask). Returns false, changing nothing, for a value out of range or when called from inside a task of
//! cpuParallelFor.
TENSORRTAPI bool setCpuThreadCount(int32_t threads) noexcept;

//! The CPU backend's thread count (the calling thread included).
TENSORRTAPI int32_t getCpuThreadCount() noexcept;

//! A piece of cpuParallelFor's work: items [begin, end) of the count; `user` is cpuParallelFor's argument.
typedef void (*CpuTaskFunction)(void* user, int64_t begin, int64_t end);

//! Call fn over contiguous pieces of [0, count) of at least `grain` items each on the CPU backend's pool (the
//! calling thread takes the first piece), and return when all are done. Every item is in exactly one piece; a
//! count below 2 * grain runs as one piece on the calling thread. Returns false for a null fn, a negative count,
//! or when a piece threw an exception (pieces not yet started are then skipped).
TENSORRTAPI bool cpuParallelFor(int64_t count, int64_t grain, CpuTaskFunction fn, void* user) noexcept;

} // namespace kiln

#endif // KILN_CPU_THREADS_H
