// The inference loop of kilnexec (inferenceRunner.h).
#include "inferenceRunner.h"

#include "deviceRuntime.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <deque>

namespace kilnexec
{
namespace
{

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start, Clock::time_point now)
{
    return std::chrono::duration<double, std::milli>(now - start).count();
}

class LayerProfiler final : public nvinfer1::IProfiler
{
public:
    explicit LayerProfiler(LayerTimes& times)
        : mTimes(times)
    {
    }
    void reportLayerTime(char const* layerName, float ms) noexcept override
    {
        std::string const name = layerName != nullptr ? layerName : "?";
        auto it = mTimes.ms.find(name);
        if (it == mTimes.ms.end())
        {
            mTimes.order.push_back(name);
            it = mTimes.ms.emplace(name, std::vector<double>{}).first;
        }
        it->second.push_back(ms);
    }

private:
    LayerTimes& mTimes;
};

bool enqueue(nvinfer1::IExecutionContext& context, cudaStream_t stream, char const* phase, int32_t index,
    std::string& error)
{
    if (!context.enqueueV3(stream))
    {
        error = std::string("kilnexec: enqueueV3 failed in ") + phase + " run " + std::to_string(index)
            + " (see the messages above)";
        return false;
    }
    return true;
}

bool synchronize(cudaStream_t stream, char const* phase, std::string& error)
{
    std::string cudaError;
    if (!cuda::streamSynchronize(stream, cudaError))
    {
        error = std::string("kilnexec: the ") + phase + " runs failed on the GPU: " + cudaError;
        return false;
    }
    return true;
}

//! The CUDA events of one run in flight and its host enqueue times.
struct RunEvents
{
    cuda::Event h2dStart;
    cuda::Event computeStart;
    cuda::Event computeEnd;
    cuda::Event d2hEnd;
    double startEnqMs{0.0};
    double endEnqMs{0.0};

