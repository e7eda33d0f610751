// Tensor: Kiln's implementation of nvinfer1::ITensor inside a network definition.
#pragma once

#include "NvInfer.h"

#include <string>
#include <vector>

namespace kiln
{
class NetworkDefinition;
class Layer;

class Tensor final : public nvinfer1::ITensor
{
public:
    Tensor(NetworkDefinition& network, std::string name);
    ~Tensor() noexcept override = default;

    // nvinfer1::ITensor
    void setName(char const* name) noexcept override;
    char const* getName() const noexcept override;
    void setDimensions(nvinfer1::Dims const& dimensions) noexcept override;
    nvinfer1::Dims getDimensions() const noexcept override;
    void setType(nvinfer1::DataType type) noexcept override;
    nvinfer1::DataType getType() const noexcept override;
    bool setDynamicRange(float min, float max) noexcept override;
    bool isNetworkInput() const noexcept override;
    bool isNetworkOutput() const noexcept override;
    void setBroadcastAcrossBatch(bool broadcastAcrossBatch) noexcept override;
    bool getBroadcastAcrossBatch() const noexcept override;
    nvinfer1::TensorLocation getLocation() const noexcept override;
    void setLocation(nvinfer1::TensorLocation location) noexcept override;
    bool dynamicRangeIsSet() const noexcept override;
    void resetDynamicRange() noexcept override;
    float getDynamicRangeMin() const noexcept override;
    float getDynamicRangeMax() const noexcept override;
    void setAllowedFormats(nvinfer1::TensorFormats formats) noexcept override;
    nvinfer1::TensorFormats getAllowedFormats() const noexcept override;
    bool isShapeTensor() const noexcept override;
    bool isExecutionTensor() const noexcept override;
    void setDimensionName(int32_t index, char const* name) noexcept override;
    char const* getDimensionName(int32_t index) const noexcept override;

    // Internal state (read by the network analysis and the builder).
    NetworkDefinition& network() const { return mNetwork; }
    std::string const& name() const { return mName; }
    Layer* producer() const { return mProducer; }
    int32_t producerOutput() const { return mProducerOutput; }
    void setProducer(Layer* layer, int32_t outputIndex)
    {
        mProducer = layer;
        mProducerOutput = outputIndex;
    }
    bool isInput() const { return mIsInput; }
    void setIsInput(bool v) { mIsInput = v; }
    bool isOutput() const { return mIsOutput; }
    void setIsOutput(bool v) { mIsOutput = v; }
    bool isOutputForShapes() const { return mIsOutputForShapes; }
    void setIsOutputForShapes(bool v) { mIsOutputForShapes = v; }
    //! Declared type/dims of a network input, or the type requested for an output with setType.
    nvinfer1::DataType declaredType() const { return mType; }
    bool typeSetByUser() const { return mTypeSet; }
    void setDeclaredType(nvinfer1::DataType t) { mType = t; }
    nvinfer1::Dims const& declaredDims() const { return mDims; }
    std::vector<std::string> const& dimensionNames() const { return mDimNames; }

private:
    NetworkDefinition& mNetwork;
    std::string mName;
    nvinfer1::DataType mType{nvinfer1::DataType::kFLOAT};
    bool mTypeSet{false};
    nvinfer1::Dims mDims{};
    std::vector<std::string> mDimNames;
    Layer* mProducer{nullptr};
    int32_t mProducerOutput{0};
    bool mIsInput{false};
    bool mIsOutput{false};
    bool mIsOutputForShapes{false};
    bool mDynamicRangeSet{false};
    float mRangeMin{0.F};
    float mRangeMax{0.F};
    nvinfer1::TensorLocation mLocation{nvinfer1::TensorLocation::kDEVICE};
    nvinfer1::TensorFormats mAllowedFormats{~0U};
    bool mBroadcastAcrossBatch{false};
};

} // namespace kiln
