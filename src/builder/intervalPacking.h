// Interval packing for memory planning: places lifetime intervals (a first and a last step, a size) in one
// address space, each at the lowest offset where it does not meet an already placed interval whose lifetime
// overlaps its own (first fit, in the caller's order). The result is that of comparing every pair, but the
// placed intervals are indexed by a segment tree over the steps, whose nodes keep merged address ranges, so a
// deep network costs O(n log^2 n) instead of O(n^2) (a value tensor live from the first step to the last would
// otherwise meet every other tensor).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln
{

struct PackInterval
{
    int32_t first; // first step it is live (may be -1: before the first node)
    int32_t last;  // last step it is live (>= first)
    int64_t size;  // bytes (> 0)
};

//! Offsets of `intervals` placed in `order` (a permutation of their indices); `arena` gets the end of the
//! highest one (0 when there are none).
std::vector<int64_t> packFirstFit(std::vector<PackInterval> const& intervals, std::vector<size_t> const& order,
    int64_t& arena);

} // namespace kiln
