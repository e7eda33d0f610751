// DataType helpers: sizes, names, half/bfloat16 conversion and generic element access.
#include "core/dataType.h"

#include <cmath>
#include <limits>

namespace kiln
{
using nvinfer1::DataType;

int64_t elementSize(DataType type)
{
    switch (type)
    {
    case DataType::kFLOAT: return 4;
    case DataType::kHALF: return 2;
    case DataType::kINT8: return 1;
    case DataType::kINT32: return 4;
    case DataType::kBOOL: return 1;
    case DataType::kUINT8: return 1;
    case DataType::kFP8: return 1;
    case DataType::kBF16: return 2;
    case DataType::kINT64: return 8;
    case DataType::kE8M0: return 1;
    case DataType::kINT4:
    case DataType::kFP4: return 0;
    }
    return 0;
}

int64_t byteSize(DataType type, int64_t count)
{
    if (type == DataType::kINT4 || type == DataType::kFP4)
    {
        return (count + 1) / 2;
    }
    return elementSize(type) * count;
}

char const* dataTypeName(DataType type)
{
    switch (type)
    {
    case DataType::kFLOAT: return "FP32";
    case DataType::kHALF: return "FP16";
    case DataType::kINT8: return "INT8";
    case DataType::kINT32: return "INT32";
    case DataType::kBOOL: return "BOOL";
    case DataType::kUINT8: return "UINT8";
    case DataType::kFP8: return "FP8";
    case DataType::kBF16: return "BF16";
    case DataType::kINT64: return "INT64";
    case DataType::kINT4: return "INT4";
    case DataType::kFP4: return "FP4";
    case DataType::kE8M0: return "E8M0";
    }
    return "UNKNOWN";
}

bool isValidDataType(int32_t value)
{
    return value >= 0 && value <= static_cast<int32_t>(DataType::kE8M0);
}

bool isFloatType(DataType type)
{
    return type == DataType::kFLOAT || type == DataType::kHALF || type == DataType::kBF16 || type == DataType::kFP8;
}

bool isFloatStorageType(DataType type)
{
    return type == DataType::kFLOAT || type == DataType::kHALF || type == DataType::kBF16;
}

bool isIntegerType(DataType type)
{
    return type == DataType::kINT8 || type == DataType::kUINT8 || type == DataType::kINT32
        || type == DataType::kINT64 || type == DataType::kINT4;
}

float halfToFloat(uint16_t h)
{
    uint32_t const sign = static_cast<uint32_t>(h & 0x8000U) << 16;
    uint32_t exponent = (h >> 10) & 0x1FU;
    uint32_t mantissa = h & 0x3FFU;
    uint32_t bits = 0;
    if (exponent == 0)
    {
        if (mantissa == 0)
        {
            bits = sign;
        }
        else
        {
            // Subnormal half: normalise into a float.
            int32_t e = -1;
            do
            {
                ++e;
                mantissa <<= 1;
            } while ((mantissa & 0x400U) == 0);
            bits = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mantissa & 0x3FFU) << 13);
        }
    }
    else if (exponent == 0x1F)
    {
        bits = sign | 0x7F800000U | (mantissa << 13);
    }
    else
    {
        bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
    }
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
}

uint16_t floatToHalf(float f)
{
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    uint16_t const sign = static_cast<uint16_t>((bits >> 16) & 0x8000U);
    uint32_t const absBits = bits & 0x7FFFFFFFU;
    if (absBits >= 0x7F800000U)
    {
        // Inf or NaN (keep NaN quiet).
        return static_cast<uint16_t>(sign | 0x7C00U | (absBits > 0x7F800000U ? 0x200U : 0U));
    }
    if (absBits >= 0x477FF000U)
    {
        return static_cast<uint16_t>(sign | 0x7C00U); // overflow to infinity
    }
    if (absBits < 0x38800000U)
    {
        // Result is subnormal or zero: shift the mantissa with round-to-nearest-even.
        if (absBits < 0x33000000U)
        {
            return sign;
        }
        uint32_t const exponent = absBits >> 23;
        uint32_t const mantissa = (absBits & 0x7FFFFFU) | 0x800000U;
        uint32_t const shift = 126 - exponent; // 14..24 for the relevant range
        uint32_t value = mantissa >> shift;
        uint32_t const rest = mantissa & ((1U << shift) - 1U);
        uint32_t const halfway = 1U << (shift - 1);
        if (rest > halfway || (rest == halfway && (value & 1U)))
        {
            ++value;
        }
        return static_cast<uint16_t>(sign | value);
    }
    uint32_t value = ((absBits >> 13) - ((127 - 15) << 10)) & 0xFFFFU;
    uint32_t const rest = absBits & 0x1FFFU;
    if (rest > 0x1000U || (rest == 0x1000U && (value & 1U)))
    {
        ++value;
    }
    return static_cast<uint16_t>(sign | value);
}

