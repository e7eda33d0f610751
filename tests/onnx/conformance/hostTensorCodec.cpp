// Host-side encoding of reference data into Kiln tensor bytes and decoding of outputs (FP32/FP16/BF16 with
// round-to-nearest-even, integers, bool), written independently of Kiln's own conversions.
#include "hostTensorCodec.h"

#include <cmath>
#include <cstring>

namespace kiln::conformance
{
namespace
{

using nvinfer1::DataType;

uint16_t floatToHalf(float f)
{
    uint32_t x = 0;
    std::memcpy(&x, &f, 4);
    uint32_t const sign = (x >> 16) & 0x8000U;
    uint32_t const absBits = x & 0x7FFFFFFFU;
    if (absBits >= 0x7F800000U)
    {
        return static_cast<uint16_t>(sign | (absBits > 0x7F800000U ? 0x7E00U : 0x7C00U));
    }
    if (absBits >= 0x477FF000U) // rounds to >= 65520: overflow to infinity
    {
        return static_cast<uint16_t>(sign | 0x7C00U);
    }
    if (absBits < 0x38800000U) // subnormal half (or zero)
    {
        float const a = std::fabs(f);
        float const scaled = a * 16777216.0F; // 2^24
        return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(scaled)));
    }
    uint32_t const mantissa = absBits & 0x7FFFFFU;
    uint32_t const exponent = (absBits >> 23) - 127 + 15;
    uint32_t half = (exponent << 10) | (mantissa >> 13);
    uint32_t const rest = mantissa & 0x1FFFU;
    if (rest > 0x1000U || (rest == 0x1000U && (half & 1U) != 0U))
    {
        ++half;
    }
    return static_cast<uint16_t>(sign | half);
}

uint16_t floatToBFloat16(float f)
{
    uint32_t x = 0;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7FFFFFFFU) > 0x7F800000U)
    {
        return static_cast<uint16_t>((x >> 16) | 0x40U);
    }
    uint32_t const rounding = 0x7FFFU + ((x >> 16) & 1U);
    return static_cast<uint16_t>((x + rounding) >> 16);
}

double halfBitsToDouble(uint16_t h)
{
    uint32_t const sign = (h >> 15) & 1U;
    int32_t const exponent = (h >> 10) & 0x1F;
    uint32_t const mantissa = h & 0x3FFU;
    double v = 0;
    if (exponent == 0)
    {
        v = std::ldexp(static_cast<double>(mantissa), -24);
    }
    else if (exponent == 31)
    {
        v = mantissa == 0 ? INFINITY : NAN;
    }
    else
    {
        v = std::ldexp(1.0 + static_cast<double>(mantissa) / 1024.0, exponent - 15);
    }
    return sign != 0U ? -v : v;
}

} // namespace

size_t elementSize(DataType t)
{
    switch (t)
    {
    case DataType::kINT64: return 8;
    case DataType::kFLOAT:
    case DataType::kINT32: return 4;
    case DataType::kHALF:
    case DataType::kBF16: return 2;
    case DataType::kINT8:
    case DataType::kUINT8:
    case DataType::kBOOL:
    case DataType::kFP8: return 1;
    default: return 0;
    }
}

//! Encode a reference tensor into the bytes of a Kiln tensor of type `type`; false if a value does not fit.
bool encode(RefTensor const& ref, DataType type, std::vector<uint8_t>& bytes, std::string& error)
{
    int64_t const n = ref.count();
    size_t const size = elementSize(type);
    if (size == 0)
    {
        error = "network input '" + ref.name + "' has a type the runner cannot feed";
        return false;
    }
    bytes.assign(static_cast<size_t>(n) * size + 1, 0);
    for (int64_t i = 0; i < n; ++i)
    {
        double const real = ref.isFloat ? ref.real[i] : static_cast<double>(ref.integer[i]);
        int64_t const whole = ref.isFloat ? static_cast<int64_t>(ref.real[i]) : ref.integer[i];
        uint8_t* dst = bytes.data() + i * size;
        switch (type)
        {
        case DataType::kFLOAT: { float const v = static_cast<float>(real); std::memcpy(dst, &v, 4); break; }
        case DataType::kHALF: { uint16_t const v = floatToHalf(static_cast<float>(real)); std::memcpy(dst, &v, 2); break; }
        case DataType::kBF16: { uint16_t const v = floatToBFloat16(static_cast<float>(real)); std::memcpy(dst, &v, 2); break; }
        case DataType::kINT32:
        {
            if (whole < INT32_MIN || whole > INT32_MAX)
            {
                error = "input '" + ref.name + "' holds " + std::to_string(whole) + ", which INT32 cannot hold";
                return false;
            }
            int32_t const v = static_cast<int32_t>(whole);
            std::memcpy(dst, &v, 4);
            break;
        }
        case DataType::kINT64: std::memcpy(dst, &whole, 8); break;
        case DataType::kINT8: *reinterpret_cast<int8_t*>(dst) = static_cast<int8_t>(whole); break;
        case DataType::kUINT8: *dst = static_cast<uint8_t>(whole); break;
        case DataType::kBOOL: *dst = whole != 0 ? 1 : 0; break;
        default: error = "input '" + ref.name + "': unsupported network type"; return false;
        }
    }
    return true;
}

//! Element i of a Kiln tensor as double (floating types) or int64 (others).
double realAt(uint8_t const* data, DataType type, int64_t i)
{
    switch (type)
    {
    case DataType::kFLOAT: { float v; std::memcpy(&v, data + i * 4, 4); return v; }
    case DataType::kHALF: { uint16_t v; std::memcpy(&v, data + i * 2, 2); return halfBitsToDouble(v); }
    case DataType::kBF16:
    {
        uint16_t v;
        std::memcpy(&v, data + i * 2, 2);
        uint32_t const bits = static_cast<uint32_t>(v) << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        return f;
    }
    default: return 0.0;
    }
}

int64_t integerAt(uint8_t const* data, DataType type, int64_t i)
{
    switch (type)
    {
    case DataType::kINT32: { int32_t v; std::memcpy(&v, data + i * 4, 4); return v; }
    case DataType::kINT64: { int64_t v; std::memcpy(&v, data + i * 8, 8); return v; }
    case DataType::kINT8: return static_cast<int8_t>(data[i]);
    case DataType::kUINT8:
    case DataType::kBOOL: return data[i];
    default: return 0;
    }
}

bool isFloatType(DataType t)
{
    return t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
}

} // namespace kiln::conformance
