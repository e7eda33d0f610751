// kilnexec's report (trtexec's sections and figures).
#include "report.h"

#include "NvInferVersion.h"
#include "jsonText.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <thread>
#include <unistd.h>

namespace kilnexec
{
namespace
{

std::string joined(std::vector<std::string> const& items, char const* separator = ", ")
{
    std::string text;
    for (std::string const& item : items)
    {
        text += (text.empty() ? "" : separator) + item;
    }
    return text;
}

std::string specText(std::vector<ShapeSpec> const& specs)
{
    std::vector<std::string> items;
    for (ShapeSpec const& spec : specs)
    {
        items.push_back(spec.name + "=" + dimsText(spec.dims));
    }
    return items.empty() ? "-" : joined(items);
}

char const* yesNo(bool value)
{
    return value ? "Enabled" : "Disabled";
}

std::string orNone(std::string const& text)
{
    return text.empty() ? "(none)" : text;
}

std::string cpuName()
{
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line))
    {
        if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos)
        {
            return line.substr(line.find(':') + 2);
        }
    }
    return "unknown CPU";
}

//! trtexec's percentile: the value below which `p` percent of the sorted runs fall.
double percentileOf(std::vector<double> const& sorted, double p)
{
    int64_t const all = static_cast<int64_t>(sorted.size());
    int64_t const exclude = static_cast<int64_t>((1.0 - p / 100.0) * static_cast<double>(all));
    return sorted[static_cast<size_t>(std::clamp<int64_t>(all - 1 - exclude, 0, all - 1))];
}

std::string percentText(double p)
{
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%g", p);
    return buffer;
}

void printMetric(std::FILE* out, char const* name, std::vector<double> const& values, Options const& options,
    char const* note = "")
{
    Statistics const s = computeStatistics(values, options.percentiles);
    std::fprintf(out, "[I] %s: min = %.6g ms, max = %.6g ms, mean = %.6g ms, median = %.6g ms", name, s.min, s.max,
        s.mean, s.median);
    for (size_t i = 0; i < s.percentiles.size(); ++i)
    {
        std::fprintf(out, ", percentile(%s%%) = %.6g ms", percentText(options.percentiles[i]).c_str(),
            s.percentiles[i]);
    }
    std::fprintf(out, "%s\n", note);
}

} // namespace

void printStatusLine(std::FILE* out, char const* status, Options const& options)
{
    std::fprintf(out, "&&&& %s Kiln.kilnexec [Kiln v%d.%d.%d, TensorRT API %d.%d] # %s\n", status, KILN_VERSION_MAJOR,
        KILN_VERSION_MINOR, KILN_VERSION_PATCH, NV_TENSORRT_MAJOR, NV_TENSORRT_MINOR,
        joined(options.commandLine, " ").c_str());
    std::fflush(out);
}

