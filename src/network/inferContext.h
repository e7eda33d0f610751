// InferContext: what a layer's shape/type inference function sees. Inference is symbolic: dimensions are
// DimExpr over the runtime dimensions of network inputs, so it runs once at definition/build time and the
// runtime only evaluates the resulting expressions. Shape tensors (small INT32/INT64 tensors that feed
// shape inputs) also carry their element values as expressions in TensorInfo::values.
#pragma once

#include "NvInfer.h"
#include "core/layerKinds.h" // layerKindName, for the callers that name a layer in messages
#include "core/shapeExpr.h"
#include "core/attributes.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln
{

//! Type, shape and (for shape tensors) values of one tensor during inference.
struct TensorInfo
{
    bool present{false}; // false for an absent optional input
    std::string name;
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    ShapeExpr dims;
    //! Element values (row-major) when known symbolically; set for shape tensors and small integer constants.
    std::optional<std::vector<DimExpr>> values;
    //! Host data when the tensor is produced by a constant layer (valid during inference), else nullptr.
    void const* constantData{nullptr};

    int32_t rank() const { return static_cast<int32_t>(dims.size()); }
};

//! A weights slot of a layer (e.g. convolution kernel and bias given as nvinfer1::Weights).
struct WeightsInfo
{
    bool present{false}; // false when count == 0 / not given
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    int64_t count{0};
    void const* values{nullptr}; // host data, valid during inference
};

class InferContext
{
public:
    InferContext(ShapeGraph& graph, std::string layerName, nvinfer1::LayerType kind, Attributes const& attrs,
        std::vector<TensorInfo> inputs, std::vector<WeightsInfo> weights, int32_t nbOutputs, bool stronglyTyped)
        : mGraph(graph)
        , mLayerName(std::move(layerName))
        , mKind(kind)
        , mAttrs(attrs)
        , mInputs(std::move(inputs))
        , mWeights(std::move(weights))
        , mOutputs(static_cast<size_t>(nbOutputs))
        , mStronglyTyped(stronglyTyped)
    {
    }

    ShapeGraph& graph() { return mGraph; }
    std::string const& layerName() const { return mLayerName; }
    nvinfer1::LayerType kind() const { return mKind; }
    Attributes const& attrs() const { return mAttrs; }
    bool stronglyTyped() const { return mStronglyTyped; }

    int32_t nbInputs() const { return static_cast<int32_t>(mInputs.size()); }
    bool hasInput(int32_t i) const { return i >= 0 && i < nbInputs() && mInputs[static_cast<size_t>(i)].present; }
    TensorInfo const& input(int32_t i) const { return mInputs[static_cast<size_t>(i)]; }
    int32_t nbWeights() const { return static_cast<int32_t>(mWeights.size()); }
    bool hasWeights(int32_t i) const { return i >= 0 && i < nbWeights() && mWeights[static_cast<size_t>(i)].present; }
    WeightsInfo const& weights(int32_t i) const { return mWeights[static_cast<size_t>(i)]; }

    int32_t nbOutputs() const { return static_cast<int32_t>(mOutputs.size()); }
    //! Inference must set type and dims of every output (present is set for you).
    TensorInfo& output(int32_t i)
    {
        mOutputs[static_cast<size_t>(i)].present = true;
        return mOutputs[static_cast<size_t>(i)];
    }
    std::vector<TensorInfo>& outputs() { return mOutputs; }

    DimExpr constant(int64_t v) { return DimExpr(&mGraph, mGraph.constant(v)); }
    //! Error naming the layer: "layer 'conv1' (Convolution): <message>".
    Status error(std::string const& message) const;
    //! Runtime constraint; fails now if it is already known to be false.
    Status require(DimExpr condition, std::string const& message);
    //! Require that input `i` is present, with rank in [minRank, maxRank].
    Status requireInput(int32_t i, int32_t minRank = 0, int32_t maxRank = nvinfer1::Dims::MAX_DIMS) const;
    //! Require that input `i` carries values (is usable as a shape tensor).
    Status requireValues(int32_t i) const;

private:
    ShapeGraph& mGraph;
    std::string mLayerName;
    nvinfer1::LayerType mKind;
    Attributes const& mAttrs;
    std::vector<TensorInfo> mInputs;
    std::vector<WeightsInfo> mWeights;
    std::vector<TensorInfo> mOutputs;
    bool mStronglyTyped;
};

//! Broadcast two shapes NumPy style (equal ranks, as TensorRT requires); adds the runtime constraint that each
//! pair of dimensions is equal or one of them is 1. `what` names the tensors for messages.
StatusOr<ShapeExpr> broadcastShapes(InferContext& ctx, ShapeExpr const& a, ShapeExpr const& b, std::string const& what);

//! Render "[2, batch, 3]".
std::string shapeToString(ShapeGraph const& g, ShapeExpr const& s);

} // namespace kiln
