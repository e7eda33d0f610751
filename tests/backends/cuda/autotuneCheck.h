// Test helper for the CUDA kernels' autotuning (backends/cuda/kernels/autotune.h): runs a parity check once per
// candidate, forcing the candidates one by one, and checks that the forced one was kept.
#pragma once

#include "backends/cuda/kernels/autotune.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>

namespace kiln::test::cuda
{

//! Runs `check(force)` with the settings forcing candidate 0, 1, ... of the problem it builds (cuDNN graphs with
//! `cudnn`, else cuBLASLt algorithms) until a run times no more candidates; returns how many were forced and kept.
inline int64_t checkEveryCandidate(bool cudnn, std::function<void(int32_t)> const& check)
{
    int64_t forced = 0;
    for (int32_t force = 0; force < 8; ++force)
    {
        ::kiln::cuda::AutotuneSettings settings;
        settings.force = force;
        ::kiln::cuda::setAutotuneOverride(settings);
        ::kiln::cuda::AutotuneCounters const before = ::kiln::cuda::autotuneCounters();
        check(force);
        ::kiln::cuda::AutotuneCounters const after = ::kiln::cuda::autotuneCounters();
        int64_t const problems = cudnn ? after.cudnnProblems - before.cudnnProblems : after.ltProblems - before.ltProblems;
        int64_t const timed = cudnn ? after.lastCudnnTimed : after.lastLtTimed;
        if (problems == 0 || force >= timed)
        {
            break; // no more candidates
        }
        EXPECT_EQ(cudnn ? after.lastCudnnChoice : after.lastLtChoice, force);
        ++forced;
    }
    ::kiln::cuda::setAutotuneOverride(std::nullopt);
    return forced;
}

} // namespace kiln::test::cuda
