// Small reference helpers for the shape/layout/indexing importer tests: row-major index walks and INT64 vectors.
#pragma once

#include "common/networkRunner.h"

#include <cstdint>
#include <vector>

namespace kiln::test
{

//! Row-major strides of `dims`.
inline std::vector<int64_t> stridesOf(std::vector<int64_t> const& dims)
{
    std::vector<int64_t> s(dims.size(), 1);
    for (size_t i = dims.size(); i-- > 1;)
    {
        s[i - 1] = s[i] * dims[i];
    }
    return s;
}

//! Calls fn(outIndex, coordinate) for every coordinate of `dims` in row-major order.
template <typename Fn>
void forEachIndex(std::vector<int64_t> const& dims, Fn fn)
{
    int64_t total = 1;
    for (int64_t d : dims)
    {
        total *= d;
    }
    std::vector<int64_t> c(dims.size(), 0);
    for (int64_t n = 0; n < total; ++n)
    {
        fn(n, c);
        for (size_t i = dims.size(); i-- > 0;)
        {
            if (++c[i] < dims[i])
            {
                break;
            }
            c[i] = 0;
        }
    }
}

inline int64_t offsetOf(std::vector<int64_t> const& dims, std::vector<int64_t> const& c)
{
    std::vector<int64_t> const s = stridesOf(dims);
    int64_t o = 0;
    for (size_t i = 0; i < c.size(); ++i)
    {
        o += c[i] * s[i];
    }
    return o;
}

inline HostTensor int64Tensor(std::vector<int64_t> const& values)
{
    HostTensor t(nvinfer1::DataType::kINT64, makeDims({static_cast<int64_t>(values.size())}));
    for (size_t i = 0; i < values.size(); ++i)
    {
        t.set(static_cast<int64_t>(i), static_cast<double>(values[i]));
    }
    return t;
}

} // namespace kiln::test
