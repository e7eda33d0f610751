// PluginV2Layer: Kiln's IPluginV2Layer, a layer that runs a plugin of the IPluginV2 family (IPluginV2, V2Ext,
// V2IOExt, V2DynamicExt). addPluginV2 clones the application's plugin at once; the layer owns that clone through
// its PluginAdapter (PluginLayerState) and getPlugin() returns it.
//
// No attributes, no weights. Inputs: the plugin's inputs, in order. Outputs: getNbOutputs() of the plugin.
#pragma once

#include "network/layer.h"
#include "network/layers/pluginLayer.h"

namespace kiln
{

class PluginV2Layer final : public LayerBase<nvinfer1::IPluginV2Layer>, public PluginLayerState
{
public:
    PluginV2Layer(NetworkDefinition& network, std::vector<Tensor*> inputs, std::unique_ptr<PluginAdapter> plugin,
        int32_t nbOutputs);

    nvinfer1::IPluginV2& getPlugin() noexcept override;
    void setName(char const* name) noexcept override;
};

} // namespace kiln
