// NetworkDefinition: everything except the add<Kind> methods, which live beside each layer kind.
#include "network/networkDefinition.h"

#include "core/dataType.h"
#include "core/runtimeTypeInfo.h"

#include <algorithm>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::ITensor;

NetworkDefinition::NetworkDefinition(
    nvinfer1::IBuilder& builder, Logger& logger, nvinfer1::NetworkDefinitionCreationFlags flags)
    : mBuilder(builder)
    , mLogger(logger)
    , mFlags(flags)
    , mIncremental(std::make_unique<IncrementalAnalysis>(*this))
{
}

NetworkDefinition::~NetworkDefinition() noexcept
{
    mIncremental.reset();
    mLayers.clear();
    mTensors.clear();
}

bool NetworkDefinition::stronglyTyped() const
{
    return (mFlags & (1U << static_cast<uint32_t>(nvinfer1::NetworkDefinitionCreationFlag::kSTRONGLY_TYPED))) != 0;
}

void NetworkDefinition::reportError(Status const& status) const
{
    mLogger.report(status, mRecorder);
}

std::nullptr_t NetworkDefinition::notSupported(char const* api) const
{
    reportError(unsupported(std::string("INetworkDefinition::") + api
        + " is not supported by Kiln yet (the layer kind is declared for source compatibility only)"));
    return nullptr;
}

Tensor* NetworkDefinition::ownTensor(ITensor* t, char const* what) const
{
    if (t == nullptr)
    {
        reportError(invalidArgument(std::string(what) + " is null"));
        return nullptr;
    }
    auto* impl = safeDynamicCast<Tensor>(t);
    if (impl == nullptr || &impl->network() != this)
    {
        reportError(invalidArgument(std::string(what) + " '" + t->getName() + "' does not belong to this network"));
        return nullptr;
    }
    return impl;
}

Tensor* NetworkDefinition::ownTensor(ITensor const& t, char const* what) const
{
    return ownTensor(const_cast<ITensor*>(&t), what);
}

Tensor* NetworkDefinition::createTensor(std::string name)
{
    mTensors.push_back(std::make_unique<Tensor>(*this, std::move(name)));
    touch();
    return mTensors.back().get();
}

void NetworkDefinition::adoptLayer(std::unique_ptr<Layer> layer)
{
    std::string const name = "(Unnamed Layer* " + std::to_string(mLayers.size()) + ") ["
        + layerKindName(layer->kind()) + "]";
    layer->rename(name);
    auto const& outs = layer->outputs();
    for (size_t i = 0; i < outs.size(); ++i)
    {
        std::string tensorName = name + "_output";
        if (outs.size() > 1)
        {
            tensorName += "_" + std::to_string(i);
        }
        outs[i]->setName(tensorName.c_str());
    }
    Layer& added = *layer;
    mLayers.push_back(std::move(layer));
    touch();
    mIncremental->layerAdded(added);
}

void NetworkDefinition::layerChanged(Layer& layer)
{
    touch();
    mIncremental->layerChanged(layer);
}

void NetworkDefinition::tensorChanged(Tensor& tensor, bool rolesMayChange)
{
    touch();
    if (tensor.isInput())
    {
        mIncremental->inputChanged(tensor, rolesMayChange);
    }
    else if (Layer* producer = tensor.producer())
    {
        mIncremental->layerChanged(*producer); // names and user-set types of outputs are part of its inference
    }
}

void NetworkDefinition::removeLayer(Layer* layer)
{
    auto it = std::find_if(mLayers.begin(), mLayers.end(), [&](auto const& l) { return l.get() == layer; });
    if (it != mLayers.end())
    {
        mIncremental->layerRemoved(*layer);
        for (Tensor* out : layer->outputs())
        {
            out->setProducer(nullptr, 0);
        }
        mLayers.erase(it);
        touch();
    }
}

ITensor* NetworkDefinition::addInput(char const* name, DataType type, Dims const& dimensions) noexcept
{
    try
    {
        if (name == nullptr || name[0] == '\0')
        {
            reportError(invalidArgument("addInput: the input name must be a non-empty string"));
            return nullptr;
        }
        if (dimensions.nbDims < 0 || dimensions.nbDims > Dims::MAX_DIMS)
        {
            reportError(invalidArgument(std::string("addInput '") + name + "': invalid rank "
                + std::to_string(dimensions.nbDims)));
            return nullptr;
        }
        for (int32_t i = 0; i < dimensions.nbDims; ++i)
        {
            if (dimensions.d[i] < -1)
            {
                reportError(invalidArgument(std::string("addInput '") + name + "': dimension " + std::to_string(i)
                    + " is " + std::to_string(dimensions.d[i]) + " (use -1 for a runtime dimension)"));
                return nullptr;
            }
        }
        if (!isValidDataType(static_cast<int32_t>(type)) || elementSize(type) == 0)
        {
            reportError(invalidArgument(std::string("addInput '") + name + "': data type "
                + std::to_string(static_cast<int32_t>(type)) + " cannot be a network input on Kiln"));
            return nullptr;
        }
        for (Tensor const* in : mInputs)
        {
            if (in->name() == name)
            {
                reportError(invalidArgument(std::string("addInput: a network input named '") + name + "' already exists"));
                return nullptr;
            }
        }
        Tensor* t = createTensor(name);
        t->setIsInput(true);
        t->setType(type);
        t->setDimensions(dimensions);
        mInputs.push_back(t);
        touch();
        return t;
    }
    catch (...)
    {
        reportError(internalError("addInput: unexpected failure"));
        return nullptr;
    }
}

