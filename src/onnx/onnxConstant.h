// OnnxConstant and OnnxValue: the values that flow between ONNX nodes while the parser imports a graph. A value is a
// network tensor, a host constant known at parse time (initializer, Constant node, folded result), or both.
#pragma once

#include "NvInfer.h"
#include "core/status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln
{

//! A constant tensor held on the host in a Kiln data type. The parser converts ONNX element types on load:
//! DOUBLE becomes kFLOAT (as TensorRT's parser does), FLOAT16 kHALF, BFLOAT16 kBF16, INT8 kINT8, UINT8 kUINT8,
//! INT32 kINT32, INT64 kINT64, BOOL kBOOL. Other element types (strings, INT16, UINT16/32/64, ...) are refused with
//! kUNSUPPORTED_NODE_DATATYPE. Bytes are densely packed, little-endian, row-major; kBOOL is one byte per element.
struct OnnxConstant
{
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    std::vector<int64_t> shape; //!< empty for a scalar
    std::vector<uint8_t> bytes;

    //! Number of elements (1 for a scalar); -1 when a dimension is negative or the product overflows int64.
    int64_t count() const;
    //! shape as nvinfer1::Dims (rank 0 for a scalar); an error if the rank exceeds Dims::MAX_DIMS.
    StatusOr<nvinfer1::Dims> dims() const;
    //! The elements of an integer or kBOOL constant, widened to int64.
    StatusOr<std::vector<int64_t>> toInt64() const;
    //! The elements of any numeric constant, converted to double.
    StatusOr<std::vector<double>> toDouble() const;
    //! A Weights view of bytes (valid while this object lives and is not modified).
    nvinfer1::Weights weights() const;

    //! Factories for importers that need small constants.
    static OnnxConstant fromInt64(std::vector<int64_t> const& values, std::vector<int64_t> shape);
    static OnnxConstant fromInt32(std::vector<int32_t> const& values, std::vector<int64_t> shape);
    static OnnxConstant fromFloat(std::vector<float> const& values, std::vector<int64_t> shape);
    //! A constant of `type` (any numeric type or kBOOL) holding `values` converted from double.
    static StatusOr<OnnxConstant> fromDouble(
        nvinfer1::DataType type, std::vector<double> const& values, std::vector<int64_t> shape);
};

//! What one ONNX value name stands for. At least one of tensor / constant is set for a defined value; both may be
//! set once a constant has been materialised as an IConstantLayer. An optional node input or output that the model
//! leaves empty ("") is an OnnxValue with neither.
struct OnnxValue
{
    OnnxValue() = default;
    OnnxValue(nvinfer1::ITensor* t)
        : tensor(t)
    {
    }
    OnnxValue(OnnxConstant c)
        : constant(std::make_shared<OnnxConstant const>(std::move(c)))
    {
    }

    bool defined() const { return tensor != nullptr || constant != nullptr; }

    nvinfer1::ITensor* tensor{nullptr};
    std::shared_ptr<OnnxConstant const> constant;
};

} // namespace kiln
