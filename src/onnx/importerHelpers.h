// Building blocks shared by the op importers: axis normalisation, rank alignment for ONNX (numpy) broadcasting,
// casts, small constants, reshapes and shape arithmetic that work for static and dynamic shapes alike. Every helper
// returns an error naming the node when the network refuses a layer.
#pragma once

#include "NvInfer.h"
#include "core/status.h"
#include "onnx/importerContext.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace kiln
{

//! An error if `layer` is nullptr ("node 'x' (Op): INetworkDefinition::<what> refused the layer"); otherwise names
//! the layer through ctx.nameLayer(layer, node, suffix).
Status checkLayer(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ILayer* layer, char const* what,
    std::string const& suffix = "");

//! Rank of `t` (its number of dimensions).
inline int32_t rankOf(nvinfer1::ITensor const* t)
{
    return t->getDimensions().nbDims;
}

//! axis in [-rank, rank) mapped to [0, rank); an error naming the node otherwise.
StatusOr<int32_t> normalizeAxis(::onnx::NodeProto const& node, int64_t axis, int32_t rank);
//! Every entry of `axes` normalised; duplicates are an error.
StatusOr<std::vector<int32_t>> normalizeAxes(::onnx::NodeProto const& node, std::vector<int64_t> const& axes,
    int32_t rank);

//! Prepend size-1 dimensions so that `t` has rank `rank` (works with dynamic dimensions).
StatusOr<nvinfer1::ITensor*> unsqueezeToRank(
    ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t, int32_t rank);
//! Bring two tensors to the same rank for an elementwise layer (ONNX multidirectional broadcasting).
StatusOr<std::pair<nvinfer1::ITensor*, nvinfer1::ITensor*>> broadcastPair(
    ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* a, nvinfer1::ITensor* b);
//! An IElementWiseLayer over a and b after broadcastPair.
StatusOr<nvinfer1::ITensor*> addElementWise(ImporterContext& ctx, ::onnx::NodeProto const& node,
    nvinfer1::ITensor* a, nvinfer1::ITensor* b, nvinfer1::ElementWiseOperation op, std::string const& suffix = "");
//! An IUnaryLayer.
StatusOr<nvinfer1::ITensor*> addUnary(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t,
    nvinfer1::UnaryOperation op, std::string const& suffix = "");

//! `t` converted to `type` (returns t itself when it already has that type).
StatusOr<nvinfer1::ITensor*> castTo(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t,
    nvinfer1::DataType type, std::string const& suffix = "");

//! A constant tensor of `type` and rank `rank` (all extents 1) holding `value`, ready to broadcast against a rank-`rank`
//! tensor.
StatusOr<nvinfer1::ITensor*> scalarLike(ImporterContext& ctx, ::onnx::NodeProto const& node, double value,
    nvinfer1::DataType type, int32_t rank);
//! A 1-D INT64 constant.
StatusOr<nvinfer1::ITensor*> int64Vector(
    ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<int64_t> const& values);

//! The shape of `t` as a 1-D INT64 tensor (IShapeLayer).
StatusOr<nvinfer1::ITensor*> shapeOf(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t);
//! Dimensions [begin, end) of a 1-D shape tensor (a slice of it).
StatusOr<nvinfer1::ITensor*> shapeSlice(ImporterContext& ctx, ::onnx::NodeProto const& node,
    nvinfer1::ITensor* shape, int32_t begin, int32_t end);
//! Concatenation of 1-D shape tensors.
StatusOr<nvinfer1::ITensor*> concatShapes(
    ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<nvinfer1::ITensor*> const& parts);
//! Product of the entries of a 1-D INT64 shape tensor, as a 1-element 1-D tensor.
StatusOr<nvinfer1::ITensor*> shapeProduct(
    ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* shape);

//! Reshape to static `dims` (entries may be 0 = copy input extent, -1 = infer, as IShuffleLayer allows).
StatusOr<nvinfer1::ITensor*> reshape(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t,
    nvinfer1::Dims const& dims, std::string const& suffix = "");
//! Reshape to the shape held by a 1-D INT64 shape tensor.
StatusOr<nvinfer1::ITensor*> reshapeTo(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t,
    nvinfer1::ITensor* shape, std::string const& suffix = "");
//! Transpose with ONNX semantics: output dimension i is input dimension perm[i].
StatusOr<nvinfer1::ITensor*> transpose(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t,
    std::vector<int32_t> const& perm, std::string const& suffix = "");
//! Insert size-1 dimensions at the (normalised, output-rank) positions in `axes`.
StatusOr<nvinfer1::ITensor*> unsqueeze(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t,
    std::vector<int32_t> const& axes, std::string const& suffix = "");
//! Remove the (normalised) dimensions in `axes`; they must have extent 1 at run time.
StatusOr<nvinfer1::ITensor*> squeeze(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t,
    std::vector<int32_t> const& axes, std::string const& suffix = "");
//! Flatten to 2-D around `axis` ([d0*...*d(axis-1), d(axis)*...]), as ONNX Flatten does.
StatusOr<nvinfer1::ITensor*> flatten2D(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t,
    int32_t axis, std::string const& suffix = "");

//! Whether `type` is a floating-point type (kFLOAT, kHALF, kBF16).
bool isFloatType(nvinfer1::DataType type);

} // namespace kiln
