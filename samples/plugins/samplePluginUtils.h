// samplePluginUtils.h — small helpers shared by the sample plugins and programs: (de)serialization of plain values,
// element sizes, rank-2 Dims, FP16 <-> FP32 conversion, INT8 (de)quantization and plugin-field lookup. Only the
// TensorRT API is used, so the samples compile against NVIDIA's headers as well as Kiln's.
#pragma once

#include "NvInferRuntime.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

namespace samples
{

//! A rank-2 Dims {a, b}.
inline nvinfer1::Dims dims2(int64_t a, int64_t b)
{
    nvinfer1::Dims d{};
    d.nbDims = 2;
    d.d[0] = a;
    d.d[1] = b;
    return d;
}

//! The namespace every sample creator is registered under (registerSamplePlugins()).
constexpr char const* kSAMPLE_NAMESPACE = "kilnSamples";

//! Appends the bytes of `value` at `cursor` and advances it.
template <typename T>
void writeValue(char*& cursor, T const& value)
{
    std::memcpy(cursor, &value, sizeof(T));
    cursor += sizeof(T);
}

//! Reads a T at `cursor` if `end - cursor` allows it; false (value untouched) otherwise.
template <typename T>
bool readValue(char const*& cursor, char const* end, T& value)
{
    if (end - cursor < static_cast<std::ptrdiff_t>(sizeof(T)))
    {
        return false;
    }
    std::memcpy(&value, cursor, sizeof(T));
    cursor += sizeof(T);
    return true;
}

//! Bytes per element of the types the samples use (0 for others).
inline size_t elementSize(nvinfer1::DataType type)
{
    switch (type)
    {
    case nvinfer1::DataType::kFLOAT:
    case nvinfer1::DataType::kINT32: return 4;
    case nvinfer1::DataType::kHALF: return 2;
    case nvinfer1::DataType::kINT8: return 1;
    case nvinfer1::DataType::kINT64: return 8;
    default: return 0;
    }
}

inline int64_t volume(nvinfer1::Dims const& dims)
{
    int64_t v = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        v *= dims.d[i];
    }
    return v;
}

//! IEEE binary16 bits -> float.
inline float halfToFloat(uint16_t h)
{
    uint32_t const sign = static_cast<uint32_t>(h & 0x8000U) << 16;
    uint32_t exponent = (h >> 10) & 0x1FU;
    uint32_t mantissa = h & 0x3FFU;
    uint32_t bits = 0;
    if (exponent == 0x1FU)
    {
        bits = sign | 0x7F800000U | (mantissa << 13);
    }
    else if (exponent == 0)
    {
        if (mantissa == 0)
        {
            bits = sign;
        }
        else
        {
            // Subnormal: normalise.
            exponent = 127 - 15 + 1;
            while ((mantissa & 0x400U) == 0)
            {
                mantissa <<= 1;
                --exponent;
            }
            bits = sign | (exponent << 23) | ((mantissa & 0x3FFU) << 13);
        }
    }
    else
    {
        bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
    }
    float f = 0.0F;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
}

//! float -> IEEE binary16 bits, round to nearest even.
inline uint16_t floatToHalf(float f)
{
    uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof(bits));
    uint16_t const sign = static_cast<uint16_t>((bits >> 16) & 0x8000U);
    uint32_t const absBits = bits & 0x7FFFFFFFU;
    if (absBits >= 0x7F800000U)
    {
        return static_cast<uint16_t>(sign | 0x7C00U | (absBits > 0x7F800000U ? 0x200U : 0U));
    }
    if (absBits >= 0x477FF000U) // rounds to >= 65520: overflow to infinity
    {
        return static_cast<uint16_t>(sign | 0x7C00U);
    }
    if (absBits < 0x38800000U) // below the smallest normal half: subnormal or zero
    {
        float const scaled = std::fabs(f) * 16777216.0F; // 2^24: units of the smallest subnormal
        return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(scaled)));
    }
    uint32_t const rounded = absBits + 0xFFFU + ((absBits >> 13) & 1U);
    return static_cast<uint16_t>(sign | ((rounded - 0x38000000U) >> 13));
}

//! INT8 quantization as TensorRT defines it: round(x / scale) to nearest even, clamped to [-128, 127].
inline int8_t quantize(float x, float scale)
{
    float const q = std::nearbyint(x / scale);
    return static_cast<int8_t>(std::clamp(q, -128.0F, 127.0F));
}

//! Element i of a FP32/FP16/INT8/INT32 buffer as float (INT8 dequantized with `scale`).
inline float loadAsFloat(void const* data, nvinfer1::DataType type, int64_t i, float scale)
{
    switch (type)
    {
    case nvinfer1::DataType::kFLOAT: return static_cast<float const*>(data)[i];
    case nvinfer1::DataType::kHALF: return halfToFloat(static_cast<uint16_t const*>(data)[i]);
    case nvinfer1::DataType::kINT8: return static_cast<float>(static_cast<int8_t const*>(data)[i]) * scale;
    case nvinfer1::DataType::kINT32: return static_cast<float>(static_cast<int32_t const*>(data)[i]);
    default: return 0.0F;
    }
}

//! Stores `value` as element i of a FP32/FP16/INT8/INT32 buffer (INT8 quantized with `scale`).
inline void storeFromFloat(void* data, nvinfer1::DataType type, int64_t i, float value, float scale)
{
    switch (type)
    {
    case nvinfer1::DataType::kFLOAT: static_cast<float*>(data)[i] = value; break;
    case nvinfer1::DataType::kHALF: static_cast<uint16_t*>(data)[i] = floatToHalf(value); break;
    case nvinfer1::DataType::kINT8: static_cast<int8_t*>(data)[i] = quantize(value, scale); break;
    case nvinfer1::DataType::kINT32: static_cast<int32_t*>(data)[i] = static_cast<int32_t>(value); break;
    default: break;
    }
}

//! The first scalar of field `field` as T (FP32 and INT32 fields are converted); false if the field has no data.
template <typename T>
bool fieldScalar(nvinfer1::PluginField const& field, T& value)
{
    if (field.data == nullptr || field.length < 1)
    {
        return false;
    }
    switch (field.type)
    {
    case nvinfer1::PluginFieldType::kFLOAT32: value = static_cast<T>(*static_cast<float const*>(field.data)); return true;
    case nvinfer1::PluginFieldType::kFLOAT64: value = static_cast<T>(*static_cast<double const*>(field.data)); return true;
    case nvinfer1::PluginFieldType::kINT32: value = static_cast<T>(*static_cast<int32_t const*>(field.data)); return true;
    case nvinfer1::PluginFieldType::kINT64: value = static_cast<T>(*static_cast<int64_t const*>(field.data)); return true;
    default: return false;
    }
}

} // namespace samples
