// kilnexec's CUDA graph decisions (--useCudaGraph) as pure functions, so that tests check them without a GPU:
// whether to capture one enqueueV3 after the warm-up, what to say when a graph cannot be used (CPU backend, a build
// without CUDA, outputs with data-dependent shapes, a failed capture), and where the per-layer profile comes from.
#pragma once

#include "NvInferRuntime.h"
#include "kiln/KilnBackend.h"

#include <string>
#include <utility>
#include <vector>

namespace kilnexec
{

enum class GraphMode : int32_t
{
    kOFF,      //!< not requested: plain enqueueV3
    kCAPTURE,  //!< capture one enqueueV3 after the warm-up and replay it
    kFALLBACK, //!< requested but not possible: plain enqueueV3, with `message` printed as a warning
};

struct GraphDecision
{
    GraphMode mode{GraphMode::kOFF};
    std::string message; //!< the warning for kFALLBACK ("" otherwise)
};

//! What the capture decision looks at: the engine's backend, whether kilnexec has CUDA, and every output's shape
//! after the input shapes are set (a -1 extent is a data-dependent shape).
struct GraphQuery
{
    bool requested{false};
    kiln::BackendKind engineBackend{kiln::BackendKind::kCPU};
    bool cudaBuilt{false};
    std::vector<std::pair<std::string, nvinfer1::Dims>> outputShapes;
};

//! Before the capture: capture, or fall back with the reason.
GraphDecision planCudaGraph(GraphQuery const& query);

//! After an attempted capture: `enqueueOk` is what enqueueV3 returned inside the capture, `captureError` the CUDA
//! error of beginning/ending/instantiating it ("" when those succeeded). kCAPTURE when the graph can be replayed,
//! else kFALLBACK with trtexec's "The CUDA graph capture on the stream has failed" warning.
GraphDecision captureOutcome(bool enqueueOk, std::string const& captureError);

//! Whether the per-layer profile (--dumpProfile/--exportProfile) is collected in runs of its own after the timed
//! runs: with --separateProfileRun, and when the timed runs replay a CUDA graph (a replay does not call the
//! IProfiler, so the profile comes from plain enqueueV3 runs).
bool profileInSeparateRuns(bool wantProfile, bool separateProfileRun, bool graphUsed);

} // namespace kilnexec
