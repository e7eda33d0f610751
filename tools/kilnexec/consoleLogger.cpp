// ConsoleLogger implementation.
#include "consoleLogger.h"

#include <cstdio>

namespace kilnexec
{

void ConsoleLogger::log(Severity severity, char const* message) noexcept
{
    if (severity > mThreshold || message == nullptr)
    {
        return;
    }
    char const* tag = "[V] ";
    switch (severity)
    {
    case Severity::kINTERNAL_ERROR: tag = "[F] "; break;
    case Severity::kERROR: tag = "[E] "; break;
    case Severity::kWARNING: tag = "[W] "; break;
    case Severity::kINFO: tag = "[I] "; break;
    case Severity::kVERBOSE: tag = "[V] "; break;
    }
    std::fprintf(stderr, "%s%s\n", tag, message);
}

} // namespace kilnexec
