// PluginV3Layer: Kiln's IPluginV3Layer, a layer that runs an IPluginV3 (IPluginV3OneCore/Build/Runtime).
// addPluginV3 clones the application's plugin at once; the layer owns that clone through its PluginAdapter
// (PluginLayerState) and getPlugin() returns it.
//
// Attributes: "plugin.nbShapeInputs" (int). Inputs: the plugin's regular inputs, then its shape inputs (1-D
// INT32/INT64 shape tensors whose values reach getOutputShapes; enqueue sees only the regular inputs).
#pragma once

#include "network/layer.h"
#include "network/layers/pluginLayer.h"

namespace kiln
{

class PluginV3Layer final : public LayerBase<nvinfer1::IPluginV3Layer>, public PluginLayerState
{
public:
    PluginV3Layer(NetworkDefinition& network, std::vector<Tensor*> inputs, int32_t nbShapeInputs,
        std::unique_ptr<PluginAdapter> plugin, int32_t nbOutputs);

    nvinfer1::IPluginV3& getPlugin() noexcept override;
    void setName(char const* name) noexcept override;
};

} // namespace kiln
