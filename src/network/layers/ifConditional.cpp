// IfConditional (IIfConditional) and INetworkDefinition::addIfConditional.
#include "network/layers/ifConditional.h"

#include "network/layers/conditionLayer.h"
#include "network/networkDefinition.h"

namespace kiln
{

IfConditional::IfConditional(NetworkDefinition& network, int32_t index)
    : mNetwork(network)
    , mName("(Unnamed Conditional " + std::to_string(index) + ")")
{
}

nvinfer1::IConditionLayer* IfConditional::setCondition(nvinfer1::ITensor& condition) noexcept
{
    try
    {
        Tensor* cond = mNetwork.ownTensor(&condition, (label() + ": setCondition tensor").c_str());
        if (cond == nullptr)
        {
            return nullptr;
        }
        if (mConditionLayer != nullptr)
        {
            mNetwork.reportError(invalidArgument(label() + ": setCondition was already called (condition layer '"
                + mConditionLayer->name() + "'); a conditional has exactly one condition"));
            return nullptr;
        }
        auto* layer = mNetwork.adopt(std::make_unique<ConditionLayer>(mNetwork, *this, cond));
        layer->attrs().setString("conditional", mName);
        mConditionLayer = layer;
        mCondition = cond;
        mLayers.push_back(layer);
        for (Layer* l : mLayers)
        {
            if (auto* out = dynamic_cast<ConditionalOutputLayer*>(l))
            {
                out->bindCondition(cond);
            }
        }
        return layer;
    }
    catch (...)
    {
        mNetwork.reportError(internalError(label() + ": setCondition: unexpected exception"));
        return nullptr;
    }
}

nvinfer1::IIfConditionalOutputLayer* IfConditional::addOutput(
    nvinfer1::ITensor& trueSubgraphOutput, nvinfer1::ITensor& falseSubgraphOutput) noexcept
{
    try
    {
        Tensor* t = mNetwork.ownTensor(&trueSubgraphOutput, (label() + ": addOutput true-branch tensor").c_str());
        Tensor* f = mNetwork.ownTensor(&falseSubgraphOutput, (label() + ": addOutput false-branch tensor").c_str());
        if (t == nullptr || f == nullptr)
        {
            return nullptr;
        }
        auto* layer = mNetwork.adopt(std::make_unique<ConditionalOutputLayer>(mNetwork, *this, t, f, mCondition));
        layer->attrs().setString("conditional", mName);
        mLayers.push_back(layer);
        return layer;
    }
    catch (...)
    {
        mNetwork.reportError(internalError(label() + ": addOutput: unexpected exception"));
        return nullptr;
    }
}

nvinfer1::IIfConditionalInputLayer* IfConditional::addInput(nvinfer1::ITensor& input) noexcept
{
    try
    {
        Tensor* in = mNetwork.ownTensor(&input, (label() + ": addInput tensor").c_str());
        if (in == nullptr)
        {
            return nullptr;
        }
        auto* layer = mNetwork.adopt(std::make_unique<ConditionalInputLayer>(mNetwork, *this, in));
        layer->attrs().setString("conditional", mName);
        mLayers.push_back(layer);
        return layer;
    }
    catch (...)
    {
        mNetwork.reportError(internalError(label() + ": addInput: unexpected exception"));
        return nullptr;
    }
}

void IfConditional::setName(char const* name) noexcept
{
    if (name == nullptr)
    {
        mNetwork.reportError(invalidArgument(label() + ": IIfConditional::setName: name is null"));
        return;
    }
    mName = name;
    for (Layer* l : mLayers)
    {
        l->attrs().setString("conditional", mName);
    }
    mNetwork.touch();
}

char const* IfConditional::getName() const noexcept
{
    return mName.c_str();
}

IfConditional* conditionalOf(Layer const& layer)
{
    auto* boundary = dynamic_cast<nvinfer1::IIfConditionalBoundaryLayer*>(const_cast<Layer&>(layer).asILayer());
    return boundary == nullptr ? nullptr : static_cast<IfConditional*>(boundary->getConditional());
}

nvinfer1::IIfConditional* NetworkDefinition::addIfConditional() noexcept
{
    try
    {
        auto conditional = std::make_shared<IfConditional>(*this, nbControlFlowObjects());
        IfConditional* raw = conditional.get();
        keepControlFlow(std::move(conditional));
        return raw;
    }
    catch (...)
    {
        reportError(internalError("addIfConditional: unexpected exception"));
        return nullptr;
    }
}

} // namespace kiln
