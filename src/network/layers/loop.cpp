// Loop (ILoop) and INetworkDefinition::addLoop: creates the loop boundary layers and keeps track of them.
#include "network/layers/loop.h"

#include "network/layers/iteratorLayer.h"
#include "network/layers/loopOutputLayer.h"
#include "network/layers/recurrenceLayer.h"
#include "network/layers/tripLimitLayer.h"
#include "network/networkDefinition.h"

namespace kiln
{

Loop::Loop(NetworkDefinition& network, int32_t index)
    : mNetwork(network)
    , mName("(Unnamed Loop " + std::to_string(index) + ")")
{
}

template <typename L>
L* Loop::keep(L* layer)
{
    if (layer != nullptr)
    {
        layer->attrs().setString("loop", mName);
        mLayers.push_back(layer);
    }
    return layer;
}

nvinfer1::IRecurrenceLayer* Loop::addRecurrence(nvinfer1::ITensor& initialValue) noexcept
{
    try
    {
        Tensor* in = mNetwork.ownTensor(&initialValue, (label() + ": addRecurrence initial value").c_str());
        if (in == nullptr)
        {
            return nullptr;
        }
        return keep(mNetwork.adopt(std::make_unique<RecurrenceLayer>(mNetwork, *this, in)));
    }
    catch (...)
    {
        mNetwork.reportError(internalError(label() + ": addRecurrence: unexpected exception"));
        return nullptr;
    }
}

nvinfer1::ITripLimitLayer* Loop::addTripLimit(nvinfer1::ITensor& tensor, nvinfer1::TripLimit limit) noexcept
{
    try
    {
        Tensor* in = mNetwork.ownTensor(&tensor, (label() + ": addTripLimit tensor").c_str());
        if (in == nullptr)
        {
            return nullptr;
        }
        if (limit != nvinfer1::TripLimit::kCOUNT && limit != nvinfer1::TripLimit::kWHILE)
        {
            mNetwork.reportError(invalidArgument(label() + ": addTripLimit: invalid TripLimit "
                + std::to_string(static_cast<int32_t>(limit))));
            return nullptr;
        }
        for (Layer const* l : mLayers)
        {
            auto const* t = dynamic_cast<TripLimitLayer const*>(l);
            if (t != nullptr && t->getTripLimit() == limit)
            {
                mNetwork.reportError(invalidArgument(label() + ": addTripLimit: the loop already has a "
                    + (limit == nvinfer1::TripLimit::kCOUNT ? "kCOUNT" : "kWHILE") + " trip limit ('" + l->name()
                    + "'); a loop takes at most one of each kind"));
                return nullptr;
            }
        }
        return keep(mNetwork.adopt(std::make_unique<TripLimitLayer>(mNetwork, *this, in, limit)));
    }
    catch (...)
    {
        mNetwork.reportError(internalError(label() + ": addTripLimit: unexpected exception"));
        return nullptr;
    }
}

nvinfer1::IIteratorLayer* Loop::addIterator(nvinfer1::ITensor& tensor, int32_t axis, bool reverse) noexcept
{
    try
    {
        Tensor* in = mNetwork.ownTensor(&tensor, (label() + ": addIterator tensor").c_str());
        if (in == nullptr)
        {
            return nullptr;
        }
        return keep(mNetwork.adopt(std::make_unique<IteratorLayer>(mNetwork, *this, in, axis, reverse)));
    }
    catch (...)
    {
        mNetwork.reportError(internalError(label() + ": addIterator: unexpected exception"));
        return nullptr;
    }
}

nvinfer1::ILoopOutputLayer* Loop::addLoopOutput(
    nvinfer1::ITensor& tensor, nvinfer1::LoopOutput outputKind, int32_t axis) noexcept
{
    try
    {
        Tensor* in = mNetwork.ownTensor(&tensor, (label() + ": addLoopOutput tensor").c_str());
        if (in == nullptr)
        {
            return nullptr;
        }
        auto const k = static_cast<int32_t>(outputKind);
        if (k < 0 || k >= nvinfer1::EnumMax<nvinfer1::LoopOutput>())
        {
            mNetwork.reportError(invalidArgument(label() + ": addLoopOutput: invalid LoopOutput " + std::to_string(k)));
            return nullptr;
        }
        return keep(mNetwork.adopt(std::make_unique<LoopOutputLayer>(mNetwork, *this, in, outputKind, axis)));
    }
    catch (...)
    {
        mNetwork.reportError(internalError(label() + ": addLoopOutput: unexpected exception"));
        return nullptr;
    }
}

void Loop::setName(char const* name) noexcept
{
    if (name == nullptr)
    {
        mNetwork.reportError(invalidArgument(label() + ": ILoop::setName: name is null"));
        return;
    }
    mName = name;
    for (Layer* l : mLayers)
    {
        l->attrs().setString("loop", mName);
    }
    mNetwork.touch();
}

char const* Loop::getName() const noexcept
{
    return mName.c_str();
}

Loop* loopOf(Layer const& layer)
{
    auto* boundary = dynamic_cast<nvinfer1::ILoopBoundaryLayer*>(const_cast<Layer&>(layer).asILayer());
    return boundary == nullptr ? nullptr : static_cast<Loop*>(boundary->getLoop());
}

nvinfer1::ILoop* NetworkDefinition::addLoop() noexcept
{
    try
    {
        auto loop = std::make_shared<Loop>(*this, nbControlFlowObjects());
        Loop* raw = loop.get();
        keepControlFlow(std::move(loop));
        return raw;
    }
    catch (...)
    {
        reportError(internalError("addLoop: unexpected exception"));
        return nullptr;
    }
}

} // namespace kiln