void printOptionSections(std::FILE* out, Options const& options, SystemInfo const& system)
{
    bool const cpuOnly = system.backend == "cpu" || system.gpu.empty(); // no usable GPU: the default is the CPU
    bool const build = !options.onnxFile.empty();
    std::fprintf(out, "[I] === Model Options ===\n");
    std::fprintf(out, "[I] Format: %s\n", build ? "ONNX" : "engine");
    std::fprintf(out, "[I] Model: %s\n", build ? options.onnxFile.c_str() : options.loadEngine.c_str());
    std::fprintf(out, "[I] Output:\n");

    std::fprintf(out, "[I] === Build Options ===\n");
    if (build)
    {
        std::string pools;
        for (auto const& [pool, bytes] : options.memPools)
        {
            char buffer[64];
            std::snprintf(buffer, sizeof(buffer), "%.6g MiB", bytes / (1024.0 * 1024.0));
            pools += (pools.empty() ? "" : ", ") + pool + ": " + buffer;
        }
        std::fprintf(out, "[I] Memory Pools: %s\n", pools.empty() ? "workspace: default" : pools.c_str());
        std::vector<std::string> precision{"FP32"};
        if (options.fp16 || options.best)
        {
            precision.emplace_back("FP16");
        }
        if (options.bf16 || options.best)
        {
            precision.emplace_back("BF16");
        }
        if (options.int8 || options.best)
        {
            precision.emplace_back("INT8");
        }
        std::fprintf(out, "[I] Precision: %s%s\n", options.stronglyTyped ? "Strongly typed" : joined(precision, "+").c_str(),
            options.noTF32 ? " (TF32 disabled)" : "");
        std::fprintf(out, "[I] Profiling verbosity: %s\n",
            options.profilingVerbosity.empty() ? "default" : options.profilingVerbosity.c_str());
        bool anyProfile = false;
        for (size_t i = 0; i < options.profiles.size(); ++i)
        {
            ProfileShapes const& p = options.profiles[i];
            if (p.hasMin || p.hasOpt || p.hasMax)
            {
                anyProfile = true;
                std::fprintf(out, "[I] Input build shapes (profile %zu): min %s; opt %s; max %s\n", i,
                    specText(p.min).c_str(), specText(p.opt).c_str(), specText(p.max).c_str());
            }
        }
        if (!anyProfile)
        {
            std::fprintf(out, "[I] Input build shapes: %s\n",
                options.shapes.empty() ? "model" : ("min=opt=max from --shapes: " + specText(options.shapes)).c_str());
        }
        std::fprintf(out, "[I] Plugins to serialize: %s\n", orNone(joined(options.pluginsToSerialize)).c_str());
        std::fprintf(out, "[I] Save engine: %s\n", orNone(options.saveEngine).c_str());
        std::fprintf(out, "[I] Timing cache: %s\n",
            options.noBuilderCache ? "disabled (--noBuilderCache)" : orNone(options.timingCacheFile).c_str());
    }
    else
    {
        std::fprintf(out, "[I] Load engine: %s\n", options.loadEngine.c_str());
    }

    std::fprintf(out, "[I] === System Options ===\n");
    std::fprintf(out, "[I] Backend: %s%s\n", system.backend.c_str(),
        options.backendFlag.empty() ? " (Kiln's default: the GPU when the CUDA backend is available, else the CPU)"
                                    : (" (" + options.backendFlag + ")").c_str());
    if (options.cudaDevice >= 0)
    {
        std::fprintf(out, "[I] Device: %d\n", options.cudaDevice);
    }
    std::fprintf(out, "[I] Plugins: standard plugins (initLibNvInferPlugins)%s%s%s%s\n",
        options.staticPlugins.empty() ? "" : "; static: ", joined(options.staticPlugins).c_str(),
        options.dynamicPlugins.empty() ? "" : "; dynamic: ", joined(options.dynamicPlugins).c_str());

    std::fprintf(out, "[I] === Inference Options ===\n");
    std::fprintf(out, "[I] Batch: Explicit\n");
    std::fprintf(out, "[I] Input inference shapes: %s\n",
        options.shapes.empty() ? "model (or the profile's opt shapes)" : specText(options.shapes).c_str());
    std::fprintf(out, "[I] Profile: %d\n", options.inferenceProfile);
    std::fprintf(out, "[I] Iterations: %d\n", options.iterations);
    std::fprintf(out, "[I] Duration: %gs (+ %gms warm up)\n", options.durationS, options.warmUpMs);
    std::fprintf(out, "[I] Data transfers: %s\n",
        cpuOnly ? (options.noDataTransfers ? "Disabled (no effect on the CPU backend)"
                                           : "Enabled (none needed on the CPU backend)")
                : yesNo(!options.noDataTransfers));
    std::fprintf(out, "[I] CUDA Graph: %s\n",
        !options.useCudaGraph ? "Disabled" : (cpuOnly ? "requested (no effect on the CPU backend)" : "Enabled"));
    std::fprintf(out, "[I] Separate profiling: %s\n", yesNo(options.separateProfileRun));
    std::fprintf(out, "[I] Skip inference: %s\n", yesNo(options.skipInference));
    std::vector<std::string> inputs;
    for (auto const& [name, file] : options.loadInputs)
    {
        inputs.push_back(name + "<-" + file);
    }
    std::fprintf(out, "[I] Inputs: %s\n", inputs.empty() ? "random" : joined(inputs).c_str());

    std::fprintf(out, "[I] === Reporting Options ===\n");
    std::fprintf(out, "[I] Verbose: %s\n", yesNo(options.verbose));
    std::fprintf(out, "[I] Averages: %d inferences\n", options.avgRuns);
    std::vector<std::string> percentiles;
    for (double p : options.percentiles)
    {
        percentiles.push_back(percentText(p));
    }
    std::fprintf(out, "[I] Percentiles: %s\n", joined(percentiles, ",").c_str());
    std::fprintf(out, "[I] Dump output: %s\n", yesNo(options.dumpOutput));
    std::fprintf(out, "[I] Profile: %s\n", yesNo(options.dumpProfile || !options.exportProfile.empty()));
    std::fprintf(out, "[I] Export timing to JSON file: %s\n", orNone(options.exportTimes).c_str());
    std::fprintf(out, "[I] Export output to JSON file: %s\n", orNone(options.exportOutput).c_str());
    std::fprintf(out, "[I] Export profile to JSON file: %s\n", orNone(options.exportProfile).c_str());
    std::fprintf(out, "[I] Export layer info to JSON file: %s\n", orNone(options.exportLayerInfo).c_str());

    std::fprintf(out, "[I] === Device Information ===\n");
    if (!cpuOnly && !system.gpu.empty())
    {
        std::fprintf(out, "[I] Selected Device: %s\n", system.gpu.c_str());
        std::fprintf(out, "[I] Backend: Kiln CUDA backend (enqueueV3 launches asynchronously on the stream) when the "
                          "engine is built for it, else the Kiln CPU backend\n");
        std::fprintf(out, "[I] Host CPU: %s\n", cpuName().c_str());
    }
    else
    {
        std::fprintf(out, "[I] Selected Device: %s\n", cpuName().c_str());
        std::fprintf(out, "[I] Backend: Kiln CPU backend (enqueueV3 runs synchronously on the calling thread)\n");
        if (!system.gpuProblem.empty())
        {
            std::fprintf(out, "[I] GPU: none usable (%s)\n", system.gpuProblem.c_str());
        }
    }
    std::fprintf(out, "[I] Hardware threads: %u\n", std::thread::hardware_concurrency());
    long const pages = sysconf(_SC_PHYS_PAGES);
    long const pageSize = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && pageSize > 0)
    {
        std::fprintf(out, cpuOnly || system.gpu.empty() ? "[I] Memory: %.0f MiB (host memory serves as device memory)\n"
                                                        : "[I] Host memory: %.0f MiB\n",
            static_cast<double>(pages) * static_cast<double>(pageSize) / (1024.0 * 1024.0));
    }
    std::fflush(out);
}

