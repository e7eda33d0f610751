// PluginV3Layer and INetworkDefinition::addPluginV3 (inference: inferPluginLayer in pluginLayer.cpp).
#include "network/layers/pluginV3Layer.h"

#include "network/networkDefinition.h"

namespace kiln
{

PluginV3Layer::PluginV3Layer(NetworkDefinition& network, std::vector<Tensor*> inputs, int32_t nbShapeInputs,
    std::unique_ptr<PluginAdapter> plugin, int32_t nbOutputs)
    : LayerBase<nvinfer1::IPluginV3Layer>(network, nvinfer1::LayerType::kPLUGIN_V3, std::move(inputs), nbOutputs)
    , PluginLayerState(std::move(plugin), nbShapeInputs)
{
    attrs().setInt("plugin.nbShapeInputs", nbShapeInputs);
}

nvinfer1::IPluginV3& PluginV3Layer::getPlugin() noexcept
{
    return *static_cast<nvinfer1::IPluginV3*>(plugin().object());
}

void PluginV3Layer::setName(char const* name) noexcept
{
    setNameImpl(name);
    plugin().setLayerName(this->name());
}

nvinfer1::IPluginV3Layer* NetworkDefinition::addPluginV3(nvinfer1::ITensor* const* inputs, int32_t nbInputs,
    nvinfer1::ITensor* const* shapeInputs, int32_t nbShapeInputs, nvinfer1::IPluginV3& plugin) noexcept
{
    try
    {
        auto borrowed = PluginAdapter::wrapV3(&plugin, PluginOwnership::kBORROWED, nvinfer1::TensorRTPhase::kBUILD,
            logger());
        if (!borrowed.isOk())
        {
            reportError(borrowed.status().withContext("addPluginV3"));
            return nullptr;
        }
        std::string const label = (*borrowed)->label();
        std::vector<Tensor*> tensors;
        if (!collectPluginInputs(*this, "addPluginV3", label, inputs, nbInputs, "input", tensors)
            || !collectPluginInputs(*this, "addPluginV3", label, shapeInputs, nbShapeInputs, "shape input", tensors))
        {
            return nullptr;
        }
        // The network owns its own clone; the application's object is only borrowed for the clone call.
        auto clone = (*borrowed)->clone();
        if (!clone.isOk())
        {
            reportError(clone.status().withContext("addPluginV3"));
            return nullptr;
        }
        auto nbOutputs = (*clone)->nbOutputs();
        if (!nbOutputs.isOk())
        {
            reportError(nbOutputs.status().withContext("addPluginV3"));
            return nullptr;
        }
        if (*nbOutputs <= 0)
        {
            reportError(invalidArgument("addPluginV3: " + label + " reports " + std::to_string(*nbOutputs)
                + " outputs (getNbOutputs must be at least 1)"));
            return nullptr;
        }
        auto* layer = adopt(std::make_unique<PluginV3Layer>(
            *this, std::move(tensors), nbShapeInputs, std::move(*clone), *nbOutputs));
        layer->plugin().setLayerName(layer->name());
        return layer;
    }
    catch (...)
    {
        reportError(internalError("addPluginV3: unexpected exception"));
        return nullptr;
    }
}

} // namespace kiln
