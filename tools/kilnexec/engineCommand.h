// kilnexec's engine command: build from --onnx (or read --loadEngine), save, load with the runtime, report layer
// information, run inference with timing and profiling, and write the report and exports. Prints trtexec's
// "&&&& RUNNING/PASSED/FAILED" lines around it.
#pragma once

#include "NvInferRuntime.h"
#include "options.h"

namespace kilnexec
{

//! Returns the process exit code (ExitCode).
int runEngineCommand(Options const& options, nvinfer1::ILogger& logger);

} // namespace kilnexec
