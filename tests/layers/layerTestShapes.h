// Shared helper of the layer tests: random tensor shapes (every extent drawn uniformly from [lo, hi]).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace kiln::test
{

//! A shape of `rank` extents, each uniform in [lo, hi].
inline std::vector<int64_t> randomShape(std::mt19937& rng, int32_t rank, int64_t lo = 1, int64_t hi = 4)
{
    std::vector<int64_t> shape;
    for (int32_t i = 0; i < rank; ++i)
    {
        shape.push_back(std::uniform_int_distribution<int64_t>(lo, hi)(rng));
    }
    return shape;
}

} // namespace kiln::test
