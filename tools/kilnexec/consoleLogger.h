// ConsoleLogger: kilnexec's nvinfer1::ILogger. Messages at or above the chosen severity go to stderr with a
// trtexec-like tag ("[E] ", "[W] ", "[I] ", "[V] ").
#pragma once

#include "NvInferRuntime.h"

namespace kilnexec
{

class ConsoleLogger final : public nvinfer1::ILogger
{
public:
    explicit ConsoleLogger(Severity threshold)
        : mThreshold(threshold)
    {
    }

    void log(Severity severity, char const* message) noexcept override;

private:
    Severity mThreshold;
};

} // namespace kilnexec
