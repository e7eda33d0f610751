// packFirstFit against the pairwise first-fit it replaces (every placed interval compared with the new one),
// on random lifetimes and sizes: short and long lifetimes, lifetimes starting before the first step, ties.
#include "builder/intervalPacking.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <utility>

namespace kiln
{
namespace
{

std::vector<int64_t> pairwiseFirstFit(std::vector<PackInterval> const& iv, std::vector<size_t> const& order, int64_t& arena)
{
    std::vector<int64_t> offsets(iv.size(), -1);
    std::vector<size_t> placed;
    arena = 0;
    for (size_t i : order)
    {
        std::vector<std::pair<int64_t, int64_t>> busy;
        for (size_t p : placed)
        {
            if (iv[p].first <= iv[i].last && iv[i].first <= iv[p].last)
            {
                busy.emplace_back(offsets[p], offsets[p] + iv[p].size);
            }
        }
        std::sort(busy.begin(), busy.end());
        int64_t offset = 0;
        for (auto const& [lo, hi] : busy)
        {
            if (offset + iv[i].size <= lo)
            {
                break;
            }
            offset = std::max(offset, hi);
        }
        offsets[i] = offset;
        arena = std::max(arena, offset + iv[i].size);
        placed.push_back(i);
    }
    return offsets;
}

TEST(IntervalPackingTest, MatchesPairwiseFirstFitOnRandomLifetimes)
{
    std::mt19937 rng(77);
    for (int trial = 0; trial < 300; ++trial)
    {
        int32_t const steps = std::uniform_int_distribution<int32_t>(1, 200)(rng);
        size_t const count = std::uniform_int_distribution<size_t>(1, 300)(rng);
        std::vector<PackInterval> iv;
        for (size_t k = 0; k < count; ++k)
        {
            int32_t const first = std::uniform_int_distribution<int32_t>(-1, steps - 1)(rng);
            int32_t const kind = std::uniform_int_distribution<int32_t>(0, 9)(rng);
            // Mostly short lifetimes, some to the end (value tensors), some of one step (workspaces).
            int32_t const span = kind == 0 ? steps : (kind == 1 ? 0 : std::uniform_int_distribution<int32_t>(0, 6)(rng));
            int32_t const last = std::min(steps - 1, first + span);
            int64_t const size = 256 * std::uniform_int_distribution<int64_t>(1, kind < 3 ? 2 : 64)(rng);
            iv.push_back(PackInterval{first, std::max(first, last), size});
        }
        std::vector<size_t> order(iv.size());
        std::iota(order.begin(), order.end(), size_t{0});
        if (trial % 2 == 0)
        {
            std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return iv[a].size > iv[b].size; });
        }
        else
        {
            std::shuffle(order.begin(), order.end(), rng);
        }
        int64_t arenaFast = -1;
        int64_t arenaRef = -1;
        std::vector<int64_t> const fast = packFirstFit(iv, order, arenaFast);
        std::vector<int64_t> const ref = pairwiseFirstFit(iv, order, arenaRef);
        ASSERT_EQ(fast, ref) << "trial " << trial;
        ASSERT_EQ(arenaFast, arenaRef) << "trial " << trial;
    }
}

TEST(IntervalPackingTest, OverlappingLifetimesNeverShareAddresses)
{
    std::mt19937 rng(5);
    std::vector<PackInterval> iv;
    for (int k = 0; k < 2000; ++k)
    {
        int32_t const first = std::uniform_int_distribution<int32_t>(-1, 999)(rng);
        int32_t const last = k % 50 == 0 ? 999 : std::min(999, first + std::uniform_int_distribution<int32_t>(0, 4)(rng));
        iv.push_back(PackInterval{first, std::max(first, last), 256 * std::uniform_int_distribution<int64_t>(1, 16)(rng)});
    }
    std::vector<size_t> order(iv.size());
    std::iota(order.begin(), order.end(), size_t{0});
    int64_t arena = 0;
    std::vector<int64_t> const offsets = packFirstFit(iv, order, arena);
    int64_t peak = 0;
    for (int32_t step = -1; step < 1000; ++step)
    {
        int64_t live = 0;
        for (size_t i = 0; i < iv.size(); ++i)
        {
            live += iv[i].first <= step && step <= iv[i].last ? iv[i].size : 0;
        }
        peak = std::max(peak, live);
    }
    EXPECT_GE(arena, peak);
    for (size_t i = 0; i < iv.size(); ++i)
    {
        EXPECT_GE(offsets[i], 0);
        EXPECT_LE(offsets[i] + iv[i].size, arena);
        for (size_t j = i + 1; j < iv.size(); ++j)
        {
            bool const together = iv[i].first <= iv[j].last && iv[j].first <= iv[i].last;
            bool const shared = offsets[i] < offsets[j] + iv[j].size && offsets[j] < offsets[i] + iv[i].size;
            ASSERT_FALSE(together && shared) << "intervals " << i << " and " << j;
        }
    }
    int64_t emptyArena = -1;
    EXPECT_TRUE(packFirstFit({}, {}, emptyArena).empty());
    EXPECT_EQ(emptyArena, 0);
}

} // namespace
} // namespace kiln
