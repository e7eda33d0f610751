// kilnexec's report, with trtexec's sections and figures: the "&&&&" lines, the option sections, the device
// information, the trace averages, "=== Performance summary ===" (throughput; latency, enqueue time, H2D, compute
// and D2H as min/max/mean/median/percentiles), the per-layer profile table, and the --exportTimes and
// --exportProfile JSON files.
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

//! "=== Model Options ===", "=== Build Options ===", "=== System Options ===", "=== Inference Options ===",
//! "=== Reporting Options ===" and "=== Device Information ===".
void printOptionSections(std::FILE* out, Options const& options);

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
