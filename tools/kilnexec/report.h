// kilnexec's report, with trtexec's sections and figures: the "&&&&" lines, the option sections, the device
// information, the trace averages, "=== Performance summary ===" (throughput; latency, enqueue time, H2D, compute
// and D2H as min/max/mean/median/percentiles), the per-layer profile table, and the --exportTimes and
// --exportProfile JSON files. One code path serves both backends: the GPU fills the H2D/D2H intervals and names
// the compute time "GPU Compute Time", as trtexec does.
#pragma once

#include "inferenceRunner.h"
#include "options.h"

#include <cstdio>
#include <string>
#include <vector>

namespace kilnexec
{

//! "&&&& RUNNING|PASSED|FAILED Kiln.kilnexec [Kiln vX.Y.Z] # kilnexec <arguments>".
void printStatusLine(std::FILE* out, char const* status, Options const& options);

//! What the "System Options" and "Device Information" sections say about the backend, gathered by the caller (the
//! report itself makes no CUDA call).
struct SystemInfo
{
    std::string backend{"cpu"}; //!< the backend the run asks for: "default", "cpu" or "cuda"
    std::string gpu;            //!< the CUDA device that a CUDA engine would run on ("" = none usable)
    std::string gpuProblem;     //!< why no CUDA device is usable ("" when one is, or when not asked)
};

//! "=== Model Options ===", "=== Build Options ===", "=== System Options ===", "=== Inference Options ===",
//! "=== Reporting Options ===" and "=== Device Information ===".
void printOptionSections(std::FILE* out, Options const& options, SystemInfo const& system = SystemInfo{});

//! Statistics of one metric: min, max, mean, median and the requested percentiles (trtexec's definitions).
struct Statistics
{
    double min{0.0};
    double max{0.0};
    double mean{0.0};
    double median{0.0};
    std::vector<double> percentiles;
};
Statistics computeStatistics(std::vector<double> values, std::vector<double> const& percentiles);

//! Trace averages (every --avgRuns runs) and the performance summary.
void printPerformance(std::FILE* out, InferenceResult const& result, Options const& options);

//! --dumpProfile table.
void printProfile(std::FILE* out, LayerTimes const& layers);

//! --exportTimes / --exportProfile files; false with a one-line `error`.
bool exportTimes(std::string const& path, InferenceResult const& result, std::string& error);
bool exportProfile(std::string const& path, LayerTimes const& layers, std::string& error);

} // namespace kilnexec
