// Small building blocks shared by the neural-network importer families (convolution, pooling, normalization,
// matrix, reduction, softmax, resize): constant integer inputs, axis masks, reductions, and the 1-D → 2-D
// spatial lift that lets 1-D convolutions and poolings run on the 2-D layers.
#pragma once

#include "NvInfer.h"
#include "core/status.h"
#include "onnx/importerContext.h"
#include "onnx/importerHelpers.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::nn
{

//! Input `index` as parse-time integers; an error naming `what` when it is not a constant.
StatusOr<std::vector<int64_t>> constantInts(
    ImporterContext& ctx, ::onnx::NodeProto const& node, int32_t index, char const* what);
//! Input `index` as parse-time doubles; an error naming `what` when it is not a constant.
StatusOr<std::vector<double>> constantDoubles(
    ImporterContext& ctx, ::onnx::NodeProto const& node, int32_t index, char const* what);

//! A Dims holding `values` (an error when there are more than Dims::MAX_DIMS).
StatusOr<nvinfer1::Dims> nnDims(::onnx::NodeProto const& node, std::vector<int64_t> const& values);
//! After a window setter (setStrideNd, setPrePadding, ...): fails naming the node and the ONNX `attribute` when the
//! layer does not hold `wanted` (the network rejected the value, reported it and kept its previous one).
Status checkApplied(
    ::onnx::NodeProto const& node, char const* attribute, nvinfer1::Dims const& applied, nvinfer1::Dims const& wanted);
//! A Dims of `rank` entries all equal to `value`.
nvinfer1::Dims filledDims(int32_t rank, int64_t value);

//! Bit mask of normalised axes.
uint32_t axesMask(std::vector<int32_t> const& axes);
//! Every axis of a rank-`rank` tensor, as a mask.
uint32_t allAxesMask(int32_t rank);

//! An IReduceLayer.
StatusOr<nvinfer1::ITensor*> addReduce(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t,
    nvinfer1::ReduceOperation op, uint32_t mask, bool keepDims, std::string const& suffix = "");

//! `t` ⊙ scalar constant `value` (of t's type) with elementwise `op`.
StatusOr<nvinfer1::ITensor*> withScalar(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t,
    double value, nvinfer1::ElementWiseOperation op, std::string const& suffix = "");

//! For window ops: a rank-3 [N, C, L] tensor becomes [N, C, L, 1] so that the 2-D layers apply.
StatusOr<nvinfer1::ITensor*> liftSpatial1D(
    ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t, std::string const& suffix);
//! Undo liftSpatial1D on a layer output.
StatusOr<nvinfer1::ITensor*> dropSpatial1D(
    ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t, std::string const& suffix);

//! Window attributes shared by Conv, ConvTranspose and the poolings, normalised to `nbSpatial` dimensions.
struct WindowAttributes
{
    std::vector<int64_t> kernel;
    std::vector<int64_t> strides;
    std::vector<int64_t> dilations;
    std::vector<int64_t> padBegin;
    std::vector<int64_t> padEnd;
    std::string autoPad{"NOTSET"};
};

//! Read kernel_shape (or `kernel` when given), strides, dilations, pads and auto_pad; checks their lengths.
StatusOr<WindowAttributes> readWindowAttributes(
    ::onnx::NodeProto const& node, int32_t nbSpatial, std::vector<int64_t> const& kernel = {});

//! Extend a per-spatial-dimension vector with one trailing `fill` (for the 1-D lift).
std::vector<int64_t> appendOne(std::vector<int64_t> v, int64_t fill);

} // namespace kiln::nn
