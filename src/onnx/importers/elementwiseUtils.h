// Building blocks shared by the elementwise, comparison, unary, activation and cast importers: type promotion of
// ONNX element types the network layers refuse (UINT8 arithmetic, INT8 comparisons, BOOL equality), legacy
// (opset < 7) broadcasting, and the pass-through of a value (Identity, Dropout).
#pragma once

#include "NvInfer.h"
#include "core/status.h"
#include "onnx/importerContext.h"
#include "onnx/opImporters.h"

#include <onnx/onnx_pb.h>

#include <string>
#include <utility>
#include <vector>

namespace kiln
{

//! Comparison and logical importers (comparisonImporters.cpp); registered through elementwiseImporters().
std::vector<OpImporterEntry> comparisonImporters();

//! "FP32", "UINT8", ... for messages.
std::string elementTypeName(nvinfer1::DataType type);

//! Input `index` of `node` as a network tensor (ctx.tensor).
StatusOr<nvinfer1::ITensor*> inputTensor(ImporterContext& ctx, ::onnx::NodeProto const& node, int32_t index);

//! For opsets before 7, where binary ops took `broadcast` and `axis` attributes: B's dimensions are aligned with A's
//! starting at `axis`, so B gets trailing size-1 dimensions. Returns b unchanged otherwise.
StatusOr<nvinfer1::ITensor*> legacyBroadcast(
    ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* a, nvinfer1::ITensor* b);

//! Inputs A and B of a binary op, B adjusted by legacyBroadcast.
StatusOr<std::pair<nvinfer1::ITensor*, nvinfer1::ITensor*>> binaryInputs(
    ImporterContext& ctx, ::onnx::NodeProto const& node);

//! An error when a and b have different element types (ONNX type constraint T shared by both inputs).
Status requireSameType(::onnx::NodeProto const& node, nvinfer1::ITensor* a, nvinfer1::ITensor* b, char const* nameA,
    char const* nameB);

//! `a op b` with ONNX broadcasting for arithmetic operations (kSUM ... kFLOOR_DIV, kMAX, kMIN) on inputs of one
//! element type. Types that IElementWiseLayer refuses (UINT8) are computed in INT32 and cast back (integer results
//! wrap as in ONNX); BOOL is refused.
StatusOr<nvinfer1::ITensor*> addArithmetic(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* a,
    nvinfer1::ITensor* b, nvinfer1::ElementWiseOperation op, std::string const& suffix = "");

//! `a op b` for kEQUAL, kGREATER and kLESS with a BOOL result: INT8/UINT8 are compared in INT32, BOOL equality is
//! NOT(a XOR b).
StatusOr<nvinfer1::ITensor*> addComparison(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* a,
    nvinfer1::ITensor* b, nvinfer1::ElementWiseOperation op, std::string const& suffix = "");

//! condition ? a : b with all three brought to one rank (ISelectLayer).
StatusOr<nvinfer1::ITensor*> addWhere(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* condition,
    nvinfer1::ITensor* a, nvinfer1::ITensor* b, std::string const& suffix = "");

//! A BOOL tensor of t's shape with every element true (works for dynamic shapes).
StatusOr<nvinfer1::ITensor*> allTrueLike(
    ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t, std::string const& suffix = "");

//! The value of input `index` passed through unchanged: a parse-time constant stays a constant (so consumers that
//! need initializers still see one); a tensor goes through an IIdentityLayer.
StatusOr<OnnxValue> passThrough(ImporterContext& ctx, ::onnx::NodeProto const& node, int32_t index);

} // namespace kiln
