// The CPU thread pool (core/threadPool.h) and its extension API (kiln/KilnCpuThreads.h): every index visited
// exactly once with contiguous pieces of at least the grain, tasks really spread over distinct threads, exceptions
// and failed Status returned to the caller, busy and nested calls running inline without deadlock, no heap
// allocation per call, and the thread count from KILN_CPU_THREADS and from setCpuThreadCount.
#include "core/threadPool.h"
#include "kiln/KilnCpuThreads.h"

#include "common/allocationCounter.h"
#include "common/scopedEnv.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::test
{
namespace
{

TEST(ThreadPoolTest, EveryIndexExactlyOnceInContiguousPieces)
{
    for (int32_t threads : {1, 2, 3, 4, 7})
    {
        ThreadPool pool(threads);
        EXPECT_EQ(pool.threads(), threads);
        for (int64_t count : {0, 1, 2, 5, 7, 64, 100, 1001, 4099})
        {
            for (int64_t grain : {1, 3, 16, 1000, 5000})
            {
                std::vector<std::atomic<int32_t>> seen(static_cast<size_t>(count));
                std::mutex mutex;
                std::vector<std::pair<int64_t, int64_t>> pieces;
                parallelFor(pool, count, grain, [&](int64_t begin, int64_t end) {
                    for (int64_t i = begin; i < end; ++i)
                    {
                        seen[static_cast<size_t>(i)].fetch_add(1);
                    }
                    std::lock_guard<std::mutex> const lock(mutex);
                    pieces.emplace_back(begin, end);
                });
                for (int64_t i = 0; i < count; ++i)
                {
                    ASSERT_EQ(seen[static_cast<size_t>(i)].load(), 1)
                        << "index " << i << " of " << count << ", grain " << grain << ", " << threads << " threads";
                }
                int64_t const expectedPieces = count == 0 ? 0 : std::max<int64_t>(1, std::min<int64_t>(threads, count / grain));
                ASSERT_EQ(static_cast<int64_t>(pieces.size()), expectedPieces) << count << " / " << grain;
                for (auto const& [begin, end] : pieces)
                {
                    EXPECT_LT(begin, end);
                    if (pieces.size() > 1)
                    {
                        EXPECT_GE(end - begin, grain) << "a piece below the grain";
                    }
                }
            }
        }
    }
}

TEST(ThreadPoolTest, PieceBoundsCoverTheRangeEvenly)
{
    for (int64_t count : {1, 9, 10, 11, 1000003})
    {
        for (int32_t tasks : {1, 2, 3, 4, 9})
        {
            EXPECT_EQ(pieceBegin(count, tasks, 0), 0);
            EXPECT_EQ(pieceBegin(count, tasks, tasks), count);
            for (int32_t t = 0; t < tasks; ++t)
            {
                int64_t const size = pieceBegin(count, tasks, t + 1) - pieceBegin(count, tasks, t);
                EXPECT_TRUE(size == count / tasks || size == count / tasks + 1) << count << " " << tasks << " " << t;
            }
        }
    }
}

TEST(ThreadPoolTest, TasksRunOnDistinctThreadsAtOnce)
{
    constexpr int32_t kTHREADS = 4;
    ThreadPool pool(kTHREADS);
    ASSERT_EQ(pool.threads(), kTHREADS);
    std::atomic<int32_t> arrived{0};
    std::atomic<bool> timedOut{false};
    std::mutex mutex;
    std::set<std::thread::id> ids;
    auto task = [&](int32_t) {
        {
            std::lock_guard<std::mutex> const lock(mutex);
            ids.insert(std::this_thread::get_id());
        }
        // A barrier: every task must be running at the same time for any to leave (each on its own thread).
        arrived.fetch_add(1);
        auto const until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (arrived.load() < kTHREADS)
        {
            if (std::chrono::steady_clock::now() > until)
            {
                timedOut = true;
                return;
            }
            std::this_thread::yield();
        }
    };
    pool.run(kTHREADS, TaskRef(task));
    EXPECT_FALSE(timedOut.load());
    EXPECT_EQ(ids.size(), static_cast<size_t>(kTHREADS));
    EXPECT_EQ(ids.count(std::this_thread::get_id()), 1U) << "the caller takes a share";
}

TEST(ThreadPoolTest, ExceptionsReachTheCallerAndThePoolStaysUsable)
{
    ThreadPool pool(3);
    for (int64_t failing : {0, 5, 9})
    {
        EXPECT_THROW(parallelFor(pool, 10, 1,
                         [&](int64_t begin, int64_t end) {
                             if (failing >= begin && failing < end)
                             {
                                 throw std::runtime_error("piece failed");
                             }
                         }),
            std::runtime_error);
    }
    std::atomic<int64_t> sum{0};
    parallelFor(pool, 1000, 10, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i)
        {
            sum += i;
        }
    });
    EXPECT_EQ(sum.load(), 999 * 1000 / 2);
}

