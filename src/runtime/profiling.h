// LayerTimes: per-node wall-clock times of an execution context's last run, and their delivery to an
// application's IProfiler (one reportLayerTime per node, in execution order).
#pragma once

#include "NvInferRuntime.h"
#include "runtime/engineData.h"

#include <chrono>
#include <vector>

namespace kiln
{

class LayerTimes
{
public:
    using Clock = std::chrono::steady_clock;

    //! Start a run of `nbNodes` nodes (previous timings are discarded).
    void begin(size_t nbNodes)
    {
        mMs.assign(nbNodes, 0.0F);
        mComplete = false;
    }
    void record(size_t node, Clock::time_point start, Clock::time_point end)
    {
        mMs[node] = std::chrono::duration<float, std::milli>(end - start).count();
    }
    //! A node's time measured elsewhere (the device's events).
    void setMilliseconds(size_t node, float ms) { mMs[node] = ms; }
    void finish() { mComplete = true; }
    void clear()
    {
        mMs.clear();
        mComplete = false;
    }
    bool complete() const { return mComplete; }
    std::vector<float> const& milliseconds() const { return mMs; }

    //! Give every node's time to `profiler`, named as TensorRT does: the layer name, or its decimal index when
    //! the engine was built with ProfilingVerbosity::kNONE.
    void report(nvinfer1::IProfiler& profiler, EngineData const& data) const;

private:
    std::vector<float> mMs;
    bool mComplete{false};
};

} // namespace kiln
