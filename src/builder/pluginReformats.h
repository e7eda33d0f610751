// Reformats around plugin nodes (pluginPass step 3): the plan tensors as the plugin pass sees them (the network
// tensor behind each, and whether its analysed type/format must stay: network outputs, inputs of non-plugin nodes),
// the formats of network I/O tensors whose ITensor::setAllowedFormats excludes kLINEAR, INT8 scales from dynamic
// ranges, and the reformat nodes (kIDENTITY, "reformat" = 1) that a negotiated plugin node needs: one per input
// whose producer has another type/format, one per output whose consumers or network output need another one.
#pragma once

#include "builder/buildContext.h"
#include "plugin/pluginAdapter.h"

#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace kiln
{
class PluginConfigurator;

class PluginReformats
{
public:
    explicit PluginReformats(BuildContext& ctx)
        : mCtx(ctx)
        , mPlan(ctx.plan)
    {
    }

    //! Finds the network tensor behind each plan tensor and those that must keep their type/format, then chooses
    //! the formats of network I/O tensors (ITensor::setAllowedFormats). Call before the plan's nodes are moved out.
    Status prepare();

    //! The tensor a plugin reads for plan tensor `t`: a previous plugin's own output when a reformat follows it.
    int32_t pluginSource(int32_t t) const;

    //! Step 3: negotiation (pluginNegotiation.h) and reformat nodes. Sets the node's input/output tensors and fills
    //! `pre` / `post` with the reformats that precede / follow the plugin node. `shapes` gives the extents.
    Status negotiate(PluginAdapter& plugin, PlanNode& node, int32_t nbIn, std::vector<int32_t> const& sources,
        PluginConfigurator const& shapes, std::vector<PlanNode>& pre, std::vector<PlanNode>& post);

    //! A new tensor shaped like `source`, with another type/format, produced by a node of the builder.
    int32_t addDerivedTensor(int32_t source, std::string name, nvinfer1::DataType type,
        nvinfer1::TensorFormat format, float scale);

    //! A reformat node from tensor `from` to tensor `to` (their types, formats and scales).
    PlanNode reformatNode(std::string name, int32_t from, int32_t to);

private:
    Status chooseIoFormats();

    //! INT8 scale from the dynamic range of the network tensor behind plan tensor `t` (-1 when none is set).
    float rangeScale(int32_t t) const;

    PlanTensor& tensor(int32_t t) { return mPlan.tensors[static_cast<size_t>(t)]; }

    BuildContext& mCtx;
    Plan& mPlan;
    std::vector<Tensor const*> mOrigin;
    std::vector<bool> mNeedsOriginal;
    std::unordered_map<int32_t, int32_t> mPluginView; // tensor -> the plugin's own output before a reformat
    std::map<std::tuple<int32_t, int32_t, int32_t>, int32_t> mReformats; // (source, type, format) -> tensor
};

} // namespace kiln