void NetworkDefinition::markOutput(ITensor& tensor) noexcept
{
    Tensor* t = ownTensor(&tensor, "markOutput tensor");
    if (t == nullptr)
    {
        return;
    }
    if (!t->isOutput())
    {
        t->setIsOutput(true);
        mOutputs.push_back(t);
        touch();
        mIncremental->outputMarked(*t, true);
    }
}

void NetworkDefinition::unmarkOutput(ITensor& tensor) noexcept
{
    Tensor* t = ownTensor(&tensor, "unmarkOutput tensor");
    if (t == nullptr)
    {
        return;
    }
    if (!t->isOutput())
    {
        reportError(invalidArgument("unmarkOutput: tensor '" + t->name() + "' is not a network output"));
        return;
    }
    t->setIsOutput(false);
    mOutputs.erase(std::remove(mOutputs.begin(), mOutputs.end(), t), mOutputs.end());
    touch();
    mIncremental->outputMarked(*t, false);
}

bool NetworkDefinition::markDebug(ITensor& tensor) noexcept
{
    Tensor* t = ownTensor(&tensor, "markDebug tensor");
    if (t == nullptr)
    {
        return false;
    }
    if (!isDebug(t))
    {
        mDebugTensors.push_back(t);
    }
    return true;
}

bool NetworkDefinition::unmarkDebug(ITensor& tensor) noexcept
{
    Tensor* t = ownTensor(&tensor, "unmarkDebug tensor");
    if (t == nullptr || !isDebug(t))
    {
        return false;
    }
    mDebugTensors.erase(std::remove(mDebugTensors.begin(), mDebugTensors.end(), t), mDebugTensors.end());
    return true;
}

bool NetworkDefinition::isDebug(Tensor const* t) const
{
    return std::find(mDebugTensors.begin(), mDebugTensors.end(), t) != mDebugTensors.end();
}

bool NetworkDefinition::isDebugTensor(ITensor const& tensor) const noexcept
{
    return isDebug(safeDynamicCast<Tensor const>(&tensor));
}

bool NetworkDefinition::markUnfusedTensorsAsDebugTensors() noexcept
{
    reportError(unsupported("markUnfusedTensorsAsDebugTensors is not supported by Kiln yet"));
    return false;
}

bool NetworkDefinition::unmarkUnfusedTensorsAsDebugTensors() noexcept
{
    reportError(unsupported("unmarkUnfusedTensorsAsDebugTensors is not supported by Kiln yet"));
    return false;
}

int32_t NetworkDefinition::getNbLayers() const noexcept
{
    return static_cast<int32_t>(mLayers.size());
}

nvinfer1::ILayer* NetworkDefinition::getLayer(int32_t index) const noexcept
{
    if (index < 0 || index >= getNbLayers())
    {
        return nullptr;
    }
    return mLayers[static_cast<size_t>(index)]->asILayer();
}

int32_t NetworkDefinition::getNbInputs() const noexcept
{
    return static_cast<int32_t>(mInputs.size());
}

ITensor* NetworkDefinition::getInput(int32_t index) const noexcept
{
    if (index < 0 || index >= getNbInputs())
    {
        return nullptr;
    }
    return mInputs[static_cast<size_t>(index)];
}

int32_t NetworkDefinition::getNbOutputs() const noexcept
{
    return static_cast<int32_t>(mOutputs.size());
}

ITensor* NetworkDefinition::getOutput(int32_t index) const noexcept
{
    if (index < 0 || index >= getNbOutputs())
    {
        return nullptr;
    }
    return mOutputs[static_cast<size_t>(index)];
}

void NetworkDefinition::removeTensor(ITensor& tensor) noexcept
{
    Tensor* t = ownTensor(&tensor, "removeTensor tensor");
    if (t == nullptr)
    {
        return;
    }
    // TensorRT only lets you remove network inputs and outputs from their role; consumers keep a dangling
    // reference that the builder reports.
    bool const wasInput = t->isInput();
    if (wasInput)
    {
        t->setIsInput(false);
        mInputs.erase(std::remove(mInputs.begin(), mInputs.end(), t), mInputs.end());
    }
    if (t->isOutput())
    {
        t->setIsOutput(false);
        mOutputs.erase(std::remove(mOutputs.begin(), mOutputs.end(), t), mOutputs.end());
    }
    touch();
    mIncremental->tensorRemoved(*t, wasInput);
}

void NetworkDefinition::setName(char const* name) noexcept
{
    mName = name != nullptr ? name : "";
}

char const* NetworkDefinition::getName() const noexcept
{
    return mName.c_str();
}

