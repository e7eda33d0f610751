// Quantization building blocks for the quantization importers: quantize/dequantize in float with per-tensor or
// per-axis parameters, saturation to INT8/UINT8, and a float convolution with a tensor kernel for the integer
// convolution ops (ConvInteger, QLinearConv).
#pragma once

#include "NvInfer.h"
#include "core/status.h"
#include "onnx/importerContext.h"

#include <onnx/onnx_pb.h>

#include <string>

namespace kiln::quant
{

//! An error unless `type` is kINT8 or kUINT8 (`what` names the input that sets it).
Status checkQuantizedType(::onnx::NodeProto const& node, nvinfer1::DataType type, std::string const& what);

//! round(t) half to even, clamped to the range of `type` (still in float).
StatusOr<nvinfer1::ITensor*> saturateRound(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t,
    nvinfer1::DataType type, std::string const& suffix);

//! saturate(round(x / scale) + zeroPoint) as `outType`; scale and zero point are scalars or 1-D along `axis`.
StatusOr<nvinfer1::ITensor*> quantize(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* x,
    nvinfer1::ITensor* scale, nvinfer1::ITensor* zeroPoint, int32_t axis, nvinfer1::DataType outType,
    std::string const& suffix);

//! (x - zeroPoint) * scale in float.
StatusOr<nvinfer1::ITensor*> dequantize(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* x,
    nvinfer1::ITensor* scale, nvinfer1::ITensor* zeroPoint, int32_t axis, std::string const& suffix);

//! ONNX Conv of float x with the float kernel tensor w (whose static dims are `wDims`), reading the node's
//! auto_pad, dilations, group, kernel_shape, pads and strides attributes.
StatusOr<nvinfer1::ITensor*> convolution(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* x,
    nvinfer1::ITensor* w, nvinfer1::Dims const& wDims, std::string const& suffix);

} // namespace kiln::quant
