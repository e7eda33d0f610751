// Tensor: ITensor methods. Dimensions of non-input tensors come from the network's incremental analysis, told of
// every change through NetworkDefinition::tensorChanged.
#include "network/tensor.h"

#include "network/networkAnalysis.h"
#include "network/networkDefinition.h"

#include <cmath>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::Dims;

Tensor::Tensor(NetworkDefinition& network, std::string name)
    : mNetwork(network)
    , mName(std::move(name))
{
    mDims.nbDims = 0;
}

void Tensor::setName(char const* name) noexcept
{
    if (name == nullptr)
    {
        mNetwork.reportError(invalidArgument("ITensor::setName: name is null"));
        return;
    }
    mName = name;
    mNetwork.tensorChanged(*this, /*rolesMayChange=*/false);
}

char const* Tensor::getName() const noexcept
{
    return mName.c_str();
}

void Tensor::setDimensions(Dims const& dimensions) noexcept
{
    if (!mIsInput)
    {
        mNetwork.reportError(invalidArgument(
            "ITensor::setDimensions on '" + mName + "': only network input dimensions can be set"));
        return;
    }
    if (dimensions.nbDims < 0 || dimensions.nbDims > Dims::MAX_DIMS)
    {
        mNetwork.reportError(invalidArgument("ITensor::setDimensions on '" + mName + "': invalid rank "
            + std::to_string(dimensions.nbDims)));
        return;
    }
    for (int32_t i = 0; i < dimensions.nbDims; ++i)
    {
        if (dimensions.d[i] < -1)
        {
            mNetwork.reportError(invalidArgument("ITensor::setDimensions on '" + mName + "': dimension "
                + std::to_string(i) + " is " + std::to_string(dimensions.d[i]) + " (use -1 for a runtime dimension)"));
            return;
        }
    }
    mDims = dimensions;
    mDimNames.resize(static_cast<size_t>(dimensions.nbDims));
    mNetwork.tensorChanged(*this, /*rolesMayChange=*/true);
}

Dims Tensor::getDimensions() const noexcept
{
    if (mIsInput)
    {
        return mDims;
    }
    return mNetwork.analysisDims(*this);
}

void Tensor::setType(DataType type) noexcept
{
    if (mIsInput)
    {
        mType = type;
        mNetwork.tensorChanged(*this, /*rolesMayChange=*/true);
        return;
    }
    if (mNetwork.stronglyTyped())
    {
        mNetwork.reportError(invalidArgument("ITensor::setType on '" + mName
            + "': types of non-input tensors cannot be set in a strongly typed network"));
        return;
    }
    mType = type;
    mTypeSet = true;
    mNetwork.tensorChanged(*this, /*rolesMayChange=*/true);
}

DataType Tensor::getType() const noexcept
{
    if (mIsInput || mTypeSet)
    {
        return mType;
    }
    return mNetwork.analysisType(*this);
}

bool Tensor::setDynamicRange(float min, float max) noexcept
{
    if (!(min <= max) || std::isnan(min) || std::isnan(max))
    {
        mNetwork.reportError(invalidArgument("ITensor::setDynamicRange on '" + mName + "': min must be <= max"));
        return false;
    }
    mDynamicRangeSet = true;
    mRangeMin = min;
    mRangeMax = max;
    return true;
}

bool Tensor::isNetworkInput() const noexcept
{
    return mIsInput;
}

bool Tensor::isNetworkOutput() const noexcept
{
    return mIsOutput;
}

void Tensor::setBroadcastAcrossBatch(bool broadcastAcrossBatch) noexcept
{
    mBroadcastAcrossBatch = broadcastAcrossBatch;
}

bool Tensor::getBroadcastAcrossBatch() const noexcept
{
    return mBroadcastAcrossBatch;
}

nvinfer1::TensorLocation Tensor::getLocation() const noexcept
{
    return mLocation;
}

void Tensor::setLocation(nvinfer1::TensorLocation location) noexcept
{
    mLocation = location;
}

bool Tensor::dynamicRangeIsSet() const noexcept
{
    return mDynamicRangeSet;
}

void Tensor::resetDynamicRange() noexcept
{
    mDynamicRangeSet = false;
}

float Tensor::getDynamicRangeMin() const noexcept
{
    return mRangeMin;
}

float Tensor::getDynamicRangeMax() const noexcept
{
    return mRangeMax;
}

void Tensor::setAllowedFormats(nvinfer1::TensorFormats formats) noexcept
{
    mAllowedFormats = formats;
}

nvinfer1::TensorFormats Tensor::getAllowedFormats() const noexcept
{
    return mAllowedFormats;
}

bool Tensor::isShapeTensor() const noexcept
{
    return mNetwork.analysisIsShapeTensor(*this);
}

bool Tensor::isExecutionTensor() const noexcept
{
    return mNetwork.analysisIsExecutionTensor(*this);
}

void Tensor::setDimensionName(int32_t index, char const* name) noexcept
{
    if (!mIsInput || index < 0 || index >= mDims.nbDims)
    {
        mNetwork.reportError(invalidArgument("ITensor::setDimensionName on '" + mName + "': index "
            + std::to_string(index) + " is not a dimension of a network input"));
        return;
    }
    mDimNames.resize(static_cast<size_t>(mDims.nbDims));
    mDimNames[static_cast<size_t>(index)] = name != nullptr ? name : "";
    mNetwork.tensorChanged(*this, /*rolesMayChange=*/false);
}

char const* Tensor::getDimensionName(int32_t index) const noexcept
{
    if (index < 0 || static_cast<size_t>(index) >= mDimNames.size() || mDimNames[static_cast<size_t>(index)].empty())
    {
        return nullptr;
    }
    return mDimNames[static_cast<size_t>(index)].c_str();
}

} // namespace kiln
