// Small building blocks shared by the composite importer families (loss, recurrent, quantization, generator,
// training): reductions, gathers with constant indices, activations by ONNX name, selects and float constants.
// They add layers through the public network API only and name every layer after the node.
#pragma once

#include "NvInfer.h"
#include "core/status.h"
#include "onnx/importerContext.h"
#include "onnx/importerHelpers.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::composite
{

//! IReduceLayer over the axes in `axes` (normalised).
StatusOr<nvinfer1::ITensor*> reduce(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t,
    nvinfer1::ReduceOperation op, std::vector<int32_t> const& axes, bool keepDims, std::string const& suffix);
//! IReduceLayer over every axis, giving a rank-0 tensor (or rank-r all-ones with keepDims).
StatusOr<nvinfer1::ITensor*> reduceAll(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t,
    nvinfer1::ReduceOperation op, bool keepDims, std::string const& suffix);

//! kDEFAULT gather of `t` along `axis` with constant 1-D indices (so the rank is kept).
StatusOr<nvinfer1::ITensor*> gatherConst(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t,
    int32_t axis, std::vector<int64_t> const& indices, std::string const& suffix);

//! ISelectLayer (all three inputs broadcast; ranks must already agree).
StatusOr<nvinfer1::ITensor*> select(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* cond,
    nvinfer1::ITensor* thenT, nvinfer1::ITensor* elseT, std::string const& suffix);

//! IActivationLayer with alpha and beta.
StatusOr<nvinfer1::ITensor*> activation(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t,
    nvinfer1::ActivationType type, float alpha, float beta, std::string const& suffix);

//! A float scalar constant of rank `rank` (extents 1) in the type of `like`.
StatusOr<nvinfer1::ITensor*> scalarFor(
    ImporterContext& ctx, ::onnx::NodeProto const& node, double value, nvinfer1::ITensor const* like);

//! a <op> b with ONNX broadcasting (shorthand for addElementWise).
StatusOr<nvinfer1::ITensor*> binary(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* a,
    nvinfer1::ITensor* b, nvinfer1::ElementWiseOperation op, std::string const& suffix);
//! a <op> value, value broadcast as a scalar of a's type.
StatusOr<nvinfer1::ITensor*> binaryScalar(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* a,
    double value, nvinfer1::ElementWiseOperation op, std::string const& suffix);

//! Log-softmax along `axis`, computed stably as (x - max) - log(sum(exp(x - max))).
StatusOr<nvinfer1::ITensor*> logSoftmax(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* x,
    int32_t axis, std::string const& suffix);

//! numpy-style MatMul (ONNX MatMul semantics: 1-D operands are vectors, batch dimensions broadcast).
StatusOr<nvinfer1::ITensor*> matmul(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* a,
    nvinfer1::ITensor* b, std::string const& suffix);

//! A quantization parameter (scale or zero point) ready to broadcast against a rank-`rank` tensor: a scalar or
//! 1-element tensor as is, a 1-D [C] tensor reshaped to extent C at `axis` and 1 elsewhere.
StatusOr<nvinfer1::ITensor*> alignToAxis(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* p,
    int32_t axis, int32_t rank, std::string const& suffix);

//! Every requested output of `node` (a non-empty name) must not exceed `count`.
Status checkOutputCount(::onnx::NodeProto const& node, int32_t count);

} // namespace kiln::composite