    bool create(std::string& error)
    {
        return h2dStart.create(error) && computeStart.create(error) && computeEnd.create(error)
            && d2hEnd.create(error);
    }
};

//! Wait for a run in flight and turn its events into times relative to `zero`. Without transfers the H2D and D2H
//! intervals are empty (not the few microseconds between two back-to-back events).
bool harvest(RunEvents const& run, cuda::Event const& zero, bool transfers, RunTimes& times, std::string& error)
{
    float h2dStart = 0.0F;
    float computeStart = 0.0F;
    float computeEnd = 0.0F;
    float d2hEnd = 0.0F;
    std::string cudaError;
    if (!run.d2hEnd.synchronize(cudaError) || !cuda::Event::elapsedMs(zero, run.h2dStart, h2dStart, cudaError)
        || !cuda::Event::elapsedMs(zero, run.computeStart, computeStart, cudaError)
        || !cuda::Event::elapsedMs(zero, run.computeEnd, computeEnd, cudaError)
        || !cuda::Event::elapsedMs(zero, run.d2hEnd, d2hEnd, cudaError))
    {
        error = "kilnexec: a timed run failed on the GPU: " + cudaError;
        return false;
    }
    if (!transfers)
    {
        h2dStart = computeStart;
        d2hEnd = computeEnd;
    }
    times.startEnqMs = run.startEnqMs;
    times.endEnqMs = run.endEnqMs;
    times.startH2dMs = h2dStart;
    times.endH2dMs = computeStart;
    times.startComputeMs = computeStart;
    times.endComputeMs = computeEnd;
    times.startD2hMs = computeEnd;
    times.endD2hMs = d2hEnd;
    return true;
}

//! Capture one enqueueV3 into `graph` and replay it once; the decision to use it or fall back.
GraphDecision captureGraph(nvinfer1::IExecutionContext& context, cudaStream_t stream, cuda::Graph& graph)
{
    std::string captureError;
    bool enqueueOk = true;
    if (graph.beginCapture(stream, captureError))
    {
        enqueueOk = context.enqueueV3(stream);
        std::string endError;
        if (!graph.endCapture(stream, endError))
        {
            captureError = endError;
        }
        else if (enqueueOk && !graph.instantiate(captureError))
        {
            captureError = "instantiating the graph: " + captureError;
        }
    }
    if (enqueueOk && captureError.empty())
    {
        std::string launchError;
        if (!graph.launch(stream, launchError) || !cuda::streamSynchronize(stream, launchError))
        {
            captureError = "replaying the graph: " + launchError;
        }
    }
    GraphDecision outcome = captureOutcome(enqueueOk, captureError);
    if (outcome.mode != GraphMode::kCAPTURE)
    {
        cuda::takeLastError(); // the failed capture must not fail the plain runs that follow
        std::string ignored;
        cuda::streamSynchronize(stream, ignored);
        cuda::takeLastError();
    }
    return outcome;
}

bool timedRunsOnHost(nvinfer1::IExecutionContext& context, Options const& options, InferenceResult& result,
    std::string& error)
{
    Clock::time_point const start = Clock::now();
    double const durationMs = options.durationS * 1000.0;
    for (int32_t i = 0; static_cast<int32_t>(result.runs.size()) < options.iterations
         || msSince(start, Clock::now()) < durationMs;
         ++i)
    {
        RunTimes run;
        run.startEnqMs = msSince(start, Clock::now());
        if (!enqueue(context, nullptr, "timed", i, error))
        {
            return false;
        }
        run.endEnqMs = msSince(start, Clock::now());
        run.startH2dMs = run.startEnqMs;
        run.endH2dMs = run.startEnqMs;
        run.startComputeMs = run.startEnqMs;
        run.endComputeMs = run.endEnqMs;
        run.startD2hMs = run.endEnqMs;
        run.endD2hMs = run.endEnqMs;
        result.runs.push_back(run);
    }
    result.walltimeMs = msSince(start, Clock::now());
    return true;
}

bool timedRunsOnDevice(nvinfer1::IExecutionContext& context, Options const& options, RunSetup const& setup,
    cuda::Graph* graph, InferenceResult& result, std::string& error)
{
    cudaStream_t const stream = setup.stream;
    std::array<RunEvents, 2> slots; // runs in flight
    cuda::Event zero;
    std::string cudaError;
    if (!zero.create(cudaError) || !slots[0].create(cudaError) || !slots[1].create(cudaError))
    {
        error = "kilnexec: cannot create the timing events: " + cudaError;
        return false;
    }
    std::deque<size_t> inFlight;
    auto harvestOldest = [&]() {
        RunTimes times;
        if (!harvest(slots[inFlight.front()], zero, result.dataTransfers, times, error))
        {
            return false;
        }
        inFlight.pop_front();
        result.runs.push_back(times);
        return true;
    };
    Clock::time_point const start = Clock::now();
    if (!zero.record(stream, cudaError))
    {
        error = "kilnexec: cannot record a timing event: " + cudaError;
        return false;
    }
    double const durationMs = options.durationS * 1000.0;
    for (int32_t i = 0; static_cast<int32_t>(result.runs.size() + inFlight.size()) < options.iterations
         || msSince(start, Clock::now()) < durationMs;
         ++i)
    {
        if (inFlight.size() == slots.size() && !harvestOldest())
        {
            return false;
        }
        size_t const slot = static_cast<size_t>(i) % slots.size();
        RunEvents& run = slots[slot];
        if (!run.h2dStart.record(stream, cudaError)
            || (result.dataTransfers && !setup.buffers->copyInputsToDevice(stream, error))
            || !run.computeStart.record(stream, cudaError))
        {
            error = error.empty() ? "kilnexec: timed run " + std::to_string(i) + ": " + cudaError : error;
            return false;
        }
        run.startEnqMs = msSince(start, Clock::now());
        if (graph != nullptr)
        {
            if (!graph->launch(stream, cudaError))
            {
                error = "kilnexec: timed run " + std::to_string(i) + ": " + cudaError;
                return false;
            }
        }
        else if (!enqueue(context, stream, "timed", i, error))
        {
            return false;
        }
        run.endEnqMs = msSince(start, Clock::now());
        if (!run.computeEnd.record(stream, cudaError)
            || (result.dataTransfers && !setup.buffers->copyOutputsToHost(stream, error))
            || !run.d2hEnd.record(stream, cudaError))
        {
            error = error.empty() ? "kilnexec: timed run " + std::to_string(i) + ": " + cudaError : error;
            return false;
        }
        inFlight.push_back(slot);
    }
    while (!inFlight.empty())
    {
        if (!harvestOldest())
        {
            return false;
        }
    }
    result.walltimeMs = msSince(start, Clock::now());
    return true;
}

} // namespace

