// The per-thread verbose log (see verboseLog.h).
#include "core/verboseLog.h"

namespace kiln
{
namespace
{
thread_local Logger const* tVerboseLogger = nullptr;
} // namespace

Logger const* exchangeThreadVerboseLogger(Logger const* logger)
{
    Logger const* previous = tVerboseLogger;
    tVerboseLogger = logger;
    return previous;
}

void logThreadVerbose(std::string const& message)
{
    if (tVerboseLogger != nullptr)
    {
        tVerboseLogger->verbose(message);
    }
}

} // namespace kiln
