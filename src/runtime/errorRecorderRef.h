// ErrorRecorderRef: holds an application's IErrorRecorder the way TensorRT objects do — incRefCount() when an
// object starts using it, decRefCount() when it stops (replaced, cleared or the object is destroyed).
#pragma once

#include "NvInferRuntimeBase.h"

namespace kiln
{

class ErrorRecorderRef
{
public:
    ErrorRecorderRef() = default;
    explicit ErrorRecorderRef(nvinfer1::IErrorRecorder* recorder) { set(recorder); }
    ~ErrorRecorderRef() { set(nullptr); }
    ErrorRecorderRef(ErrorRecorderRef const&) = delete;
    ErrorRecorderRef& operator=(ErrorRecorderRef const&) = delete;

    void set(nvinfer1::IErrorRecorder* recorder) noexcept
    {
        if (recorder == mRecorder)
        {
            return;
        }
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
    nvinfer1::IErrorRecorder* get() const noexcept { return mRecorder; }

private:
    nvinfer1::IErrorRecorder* mRecorder{nullptr};
};

} // namespace kiln