bool runInference(nvinfer1::IExecutionContext& context, Options const& options, RunSetup const& setup,
    InferenceResult& result, std::FILE* out, std::string& error)
{
    bool const wantProfile = options.dumpProfile || !options.exportProfile.empty();
    LayerProfiler profiler(result.layers);
    bool const onDevice = setup.onDevice;
    cudaStream_t const stream = onDevice ? setup.stream : nullptr;
    result.onDevice = onDevice;
    result.dataTransfers = onDevice && !options.noDataTransfers;
    if (setup.graph.mode == GraphMode::kFALLBACK)
    {
        std::fprintf(out, "[W] %s\n", setup.graph.message.c_str());
    }

    // Warm-up: at least one run, so that the first timed run does not pay for first-touch allocation. On the GPU
    // each warm-up run is waited for, so that --warmUp is GPU time and not just queued work.
    Clock::time_point const warmStart = Clock::now();
    do
    {
        if ((result.dataTransfers && !setup.buffers->copyInputsToDevice(stream, error))
            || !enqueue(context, stream, "warm-up", result.warmUpRuns, error)
            || (result.dataTransfers && !setup.buffers->copyOutputsToHost(stream, error))
            || (onDevice && !synchronize(stream, "warm-up", error)))
        {
            return false;
        }
        ++result.warmUpRuns;
    } while (msSince(warmStart, Clock::now()) < options.warmUpMs);
    result.warmUpMs = msSince(warmStart, Clock::now());

    cuda::Graph graph;
    if (onDevice && setup.graph.mode == GraphMode::kCAPTURE)
    {
        GraphDecision const outcome = captureGraph(context, stream, graph);
        result.cudaGraph = outcome.mode == GraphMode::kCAPTURE;
        if (!result.cudaGraph)
        {
            std::fprintf(out, "[W] %s\n", outcome.message.c_str());
        }
        else
        {
            std::fprintf(out, "[I] Captured one enqueueV3 into a CUDA graph; the timed runs replay it "
                              "(cudaGraphLaunch).\n");
        }
    }

    result.profileSeparate = profileInSeparateRuns(wantProfile, options.separateProfileRun, result.cudaGraph);
    if (wantProfile && result.cudaGraph && !options.separateProfileRun)
    {
        std::fprintf(out, "[I] The per-layer profile is collected in separate runs without the CUDA graph (graph "
                          "replays do not report layer times).\n");
    }
    if (wantProfile && !result.profileSeparate)
    {
        context.setProfiler(&profiler);
    }
    bool const timed = onDevice ? timedRunsOnDevice(context, options, setup, result.cudaGraph ? &graph : nullptr,
                                      result, error)
                                : timedRunsOnHost(context, options, result, error);
    if (wantProfile && !result.profileSeparate)
    {
        result.layers.runs = static_cast<int32_t>(result.runs.size());
    }
    context.setProfiler(nullptr);
    if (!timed)
    {
        return false;
    }

    if (result.profileSeparate)
    {
        // trtexec's separate profile run: the timed runs above had no profiler attached.
        context.setProfiler(&profiler);
        int32_t const n = static_cast<int32_t>(result.runs.size());
        for (int32_t i = 0; i < n; ++i)
        {
            if (!enqueue(context, stream, "profile", i, error) || (onDevice && !synchronize(stream, "profile", error)))
            {
                context.setProfiler(nullptr);
                return false;
            }
        }
        context.setProfiler(nullptr);
        result.layers.runs = n;
    }
    if (onDevice && !result.dataTransfers)
    {
        // --noDataTransfers: the outputs are read back once, after the timed runs, for the dumps and exports.
        if (!setup.buffers->copyOutputsToHost(stream, error) || !synchronize(stream, "final", error))
        {
            return false;
        }
    }
    return true;
}

} // namespace kilnexec
