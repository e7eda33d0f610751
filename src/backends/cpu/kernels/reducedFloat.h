// Row conversions between FP32 and the reduced float storage types (BF16, FP16) for the CPU kernels that compute in
// float (the types of isFloatStorageType, core/dataType.h): a whole row at a time, compiled per instruction set
// (simd.h), so that a BF16 row converts sixteen lanes at a time instead of one out-of-line call per element. BF16 rounds to nearest even and quiets NaN exactly like
// floatToBf16 (core/dataType.h); FP16 uses halfToFloat/floatToHalf element by element (the baseline instruction
// set has no FP16 conversion instruction).
#pragma once

#include "NvInferRuntimeBase.h"

#include <cstdint>

namespace kiln
{

//! dst[i] = element `offset + i` of `src` (of `type`, a float storage type) as float, for i in [0, n).
void loadFloatRow(void const* src, nvinfer1::DataType type, int64_t offset, int64_t n, float* dst);

//! Element `offset + i` of `dst` (of `type`, a float storage type) = src[i] rounded to nearest even, for i in [0, n).
void storeFloatRow(float const* src, nvinfer1::DataType type, int64_t offset, int64_t n, void* dst);

} // namespace kiln
