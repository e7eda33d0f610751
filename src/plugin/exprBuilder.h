// PluginExprBuilder: Kiln's nvinfer1::IExprBuilder for plugin shape callbacks (IPluginV2DynamicExt::
// getOutputDimensions, IPluginV3OneBuild::getOutputShapes). Each IDimensionExpr it hands out wraps one ExprId of a
// ShapeGraph and lives in the builder's arena until the builder is destroyed (after the shape callback returns).
// Misuse by the plugin (an expression from another builder, an invalid operation, a bad declareSizeTensor) is
// recorded as the builder's first error and answered with nullptr, as TensorRT does.
#pragma once

#include "NvInferImpl.h"
#include "NvInferRuntime.h"
#include "core/shapeExpr.h"
#include "core/status.h"
#include "plugin/pluginAdapter.h"

#include <deque>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace kiln
{

class PluginExprBuilder;

//! One expression handed to a plugin.
class PluginDimensionExpr final : public nvinfer1::IDimensionExpr, public nvinfer1::apiv::VDimensionExpr
{
public:
    PluginDimensionExpr(PluginExprBuilder const& owner, ExprId id, bool sizeTensor);
    ~PluginDimensionExpr() noexcept override = default;

    bool isConstant() const noexcept override;
    int64_t getConstantValue() const noexcept override;
    bool isSizeTensor() const noexcept override;

    ExprId id() const { return mId; }
    PluginExprBuilder const& owner() const { return mOwner; }

private:
    PluginExprBuilder const& mOwner;
    ExprId mId;
    bool mSizeTensor;
};

class PluginExprBuilder final : public nvinfer1::IExprBuilder, public nvinfer1::apiv::VExprBuilder
{
public:
    //! `nbOutputs` bounds declareSizeTensor's output index; `layerName` names the size-tensor symbols;
    //! `allowSizeTensors` is false for generations without data-dependent shapes (IPluginV2DynamicExt).
    PluginExprBuilder(ShapeGraph& graph, std::string layerName, int32_t nbOutputs, bool allowSizeTensors);
    ~PluginExprBuilder() noexcept override = default;

    // apiv::VExprBuilder
    nvinfer1::IDimensionExpr const* constant(int64_t value) noexcept override;
    nvinfer1::IDimensionExpr const* operation(nvinfer1::DimensionOperation op, nvinfer1::IDimensionExpr const& first,
        nvinfer1::IDimensionExpr const& second) noexcept override;
    nvinfer1::IDimensionExpr const* declareSizeTensor(int32_t outputIndex, nvinfer1::IDimensionExpr const& opt,
        nvinfer1::IDimensionExpr const& upper) noexcept override;

    //! The public face handed to plugins.
    nvinfer1::IExprBuilder& api() { return *this; }

    //! An expression object for `id` (for the plugin's input shapes).
    nvinfer1::IDimensionExpr const* wrap(ExprId id);
    //! DimsExprs for a symbolic shape (fails for rank > Dims::MAX_DIMS); `what` names it in errors.
    StatusOr<nvinfer1::DimsExprs> toDimsExprs(std::vector<DimExpr> const& shape, std::string const& what);
    //! The ExprId behind an expression the plugin returned; fails for nullptr or a foreign object.
    StatusOr<ExprId> resolve(nvinfer1::IDimensionExpr const* expr, std::string const& what) const;
    //! Output shape of `output` from the plugin's DimsExprs (checks nbDims, nulls and foreign expressions).
    StatusOr<ShapeExpr> toShape(nvinfer1::DimsExprs const& dims, std::string const& what) const;

    //! First misuse recorded during the callback (OK when none).
    Status const& error() const { return mError; }
    std::vector<PluginSizeTensor> const& sizeTensors() const { return mSizeTensors; }
    ShapeGraph& graph() const { return mGraph; }

private:
    void fail(Status status) noexcept;
    bool owns(nvinfer1::IDimensionExpr const* expr) const;
    bool dependsOnDataDependentSymbol(ExprId id) const;
    nvinfer1::IDimensionExpr const* make(ExprId id, bool sizeTensor);

    ShapeGraph& mGraph;
    std::string mLayerName;
    int32_t mNbOutputs;
    bool mAllowSizeTensors;
    std::deque<PluginDimensionExpr> mArena;
    std::unordered_map<ExprId, PluginDimensionExpr const*> mById; //!< non-size-tensor objects, by expression
    std::unordered_set<nvinfer1::IDimensionExpr const*> mOwned;   //!< every object handed out
    std::vector<PluginSizeTensor> mSizeTensors;
    Status mError;
};

} // namespace kiln