Statistics computeStatistics(std::vector<double> values, std::vector<double> const& percentiles)
{
    Statistics s;
    if (values.empty())
    {
        s.percentiles.assign(percentiles.size(), 0.0);
        return s;
    }
    std::sort(values.begin(), values.end());
    size_t const n = values.size();
    s.min = values.front();
    s.max = values.back();
    s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(n);
    s.median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
    for (double p : percentiles)
    {
        s.percentiles.push_back(percentileOf(values, p));
    }
    return s;
}

void printPerformance(std::FILE* out, InferenceResult const& result, Options const& options)
{
    std::vector<double> latency;
    std::vector<double> enqueue;
    std::vector<double> compute;
    std::vector<double> h2d;
    std::vector<double> d2h;
    for (RunTimes const& run : result.runs)
    {
        latency.push_back(run.endD2hMs - run.startH2dMs);
        enqueue.push_back(run.endEnqMs - run.startEnqMs);
        compute.push_back(run.endComputeMs - run.startComputeMs);
        h2d.push_back(run.endH2dMs - run.startH2dMs);
        d2h.push_back(run.endD2hMs - run.startD2hMs);
    }
    bool const gpu = result.onDevice;
    char const* const computeName = gpu ? "GPU Compute Time" : "Compute Time";
    char const* const copyNote = gpu ? (result.dataTransfers ? "" : " (--noDataTransfers: no copies in the timed runs)")
                                     : " (CPU backend: device memory is host memory, no copy)";
    size_t const n = result.runs.size();
    std::fprintf(out, "[I] Warm up: %d runs in %.6g ms\n", result.warmUpRuns, result.warmUpMs);
    std::fprintf(out, "[I] Timing trace has %zu queries over %.6g s\n", n, result.walltimeMs / 1000.0);
    std::fprintf(out, "[I] === Trace details ===\n");
    std::fprintf(out, "[I] Trace averages of %d runs:\n", options.avgRuns);
    size_t const group = static_cast<size_t>(options.avgRuns);
    for (size_t first = 0; first + group <= n; first += group)
    {
        double sumCompute = 0.0;
        double sumLatency = 0.0;
        double sumEnqueue = 0.0;
        for (size_t i = first; i < first + group; ++i)
        {
            sumCompute += compute[i];
            sumLatency += latency[i];
            sumEnqueue += enqueue[i];
        }
        double const k = static_cast<double>(group);
        std::fprintf(out, "[I] Average on %zu runs - %s latency: %.6g ms - Host latency: %.6g ms (enqueue %.6g ms)\n",
            group, gpu ? "GPU" : "Compute", sumCompute / k, sumLatency / k, sumEnqueue / k);
    }

    double totalCompute = std::accumulate(compute.begin(), compute.end(), 0.0);
    std::fprintf(out, "[I] \n[I] === Performance summary ===\n");
    std::fprintf(out, "[I] Throughput: %.6g qps\n",
        result.walltimeMs > 0.0 ? static_cast<double>(n) / (result.walltimeMs / 1000.0) : 0.0);
    printMetric(out, "Latency", latency, options);
    printMetric(
        out, "Enqueue Time", enqueue, options, result.cudaGraph ? " (cudaGraphLaunch of the captured graph)" : "");
    printMetric(out, "H2D Latency", h2d, options, copyNote);
    printMetric(out, computeName, compute, options);
    printMetric(out, "D2H Latency", d2h, options, copyNote);
    std::fprintf(out, "[I] Total Host Walltime: %.6g s\n", result.walltimeMs / 1000.0);
    std::fprintf(out, "[I] Total %s: %.6g s\n", computeName, totalCompute / 1000.0);
    Statistics const s = computeStatistics(compute, {});
    double variance = 0.0;
    for (double v : compute)
    {
        variance += (v - s.mean) * (v - s.mean);
    }
    double const cv = n > 1 && s.mean > 0.0 ? std::sqrt(variance / static_cast<double>(n)) / s.mean : 0.0;
    if (cv > 0.01 * 10.0)
    {
        std::fprintf(out, "[W] * Compute time has a coefficient of variance of %.3g%%, above 10%%: the timings are "
                          "noisy (other processes on the machine, frequency scaling).\n", cv * 100.0);
    }
    if (gpu && n > 0)
    {
        // trtexec's hints: what bounds the throughput when the GPU is not busy all the time.
        Statistics const enq = computeStatistics(enqueue, {});
        Statistics const up = computeStatistics(h2d, {});
        Statistics const down = computeStatistics(d2h, {});
        if (enq.median > s.median)
        {
            std::fprintf(out, "[W] * Throughput may be bound by Enqueue Time (median %.6g ms) rather than GPU Compute "
                              "Time (median %.6g ms): the GPU may be idle between runs. --useCudaGraph may help.\n",
                enq.median, s.median);
        }
        if (up.median > s.median)
        {
            std::fprintf(out, "[W] * Throughput may be bound by host-to-device transfers of the inputs rather than GPU "
                              "Compute Time. --noDataTransfers leaves them out.\n");
        }
        if (down.median > s.median)
        {
            std::fprintf(out, "[W] * Throughput may be bound by device-to-host transfers of the outputs rather than "
                              "GPU Compute Time. --noDataTransfers leaves them out.\n");
        }
    }
    if (!gpu && (options.useCudaGraph || options.noDataTransfers))
    {
        std::fprintf(out, "[I] --useCudaGraph and --noDataTransfers do not apply to the CPU backend: the runs above "
                          "used neither.\n");
    }
    if (options.verbose && gpu)
    {
        std::fprintf(out, "[I] === Explanations of the performance metrics ===\n"
                          "[I] Total Host Walltime: the host time from the first timed run's start to the last "
                          "one's end.\n"
                          "[I] GPU Compute Time: the GPU time of each run's computation, between CUDA events around "
                          "enqueueV3 (or the graph launch) on the stream.\n"
                          "[I] Total GPU Compute Time: the sum of the GPU Compute Times of all runs.\n"
                          "[I] Throughput: the runs divided by the Total Host Walltime.\n"
                          "[I] Enqueue Time: the host time of each enqueueV3 call (or cudaGraphLaunch); the work runs "
                          "asynchronously on the GPU.\n"
                          "[I] H2D Latency / D2H Latency: the GPU time of the input / output copies of each run "
                          "(0 with --noDataTransfers).\n"
                          "[I] Latency: H2D Latency + GPU Compute Time + D2H Latency, per run.\n");
    }
    else if (options.verbose)
    {
        std::fprintf(out, "[I] === Explanations of the performance metrics ===\n"
                          "[I] Total Host Walltime: the host time from the first timed run's start to the last one's end.\n"
                          "[I] Compute Time: the time the backend spent computing each run (CPU: the enqueueV3 call).\n"
                          "[I] Total Compute Time: the sum of the Compute Times of all runs.\n"
                          "[I] Throughput: the runs divided by the Total Host Walltime.\n"
                          "[I] Enqueue Time: the host time of each enqueueV3 call (CPU: it includes the computation).\n"
                          "[I] H2D Latency / D2H Latency: input/output copies between host and device; none on the "
                          "CPU backend, so 0.\n"
                          "[I] Latency: H2D Latency + Compute Time + D2H Latency, per run.\n");
    }
    else
    {
        std::fprintf(out, "[I] Explanations of the performance metrics are printed in the verbose logs.\n");
    }
    std::fflush(out);
}

