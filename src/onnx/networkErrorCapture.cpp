// NetworkErrorCapture implementation: a forwarding IErrorRecorder installed on the network for one node's import.
#include "onnx/networkErrorCapture.h"

namespace kiln
{

NetworkErrorCapture::NetworkErrorCapture(nvinfer1::INetworkDefinition& network)
    : mNetwork(network)
    , mPrevious(network.getErrorRecorder())
{
    // Our own reference keeps the application's recorder alive while the network holds ours instead.
    if (mPrevious != nullptr)
    {
        mPrevious->incRefCount();
    }
    mNetwork.setErrorRecorder(this);
}

NetworkErrorCapture::~NetworkErrorCapture()
{
    mNetwork.setErrorRecorder(mPrevious);
    if (mPrevious != nullptr)
    {
        mPrevious->decRefCount();
    }
}

std::vector<std::string> NetworkErrorCapture::errors() const
{
    std::lock_guard<std::mutex> lock(mMutex);
    std::vector<std::string> out;
    for (auto const& e : mErrors)
    {
        out.push_back(e.second);
    }
    return out;
}

int32_t NetworkErrorCapture::getNbErrors() const noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    return static_cast<int32_t>(mErrors.size());
}

nvinfer1::ErrorCode NetworkErrorCapture::getErrorCode(int32_t errorIdx) const noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    if (errorIdx < 0 || static_cast<size_t>(errorIdx) >= mErrors.size())
    {
        return nvinfer1::ErrorCode::kINVALID_ARGUMENT;
    }
    return mErrors[static_cast<size_t>(errorIdx)].first;
}

nvinfer1::IErrorRecorder::ErrorDesc NetworkErrorCapture::getErrorDesc(int32_t errorIdx) const noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    if (errorIdx < 0 || static_cast<size_t>(errorIdx) >= mErrors.size())
    {
        return "";
    }
    return mErrors[static_cast<size_t>(errorIdx)].second.c_str();
}

bool NetworkErrorCapture::hasOverflowed() const noexcept
{
    return false;
}

void NetworkErrorCapture::clear() noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    mErrors.clear();
}

bool NetworkErrorCapture::reportError(nvinfer1::ErrorCode val, ErrorDesc desc) noexcept
{
    ++mReported;
    try
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mErrors.emplace_back(val, desc == nullptr ? std::string() : std::string(desc));
    }
    catch (...)
    {
        // Out of memory while keeping the text: the error still counts (reported()).
    }
    return mPrevious != nullptr && mPrevious->reportError(val, desc);
}

nvinfer1::IErrorRecorder::RefCount NetworkErrorCapture::incRefCount() noexcept
{
    return ++mRefs;
}

nvinfer1::IErrorRecorder::RefCount NetworkErrorCapture::decRefCount() noexcept
{
    return --mRefs;
}

} // namespace kiln