TEST(ThreadPoolTest, FailedStatusIsReturned)
{
    ThreadPool pool(4);
    Status const failed = parallelFor(pool, 100, 10, [](int64_t begin, int64_t end) -> Status {
        if (begin <= 77 && 77 < end)
        {
            return invalidArgument("index 77 is out of range");
        }
        return Status::ok();
    });
    EXPECT_FALSE(failed.isOk());
    EXPECT_EQ(failed.code(), nvinfer1::ErrorCode::kINVALID_ARGUMENT);
    EXPECT_EQ(failed.message(), "index 77 is out of range");
    Status const fine = parallelFor(pool, 100, 10, [](int64_t, int64_t) { return Status::ok(); });
    EXPECT_TRUE(fine.isOk());
    Status const serial = parallelFor(pool, 5, 10, [](int64_t, int64_t) { return internalError("one piece"); });
    EXPECT_EQ(serial.message(), "one piece");
}

TEST(ThreadPoolTest, NestedAndConcurrentCallsRunInlineWithoutDeadlock)
{
    ThreadPool pool(3);
    constexpr int64_t kOUTER = 12;
    constexpr int64_t kINNER = 50;
    std::vector<std::atomic<int32_t>> seen(static_cast<size_t>(kOUTER * kINNER));
    parallelFor(pool, kOUTER, 1, [&](int64_t begin, int64_t end) {
        for (int64_t o = begin; o < end; ++o)
        {
            EXPECT_TRUE(ThreadPool::insideTask());
            parallelFor(pool, kINNER, 1, [&](int64_t b, int64_t e) {
                for (int64_t i = b; i < e; ++i)
                {
                    seen[static_cast<size_t>(o * kINNER + i)].fetch_add(1);
                }
            });
        }
    });
    EXPECT_FALSE(ThreadPool::insideTask());
    for (auto const& s : seen)
    {
        ASSERT_EQ(s.load(), 1);
    }

    // Four threads share the pool: calls that find it busy run inline; every call sees every index once.
    std::atomic<int32_t> bad{0};
    std::vector<std::thread> callers;
    for (int32_t c = 0; c < 4; ++c)
    {
        callers.emplace_back([&] {
            for (int32_t round = 0; round < 200; ++round)
            {
                std::vector<int32_t> hits(1000, 0);
                parallelFor(pool, 1000, 64, [&](int64_t b, int64_t e) {
                    for (int64_t i = b; i < e; ++i)
                    {
                        ++hits[static_cast<size_t>(i)];
                    }
                });
                for (int32_t h : hits)
                {
                    bad += h != 1 ? 1 : 0;
                }
            }
        });
    }
    for (std::thread& t : callers)
    {
        t.join();
    }
    EXPECT_EQ(bad.load(), 0);
}

TEST(ThreadPoolTest, CallsMakeNoHeapAllocation)
{
    ThreadPool pool(3);
    std::vector<float> data(30000, 1.F);
    auto body = [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i)
        {
            data[static_cast<size_t>(i)] *= 2.F;
        }
    };
    parallelFor(pool, 30000, 100, body); // warm: the workers exist and have run once
    AllocationCounter counter;
    for (int32_t i = 0; i < 20; ++i)
    {
        parallelFor(pool, 30000, 100, body);
        Status const s = parallelFor(pool, 30000, 100, [&](int64_t b, int64_t e) {
            body(b, e);
            return Status::ok();
        });
        EXPECT_TRUE(s.isOk());
    }
    EXPECT_EQ(counter.count(), 0);
    EXPECT_EQ(data[0], std::ldexp(1.F, 41));
    EXPECT_EQ(data[29999], std::ldexp(1.F, 41));
}

