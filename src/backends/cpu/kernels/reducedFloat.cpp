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

KILN_CPU_CLONES void bf16RowToFloat(uint16_t const* src, int64_t n, float* dst)
{
    for (int64_t i = 0; i < n; ++i)
    {
        dst[i] = std::bit_cast<float>(static_cast<uint32_t>(src[i]) << 16);
    }
}

//! floatToBf16 on every element, written without branches so that it vectorises.
KILN_CPU_CLONES void floatRowToBf16(float const* src, int64_t n, uint16_t* dst)
{
    for (int64_t i = 0; i < n; ++i)
    {
        uint32_t const bits = std::bit_cast<uint32_t>(src[i]);
        uint32_t const rounded = (bits + 0x7FFFU + ((bits >> 16) & 1U)) >> 16;
        uint32_t const quietNan = (bits >> 16) | 0x40U;
        dst[i] = static_cast<uint16_t>((bits & 0x7FFFFFFFU) > 0x7F800000U ? quietNan : rounded);
    }
}

} // namespace

bool isFloatStorage(DataType type)
{
    return type == DataType::kFLOAT || type == DataType::kHALF || type == DataType::kBF16;
}

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
    default: // not a float storage type (callers check isFloatStorage)
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
    default: break; // not a float storage type (callers check isFloatStorage)
    }
}

} // namespace kiln
