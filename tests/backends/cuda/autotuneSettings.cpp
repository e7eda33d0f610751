// The host-side rules of the CUDA kernels' autotuning (backends/cuda/kernels/autotune.h), which run without a GPU:
// which timed candidate is kept, the settings read from the environment, the override the GPU tests use, and the
// counters and verbose log of a timed problem.
#include "backends/cuda/kernels/autotune.h"
#include "core/verboseLog.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace kiln::test::cuda
{
namespace
{
using ::kiln::cuda::AutotuneSettings;

TEST(CudaAutotune, PickCandidate)
{
    AutotuneSettings s;
    EXPECT_EQ(::kiln::cuda::pickCandidate({0.30, 0.12, -1.0, 0.20}, s), 1); // the fastest
    EXPECT_EQ(::kiln::cuda::pickCandidate({-1.0, 0.40, 0.25}, s), 2);       // failures never win
    EXPECT_EQ(::kiln::cuda::pickCandidate({-1.0, -1.0}, s), -1);           // none ran
    EXPECT_EQ(::kiln::cuda::pickCandidate({}, s), -1);
    s.force = 2;
    EXPECT_EQ(::kiln::cuda::pickCandidate({0.30, 0.12, 0.50}, s), 2); // forced, though slower
    EXPECT_EQ(::kiln::cuda::pickCandidate({0.30, 0.12, -1.0}, s), 1); // a forced failure: the fastest
    s.force = 5;
    EXPECT_EQ(::kiln::cuda::pickCandidate({0.30, 0.12}, s), 1); // out of range: the fastest
}

TEST(CudaAutotune, SettingsFromEnvironmentAndOverride)
{
    ::setenv("KILN_AUTOTUNE", "0", 1);
    ::setenv("KILN_AUTOTUNE_CANDIDATES", "3", 1);
    ::setenv("KILN_AUTOTUNE_BUDGET_MS", "40", 1);
    AutotuneSettings const off = ::kiln::cuda::autotuneSettings();
    EXPECT_FALSE(off.enabled);
    EXPECT_EQ(off.candidates, 3);
    EXPECT_DOUBLE_EQ(off.budgetMs, 40.0);
    ::setenv("KILN_AUTOTUNE", "1", 1);
    ::setenv("KILN_AUTOTUNE_CANDIDATES", "zero", 1); // not a number: the default
    AutotuneSettings const on = ::kiln::cuda::autotuneSettings();
    EXPECT_TRUE(on.enabled);
    EXPECT_EQ(on.candidates, 8);
    EXPECT_NE(on.key(), off.key()); // plans chosen under other settings are not reused
    AutotuneSettings forced;
    forced.force = 1;
    ::kiln::cuda::setAutotuneOverride(forced);
    EXPECT_EQ(::kiln::cuda::autotuneSettings().force, 1);
    EXPECT_EQ(::kiln::cuda::autotuneSettings().key(), forced.key());
    ::kiln::cuda::setAutotuneOverride(std::nullopt);
    EXPECT_EQ(::kiln::cuda::autotuneSettings().force, -1);
    for (char const* name : {"KILN_AUTOTUNE", "KILN_AUTOTUNE_CANDIDATES", "KILN_AUTOTUNE_BUDGET_MS"})
    {
        ::unsetenv(name);
    }
}

class CapturingLogger : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity == Severity::kVERBOSE)
        {
            messages.emplace_back(msg);
        }
    }
    std::vector<std::string> messages;
};

TEST(CudaAutotune, ReportCountsAndLogs)
{
    CapturingLogger user;
    ::kiln::Logger logger(&user);
    ::kiln::Logger const* previous = ::kiln::exchangeThreadVerboseLogger(&logger);
    ::kiln::cuda::AutotuneCounters const before = ::kiln::cuda::autotuneCounters();
    ::kiln::cuda::reportAutotune(false, "layer 'fc'", {"#0", "#1", "#2"}, {0.25, 0.125, -1.0}, 1,
        std::chrono::steady_clock::now());
    ::kiln::cuda::AutotuneCounters const after = ::kiln::cuda::autotuneCounters();
    ::kiln::exchangeThreadVerboseLogger(previous);
    EXPECT_EQ(after.ltProblems - before.ltProblems, 1);
    EXPECT_EQ(after.ltCandidates - before.ltCandidates, 2); // the failed one is not counted
    EXPECT_EQ(after.lastLtTimed, 2);
    EXPECT_EQ(after.lastLtChoice, 1);
    EXPECT_EQ(after.cudnnProblems, before.cudnnProblems);
    ASSERT_EQ(user.messages.size(), 1U);
    std::string const& m = user.messages[0];
    EXPECT_NE(m.find("layer 'fc': 3 cuBLASLt algorithms [#0 0.2500 ms, #1 0.1250 ms, #2 failed]; kept #1"),
        std::string::npos)
        << m;
    // Without a verbose log installed, nothing is written.
    ::kiln::cuda::reportAutotune(true, "graph", {"eng0"}, {-1.0}, -1, std::chrono::steady_clock::now());
    EXPECT_EQ(user.messages.size(), 1U);
}

//! The choices recorded for the engine file: a thread's recorder gets each entry once; imported entries are found by
//! kind and key, malformed lines are ignored.
TEST(CudaAutotune, RecordAndImportChoices)
{
    std::vector<std::string> entries;
    std::vector<std::string>* const previous = ::kiln::cuda::exchangeTuningRecorder(&entries);
    ::kiln::cuda::recordTuning('c', "graph a", "3\teng3_k1=2");
    ::kiln::cuda::recordTuning('c', "graph a", "3\teng3_k1=2");
    ::kiln::cuda::recordTuning('l', "1,2,3|d0", "00ff\t64");
    EXPECT_EQ(::kiln::cuda::exchangeTuningRecorder(previous), &entries);
    ::kiln::cuda::recordTuning('c', "graph b", "1\teng1"); // no recorder: dropped
    ASSERT_EQ(entries.size(), 2U);
    EXPECT_EQ(entries[0], "c\tgraph a\t3\teng3_k1=2");
    EXPECT_EQ(entries[1], "l\t1,2,3|d0\t00ff\t64");

    ::kiln::cuda::importTuning("c\trecord test graph\t5\teng5\nnot an entry\nl\trecord test lt\tabcd\t0\nc\t\t");
    EXPECT_EQ(::kiln::cuda::importedTuning('c', "record test graph").value_or(""), "5\teng5");
    EXPECT_EQ(::kiln::cuda::importedTuning('l', "record test lt").value_or(""), "abcd\t0");
    EXPECT_FALSE(::kiln::cuda::importedTuning('l', "record test graph").has_value());
    EXPECT_FALSE(::kiln::cuda::importedTuning('c', "not an entry").has_value());
    EXPECT_FALSE(::kiln::cuda::importedTuning('c', "").has_value());
}

} // namespace
} // namespace kiln::test::cuda
