// The one thread pool of the CPU backend's kernels and of plugins' host work (kiln/KilnCpuThreads.h): a fixed set
// of worker threads, a static split of [0, count) into one task per thread, and no heap allocation per call.
//
// - run(nbTasks, fn): fn(task) for every task in [0, nbTasks); the calling thread works too and it returns when every
//   task is done, rethrowing the first exception a task threw. Tasks are claimed one at a time from a shared
//   counter: a worker that the system has not scheduled yet claims nothing, and the caller runs the tasks left, so a
//   call never waits for a thread that is not running (on a machine busy with other processes the call degrades to
//   the caller alone instead of to the slowest thread's timeslice).
// - parallelFor(pool, count, grain, fn): fn(begin, end) over contiguous pieces of [0, count) of at least `grain`
//   items each (one piece when count < 2 * grain, so tiny tensors stay on the calling thread). The pieces are fixed
//   by count, grain and the thread count (static chunking; which thread runs a piece is not), so results never
//   depend on scheduling. fn may return Status: the first failure is returned.
// - A pool runs one call at a time. A call made while the pool is busy (from another thread, or from inside a
//   task) runs all its tasks inline on the calling thread, so two execution contexts on two threads never wait for
//   each other and nested calls never deadlock.
// - cpuThreadPool() is the process's pool, sized by resizeCpuThreadPool() (kiln::setCpuThreadCount), else the
//   KILN_CPU_THREADS environment variable, else the CPUs of the process's affinity mask. oneDNN runs on its own
//   OpenMP threads, set to the same count (backends/cpu/cpuBackend.cpp).
#pragma once

