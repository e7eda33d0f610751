// Backend-neutral exact int64 arithmetic of the element-wise integer operations (wrapping add/sub/mul, division
// by zero gives 0, truncating and flooring division, integer power), inline for host code and, when compiled by
// nvcc, for device code too. Plain C++17.
#pragma once

#include "core/hostDevice.h"

#include <cstdint>

namespace kiln
{

KILN_HOST_DEVICE inline int64_t wrapAdd(int64_t a, int64_t b)
{
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

KILN_HOST_DEVICE inline int64_t wrapSub(int64_t a, int64_t b)
{
    return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}

KILN_HOST_DEVICE inline int64_t wrapMul(int64_t a, int64_t b)
{
    return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

//! a / b rounded toward zero; 0 when b is 0 (no INT64_MIN / -1 trap).
KILN_HOST_DEVICE inline int64_t truncDiv(int64_t a, int64_t b)
{
    if (b == 0)
    {
        return 0;
    }
    if (b == -1)
    {
        return wrapSub(0, a);
    }
    return a / b;
}

//! a / b rounded toward negative infinity; 0 when b is 0.
KILN_HOST_DEVICE inline int64_t floorDiv(int64_t a, int64_t b)
{
    if (b == 0)
    {
        return 0;
    }
    if (b == -1)
    {
        return wrapSub(0, a);
    }
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
    {
        --q;
    }
    return q;
}

//! base ** exponent, wrapping; a negative exponent gives 1 / base truncated (1, +-1 or 0).
KILN_HOST_DEVICE inline int64_t intPow(int64_t base, int64_t exponent)
{
    if (exponent < 0)
    {
        if (base == 1)
        {
            return 1;
        }
        if (base == -1)
        {
            return (exponent % 2 == 0) ? 1 : -1;
        }
        return 0;
    }
    uint64_t result = 1;
    uint64_t b = static_cast<uint64_t>(base);
    uint64_t e = static_cast<uint64_t>(exponent);
    while (e != 0)
    {
        if (e & 1U)
        {
            result *= b;
        }
        b *= b;
        e >>= 1U;
    }
    return static_cast<int64_t>(result);
}

} // namespace kiln
