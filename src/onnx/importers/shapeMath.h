// ShapeMath: integer vector arithmetic for the shape, layout and indexing importers. A ShapeVec is a 1-D INT64
// vector known at parse time (values) or only at run time (a network tensor). Every operation computes at parse
// time when its operands are static and otherwise adds layers whose values Kiln tracks symbolically (elementwise,
// select, cast, reduce, gather with constant indices, concatenation), so results can drive shape inputs
// (IShuffleLayer input 1, ISliceLayer start/size/stride/axes, IFillLayer dimensions).
#pragma once

#include "NvInfer.h"
#include "core/status.h"
#include "onnx/importerContext.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

struct ShapeVec
{
    std::vector<int64_t> values; //!< the elements when tensor is nullptr
    nvinfer1::ITensor* tensor{nullptr};
    int32_t length{0};

    bool isStatic() const { return tensor == nullptr; }
};

//! `values` as nvinfer1::Dims; an error naming the node when there are more than Dims::MAX_DIMS.
StatusOr<nvinfer1::Dims> toDims(::onnx::NodeProto const& node, std::vector<int64_t> const& values);
//! The extents of `dims` as a vector.
std::vector<int64_t> dimsToVector(nvinfer1::Dims const& dims);
//! Whether every extent of `t` is known (>= 0) at parse time.
bool hasStaticShape(nvinfer1::ITensor const* t);

class ShapeMath
{
public:
    ShapeMath(ImporterContext& ctx, ::onnx::NodeProto const& node)
        : mCtx(ctx)
        , mNode(node)
    {
    }

    static ShapeVec constant(std::vector<int64_t> values);
    static ShapeVec filled(int32_t length, int64_t value);

    //! The shape of `t` (static when every extent is known).
    StatusOr<ShapeVec> shapeOf(nvinfer1::ITensor* t);
    //! A 0-D or 1-D INT32/INT64 tensor as a vector (cast to INT64, reshaped to 1-D).
    StatusOr<ShapeVec> fromTensor(nvinfer1::ITensor* t, std::string const& what);
    //! Node input `index` (a 0-D or 1-D integer value): static when it is a parse-time constant.
    StatusOr<ShapeVec> input(int32_t index, std::string const& what);

    //! The vector as a 1-D INT64 tensor (a constant layer when static).
    StatusOr<nvinfer1::ITensor*> toTensor(ShapeVec const& v);

    //! Elementwise operation; operands of length 1 broadcast. Comparisons (kEQUAL/kLESS/kGREATER) give 0/1.
    StatusOr<ShapeVec> binary(ShapeVec const& a, ShapeVec const& b, nvinfer1::ElementWiseOperation op);
    StatusOr<ShapeVec> add(ShapeVec const& a, ShapeVec const& b);
    StatusOr<ShapeVec> sub(ShapeVec const& a, ShapeVec const& b);
    StatusOr<ShapeVec> mul(ShapeVec const& a, ShapeVec const& b);
    StatusOr<ShapeVec> floorDiv(ShapeVec const& a, ShapeVec const& b);
    StatusOr<ShapeVec> min(ShapeVec const& a, ShapeVec const& b);
    StatusOr<ShapeVec> max(ShapeVec const& a, ShapeVec const& b);
    StatusOr<ShapeVec> less(ShapeVec const& a, ShapeVec const& b);
    StatusOr<ShapeVec> equal(ShapeVec const& a, ShapeVec const& b);
    //! ceil(a / b) for integers (b != 0, either sign).
    StatusOr<ShapeVec> ceilDiv(ShapeVec const& a, ShapeVec const& b);
    //! cond != 0 ? a : b (elementwise, length-1 operands broadcast).
    StatusOr<ShapeVec> select(ShapeVec const& cond, ShapeVec const& a, ShapeVec const& b);

    //! v[idx[k]] for each k; indices must be in [0, v.length). Run-time indices use a one-hot sum.
    StatusOr<ShapeVec> gather(ShapeVec const& v, ShapeVec const& idx);
    StatusOr<ShapeVec> slice(ShapeVec const& v, int32_t begin, int32_t end);
    StatusOr<ShapeVec> concat(std::vector<ShapeVec> const& parts);
    //! Product / sum of all elements (a length-1 vector; 1 / 0 for an empty vector).
    StatusOr<ShapeVec> product(ShapeVec const& v);
    StatusOr<ShapeVec> sum(ShapeVec const& v);
    //! Exclusive prefix sums: out[i] = v[0] + ... + v[i-1].
    StatusOr<ShapeVec> exclusivePrefixSum(ShapeVec const& v);

private:
    StatusOr<nvinfer1::ITensor*> reduceSum(nvinfer1::ITensor* t, int32_t axis, std::string const& suffix);

    ImporterContext& mCtx;
    ::onnx::NodeProto const& mNode;
};

//! Set ISliceLayer parameter `slot` (1 start, 2 size, 3 stride, 5 axes) from a vector: static values through the
//! setter, run-time ones as a tensor input.
Status setSliceParameter(ShapeMath& math, ::onnx::NodeProto const& node, nvinfer1::ISliceLayer* layer, int32_t slot,
    ShapeVec const& v);
//! An ISliceLayer over `input` with the given parameters (axes empty = all axes).
StatusOr<nvinfer1::ISliceLayer*> addSliceLayer(ImporterContext& ctx, ::onnx::NodeProto const& node,
    nvinfer1::ITensor* input, ShapeVec const& start, ShapeVec const& size, ShapeVec const& stride,
    std::vector<int64_t> const& axes, std::string const& suffix = "");
//! Reshape `t` to the shape held by `shape` (static dims or a shape tensor); zeroIsPlaceholder as IShuffleLayer.
StatusOr<nvinfer1::ITensor*> reshapeToVec(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t,
    ShapeVec const& shape, bool zeroIsPlaceholder, std::string const& suffix = "");

//! An INT64 tensor of shape `dims` whose elements hold their index along `axis` (IFillLayer kLINSPACE).
StatusOr<nvinfer1::ITensor*> iotaAlong(
    ImporterContext& ctx, ::onnx::NodeProto const& node, ShapeVec const& dims, int32_t axis, std::string const& suffix);

} // namespace kiln
