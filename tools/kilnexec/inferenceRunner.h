// The inference loop of kilnexec, as trtexec runs it: warm-up for --warmUp ms, then timed runs until both
// --iterations runs and --duration seconds are done, each run timed through enqueueV3 on the CPU backend's
// synchronous stream; per-layer times through IProfiler (--dumpProfile/--exportProfile), in the timed runs or in a
// separate run (--separateProfileRun).
#pragma once

#include "NvInferRuntime.h"
#include "options.h"

#include <map>
#include <string>
#include <vector>

namespace kilnexec
{

//! One timed run, in ms since the start of the timed runs. On the CPU backend the host memory is the device
//! memory, so H2D and D2H take no time and the run's compute time is the enqueueV3 call.
struct RunTimes
{
    double startEnqMs{0.0};
    double endEnqMs{0.0};
    double startComputeMs{0.0};
    double endComputeMs{0.0};
};

//! Per-layer times from IProfiler, in the order the layers first reported.
struct LayerTimes
{
    std::vector<std::string> order;
    std::map<std::string, std::vector<double>> ms;
    int32_t runs{0};
};

struct InferenceResult
{
    int32_t warmUpRuns{0};
    double warmUpMs{0.0};
    std::vector<RunTimes> runs;
    double walltimeMs{0.0};
    LayerTimes layers;
};

//! Run the context (tensors and shapes already bound). False with a one-line `error` when a run fails.
bool runInference(nvinfer1::IExecutionContext& context, Options const& options, InferenceResult& result,
    std::string& error);

} // namespace kilnexec