TEST(ThreadPoolTest, ResizeKeepsWorking)
{
    ThreadPool pool(2);
    for (int32_t threads : {5, 1, 3})
    {
        pool.resize(threads);
        EXPECT_EQ(pool.threads(), threads);
        std::atomic<int64_t> n{0};
        parallelFor(pool, 777, 1, [&](int64_t b, int64_t e) { n += e - b; });
        EXPECT_EQ(n.load(), 777);
    }
}

TEST(ThreadPoolTest, EnvironmentVariableSetsTheDefault)
{
    {
        ScopedEnv const env("KILN_CPU_THREADS", "3");
        std::string note;
        EXPECT_EQ(defaultCpuThreadCount(&note), 3);
        EXPECT_TRUE(note.empty());
    }
    int32_t affinityCount = 0;
    {
        ScopedEnv const env("KILN_CPU_THREADS", nullptr);
        std::string note;
        affinityCount = defaultCpuThreadCount(&note);
        EXPECT_GE(affinityCount, 1);
        EXPECT_LE(affinityCount, static_cast<int32_t>(std::max(1U, std::thread::hardware_concurrency())));
        EXPECT_TRUE(note.empty());
    }
    for (char const* bad : {"0", "-2", "four", "3x", "5000"})
    {
        ScopedEnv const env("KILN_CPU_THREADS", bad);
        std::string note;
        EXPECT_EQ(defaultCpuThreadCount(&note), affinityCount) << bad;
        EXPECT_NE(note.find("KILN_CPU_THREADS"), std::string::npos) << bad;
        EXPECT_NE(note.find(bad), std::string::npos) << note;
    }
}

TEST(ThreadPoolTest, ExtensionApiSetsTheProcessPool)
{
    int32_t const before = kiln::getCpuThreadCount();
    EXPECT_GE(before, 1);
    EXPECT_TRUE(kiln::setCpuThreadCount(3));
    EXPECT_EQ(kiln::getCpuThreadCount(), 3);
    EXPECT_EQ(cpuThreadPool().threads(), 3);
    EXPECT_FALSE(kiln::setCpuThreadCount(-1));
    EXPECT_FALSE(kiln::setCpuThreadCount(ThreadPool::kMAX_THREADS + 1));
    EXPECT_EQ(kiln::getCpuThreadCount(), 3) << "a refused value changes nothing";
    {
        ScopedEnv const env("KILN_CPU_THREADS", "2");
        EXPECT_TRUE(kiln::setCpuThreadCount(0));
        EXPECT_EQ(kiln::getCpuThreadCount(), 2) << "0 goes back to the default, which reads KILN_CPU_THREADS";
    }

    struct Args
    {
        std::vector<int32_t>* hits;
    };
    std::vector<int32_t> hits(5000, 0);
    Args args{&hits};
    EXPECT_TRUE(kiln::cpuParallelFor(5000, 100, [](void* user, int64_t begin, int64_t end) {
        auto* a = static_cast<Args*>(user);
        for (int64_t i = begin; i < end; ++i)
        {
            ++(*a->hits)[static_cast<size_t>(i)];
        }
    }, &args));
    for (int32_t h : hits)
    {
        ASSERT_EQ(h, 1);
    }
    EXPECT_FALSE(kiln::cpuParallelFor(10, 1, nullptr, nullptr));
    EXPECT_FALSE(kiln::cpuParallelFor(-1, 1, [](void*, int64_t, int64_t) {}, nullptr));
    EXPECT_FALSE(kiln::cpuParallelFor(10, 1, [](void*, int64_t, int64_t) { throw std::runtime_error("x"); }, nullptr));
    // From inside a task the count cannot change (the call would wait for itself).
    std::atomic<int32_t> refused{0};
    kiln::cpuParallelFor(4, 1, [](void* user, int64_t, int64_t) {
        if (!kiln::setCpuThreadCount(1))
        {
            static_cast<std::atomic<int32_t>*>(user)->fetch_add(1);
        }
    }, &refused);
    EXPECT_GE(refused.load(), 1);
    EXPECT_TRUE(kiln::setCpuThreadCount(0));
}

} // namespace
} // namespace kiln::test
