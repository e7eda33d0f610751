// DataType helpers: element sizes and names, IEEE half / bfloat16 storage types, and loading or storing
// one element of any storage type as double (what the reference kernels compute with).
#pragma once

#include "NvInferRuntimeBase.h"

#include <cstdint>
#include <cstring>
#include <string>

namespace kiln
{

//! Size in bytes of one element; 0 for sub-byte types (kINT4, kFP4), which Kiln does not store unpacked.
int64_t elementSize(nvinfer1::DataType type);
//! "FP32", "FP16", "INT8", ... as TensorRT prints them.
char const* dataTypeName(nvinfer1::DataType type);
bool isFloatType(nvinfer1::DataType type);   // kFLOAT, kHALF, kBF16, kFP8
bool isFloatStorageType(nvinfer1::DataType type); // kFLOAT, kHALF, kBF16: the float types stored unpacked
bool isIntegerType(nvinfer1::DataType type); // kINT8, kUINT8, kINT32, kINT64, kINT4
bool isValidDataType(int32_t value);
//! Bytes for `count` elements (rounds sub-byte types up).
int64_t byteSize(nvinfer1::DataType type, int64_t count);

float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);
float bf16ToFloat(uint16_t b);
uint16_t floatToBf16(float f);

//! IEEE 754 binary16 storage with float conversions.
struct Half
{
    uint16_t bits{0};
    Half() = default;
    Half(float f)
        : bits(floatToHalf(f))
    {
    }
    operator float() const { return halfToFloat(bits); }
};

//! bfloat16 storage with float conversions (round to nearest even).
struct BFloat16
{
    uint16_t bits{0};
    BFloat16() = default;
    BFloat16(float f)
        : bits(floatToBf16(f))
    {
    }
    operator float() const { return bf16ToFloat(bits); }
};

//! Read element `index` of a buffer of `type` as double. Integers and bools convert exactly (int64 up to 2^53).
double loadElement(void const* data, nvinfer1::DataType type, int64_t index);
//! Write `value` into element `index`, converting to `type` (float types round, integers truncate toward zero
//! after saturation to the type's range, bool is value != 0).
void storeElement(void* data, nvinfer1::DataType type, int64_t index, double value);
//! Exact integer read/write for integer kernels (int64 precision).
int64_t loadInt(void const* data, nvinfer1::DataType type, int64_t index);
void storeInt(void* data, nvinfer1::DataType type, int64_t index, int64_t value);

//! Call `f(T{})` with the C++ storage type of `type` (float, Half, BFloat16, int8_t, uint8_t, int32_t, int64_t,
//! bool). Returns false for types without a storage type here.
template <typename F>
bool dispatchType(nvinfer1::DataType type, F&& f)
{
    using nvinfer1::DataType;
    switch (type)
    {
    case DataType::kFLOAT: f(float{}); return true;
    case DataType::kHALF: f(Half{}); return true;
    case DataType::kBF16: f(BFloat16{}); return true;
    case DataType::kINT8: f(int8_t{}); return true;
    case DataType::kUINT8: f(uint8_t{}); return true;
    case DataType::kINT32: f(int32_t{}); return true;
    case DataType::kINT64: f(int64_t{}); return true;
    case DataType::kBOOL: f(bool{}); return true;
    case DataType::kFP8:
    case DataType::kINT4:
    case DataType::kFP4:
    case DataType::kE8M0: return false;
    }
    return false;
}

} // namespace kiln
