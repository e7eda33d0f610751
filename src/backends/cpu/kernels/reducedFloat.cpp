// Row conversions between FP32 and BF16/FP16 (see reducedFloat.h).
#include "backends/cpu/kernels/reducedFloat.h"

#include "backends/cpu/kernels/simd.h"
#include "core/dataType.h"

#include <bit>
#include <cstring>

namespace kiln
{
using nvinfer1::DataType;

namespace
{

typedef uint32_t Bits16 __attribute__((vector_size(64)));
typedef uint16_t Half16 __attribute__((vector_size(32)));
constexpr int64_t kWIDTH = 16;

//! floatToBf16 of one element: round to nearest even, NaN quieted.
[[gnu::always_inline]] inline uint16_t roundToBf16(uint32_t bits)
{
    uint32_t const rounded = (bits + 0x7FFFU + ((bits >> 16) & 1U)) >> 16;
    return static_cast<uint16_t>((bits & 0x7FFFFFFFU) > 0x7F800000U ? (bits >> 16) | 0x40U : rounded);
}

KILN_CPU_CLONES void bf16RowToFloat(uint16_t const* src, int64_t n, float* dst)
{
    int64_t i = 0;
    for (; i + kWIDTH <= n; i += kWIDTH)
    {
        Half16 h;
        std::memcpy(&h, src + i, sizeof(h));
        Bits16 const b = __builtin_convertvector(h, Bits16) << 16;
        std::memcpy(dst + i, &b, sizeof(b));
    }
    for (; i < n; ++i)
    {
        dst[i] = std::bit_cast<float>(static_cast<uint32_t>(src[i]) << 16);
    }
}

//! roundToBf16 sixteen lanes at a time (explicit vectors: the auto-vectorised loop ran at half width).
KILN_CPU_CLONES void floatRowToBf16(float const* src, int64_t n, uint16_t* dst)
{
    int64_t i = 0;
    for (; i + kWIDTH <= n; i += kWIDTH)
    {
        Bits16 bits;
        std::memcpy(&bits, src + i, sizeof(bits));
        Bits16 const rounded = (bits + 0x7FFFU + ((bits >> 16) & 1U)) >> 16;
        Bits16 const quietNan = (bits >> 16) | 0x40U;
        Bits16 const isNan = (bits & 0x7FFFFFFFU) > 0x7F800000U; // all ones where NaN
        Half16 const h = __builtin_convertvector((quietNan & isNan) | (rounded & ~isNan), Half16);
        std::memcpy(dst + i, &h, sizeof(h));
    }
    for (; i < n; ++i)
    {
        dst[i] = roundToBf16(std::bit_cast<uint32_t>(src[i]));
    }
}

} // namespace

void loadFloatRow(void const* src, DataType type, int64_t offset, int64_t n, float* dst)
{
    switch (type)
    {
    case DataType::kFLOAT:
        std::memcpy(dst, static_cast<float const*>(src) + offset, static_cast<size_t>(n) * sizeof(float));
        break;
    case DataType::kBF16: bf16RowToFloat(static_cast<uint16_t const*>(src) + offset, n, dst); break;
    case DataType::kHALF:
    {
        uint16_t const* p = static_cast<uint16_t const*>(src) + offset;
        for (int64_t i = 0; i < n; ++i)
        {
            dst[i] = halfToFloat(p[i]);
        }
        break;
    }
    default: // not a float storage type (callers check isFloatStorageType)
        std::memset(dst, 0, static_cast<size_t>(n) * sizeof(float));
        break;
    }
}

void storeFloatRow(float const* src, DataType type, int64_t offset, int64_t n, void* dst)
{
    switch (type)
    {
    case DataType::kFLOAT:
        std::memcpy(static_cast<float*>(dst) + offset, src, static_cast<size_t>(n) * sizeof(float));
        break;
    case DataType::kBF16: floatRowToBf16(src, n, static_cast<uint16_t*>(dst) + offset); break;
    case DataType::kHALF:
    {
        uint16_t* p = static_cast<uint16_t*>(dst) + offset;
        for (int64_t i = 0; i < n; ++i)
        {
            p[i] = floatToHalf(src[i]);
        }
        break;
    }
    default: break; // not a float storage type (callers check isFloatStorageType)
    }
}

} // namespace kiln
