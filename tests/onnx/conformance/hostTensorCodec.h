// Conversions between the runner's decoded reference tensors (RefTensor) and the bytes of Kiln tensors: encoding
// inputs into a network input's type, and reading outputs back as double or int64 for comparison.
#pragma once

#include "tensorFile.h"

#include "NvInferRuntimeBase.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::conformance
{

//! Bytes per element of a Kiln type the runner can feed (0 for the others).
size_t elementSize(nvinfer1::DataType t);

//! Encode a reference tensor into the bytes of a Kiln tensor of type `type`; false (with `error`) if it cannot.
bool encode(RefTensor const& ref, nvinfer1::DataType type, std::vector<uint8_t>& bytes, std::string& error);

//! Element i of a floating-point Kiln tensor as double.
double realAt(uint8_t const* data, nvinfer1::DataType type, int64_t i);

//! Element i of an integer or bool Kiln tensor as int64.
int64_t integerAt(uint8_t const* data, nvinfer1::DataType type, int64_t i);

bool isFloatType(nvinfer1::DataType t);

} // namespace kiln::conformance
