// ShapeModel: the checker's view of a plugin's shapes. It turns the requested input shapes into shape expressions
// (an extent that differs between the main and the alternative shapes becomes a symbol, everything else a
// constant), runs the plugin's shape inference once (PluginAdapter::outputShapes) and evaluates the output shapes
// at the main or the alternative input shapes, with data-dependent extents at their upper bound or at the values a
// run produced. It also produces the descriptors of the build-time configure (desc.dims -1 for runtime extents,
// min/opt/max of a profile that covers both shape sets).
#pragma once

#include "core/shapeExpr.h"
#include "core/status.h"
#include "plugin/checker/checkSpec.h"
#include "plugin/pluginAdapter.h"

#include <map>
#include <memory>
#include <vector>

namespace kiln::checker
{

//! Which input shapes to evaluate at.
enum class ShapeSet : int32_t
{
    kMAIN = 0,
    kALTERNATIVE = 1,
};

class ShapeModel
{
public:
    //! `symbolic`: extents that differ between spec.shapes and spec.altShapes become symbols (dynamic-shape
    //! generations only); otherwise every extent is a constant.
    ShapeModel(CheckSpec const& spec, bool symbolic);
    ShapeModel(ShapeModel const&) = delete;
    ShapeModel& operator=(ShapeModel const&) = delete;

    //! Run the plugin's shape inference (once).
    Status infer(PluginAdapter& plugin);

    int32_t nbOutputs() const { return static_cast<int32_t>(mShapes.outputs.size()); }
    bool hasAlternative() const { return mHasAlt; }
    //! Outputs declared as size tensors, and for each output whether one of its extents is data-dependent.
    std::vector<PluginSizeTensor> const& sizeTensors() const { return mShapes.sizeTensors; }
    bool isSizeTensorOutput(int32_t output) const;
    bool hasDataDependentExtent(int32_t output) const;

    //! Input dims at a shape set.
    nvinfer1::Dims inputDims(int32_t input, ShapeSet set) const;
    //! Output dims with every data-dependent extent at its upper bound (the buffer size the runtime allocates).
    StatusOr<std::vector<nvinfer1::Dims>> outputUpperDims(ShapeSet set) const;
    //! Output dims with the data-dependent extents given by size-tensor values (output index -> value).
    StatusOr<std::vector<nvinfer1::Dims>> outputDims(ShapeSet set, std::map<int32_t, int64_t> const& sizes) const;
    //! Upper bound of the size tensor of `output` at a shape set.
    StatusOr<int64_t> sizeUpperBound(int32_t output, ShapeSet set) const;

    //! Build-time descriptors (type/format/scale taken from `io`): desc.dims has -1 for extents that are not build
    //! time constants, min/max cover both shape sets (data-dependent extents: 0 to the upper bound), opt is main.
    StatusOr<std::vector<nvinfer1::DynamicPluginTensorDesc>> buildDescs(
        std::vector<nvinfer1::PluginTensorDesc> const& io) const;
    //! The build-form dims of input or output position `pos` (inputs first) for supportsFormatCombination.
    nvinfer1::Dims buildFormDims(int32_t pos) const;

private:
    Status evaluate(ShapeSet set, std::map<int32_t, int64_t> const* sizes, std::vector<int64_t>& values) const;
    nvinfer1::Dims dimsOf(ShapeExpr const& shape, std::vector<int64_t> const& values) const;

    CheckSpec const& mSpec;
    bool mHasAlt{false};
    ShapeGraph mGraph;
    std::vector<ShapeExpr> mInputs;
    std::vector<std::vector<DimExpr>> mShapeInputs;
    std::vector<std::pair<int32_t, int32_t>> mSymbolSource; //!< per symbol: (input, dim), or (-1, -1)
    PluginShapes mShapes;
    bool mInferred{false};
};

} // namespace kiln::checker
