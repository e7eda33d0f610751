// The --checkPlugin command of kilnexec: runs kiln::checkPlugin on the global registry with the plugin options and
// prints the report.
#pragma once

#include "NvInferRuntime.h"
#include "options.h"

namespace kilnexec
{

//! Returns the process exit status: 0 no findings, 1 findings, 2 an unusable request.
int runCheckPlugin(Options const& options, nvinfer1::ILogger& logger);

} // namespace kilnexec
