// ImporterContextImpl: value table, lazy initializers, constant materialisation and layer naming for one import.
#include "onnx/importerContextImpl.h"

#include "onnx/onnxAttributes.h"
#include "onnx/tensorConversion.h"

namespace kiln
{

ImporterContextImpl::ImporterContextImpl(
    nvinfer1::INetworkDefinition& network, nvinfer1::ILogger* logger, WeightStore& weights)
    : mNetwork(network)
    , mLogger(logger)
    , mWeights(weights)
{
}

int64_t ImporterContextImpl::opsetVersion(std::string const& domain) const
{
    std::string const key = domain == "ai.onnx" ? std::string() : domain;
    auto const it = mOpsets.find(key);
    return it == mOpsets.end() ? 0 : it->second;
}

void ImporterContextImpl::setOpsets(std::map<std::string, int64_t> opsets)
{
    mOpsets = std::move(opsets);
    mDefaultOpset = opsetVersion("");
}

bool ImporterContextImpl::hasInput(::onnx::NodeProto const& node, int32_t index) const
{
    return index >= 0 && index < node.input_size() && !node.input(index).empty();
}

void ImporterContextImpl::addInitializer(::onnx::TensorProto const* tensor, std::vector<uint8_t> const* external)
{
    PendingInitializer p;
    p.proto = tensor;
    p.external = external;
    mInitializers[tensor->name()] = p;
}

void ImporterContextImpl::overrideInitializer(std::string const& name, void const* data, size_t size)
{
    auto it = mInitializers.find(name);
    if (it != mInitializers.end())
    {
        it->second.overrideData = data;
        it->second.overrideSize = size;
    }
}

void ImporterContextImpl::bind(std::string const& name, OnnxValue value)
{
    if (value.tensor != nullptr && mTensorNames.find(value.tensor) == mTensorNames.end())
    {
        mTensorNames[value.tensor] = name;
    }
    mValues[name] = std::move(value);
}

bool ImporterContextImpl::isDefined(std::string const& name) const
{
    return mValues.count(name) != 0 || mInitializers.count(name) != 0;
}

StatusOr<OnnxValue> ImporterContextImpl::lookup(std::string const& name)
{
    auto const it = mValues.find(name);
    if (it != mValues.end())
    {
        return it->second;
    }
    auto const init = mInitializers.find(name);
    if (init == mInitializers.end())
    {
        return invalidArgument("value '" + name + "' is not defined");
    }
    PendingInitializer const& p = init->second;
    std::string const what = "initializer '" + name + "'";
    auto converted = p.overrideData != nullptr ? convertTensorBytes(*p.proto, p.overrideData, p.overrideSize, what)
                                               : convertTensorProto(*p.proto, p.external, what);
    if (!converted.isOk())
    {
        return converted.status();
    }
    OnnxValue value;
    value.constant = keep(std::move(converted).value());
    mValues[name] = value;
    return value;
}

StatusOr<nvinfer1::ITensor*> ImporterContextImpl::materialise(std::string const& name)
{
    KILN_ASSIGN_OR_RETURN(OnnxValue value, lookup(name));
    if (value.tensor != nullptr)
    {
        return value.tensor;
    }
    if (value.constant == nullptr)
    {
        return invalidArgument("value '" + name + "' is an optional value the model left out");
    }
    KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * t, constantTensor(*value.constant, name));
    value.tensor = t;
    bind(name, value);
    return t;
}

StatusOr<nvinfer1::ITensor*> ImporterContextImpl::tensor(::onnx::NodeProto const& node, int32_t index)
{
    if (!hasInput(node, index))
    {
        return invalidArgument(describeNode(node) + ": input " + std::to_string(index) + " is missing");
    }
    auto t = materialise(node.input(index));
    if (!t.isOk())
    {
        return t.status().withContext(describeNode(node) + ": input " + std::to_string(index));
    }
    return *t;
}

OnnxConstant const* ImporterContextImpl::constant(::onnx::NodeProto const& node, int32_t index) const
{
    if (!hasInput(node, index))
    {
        return nullptr;
    }
    auto value = const_cast<ImporterContextImpl*>(this)->lookup(node.input(index));
    return value.isOk() ? value->constant.get() : nullptr;
}

std::shared_ptr<OnnxConstant const> ImporterContextImpl::keep(OnnxConstant const& constant)
{
    return keep(OnnxConstant(constant));
}

std::shared_ptr<OnnxConstant const> ImporterContextImpl::keep(OnnxConstant&& constant)
{
    auto kept = std::make_shared<OnnxConstant const>(std::move(constant));
    mWeights.push_back(kept);
    mKept[kept.get()] = kept;
    return kept;
}

nvinfer1::Weights ImporterContextImpl::layerWeights(OnnxConstant const& value)
{
    auto const found = mKept.find(&value);
    return (found != mKept.end() ? found->second : keep(value))->weights();
}

StatusOr<nvinfer1::ITensor*> ImporterContextImpl::constantTensor(OnnxConstant const& value, std::string const& nameHint)
{
    KILN_ASSIGN_OR_RETURN(nvinfer1::Dims dims, value.dims());
    // Constants that already live in the store are used in place; others are copied into it.
    auto const found = mKept.find(&value);
    std::shared_ptr<OnnxConstant const> kept = found != mKept.end() ? found->second : keep(value);
    auto* layer = mNetwork.addConstant(dims, kept->weights());
    if (layer == nullptr)
    {
        return invalidArgument("INetworkDefinition::addConstant refused constant '" + nameHint + "'");
    }
    std::string const name = uniqueLayerName(nameHint);
    layer->setName(name.c_str());
    layer->getOutput(0)->setName(name.c_str());
    return layer->getOutput(0);
}

void ImporterContextImpl::nameLayer(nvinfer1::ILayer* layer, ::onnx::NodeProto const& node, std::string const& suffix)
{
    if (layer == nullptr)
    {
        return;
    }
    std::string base = node.name();
    if (base.empty())
    {
        base = node.output_size() > 0 && !node.output(0).empty() ? node.output(0) : node.op_type();
    }
    if (!suffix.empty())
    {
        base += "_" + suffix;
    }
    layer->setName(uniqueLayerName(base).c_str());
}

std::string ImporterContextImpl::uniqueLayerName(std::string const& base)
{
    // "<base>", else "<base>_<i>" with the smallest free i. Names are never released, so the search for a base
    // resumes where it stopped last time (a hint used thousands of times stays linear).
    std::string name = base;
    if (mLayerNames.count(name) != 0)
    {
        int& next = mNextSuffix.try_emplace(base, 1).first->second;
        do
        {
            name = base + "_" + std::to_string(next++);
        } while (mLayerNames.count(name) != 0);
    }
    mLayerNames.insert(name);
    return name;
}

void ImporterContextImpl::warn(::onnx::NodeProto const& node, std::string const& message)
{
    log(nvinfer1::ILogger::Severity::kWARNING, "ONNX " + describeNode(node) + ": " + message);
}

std::string const* ImporterContextImpl::nameOf(nvinfer1::ITensor const* t) const
{
    auto const it = mTensorNames.find(t);
    return it == mTensorNames.end() ? nullptr : &it->second;
}

void ImporterContextImpl::log(nvinfer1::ILogger::Severity severity, std::string const& message) const
{
    if (mLogger == nullptr)
    {
        return;
    }
    try
    {
        mLogger->log(severity, message.c_str());
    }
    catch (...)
    {
    }
}

} // namespace kiln
