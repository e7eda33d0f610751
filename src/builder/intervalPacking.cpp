// Interval packing: see intervalPacking.h.
#include "builder/intervalPacking.h"

#include <algorithm>
#include <map>
#include <memory>

namespace kiln
{
namespace
{

//! Disjoint half-open address ranges; touching or overlapping ranges are merged.
class RangeSet
{
public:
    void insert(int64_t lo, int64_t hi)
    {
        auto it = mRanges.upper_bound(lo);
        if (it != mRanges.begin())
        {
            auto before = std::prev(it);
            if (before->second >= lo)
            {
                lo = before->first;
                hi = std::max(hi, before->second);
                it = mRanges.erase(before);
            }
        }
        while (it != mRanges.end() && it->first <= hi)
        {
            hi = std::max(hi, it->second);
            it = mRanges.erase(it);
        }
        mRanges.emplace_hint(it, lo, hi);
    }

    //! The end of a range that meets [offset, offset + size), or -1 when none does.
    int64_t blocking(int64_t offset, int64_t size) const
    {
        auto it = mRanges.upper_bound(offset);
        if (it != mRanges.begin())
        {
            auto before = std::prev(it);
            if (before->second > offset)
            {
                return before->second;
            }
        }
        return it != mRanges.end() && it->first < offset + size ? it->second : -1;
    }

private:
    std::map<int64_t, int64_t> mRanges; // lo -> hi
};

//! Segment tree over the steps. An interval's canonical nodes (the O(log n) nodes whose spans tile it) keep its
//! range in `cover`; each of them and their ancestors keep it in `below` (everything placed in their subtree).
//! Two intervals overlap exactly when a canonical node of one is an ancestor of, or equal to, a canonical node of
//! the other, so the ranges an interval must avoid are `below` of its canonical nodes and `cover` of their
//! strict ancestors.
class StepTree
{
public:
    explicit StepTree(int32_t steps)
    {
        while (mLeaves < steps)
        {
            mLeaves *= 2;
        }
        mCover.resize(2 * static_cast<size_t>(mLeaves));
        mBelow.resize(2 * static_cast<size_t>(mLeaves));
    }

    void place(int32_t first, int32_t last, int64_t lo, int64_t hi)
    {
        for (int32_t node : canonical(first, last))
        {
            at(mCover, node).insert(lo, hi);
            for (int32_t x = node; x >= 1; x /= 2)
            {
                at(mBelow, x).insert(lo, hi);
            }
        }
    }

    //! The lowest offset where [offset, offset + size) meets no placed interval overlapping [first, last].
    int64_t lowestFit(int32_t first, int32_t last, int64_t size)
    {
        std::vector<RangeSet const*> sets;
        std::vector<int32_t> ancestors;
        for (int32_t node : canonical(first, last))
        {
            if (mBelow[static_cast<size_t>(node)] != nullptr)
            {
                sets.push_back(mBelow[static_cast<size_t>(node)].get());
            }
            for (int32_t x = node / 2; x >= 1; x /= 2)
            {
                ancestors.push_back(x);
            }
        }
        std::sort(ancestors.begin(), ancestors.end());
        ancestors.erase(std::unique(ancestors.begin(), ancestors.end()), ancestors.end());
        for (int32_t x : ancestors)
        {
            if (mCover[static_cast<size_t>(x)] != nullptr)
            {
                sets.push_back(mCover[static_cast<size_t>(x)].get());
            }
        }
        // Each blocking range pushes the offset past its end; no feasible offset lies below that end.
        int64_t offset = 0;
        bool moved = true;
        while (moved)
        {
            moved = false;
            for (RangeSet const* s : sets)
            {
                for (int64_t end = s->blocking(offset, size); end >= 0; end = s->blocking(offset, size))
                {
                    offset = end;
                    moved = true;
                }
            }
        }
        return offset;
    }

private:
    //! Canonical nodes of the leaves first..last (inclusive).
    std::vector<int32_t> canonical(int32_t first, int32_t last) const
    {
        std::vector<int32_t> nodes;
        for (int32_t l = first + mLeaves, r = last + mLeaves + 1; l < r; l /= 2, r /= 2)
        {
            if ((l & 1) != 0)
            {
                nodes.push_back(l++);
            }
            if ((r & 1) != 0)
            {
                nodes.push_back(--r);
            }
        }
        return nodes;
    }

    static RangeSet& at(std::vector<std::unique_ptr<RangeSet>>& sets, int32_t node)
    {
        auto& slot = sets[static_cast<size_t>(node)];
        if (slot == nullptr)
        {
            slot = std::make_unique<RangeSet>();
        }
        return *slot;
    }

    int32_t mLeaves{1};
    std::vector<std::unique_ptr<RangeSet>> mCover;
    std::vector<std::unique_ptr<RangeSet>> mBelow;
};

} // namespace

std::vector<int64_t> packFirstFit(std::vector<PackInterval> const& intervals, std::vector<size_t> const& order,
    int64_t& arena)
{
    std::vector<int64_t> offsets(intervals.size(), -1);
    arena = 0;
    if (intervals.empty())
    {
        return offsets;
    }
    int32_t lowest = intervals[0].first;
    int32_t highest = intervals[0].last;
    for (PackInterval const& iv : intervals)
    {
        lowest = std::min(lowest, iv.first);
        highest = std::max(highest, iv.last);
    }
    StepTree tree(highest - lowest + 1);
    for (size_t index : order)
    {
        PackInterval const& iv = intervals[index];
        int32_t const first = iv.first - lowest;
        int32_t const last = std::max(iv.last, iv.first) - lowest;
        int64_t const offset = tree.lowestFit(first, last, iv.size);
        tree.place(first, last, offset, offset + iv.size);
        offsets[index] = offset;
        arena = std::max(arena, offset + iv.size);
    }
    return offsets;
}

} // namespace kiln