void printProfile(std::FILE* out, LayerTimes const& layers)
{
    double total = 0.0;
    for (auto const& [name, times] : layers.ms)
    {
        total += std::accumulate(times.begin(), times.end(), 0.0);
    }
    std::fprintf(out, "[I] \n[I] === Profile (%d iterations ) ===\n", layers.runs);
    std::fprintf(out, "[I]    Time(ms)     Avg.(ms)   Median(ms)   Time(%%)   Layer\n");
    double const runs = layers.runs > 0 ? layers.runs : 1;
    for (std::string const& name : layers.order)
    {
        std::vector<double> const& times = layers.ms.at(name);
        double const sum = std::accumulate(times.begin(), times.end(), 0.0);
        std::fprintf(out, "[I] %11.4f %12.6f %12.6f %9.1f   %s\n", sum, sum / runs,
            computeStatistics(times, {}).median, total > 0.0 ? 100.0 * sum / total : 0.0, name.c_str());
    }
    std::fprintf(out, "[I] %11.4f %12.6f %12.6f %9.1f   Total\n", total, total / runs, total / runs, 100.0);
    std::fflush(out);
}

bool exportTimes(std::string const& path, InferenceResult const& result, std::string& error)
{
    std::string text = "[\n";
    bool first = true;
    for (RunTimes const& run : result.runs)
    {
        auto field = [](char const* key, double value) { return jsonString(key) + " : " + jsonNumber(value); };
        text += first ? "  { " : ", { ";
        first = false;
        text += field("startEnqMs", run.startEnqMs) + ", " + field("endEnqMs", run.endEnqMs) + ", "
            + field("startH2dMs", run.startH2dMs) + ", " + field("endH2dMs", run.endH2dMs) + ", "
            + field("startComputeMs", run.startComputeMs) + ", " + field("endComputeMs", run.endComputeMs) + ", "
            + field("startD2hMs", run.startD2hMs) + ", " + field("endD2hMs", run.endD2hMs) + ", "
            + field("h2dMs", run.endH2dMs - run.startH2dMs) + ", "
            + field("computeMs", run.endComputeMs - run.startComputeMs) + ", "
            + field("d2hMs", run.endD2hMs - run.startD2hMs) + ", " + field("latencyMs", run.endD2hMs - run.startH2dMs)
            + " }\n";
    }
    text += "]\n";
    return writeTextFile(path, text, "--exportTimes", error);
}

bool exportProfile(std::string const& path, LayerTimes const& layers, std::string& error)
{
    double total = 0.0;
    for (auto const& [name, times] : layers.ms)
    {
        total += std::accumulate(times.begin(), times.end(), 0.0);
    }
    double const runs = layers.runs > 0 ? layers.runs : 1;
    std::string text = "[\n  { \"count\" : " + std::to_string(layers.runs) + " }\n";
    for (std::string const& name : layers.order)
    {
        std::vector<double> const& times = layers.ms.at(name);
        double const sum = std::accumulate(times.begin(), times.end(), 0.0);
        text += ", { \"name\" : " + jsonString(name) + ", \"timeMs\" : " + jsonNumber(sum) + ", \"averageMs\" : "
            + jsonNumber(sum / runs) + ", \"medianMs\" : " + jsonNumber(computeStatistics(times, {}).median)
            + ", \"percentage\" : " + jsonNumber(total > 0.0 ? 100.0 * sum / total : 0.0) + " }\n";
    }
    text += "]\n";
    return writeTextFile(path, text, "--exportProfile", error);
}

} // namespace kilnexec
