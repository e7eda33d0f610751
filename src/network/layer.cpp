// Layer: shared ILayer behaviour (naming, setInput, precision and output types).
#include "network/layer.h"

#include "network/networkDefinition.h"
#include "core/runtimeTypeInfo.h"

#include <algorithm>

namespace kiln
{
using nvinfer1::DataType;

Layer::Layer(NetworkDefinition& network, nvinfer1::LayerType kind, std::vector<Tensor*> inputs, int32_t nbOutputs)
    : mNetwork(network)
    , mKind(kind)
    , mInputs(std::move(inputs))
    , mMaxInputs(static_cast<int32_t>(mInputs.size()))
    , mOutputTypeSet(static_cast<size_t>(nbOutputs), 0)
    , mOutputTypes(static_cast<size_t>(nbOutputs), DataType::kFLOAT)
{
    for (int32_t i = 0; i < nbOutputs; ++i)
    {
        Tensor* t = network.createTensor("");
        t->setProducer(this, i);
        mOutputs.push_back(t);
    }
}

Layer::~Layer() = default;

void Layer::setNameImpl(char const* name)
{
    if (name == nullptr)
    {
        mNetwork.reportError(invalidArgument("ILayer::setName: name is null (layer '" + mName + "')"));
        return;
    }
    mName = name;
    touch();
}

bool Layer::setInputImpl(int32_t index, nvinfer1::ITensor& tensor)
{
    Tensor* t = mNetwork.ownTensor(&tensor, "ILayer::setInput tensor");
    if (t == nullptr)
    {
        return false;
    }
    int32_t const count = static_cast<int32_t>(mInputs.size());
    if (index < 0 || index >= mMaxInputs)
    {
        mNetwork.reportError(invalidArgument("ILayer::setInput on layer '" + mName + "': index " + std::to_string(index)
            + " is out of range (this layer takes at most " + std::to_string(mMaxInputs) + " inputs)"));
        return false;
    }
    // Slots between the current count and `index` stay absent (TensorRT lets e.g. ISliceLayer set input 5 first).
    if (index >= count)
    {
        mInputs.resize(static_cast<size_t>(index) + 1, nullptr);
    }
    mInputs[static_cast<size_t>(index)] = t;
    touch();
    return true;
}

nvinfer1::ITensor* Layer::inputImpl(int32_t index) const
{
    if (index < 0 || index >= static_cast<int32_t>(mInputs.size()))
    {
        return nullptr;
    }
    return mInputs[static_cast<size_t>(index)];
}

nvinfer1::ITensor* Layer::outputImpl(int32_t index) const
{
    if (index < 0 || index >= static_cast<int32_t>(mOutputs.size()))
    {
        return nullptr;
    }
    return mOutputs[static_cast<size_t>(index)];
}

void Layer::setPrecisionImpl(DataType t)
{
    if (mNetwork.stronglyTyped())
    {
        mNetwork.reportError(invalidArgument(
            "ILayer::setPrecision on layer '" + mName + "': not allowed in a strongly typed network"));
        return;
    }
    mPrecision = t;
    mPrecisionSet = true;
}

bool Layer::outputTypeSet(int32_t i) const
{
    return i >= 0 && static_cast<size_t>(i) < mOutputTypeSet.size() && mOutputTypeSet[static_cast<size_t>(i)] != 0;
}

DataType Layer::outputType(int32_t i) const
{
    if (i < 0 || static_cast<size_t>(i) >= mOutputTypes.size())
    {
        return DataType::kFLOAT;
    }
    if (!outputTypeSet(i))
    {
        return mOutputs[static_cast<size_t>(i)]->getType();
    }
    return mOutputTypes[static_cast<size_t>(i)];
}

void Layer::setOutputTypeImpl(int32_t index, DataType t)
{
    if (index < 0 || static_cast<size_t>(index) >= mOutputTypes.size())
    {
        mNetwork.reportError(invalidArgument("ILayer::setOutputType on layer '" + mName + "': output index "
            + std::to_string(index) + " is out of range"));
        return;
    }
    if (mNetwork.stronglyTyped())
    {
        // Reported now and remembered, so that building the network fails too (as the analysis checks).
        mNetwork.reportError(invalidArgument(
            "ILayer::setOutputType on layer '" + mName + "': not allowed in a strongly typed network"));
    }
    mOutputTypes[static_cast<size_t>(index)] = t;
    mOutputTypeSet[static_cast<size_t>(index)] = 1;
    touch();
}

void Layer::resetOutputTypeImpl(int32_t index)
{
    if (index >= 0 && static_cast<size_t>(index) < mOutputTypeSet.size())
    {
        mOutputTypeSet[static_cast<size_t>(index)] = 0;
        touch();
    }
}

void Layer::touch()
{
    mNetwork.layerChanged(*this);
}

Layer* toLayer(nvinfer1::ILayer const* layer)
{
    return safeDynamicCast<Layer>(const_cast<nvinfer1::ILayer*>(layer));
}

} // namespace kiln
