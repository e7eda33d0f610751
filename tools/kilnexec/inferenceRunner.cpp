// The inference loop of kilnexec.
#include "inferenceRunner.h"

#include <chrono>

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

bool enqueue(nvinfer1::IExecutionContext& context, char const* phase, int32_t index, std::string& error)
{
    if (!context.enqueueV3(nullptr))
    {
        error = std::string("kilnexec: enqueueV3 failed in ") + phase + " run " + std::to_string(index)
            + " (see the messages above)";
        return false;
    }
    return true;
}

} // namespace

bool runInference(nvinfer1::IExecutionContext& context, Options const& options, InferenceResult& result,
    std::string& error)
{
    bool const wantProfile = options.dumpProfile || !options.exportProfile.empty();
    LayerProfiler profiler(result.layers);

    // Warm-up: at least one run, so that the first timed run does not pay for first-touch allocation.
    Clock::time_point const warmStart = Clock::now();
    do
    {
        if (!enqueue(context, "warm-up", result.warmUpRuns, error))
        {
            return false;
        }
        ++result.warmUpRuns;
    } while (msSince(warmStart, Clock::now()) < options.warmUpMs);
    result.warmUpMs = msSince(warmStart, Clock::now());

    if (wantProfile && !options.separateProfileRun)
    {
        context.setProfiler(&profiler);
    }
    Clock::time_point const start = Clock::now();
    double const durationMs = options.durationS * 1000.0;
    for (int32_t i = 0; static_cast<int32_t>(result.runs.size()) < options.iterations
         || msSince(start, Clock::now()) < durationMs;
         ++i)
    {
        RunTimes run;
        run.startEnqMs = msSince(start, Clock::now());
        if (!enqueue(context, "timed", i, error))
        {
            context.setProfiler(nullptr);
            return false;
        }
        run.endEnqMs = msSince(start, Clock::now());
        run.startComputeMs = run.startEnqMs;
        run.endComputeMs = run.endEnqMs;
        result.runs.push_back(run);
    }
    result.walltimeMs = msSince(start, Clock::now());
    if (wantProfile && !options.separateProfileRun)
    {
        result.layers.runs = static_cast<int32_t>(result.runs.size());
    }
    context.setProfiler(nullptr);

    if (wantProfile && options.separateProfileRun)
    {
        // trtexec's separate profile run: the timed runs above had no profiler attached.
        context.setProfiler(&profiler);
        int32_t const n = static_cast<int32_t>(result.runs.size());
        for (int32_t i = 0; i < n; ++i)
        {
            if (!enqueue(context, "profile", i, error))
            {
                context.setProfiler(nullptr);
                return false;
            }
        }
        context.setProfiler(nullptr);
        result.layers.runs = n;
    }
    return true;
}

} // namespace kilnexec