float bf16ToFloat(uint16_t b)
{
    uint32_t const bits = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
}

uint16_t floatToBf16(float f)
{
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    if ((bits & 0x7FFFFFFFU) > 0x7F800000U)
    {
        return static_cast<uint16_t>((bits >> 16) | 0x40U); // quiet NaN
    }
    uint32_t const roundingBias = 0x7FFFU + ((bits >> 16) & 1U);
    return static_cast<uint16_t>((bits + roundingBias) >> 16);
}

namespace
{
template <typename T>
T saturate(double value)
{
    if (std::isnan(value))
    {
        return T(0);
    }
    double const lo = static_cast<double>(std::numeric_limits<T>::lowest());
    double const hi = static_cast<double>(std::numeric_limits<T>::max());
    if (value <= lo)
    {
        return std::numeric_limits<T>::lowest();
    }
    if (value >= hi)
    {
        return std::numeric_limits<T>::max();
    }
    return static_cast<T>(value);
}
} // namespace

double loadElement(void const* data, DataType type, int64_t index)
{
    switch (type)
    {
    case DataType::kFLOAT: return static_cast<float const*>(data)[index];
    case DataType::kHALF: return halfToFloat(static_cast<uint16_t const*>(data)[index]);
    case DataType::kBF16: return bf16ToFloat(static_cast<uint16_t const*>(data)[index]);
    case DataType::kINT8: return static_cast<int8_t const*>(data)[index];
    case DataType::kUINT8: return static_cast<uint8_t const*>(data)[index];
    case DataType::kINT32: return static_cast<int32_t const*>(data)[index];
    case DataType::kINT64: return static_cast<double>(static_cast<int64_t const*>(data)[index]);
    case DataType::kBOOL: return static_cast<uint8_t const*>(data)[index] != 0 ? 1.0 : 0.0;
    default: return std::numeric_limits<double>::quiet_NaN();
    }
}

void storeElement(void* data, DataType type, int64_t index, double value)
{
    switch (type)
    {
    case DataType::kFLOAT: static_cast<float*>(data)[index] = static_cast<float>(value); break;
    case DataType::kHALF: static_cast<uint16_t*>(data)[index] = floatToHalf(static_cast<float>(value)); break;
    case DataType::kBF16: static_cast<uint16_t*>(data)[index] = floatToBf16(static_cast<float>(value)); break;
    case DataType::kINT8: static_cast<int8_t*>(data)[index] = saturate<int8_t>(value); break;
    case DataType::kUINT8: static_cast<uint8_t*>(data)[index] = saturate<uint8_t>(value); break;
    case DataType::kINT32: static_cast<int32_t*>(data)[index] = saturate<int32_t>(value); break;
    case DataType::kINT64: static_cast<int64_t*>(data)[index] = saturate<int64_t>(value); break;
    case DataType::kBOOL: static_cast<uint8_t*>(data)[index] = value != 0.0 ? 1 : 0; break;
    default: break;
    }
}

int64_t loadInt(void const* data, DataType type, int64_t index)
{
    switch (type)
    {
    case DataType::kINT8: return static_cast<int8_t const*>(data)[index];
    case DataType::kUINT8: return static_cast<uint8_t const*>(data)[index];
    case DataType::kINT32: return static_cast<int32_t const*>(data)[index];
    case DataType::kINT64: return static_cast<int64_t const*>(data)[index];
    case DataType::kBOOL: return static_cast<uint8_t const*>(data)[index] != 0 ? 1 : 0;
    default: return static_cast<int64_t>(loadElement(data, type, index));
    }
}

void storeInt(void* data, DataType type, int64_t index, int64_t value)
{
    switch (type)
    {
    case DataType::kINT8: static_cast<int8_t*>(data)[index] = static_cast<int8_t>(value); break;
    case DataType::kUINT8: static_cast<uint8_t*>(data)[index] = static_cast<uint8_t>(value); break;
    case DataType::kINT32: static_cast<int32_t*>(data)[index] = static_cast<int32_t>(value); break;
    case DataType::kINT64: static_cast<int64_t*>(data)[index] = value; break;
    case DataType::kBOOL: static_cast<uint8_t*>(data)[index] = value != 0 ? 1 : 0; break;
    default: storeElement(data, type, index, static_cast<double>(value)); break;
    }
}

} // namespace kiln
