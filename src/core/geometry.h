// Backend-neutral helpers of the kernels' host-side geometry: products of dimension ranges, a tensor seen as
// outer x n x inner around one axis, and the comparison of an output's dims with the expected ones.
#pragma once

#include "NvInfer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

//! a * b for non-negative a and b, or -1 when the product does not fit in int64_t.
inline int64_t checkedMul(int64_t a, int64_t b)
{
    int64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? -1 : r;
}

//! Product of d.d[from..to) (1 for an empty range). Saturates at INT64_MAX: the extents of an empty tensor outside
//! the range may leave a product that no tensor in memory has.
inline int64_t dimsProduct(nvinfer1::Dims const& d, int32_t from, int32_t to)
{
    int64_t p = 1;
    for (int32_t i = from; i < to; ++i)
    {
        if (__builtin_mul_overflow(p, d.d[i], &p))
        {
            return INT64_MAX;
        }
    }
    return p;
}

//! A tensor as outer x n x inner elements around `axis` (row-major).
struct AxisSplit
{
    int32_t axis{0};
    int64_t n{0};     //!< the extent along the axis
    int64_t outer{1}; //!< product of the dims before the axis
    int64_t inner{1}; //!< product of the dims after the axis
};

//! The split of `d` around `axis` (0 <= axis < d.nbDims). An empty tensor (some extent 0) has no slices: outer = inner
//! = 0 and n keeps the axis extent (its other extents may multiply past int64, as in [2^40, 2^40, 0]).
inline AxisSplit splitAtAxis(nvinfer1::Dims const& d, int32_t axis)
{
    AxisSplit s;
    s.axis = axis;
    s.n = d.d[axis];
    bool empty = false;
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        empty = empty || d.d[i] == 0;
    }
    s.outer = empty ? 0 : dimsProduct(d, 0, axis);
    s.inner = empty ? 0 : dimsProduct(d, axis + 1, d.nbDims);
    return s;
}

//! Why `out` differs from `expected` ("output rank ..." / "output extent ... in dimension ..."); empty if it does not.
inline std::string expectedDimsMismatch(nvinfer1::Dims const& out, std::vector<int64_t> const& expected)
{
    if (out.nbDims != static_cast<int32_t>(expected.size()))
    {
        return "output rank " + std::to_string(out.nbDims) + " does not match the expected "
            + std::to_string(expected.size());
    }
    for (size_t i = 0; i < expected.size(); ++i)
    {
        if (out.d[i] != expected[i])
        {
            return "output extent " + std::to_string(out.d[i]) + " in dimension " + std::to_string(i)
                + " does not match the expected " + std::to_string(expected[i]);
        }
    }
    return {};
}

} // namespace kiln
