// Plugin node configuration at build time: the plan's shapes evaluated at every optimization profile's kMIN, kOPT
// and kMAX, and the builder's queries on its copy of a plugin that use them (pluginPass steps 2, 4 and 5): output
// count, types and shapes; configurePlugin once per profile with its DynamicPluginTensorDesc; getWorkspaceSize
// checked against the kWORKSPACE memory pool limit; the tactic (two or more are timed, see pluginTiming.h).
#pragma once

#include "builder/buildContext.h"
#include "plugin/pluginAdapter.h"

#include <array>
#include <string>
#include <vector>

namespace kiln
{

class PluginConfigurator
{
public:
    explicit PluginConfigurator(BuildContext const& ctx)
        : mCtx(ctx)
        , mPlan(ctx.plan)
    {
    }

    //! Evaluates the plan's shapes at every profile's kMIN/kOPT/kMAX and finds the data-dependent expressions.
    Status evaluateProfiles();

    //! Build-time dims of `t` (-1 for runtime extents).
    nvinfer1::Dims buildDims(PlanTensor const& t) const;

    //! Extents of `t` at optimization profile `profile`, selector 0 (kMIN), 1 (kOPT) or 2 (kMAX).
    nvinfer1::Dims evalDims(PlanTensor const& t, size_t profile, int32_t selector) const;

    //! Per expression of the plan's shape graph: true when it depends on a kDATA_DEPENDENT symbol.
    std::vector<bool> const& dataDependent() const { return mDataDependent; }

    //! Step 2: getNbOutputs, getOutputDataType(s), getOutputDimensions/getOutputShapes on the builder's copy, in
    //! TensorRT's order. `sources` are the tensors the plugin reads at its first `nbIn` inputs.
    Status queryShapes(PluginAdapter& plugin, PlanNode const& node, int32_t nbIn,
        std::vector<int32_t> const& sources) const;

    //! Steps 4 and 5: configurePlugin and getWorkspaceSize per profile (`workspace` gets one size per profile),
    //! then the tactic: `tactic` and `tacticName` ("plugin" or "plugin:<n>").
    Status configure(PluginAdapter& plugin, std::vector<int32_t> const& ins, std::vector<int32_t> const& outs,
        std::vector<int64_t>& workspace, int32_t& tactic, std::string& tacticName) const;

private:
    std::vector<nvinfer1::DynamicPluginTensorDesc> profileDescs(std::vector<int32_t> const& tensors,
        size_t profile) const;

    BuildContext const& mCtx;
    Plan const& mPlan;
    std::vector<bool> mDataDependent;
    std::vector<std::array<std::vector<int64_t>, 3>> mValues; // [profile][selector] evaluated expressions
};

} // namespace kiln
