// Logger: forwards Kiln's messages to the user's nvinfer1::ILogger and failures to an IErrorRecorder.
#pragma once

#include "NvInferRuntime.h"
#include "core/status.h"

#include <mutex>
#include <string>

namespace kiln
{

class Logger
{
public:
    explicit Logger(nvinfer1::ILogger* logger)
        : mLogger(logger)
    {
    }

    nvinfer1::ILogger* user() const { return mLogger; }
    void log(nvinfer1::ILogger::Severity severity, std::string const& message) const;
    void error(std::string const& message) const { log(nvinfer1::ILogger::Severity::kERROR, message); }
    void warning(std::string const& message) const { log(nvinfer1::ILogger::Severity::kWARNING, message); }
    void info(std::string const& message) const { log(nvinfer1::ILogger::Severity::kINFO, message); }
    void verbose(std::string const& message) const { log(nvinfer1::ILogger::Severity::kVERBOSE, message); }
    //! Log a failed status as an error and give it to `recorder` (if any). Does nothing for OK.
    void report(Status const& status, nvinfer1::IErrorRecorder* recorder) const;

private:
    nvinfer1::ILogger* mLogger;
    mutable std::mutex mMutex;
};

//! Report to an error recorder, truncating the description to IErrorRecorder::kMAX_DESC_LENGTH as TensorRT does.
void recordError(nvinfer1::IErrorRecorder* recorder, nvinfer1::ErrorCode code, std::string const& message);

} // namespace kiln
