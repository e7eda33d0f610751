// Reductions over axes known only at run time (ReduceSum-13 / Reduce*-18 with a non-constant 'axes' input): the
// axes tensor becomes a shape tensor, and every shape decision is integer shape arithmetic on it.
#pragma once

#include "NvInfer.h"
#include "core/status.h"
#include "onnx/importerContext.h"

#include <onnx/onnx_pb.h>

namespace kiln::nn
{

//! Reduce `t` with `op` over the axes held by the 1-D INT64 shape tensor `axes` (static length, unique entries,
//! negative entries count from the end), keeping the reduced axes as extent 1 when `keepDims`.
StatusOr<nvinfer1::ITensor*> reduceOverRuntimeAxes(ImporterContext& ctx, ::onnx::NodeProto const& node,
    nvinfer1::ITensor* t, nvinfer1::ITensor* axes, nvinfer1::ReduceOperation op, bool keepDims);

} // namespace kiln::nn
