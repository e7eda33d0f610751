// The CPU thread pool (core/threadPool.h): workers that wait on an epoch counter, tasks claimed from one atomic word,
// completion counted in the pool, and the process-wide pool sized from the affinity mask or KILN_CPU_THREADS.
#include "core/threadPool.h"

#include <chrono>
#include <cstdlib>
#include <exception>
#include <string>
#include <system_error>

#if defined(__linux__)
#include <sched.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace kiln
{

namespace
{

thread_local int32_t tTaskDepth = 0; //!< > 0 while this thread runs a task of any pool

//! Marks the calling thread as running tasks for the guard's lifetime.
class TaskScope
{
public:
    TaskScope() { ++tTaskDepth; }
    ~TaskScope() { --tTaskDepth; }
    TaskScope(TaskScope const&) = delete;
    TaskScope& operator=(TaskScope const&) = delete;
};

void cpuRelax()
{
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#else
    std::this_thread::yield();
#endif
}

//! Spins up to `budget` for `done()` before the caller blocks (a worker woken for back-to-back kernels then needs
//! no system call). Checks the clock every 64 spins.
template <typename Done>
bool spinUntil(Done&& done, std::chrono::microseconds budget)
{
    auto const until = std::chrono::steady_clock::now() + budget;
    for (int32_t i = 1;; ++i)
    {
        if (done())
        {
            return true;
        }
        cpuRelax();
        if ((i & 63) == 0 && std::chrono::steady_clock::now() >= until)
        {
            return done();
        }
    }
}

constexpr std::chrono::microseconds kWORKER_SPIN{50};
constexpr std::chrono::microseconds kCALLER_SPIN{200};

} // namespace

ThreadPool::ThreadPool(int32_t threads)
{
    start(threads);
}

ThreadPool::~ThreadPool()
{
    std::lock_guard<std::mutex> const lock(mRunMutex);
    stop();
}

bool ThreadPool::insideTask()
{
    return tTaskDepth > 0;
}

void ThreadPool::start(int32_t threads)
{
    int32_t const wanted = threads < 1 ? 1 : (threads > kMAX_THREADS ? kMAX_THREADS : threads);
    mStop.store(false, std::memory_order_relaxed);
    mWorkers.reserve(static_cast<size_t>(wanted - 1));
    // Workers start from the epoch before any call of theirs, so a worker that starts late still joins the first.
    uint32_t const epoch = mEpoch.load(std::memory_order_relaxed);
    for (int32_t p = 1; p < wanted; ++p)
    {
        try
        {
            mWorkers.emplace_back([this, epoch] { workerLoop(epoch); });
        }
        catch (std::system_error const&)
        {
            break; // the system refuses more threads: run with those started
        }
    }
    mThreads.store(static_cast<int32_t>(mWorkers.size()) + 1, std::memory_order_relaxed);
}

void ThreadPool::stop()
{
    mStop.store(true, std::memory_order_release);
    mEpoch.fetch_add(1, std::memory_order_release);
    mEpoch.notify_all();
    for (std::thread& worker : mWorkers)
    {
        worker.join();
    }
    mWorkers.clear();
    mThreads.store(1, std::memory_order_relaxed);
}

void ThreadPool::resize(int32_t threads)
{
    std::lock_guard<std::mutex> const lock(mRunMutex);
    stop();
    start(threads);
}

void ThreadPool::workerLoop(uint32_t seen)
{
    auto const woken = [&] {
        return mStop.load(std::memory_order_acquire) || mEpoch.load(std::memory_order_acquire) != seen;
    };
    while (true)
    {
        if (!spinUntil(woken, kWORKER_SPIN))
        {
            while (!woken())
            {
                mEpoch.wait(seen, std::memory_order_acquire);
            }
        }
        if (mStop.load(std::memory_order_acquire))
        {
            return;
        }
        seen = mEpoch.load(std::memory_order_acquire);
        work(seen);
    }
}

void ThreadPool::work(uint32_t epoch)
{
    TaskScope const scope;
    uint64_t word = mClaim.load(std::memory_order_acquire);
    while (true)
    {
        auto const nbTasks = static_cast<int32_t>((word >> 16) & 0xFFFF);
        auto const task = static_cast<int32_t>(word & 0xFFFF);
        if (static_cast<uint32_t>(word >> 32) != epoch || task >= nbTasks)
        {
            return; // another call's word, or every task claimed
        }
        if (!mClaim.compare_exchange_weak(word, word + 1, std::memory_order_acq_rel, std::memory_order_acquire))
        {
            continue; // word now holds the current value
        }
        // The task is ours: the call (and its TaskRef) stays alive until it is counted done.
        if (!mFailed.load(std::memory_order_relaxed))
        {
            try
            {
                (*mJob.load(std::memory_order_relaxed))(task);
            }
            catch (...)
            {
                if (!mFailed.exchange(true, std::memory_order_acq_rel))
                {
                    mError = std::current_exception();
                }
            }
        }
        if (mDone.fetch_add(1, std::memory_order_acq_rel) + 1 == nbTasks)
        {
            mDone.notify_one();
        }
        word = mClaim.load(std::memory_order_acquire);
    }
}

void ThreadPool::run(int32_t nbTasks, TaskRef fn)
{
    if (nbTasks <= 0)
    {
        return;
    }
    std::unique_lock<std::mutex> lock(mRunMutex, std::defer_lock);
    if (nbTasks == 1 || nbTasks > kMAX_TASKS || threads() == 1 || insideTask() || !lock.try_lock())
    {
        TaskScope const scope; // busy, nested or serial: every task here, in order
        for (int32_t t = 0; t < nbTasks; ++t)
        {
            fn(t);
        }
        return;
    }
    // Publish the call: its fields first, then the claim word, then the epoch that wakes the workers.
    uint32_t const epoch = mEpoch.load(std::memory_order_relaxed) + 1;
    mJob.store(&fn, std::memory_order_relaxed);
    mDone.store(0, std::memory_order_relaxed);
    mFailed.store(false, std::memory_order_relaxed);
    mError = nullptr;
    mClaim.store((static_cast<uint64_t>(epoch) << 32) | (static_cast<uint64_t>(nbTasks) << 16),
        std::memory_order_release);
    mEpoch.store(epoch, std::memory_order_release);
    mEpoch.notify_all();
    work(epoch);
    // Every task is claimed; wait for those that workers are still running.
    auto const done = [&] { return mDone.load(std::memory_order_acquire) == nbTasks; };
    if (!spinUntil(done, kCALLER_SPIN))
    {
        for (int32_t finished = mDone.load(std::memory_order_acquire); finished != nbTasks;
             finished = mDone.load(std::memory_order_acquire))
        {
            mDone.wait(finished, std::memory_order_acquire);
        }
    }
    std::exception_ptr const error = mFailed.load(std::memory_order_acquire) ? mError : nullptr;
    lock.unlock();
    if (error)
    {
        std::rethrow_exception(error);
    }
}

int32_t defaultCpuThreadCount(std::string* note)
{
    if (char const* env = std::getenv("KILN_CPU_THREADS"); env != nullptr && *env != '\0')
    {
        char* end = nullptr;
        long const value = std::strtol(env, &end, 10);
        if (end != env && *end == '\0' && value >= 1 && value <= ThreadPool::kMAX_THREADS)
        {
            return static_cast<int32_t>(value);
        }
        if (note != nullptr)
        {
            *note = std::string("the environment variable KILN_CPU_THREADS is '") + env
                + "'; it must be a thread count from 1 to " + std::to_string(ThreadPool::kMAX_THREADS)
                + " (ignored: the CPU backend uses one thread per CPU)";
        }
    }
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
    {
        int const count = CPU_COUNT(&set);
        if (count > 0)
        {
            return count < ThreadPool::kMAX_THREADS ? count : ThreadPool::kMAX_THREADS;
        }
    }
#endif
    unsigned const hardware = std::thread::hardware_concurrency();
    return hardware == 0 ? 1 : static_cast<int32_t>(hardware < 1024U ? hardware : 1024U);
}

ThreadPool& cpuThreadPool()
{
    static ThreadPool pool(defaultCpuThreadCount());
    return pool;
}

Status resizeCpuThreadPool(int32_t threads)
{
    if (threads < 0 || threads > ThreadPool::kMAX_THREADS)
    {
        return invalidArgument("the CPU thread count must be from 1 to " + std::to_string(ThreadPool::kMAX_THREADS)
            + ", or 0 for the default; got " + std::to_string(threads));
    }
    if (ThreadPool::insideTask())
    {
        return invalidState("the CPU thread count cannot change from inside a task of the thread pool");
    }
    cpuThreadPool().resize(threads == 0 ? defaultCpuThreadCount() : threads);
    return Status::ok();
}

} // namespace kiln
