// Logger implementation.
#include "core/logging.h"

namespace kiln
{

void Logger::log(nvinfer1::ILogger::Severity severity, std::string const& message) const
{
    if (mLogger == nullptr)
    {
        return;
    }
    std::lock_guard<std::mutex> lock(mMutex);
    try
    {
        mLogger->log(severity, message.c_str());
    }
    catch (...)
    {
        // A user logger that throws must not take the engine down.
    }
}

void recordError(nvinfer1::IErrorRecorder* recorder, nvinfer1::ErrorCode code, std::string const& message)
{
    if (recorder == nullptr)
    {
        return;
    }
    try
    {
        // Keep the description within the documented bound; the full text goes to the logger.
        std::string desc = message.substr(0, static_cast<size_t>(nvinfer1::IErrorRecorder::kMAX_DESC_LENGTH));
        recorder->reportError(code, desc.c_str());
    }
    catch (...)
    {
    }
}

void Logger::report(Status const& status, nvinfer1::IErrorRecorder* recorder) const
{
    if (status.isOk())
    {
        return;
    }
    error(status.message());
    recordError(recorder, status.code(), status.message());
}

} // namespace kiln
