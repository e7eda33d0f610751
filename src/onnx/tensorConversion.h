// tensorConversion: ONNX TensorProto -> OnnxConstant (raw_data, typed fields, external data) and the mapping
// between ONNX element types and Kiln (nvinfer1) data types.
#pragma once

#include "core/status.h"
#include "onnx/onnxConstant.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

//! Largest constant the parser materialises (bytes after conversion); larger declared sizes are refused before
//! any allocation.
constexpr int64_t kMaxOnnxConstantBytes = int64_t{1} << 34;

//! The Kiln type an ONNX element type (TensorProto::DataType value) is imported as: DOUBLE -> kFLOAT, FLOAT16 -> kHALF,
//! BFLOAT16 -> kBF16, FLOAT -> kFLOAT, INT8/UINT8/INT32/INT64/BOOL as themselves. Other types are refused with
//! kUNSUPPORTED_STATE naming the ONNX type.
StatusOr<nvinfer1::DataType> onnxToKilnType(int32_t onnxElemType);
//! The ONNX element type that stores `type` (kFLOAT -> FLOAT, ...).
int32_t kilnToOnnxType(nvinfer1::DataType type);
//! "FLOAT", "DOUBLE", "STRING", ... (or "<n>" for values ONNX does not define).
std::string onnxTypeName(int32_t onnxElemType);

//! Convert a TensorProto. `externalData` holds the bytes of an EXTERNAL tensor (nullptr when the tensor is not
//! external or the bytes are unavailable, which is then an error). `what` names the tensor in messages
//! ("initializer 'w'", "attribute 'value' of node ...").
StatusOr<OnnxConstant> convertTensorProto(
    ::onnx::TensorProto const& tensor, std::vector<uint8_t> const* externalData, std::string const& what);

//! Same as above with the raw bytes supplied separately (IParser::loadInitializer): `data`/`size` replace the
//! tensor's stored contents and are interpreted as raw little-endian data of its element type.
StatusOr<OnnxConstant> convertTensorBytes(
    ::onnx::TensorProto const& tensor, void const* data, size_t size, std::string const& what);

} // namespace kiln
