// NetworkErrorCapture: while one ONNX node is imported, catches every error that the network API reports through
// the network's IErrorRecorder. TensorRT's layer setters return void and report a rejected value that way (the
// layer keeps its previous value), so an importer that only looked at return values would build a different model
// and report success. The capture forwards each error to the recorder the application set, so nothing it saw
// before changes; the graph importer turns a captured error into a parser error naming the node.
#pragma once

#include "NvInfer.h"

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace kiln
{

class NetworkErrorCapture final : public nvinfer1::IErrorRecorder
{
public:
    //! Installs the capture on `network` (keeping a reference to the recorder set before, to forward to).
    explicit NetworkErrorCapture(nvinfer1::INetworkDefinition& network);
    //! Puts the previous recorder back.
    ~NetworkErrorCapture() override;
    NetworkErrorCapture(NetworkErrorCapture const&) = delete;
    NetworkErrorCapture& operator=(NetworkErrorCapture const&) = delete;

    //! How many errors were reported since the capture was installed.
    int32_t reported() const { return mReported.load(); }
    //! Their texts, in order (an error whose text could not be kept for lack of memory is missing).
    std::vector<std::string> errors() const;

    int32_t getNbErrors() const noexcept override;
    nvinfer1::ErrorCode getErrorCode(int32_t errorIdx) const noexcept override;
    ErrorDesc getErrorDesc(int32_t errorIdx) const noexcept override;
    bool hasOverflowed() const noexcept override;
    void clear() noexcept override;
    bool reportError(nvinfer1::ErrorCode val, ErrorDesc desc) noexcept override;
    RefCount incRefCount() noexcept override;
    RefCount decRefCount() noexcept override;

private:
    nvinfer1::INetworkDefinition& mNetwork;
    nvinfer1::IErrorRecorder* mPrevious;
    mutable std::mutex mMutex;
    std::vector<std::pair<nvinfer1::ErrorCode, std::string>> mErrors;
    std::atomic<RefCount> mRefs{0};
    std::atomic<int32_t> mReported{0};
};

} // namespace kiln
