// PluginV2Layer and INetworkDefinition::addPluginV2 (inference: inferPluginLayer in pluginLayer.cpp).
#include "network/layers/pluginV2Layer.h"

#include "network/networkDefinition.h"

namespace kiln
{

PluginV2Layer::PluginV2Layer(NetworkDefinition& network, std::vector<Tensor*> inputs,
    std::unique_ptr<PluginAdapter> plugin, int32_t nbOutputs)
    : LayerBase<nvinfer1::IPluginV2Layer>(network, nvinfer1::LayerType::kPLUGIN_V2, std::move(inputs), nbOutputs)
    , PluginLayerState(std::move(plugin), 0)
{
}

nvinfer1::IPluginV2& PluginV2Layer::getPlugin() noexcept
{
    return *static_cast<nvinfer1::IPluginV2*>(plugin().object());
}

void PluginV2Layer::setName(char const* name) noexcept
{
    setNameImpl(name);
    plugin().setLayerName(this->name());
}

nvinfer1::IPluginV2Layer* NetworkDefinition::addPluginV2(
    nvinfer1::ITensor* const* inputs, int32_t nbInputs, nvinfer1::IPluginV2& plugin) noexcept
{
    try
    {
        auto borrowed = PluginAdapter::wrapV2(&plugin, PluginOwnership::kBORROWED, logger());
        if (!borrowed.isOk())
        {
            reportError(borrowed.status().withContext("addPluginV2"));
            return nullptr;
        }
        std::string const label = (*borrowed)->label();
        std::vector<Tensor*> tensors;
        if (!collectPluginInputs(*this, "addPluginV2", label, inputs, nbInputs, "input", tensors))
        {
            return nullptr;
        }
        // The network owns its own clone; the application's object is only borrowed for the clone call.
        auto clone = (*borrowed)->clone();
        if (!clone.isOk())
        {
            reportError(clone.status().withContext("addPluginV2"));
            return nullptr;
        }
        auto nbOutputs = (*clone)->nbOutputs();
        if (!nbOutputs.isOk())
        {
            reportError(nbOutputs.status().withContext("addPluginV2"));
            return nullptr;
        }
        if (*nbOutputs <= 0)
        {
            reportError(invalidArgument("addPluginV2: " + label + " reports " + std::to_string(*nbOutputs)
                + " outputs (getNbOutputs must be at least 1)"));
            return nullptr;
        }
        auto* layer = adopt(std::make_unique<PluginV2Layer>(*this, std::move(tensors), std::move(*clone), *nbOutputs));
        layer->plugin().setLayerName(layer->name());
        return layer;
    }
    catch (...)
    {
        reportError(internalError("addPluginV2: unexpected exception"));
        return nullptr;
    }
}

} // namespace kiln
