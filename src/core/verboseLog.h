// A per-thread verbose log for library code that has no logger of its own (the CUDA kernels' autotuning): the
// builder installs its logger for the duration of a build (through Backend::exchangeVerboseLogger, since a backend
// module holds its own copy of this state), and messages go to it at kVERBOSE.
#pragma once

#include "core/logging.h"

#include <string>

namespace kiln
{

//! Makes `logger` (may be nullptr) this thread's verbose log and returns the previous one.
Logger const* exchangeThreadVerboseLogger(Logger const* logger);

//! Writes `message` at kVERBOSE to this thread's verbose log, if any (else drops it).
void logThreadVerbose(std::string const& message);

} // namespace kiln