bool NetworkDefinition::hasImplicitBatchDimension() const noexcept
{
    return false;
}

nvinfer1::NetworkDefinitionCreationFlags NetworkDefinition::getFlags() const noexcept
{
    return mFlags;
}

bool NetworkDefinition::getFlag(nvinfer1::NetworkDefinitionCreationFlag flag) const noexcept
{
    return (mFlags & (1U << static_cast<uint32_t>(flag))) != 0;
}

bool NetworkDefinition::markOutputForShapes(ITensor& tensor) noexcept
{
    Tensor* t = ownTensor(&tensor, "markOutputForShapes tensor");
    if (t == nullptr)
    {
        return false;
    }
    reportError(unsupported("markOutputForShapes ('" + t->name() + "') is not supported by Kiln yet"));
    return false;
}

bool NetworkDefinition::unmarkOutputForShapes(ITensor& tensor) noexcept
{
    Tensor* t = ownTensor(&tensor, "unmarkOutputForShapes tensor");
    return t != nullptr && false;
}

bool NetworkDefinition::setWeightsName(nvinfer1::Weights, char const*) noexcept
{
    return true; // names only matter for refitting, which Kiln does not support yet
}

void NetworkDefinition::setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept
{
    if (recorder != nullptr)
    {
        recorder->incRefCount();
    }
    if (mRecorder != nullptr)
    {
        mRecorder->decRefCount();
    }
    mRecorder = recorder;
}

nvinfer1::IErrorRecorder* NetworkDefinition::getErrorRecorder() const noexcept
{
    return mRecorder;
}

nvinfer1::IBuilder& NetworkDefinition::getBuilder() const noexcept
{
    return mBuilder;
}

bool NetworkDefinition::markWeightsRefittable(char const* name) noexcept
{
    reportError(unsupported(std::string("markWeightsRefittable('") + (name ? name : "") + "'): refit is not supported by Kiln yet"));
    return false;
}

bool NetworkDefinition::unmarkWeightsRefittable(char const*) noexcept
{
    return false;
}

bool NetworkDefinition::areWeightsMarkedRefittable(char const*) const noexcept
{
    return false;
}

// ---- Layer kinds Kiln declares but does not implement yet ----
nvinfer1::IRaggedSoftMaxLayer* NetworkDefinition::addRaggedSoftMax(ITensor&, ITensor&) noexcept { return notSupported("addRaggedSoftMax"); }
nvinfer1::IDynamicQuantizeLayer* NetworkDefinition::addDynamicQuantize(ITensor&, int32_t, int32_t, DataType, DataType) noexcept { return notSupported("addDynamicQuantize"); }
nvinfer1::IDynamicQuantizeLayer* NetworkDefinition::addDynamicQuantizeV2(ITensor&, Dims const&, DataType, DataType) noexcept { return notSupported("addDynamicQuantizeV2"); }
nvinfer1::IAttention* NetworkDefinition::addAttention(ITensor&, ITensor&, ITensor&, nvinfer1::AttentionNormalizationOp, bool) noexcept { return notSupported("addAttention"); }
nvinfer1::IRotaryEmbeddingLayer* NetworkDefinition::addRotaryEmbedding(ITensor&, ITensor&, ITensor&, bool, int32_t) noexcept { return notSupported("addRotaryEmbedding"); }
nvinfer1::IKVCacheUpdateLayer* NetworkDefinition::addKVCacheUpdate(ITensor&, ITensor&, ITensor&, nvinfer1::KVCacheMode) noexcept { return notSupported("addKVCacheUpdate"); }
nvinfer1::IMoELayer* NetworkDefinition::addMoE(ITensor&, ITensor&, ITensor&) noexcept { return notSupported("addMoE"); }
nvinfer1::IDistCollectiveLayer* NetworkDefinition::addDistCollective(ITensor&, nvinfer1::CollectiveOperation, nvinfer1::ReduceOperation, int64_t, int64_t*, int64_t) noexcept { return notSupported("addDistCollective"); }

// ---- Lenient analysis for ITensor getters (incrementalAnalysis.h) ----
Dims NetworkDefinition::analysisDims(Tensor const& t) const
{
    Dims d{};
    d.nbDims = -1;
    TensorInfo const* info = mIncremental->info(t);
    if (info == nullptr || info->dims.size() > static_cast<size_t>(Dims::MAX_DIMS))
    {
        return d;
    }
    d.nbDims = static_cast<int32_t>(info->dims.size());
    for (size_t i = 0; i < info->dims.size(); ++i)
    {
        d.d[i] = info->dims[i].known();
    }
    return d;
}

DataType NetworkDefinition::analysisType(Tensor const& t) const
{
    TensorInfo const* info = mIncremental->info(t);
    return info == nullptr ? DataType::kFLOAT : info->type;
}

bool NetworkDefinition::analysisIsShapeTensor(Tensor const& t) const
{
    return mIncremental->isShapeTensor(t);
}

bool NetworkDefinition::analysisIsExecutionTensor(Tensor const& t) const
{
    return mIncremental->isExecutionTensor(t);
}

} // namespace kiln
