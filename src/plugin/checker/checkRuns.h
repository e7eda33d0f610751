// Running a plugin under the contract checker, and reading the evidence. One run configures nothing: it fills
// every output with a poison pattern and guard bytes, copies the seeded inputs into guarded buffers, gives a
// guarded workspace of exactly getWorkspaceSize() bytes, calls enqueue on host memory and records what changed.
// The analysis turns runs into findings: writes outside buffers (output-dims-mismatch, input-modified,
// workspace-overrun), changed inputs, size tensors outside their bounds, and — comparing two runs made with
// different poisons — elements never written (output-unwritten, or output-dims-mismatch when only a prefix was
// written) and elements that differ (nondeterministic).
#pragma once

#include "core/status.h"
#include "plugin/checker/checkReport.h"
#include "plugin/checker/checkShapes.h"
#include "plugin/pluginAdapter.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kiln::checker
{

//! What one plugin object is run with, at one shape set.
struct RunSetup
{
    ShapeSet set{ShapeSet::kMAIN};
    std::vector<nvinfer1::PluginTensorDesc> inDescs;  //!< real dims
    std::vector<nvinfer1::PluginTensorDesc> outDescs; //!< real dims; data-dependent extents at their upper bound
    std::vector<std::vector<uint8_t>> inputBytes;     //!< seeded random contents of each input
    std::vector<int32_t> aliases;                     //!< per output: the input it aliases, or -1
    size_t workspaceBytes{0};
};

//! The evidence of one run.
struct RunResult
{
    Status status;
    int32_t poison{0};
    std::vector<std::vector<uint8_t>> outputs;   //!< payload of each output buffer after the run
    std::vector<nvinfer1::Dims> declaredDims;     //!< output dims with the size tensors' values applied
    std::map<int32_t, int64_t> sizes;             //!< size-tensor output -> value
    std::vector<size_t> outputAfter;              //!< bytes written past each output's end
    std::vector<size_t> outputBefore;             //!< bytes written before each output's start
    std::vector<size_t> inputAfter;
    std::vector<size_t> inputBefore;
    std::vector<int64_t> inputChangedAt;          //!< first changed element of each input, or -1
    std::vector<std::vector<uint8_t>> inputsAfter; //!< contents of each input after the run
    size_t workspaceAfter{0};
    size_t workspaceBefore{0};
};

//! Run `plugin` (already configured for setup's shapes) once with poison pattern `poison`.
RunResult runPlugin(PluginAdapter& plugin, RunSetup const& setup, ShapeModel const& shapes, int32_t poison);

//! Findings visible in a single run (writes outside buffers, changed inputs, size tensor bounds). `where` names
//! the object and run in messages, e.g. "execution context's plugin, run 1, main shapes".
void checkRun(RunResult const& run, RunSetup const& setup, ShapeModel const& shapes, std::string const& where,
    CheckReport& report, std::string const& label);

//! Compare two runs with the same inputs and different poisons: unwritten elements and differences. Returns true
//! when the runs agree on every written element (deterministic).
bool compareRuns(RunResult const& a, RunResult const& b, RunSetup const& setup, std::string const& where,
    CheckReport& report, std::string const& label, bool reportUnwritten);

//! First difference between two runs' declared output elements ("" when identical), e.g.
//! "output 0 element [1, 3]: 0.25 vs 0.5 (3 of 16 elements differ)".
std::string describeDifference(RunResult const& a, RunResult const& b, RunSetup const& setup);

} // namespace kiln::checker
