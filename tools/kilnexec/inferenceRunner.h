// The inference loop of kilnexec, as trtexec runs it: warm-up for --warmUp ms, then timed runs until both
// --iterations runs and --duration seconds are done; per-layer times through IProfiler (--dumpProfile/
// --exportProfile), in the timed runs or in separate runs (--separateProfileRun, or when the timed runs replay a
// CUDA graph). On the CPU backend each run is one synchronous enqueueV3. On the CUDA backend each run is, on the
// runner's stream: the input copies (H2D), enqueueV3 or the replay of the captured CUDA graph (--useCudaGraph), the
// output copies (D2H), with CUDA events between them; two runs may be in flight, as in trtexec.
#pragma once

#include "NvInferRuntime.h"
#include "cudaGraphPolicy.h"
#include "ioBuffers.h"
#include "options.h"

#include <map>
#include <string>
#include <vector>

namespace kilnexec
{

//! One timed run, in ms since the start of the timed runs: the host times of the enqueue call, and the times of the
//! copies and the computation (CUDA events on the GPU; on the CPU backend the host memory is the device memory, so
//! H2D and D2H are empty intervals and the computation is the enqueueV3 call).
struct RunTimes
{
    double startEnqMs{0.0};
    double endEnqMs{0.0};
    double startH2dMs{0.0};
    double endH2dMs{0.0};
    double startComputeMs{0.0};
    double endComputeMs{0.0};
    double startD2hMs{0.0};
    double endD2hMs{0.0};
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
    bool onDevice{false};      //!< the engine ran on the CUDA backend
    bool dataTransfers{false}; //!< each timed run copied inputs/outputs (CUDA backend without --noDataTransfers)
    bool cudaGraph{false};     //!< the timed runs replayed a captured CUDA graph
    bool profileSeparate{false}; //!< the per-layer profile came from runs of its own
};

//! Where and how the runs go.
struct RunSetup
{
    bool onDevice{false};         //!< the engine is on the CUDA backend
    cudaStream_t stream{nullptr}; //!< the stream of every run (CUDA backend)
    IoBuffers* buffers{nullptr};  //!< copied to/from the device around each run (CUDA backend)
    GraphDecision graph;          //!< planCudaGraph's decision for --useCudaGraph
};

//! Run the context (tensors and shapes already bound). False with a one-line `error` when a run fails. Warnings
//! (a CUDA graph that cannot be used) are printed to `out`.
bool runInference(nvinfer1::IExecutionContext& context, Options const& options, RunSetup const& setup,
    InferenceResult& result, std::FILE* out, std::string& error);

} // namespace kilnexec
