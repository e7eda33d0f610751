// PluginLayerState: what the two plugin layer kinds (PluginV2Layer, PluginV3Layer) share: the network's own clone
// of the plugin, wrapped in the PluginAdapter, and the number of V3 shape inputs (the last inputs of the layer).
// The network analysis and the builder reach it through pluginLayerState(layer), so they never look at plugin
// generations; shape/type inference of both kinds is inferPluginLayer.
#pragma once

#include "network/inferContext.h"
#include "plugin/pluginAdapter.h"

#include <memory>
#include <vector>

namespace kiln
{
class Layer;
class NetworkDefinition;
class Tensor;

class PluginLayerState
{
public:
    PluginLayerState(std::unique_ptr<PluginAdapter> plugin, int32_t nbShapeInputs);
    virtual ~PluginLayerState();
    PluginLayerState(PluginLayerState const&) = delete;
    PluginLayerState& operator=(PluginLayerState const&) = delete;

    //! The network's clone (owned); the builder clones it again per build.
    PluginAdapter& plugin() const { return *mPlugin; }
    //! V3 shape inputs: the last nbShapeInputs() inputs of the layer (0 for IPluginV2 layers).
    int32_t nbShapeInputs() const { return mNbShapeInputs; }

private:
    std::unique_ptr<PluginAdapter> mPlugin;
    int32_t mNbShapeInputs;
};

//! The plugin state of `layer`, or nullptr when it is not a plugin layer.
PluginLayerState const* pluginLayerState(Layer const& layer);

//! Number of regular (non-shape) inputs of a plugin layer.
int32_t pluginRegularInputs(Layer const& layer, PluginLayerState const& state);

//! Shared part of addPluginV2/addPluginV3: checks the input tensors (non-null, of this network) and returns them;
//! reports errors naming `api` and the plugin and returns false.
bool collectPluginInputs(NetworkDefinition& network, char const* api, std::string const& pluginLabel,
    nvinfer1::ITensor* const* tensors, int32_t count, char const* what, std::vector<Tensor*>& out);

//! Shape and type inference of a plugin layer: output types from the plugin's getOutputDataType(s), shapes from
//! getOutputDimensions/getOutputShapes over the symbolic input shapes and (V3) the values of the shape inputs.
//! Size-tensor outputs become 0-D INT32/INT64 tensors whose value is their kDATA_DEPENDENT symbol; their symbol
//! indices are appended to `sizeTensors` as (output index, symbol index).
Status inferPluginLayer(Layer const& layer, PluginLayerState const& state, InferContext& ctx,
    std::vector<std::pair<int32_t, int32_t>>& sizeTensors);

} // namespace kiln
