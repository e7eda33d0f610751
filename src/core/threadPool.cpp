// The CPU thread pool (core/threadPool.h): workers that wait on their own slot, a static round-robin deal of tasks,
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
#if KILN_POOL_OPENMP
#include <omp.h>
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

struct ThreadPool::Job
{
    Job(TaskRef f, int32_t tasks, int32_t sharers)
        : fn(f)
        , nbTasks(tasks)
        , participants(sharers)
    {
    }

    TaskRef fn;
    int32_t nbTasks;
    int32_t participants;
    std::atomic<bool> failed{false};
    std::exception_ptr error;

    //! The tasks of `participant` of `sharers`: participant, participant + sharers, ... (skipped once a task
    //! failed).
    void runShare(int32_t participant, int32_t sharers)
    {
        TaskScope const scope;
        for (int32_t t = participant; t < nbTasks; t += sharers)
        {
            if (failed.load(std::memory_order_relaxed))
            {
                return;
            }
            try
            {
                fn(t);
            }
            catch (...)
            {
                if (!failed.exchange(true, std::memory_order_acq_rel))
                {
                    error = std::current_exception();
                }
            }
        }
    }
};

ThreadPool::Engine ThreadPool::defaultEngine()
{
#if KILN_POOL_OPENMP
    return Engine::kOPENMP;
#else
    return Engine::kWORKERS;
#endif
}

ThreadPool::ThreadPool(int32_t threads, Engine engine)
#if KILN_POOL_OPENMP
    : mEngine(engine)
#else
    : mEngine((static_cast<void>(engine), Engine::kWORKERS))
#endif
{
    start(threads);
}

void ThreadPool::runOpenMp(Job& job)
{
#if KILN_POOL_OPENMP
    // The team may be smaller than asked (nested inside an application's parallel region, or a thread limit):
    // the tasks are dealt over the threads that came.
#pragma omp parallel num_threads(job.participants)
    {
        job.runShare(omp_get_thread_num(), omp_get_num_threads());
    }
#else
    job.runShare(0, 1);
#endif
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
    if (mEngine == Engine::kOPENMP)
    {
        mThreads.store(wanted, std::memory_order_relaxed); // OpenMP keeps the threads
        return;
    }
    mStop.store(false, std::memory_order_relaxed);
    mSlots = std::make_unique<Slot[]>(static_cast<size_t>(wanted - 1));
    mWorkers.reserve(static_cast<size_t>(wanted - 1));
    for (int32_t p = 1; p < wanted; ++p)
    {
        try
        {
            mWorkers.emplace_back([this, p] { workerLoop(p); });
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
    for (size_t w = 0; w < mWorkers.size(); ++w)
    {
        mSlots[w].sequence.fetch_add(1, std::memory_order_release);
        mSlots[w].sequence.notify_one();
    }
    for (std::thread& worker : mWorkers)
    {
        worker.join();
    }
    mWorkers.clear();
    mSlots.reset();
    mThreads.store(1, std::memory_order_relaxed);
}

void ThreadPool::resize(int32_t threads)
{
    std::lock_guard<std::mutex> const lock(mRunMutex);
    stop();
    start(threads);
}

void ThreadPool::workerLoop(int32_t participant)
{
    Slot& slot = mSlots[static_cast<size_t>(participant - 1)];
    uint32_t seen = 0;
    while (true)
    {
        if (!spinUntil([&] { return slot.sequence.load(std::memory_order_acquire) != seen; }, kWORKER_SPIN))
        {
            slot.sequence.wait(seen, std::memory_order_acquire);
        }
        seen = slot.sequence.load(std::memory_order_acquire);
        if (mStop.load(std::memory_order_acquire))
        {
            return;
        }
        slot.job->runShare(participant, slot.job->participants);
        // The job lives on the caller's stack: after this decrement only pool members are touched.
        if (mPending.fetch_sub(1, std::memory_order_acq_rel) == 1)
        {
            mPending.notify_one();
        }
    }
}

void ThreadPool::run(int32_t nbTasks, TaskRef fn)
{
    if (nbTasks <= 0)
    {
        return;
    }
    std::unique_lock<std::mutex> lock(mRunMutex, std::defer_lock);
    if (nbTasks == 1 || threads() == 1 || insideTask() || !lock.try_lock())
    {
        TaskScope const scope; // busy, nested or serial: every task here, in order
        for (int32_t t = 0; t < nbTasks; ++t)
        {
            fn(t);
        }
        return;
    }
    int32_t const threadCount = threads();
    Job job(fn, nbTasks, nbTasks < threadCount ? nbTasks : threadCount);
    if (mEngine == Engine::kOPENMP)
    {
        runOpenMp(job);
    }
    else
    {
        mPending.store(job.participants - 1, std::memory_order_relaxed);
        for (int32_t p = 1; p < job.participants; ++p)
        {
            Slot& slot = mSlots[static_cast<size_t>(p - 1)];
            slot.job = &job;
            slot.sequence.fetch_add(1, std::memory_order_release);
            slot.sequence.notify_one();
        }
        job.runShare(0, job.participants);
        auto const done = [&] { return mPending.load(std::memory_order_acquire) == 0; };
        if (!spinUntil(done, kCALLER_SPIN))
        {
            for (int32_t left = mPending.load(std::memory_order_acquire); left != 0;
                 left = mPending.load(std::memory_order_acquire))
            {
                mPending.wait(left, std::memory_order_acquire);
            }
        }
    }
    lock.unlock();
    if (job.error)
    {
        std::rethrow_exception(job.error);
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
