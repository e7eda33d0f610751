// Layer: the internal state every layer kind shares (kind, name, inputs, outputs, attributes, weights,
// precision). LayerBase<I> implements nvinfer1::ILayer's methods for a layer interface I, so a layer kind
// only writes its own setters and getters, e.g.
//   class ConvolutionLayer final : public LayerBase<nvinfer1::IConvolutionLayer> { ... };
#pragma once

#include "NvInfer.h"
#include "core/attributes.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln
{
class NetworkDefinition;
class Tensor;

class Layer
{
public:
    //! Creates `nbOutputs` output tensors named "<name>_output_<i>" (TensorRT's "(Unnamed Layer* N) [Kind]_output").
    Layer(NetworkDefinition& network, nvinfer1::LayerType kind, std::vector<Tensor*> inputs, int32_t nbOutputs);
    virtual ~Layer();
    Layer(Layer const&) = delete;
    Layer& operator=(Layer const&) = delete;

    //! The public interface object of this layer (the LayerBase<I> subobject).
    virtual nvinfer1::ILayer* asILayer() = 0;

    NetworkDefinition& network() const { return mNetwork; }
    nvinfer1::LayerType kind() const { return mKind; }
    std::string const& name() const { return mName; }
    void rename(std::string name) { mName = std::move(name); }
    std::vector<Tensor*> const& inputs() const { return mInputs; }
    std::vector<Tensor*>& inputs() { return mInputs; }
    std::vector<Tensor*> const& outputs() const { return mOutputs; }
    Attributes& attrs() { return mAttrs; }
    Attributes const& attrs() const { return mAttrs; }
    //! Weights slots (e.g. kernel, bias); the user's memory must stay valid until the build, as in TensorRT.
    std::vector<nvinfer1::Weights>& weights() { return mWeights; }
    std::vector<nvinfer1::Weights> const& weights() const { return mWeights; }
    std::string const& metadata() const { return mMetadata; }

    //! How many input slots setInput may address (index == current count appends). Default: the initial count.
    int32_t maxInputs() const { return mMaxInputs; }
    void setMaxInputs(int32_t n) { mMaxInputs = n; }

    bool precisionSet() const { return mPrecisionSet; }
    nvinfer1::DataType precision() const { return mPrecision; }
    bool outputTypeSet(int32_t i) const;
    nvinfer1::DataType outputType(int32_t i) const;

    // Shared ILayer behaviour (called by LayerBase).
    void setNameImpl(char const* name);
    bool setInputImpl(int32_t index, nvinfer1::ITensor& tensor);
    nvinfer1::ITensor* inputImpl(int32_t index) const;
    nvinfer1::ITensor* outputImpl(int32_t index) const;
    void setPrecisionImpl(nvinfer1::DataType t);
    void resetPrecisionImpl() { mPrecisionSet = false; }
    void setOutputTypeImpl(int32_t index, nvinfer1::DataType t);
    void resetOutputTypeImpl(int32_t index);
    void setMetadataImpl(char const* metadata) { mMetadata = metadata ? metadata : ""; }
    //! Report a change to the network's analysis (this layer and what depends on it are re-inferred lazily);
    //! call from every setter that changes inputs, attributes, weights, shapes or types.
    void touch();

protected:
    NetworkDefinition& mNetwork;

private:
    nvinfer1::LayerType mKind;
    std::string mName;
    std::vector<Tensor*> mInputs;
    std::vector<Tensor*> mOutputs;
    Attributes mAttrs;
    std::vector<nvinfer1::Weights> mWeights;
    std::string mMetadata;
    int32_t mMaxInputs{0};
    bool mPrecisionSet{false};
    nvinfer1::DataType mPrecision{nvinfer1::DataType::kFLOAT};
    std::vector<int8_t> mOutputTypeSet;
    std::vector<nvinfer1::DataType> mOutputTypes;
    int32_t mNbRanks{1};

    template <typename I>
    friend class LayerBase;
};

template <typename I>
class LayerBase : public I, public Layer
{
public:
    LayerBase(NetworkDefinition& network, nvinfer1::LayerType kind, std::vector<Tensor*> inputs, int32_t nbOutputs)
        : Layer(network, kind, std::move(inputs), nbOutputs)
    {
    }

    nvinfer1::ILayer* asILayer() override { return this; }

    nvinfer1::LayerType getType() const noexcept override { return kind(); }
    void setName(char const* name) noexcept override { setNameImpl(name); }
    char const* getName() const noexcept override { return name().c_str(); }
    int32_t getNbInputs() const noexcept override { return static_cast<int32_t>(inputs().size()); }
    nvinfer1::ITensor* getInput(int32_t index) const noexcept override { return inputImpl(index); }
    int32_t getNbOutputs() const noexcept override { return static_cast<int32_t>(outputs().size()); }
    nvinfer1::ITensor* getOutput(int32_t index) const noexcept override { return outputImpl(index); }
    void setInput(int32_t index, nvinfer1::ITensor& tensor) noexcept override { setInputImpl(index, tensor); }
    void setPrecision(nvinfer1::DataType dataType) noexcept override { setPrecisionImpl(dataType); }
    nvinfer1::DataType getPrecision() const noexcept override { return precision(); }
    bool precisionIsSet() const noexcept override { return precisionSet(); }
    void resetPrecision() noexcept override { resetPrecisionImpl(); }
    void setOutputType(int32_t index, nvinfer1::DataType dataType) noexcept override
    {
        setOutputTypeImpl(index, dataType);
    }
    nvinfer1::DataType getOutputType(int32_t index) const noexcept override { return outputType(index); }
    bool outputTypeIsSet(int32_t index) const noexcept override { return outputTypeSet(index); }
    void resetOutputType(int32_t index) noexcept override { resetOutputTypeImpl(index); }
    void setMetadata(char const* metadata) noexcept override { setMetadataImpl(metadata); }
    char const* getMetadata() const noexcept override { return metadata().c_str(); }
    bool setNbRanks(int32_t nbRanks) noexcept override
    {
        if (nbRanks < 1)
        {
            return false;
        }
        mNbRanks = nbRanks;
        return true;
    }
    int32_t getNbRanks() const noexcept override { return mNbRanks; }
};

//! The internal Layer behind a public ILayer (nullptr for foreign objects).
Layer* toLayer(nvinfer1::ILayer const* layer);

} // namespace kiln