#include "core/status.h"

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace kiln
{

//! A non-owning reference to a callable void(int32_t task), so that a call needs no std::function (no allocation).
class TaskRef
{
public:
    template <typename F>
        requires(!std::is_same_v<std::remove_cv_t<F>, TaskRef>)
    explicit TaskRef(F& f)
        : mObject(static_cast<void*>(&f))
        , mCall([](void* object, int32_t task) { (*static_cast<F*>(object))(task); })
    {
    }
    void operator()(int32_t task) const { mCall(mObject, task); }

private:
    void* mObject;
    void (*mCall)(void*, int32_t);
};

class ThreadPool
{
public:
    //! A pool of `threads` threads in all: the caller and threads - 1 workers (at least 1; values above
    //! kMAX_THREADS are clamped). Workers that the system refuses to start are left out.
    explicit ThreadPool(int32_t threads);
    ~ThreadPool();
    ThreadPool(ThreadPool const&) = delete;
    ThreadPool& operator=(ThreadPool const&) = delete;

    static constexpr int32_t kMAX_THREADS = 1024;

    //! Threads that share a call's tasks (the caller included).
    int32_t threads() const { return mThreads.load(std::memory_order_relaxed); }

    //! fn(task) for task in [0, nbTasks) (at most kMAX_TASKS), claimed one by one by the caller and the workers.
    //! Inline on the calling thread when the pool is busy or nbTasks is 1. Rethrows the first exception; tasks
    //! not yet started when one fails are skipped.
    void run(int32_t nbTasks, TaskRef fn);

    static constexpr int32_t kMAX_TASKS = 0xFFFF;

    //! Stops the workers and starts threads - 1 new ones (waits for a running call to finish).
    void resize(int32_t threads);

    //! True while the calling thread runs a task of any pool (nested calls then run inline).
    static bool insideTask();

private:
    void start(int32_t threads);
    void stop();
    void workerLoop(uint32_t seen);
    //! Claims and runs tasks of the call `epoch` until none is left (returns at once for another call's epoch).
    void work(uint32_t epoch);

    std::mutex mRunMutex; //!< held by the call in flight (try_lock: a busy pool runs the call inline)
    std::atomic<int32_t> mThreads{1};
    std::vector<std::thread> mWorkers;
    std::atomic<bool> mStop{false};
    //! Bumped by every call (workers wait on it).
    std::atomic<uint32_t> mEpoch{0};
    //! The call in flight in one word: epoch (bits 63..32), task count (31..16), next unclaimed task (15..0). A
    //! worker claims a task with a compare-and-swap that fails for another call's epoch, so a late worker never
    //! touches a later call.
    std::atomic<uint64_t> mClaim{0};
    std::atomic<TaskRef const*> mJob{nullptr}; //!< the call's tasks (valid while one of its tasks is unfinished)
    std::atomic<int32_t> mDone{0};            //!< tasks of the call in flight finished
    std::atomic<bool> mFailed{false};
    std::exception_ptr mError; //!< the first exception of the call in flight (written by the thread that set mFailed)
};

//! The process's pool (created on first use).
ThreadPool& cpuThreadPool();

//! Threads of cpuThreadPool() when nothing sets them: KILN_CPU_THREADS when it is a positive integer, else the
//! CPUs the process may run on. `note` receives a message when KILN_CPU_THREADS is set but invalid.
int32_t defaultCpuThreadCount(std::string* note = nullptr);

//! Resizes cpuThreadPool(); 0 goes back to defaultCpuThreadCount(). Fails for values < 0 or > kMAX_THREADS.
Status resizeCpuThreadPool(int32_t threads);

//! The start of piece `task` when [0, count) is cut into nbTasks contiguous pieces whose sizes differ by at most 1.
inline int64_t pieceBegin(int64_t count, int32_t nbTasks, int32_t task)
{
    int64_t const q = count / nbTasks;
    int64_t const r = count % nbTasks;
    return task * q + (task < r ? task : r);
}

//! Tasks for `count` items of at least `grain` items each on `pool`, at most maxTasks (0 for no items).
inline int32_t taskCount(
    ThreadPool const& pool, int64_t count, int64_t grain, int32_t maxTasks = ThreadPool::kMAX_THREADS)
{
    if (count <= 0)
    {
        return 0;
    }
    int64_t const pieces = count / (grain < 1 ? 1 : grain);
    int64_t limit = pool.threads();
    limit = limit < maxTasks ? limit : maxTasks;
    limit = limit < 1 ? 1 : limit;
    return static_cast<int32_t>(pieces < 1 ? 1 : (pieces < limit ? pieces : limit));
}

//! fn(task, begin, end) over the pieces of [0, count) (see taskCount), task < maxTasks (e.g. per-task scratch
//! prepared for maxTasks); fn returns void or Status (the first failure is returned).
template <typename F>
auto parallelForTasks(ThreadPool& pool, int64_t count, int64_t grain, int32_t maxTasks, F&& fn)
{
    using R = std::invoke_result_t<F&, int32_t, int64_t, int64_t>;
    int32_t const nbTasks = taskCount(pool, count, grain, maxTasks);
    if constexpr (std::is_same_v<R, Status>)
    {
        if (nbTasks <= 1)
        {
            return count > 0 ? fn(int32_t{0}, int64_t{0}, count) : Status::ok();
        }
        std::atomic<bool> failed{false};
        Status firstError;
        auto task = [&](int32_t t) {
            Status s = fn(t, pieceBegin(count, nbTasks, t), pieceBegin(count, nbTasks, t + 1));
            if (!s.isOk() && !failed.exchange(true, std::memory_order_acq_rel))
            {
                firstError = std::move(s);
            }
        };
        pool.run(nbTasks, TaskRef(task));
        return firstError;
    }
    else
    {
        if (nbTasks <= 1)
        {
            if (count > 0)
            {
                fn(int32_t{0}, int64_t{0}, count);
            }
            return;
        }
        auto task = [&](int32_t t) { fn(t, pieceBegin(count, nbTasks, t), pieceBegin(count, nbTasks, t + 1)); };
        pool.run(nbTasks, TaskRef(task));
    }
}

//! fn(begin, end) over the pieces of [0, count) (see taskCount); fn returns void or Status (first failure returned).
template <typename F>
auto parallelFor(ThreadPool& pool, int64_t count, int64_t grain, F&& fn)
{
    return parallelForTasks(pool, count, grain, ThreadPool::kMAX_THREADS,
        [&fn](int32_t, int64_t begin, int64_t end) { return fn(begin, end); });
}

//! parallelFor on cpuThreadPool().
template <typename F>
auto parallelFor(int64_t count, int64_t grain, F&& fn)
{
    return parallelFor(cpuThreadPool(), count, grain, std::forward<F>(fn));
}

//! parallelForTasks on cpuThreadPool().
template <typename F>
auto parallelForTasks(int64_t count, int64_t grain, int32_t maxTasks, F&& fn)
{
    return parallelForTasks(cpuThreadPool(), count, grain, maxTasks, std::forward<F>(fn));
}

} // namespace kiln
