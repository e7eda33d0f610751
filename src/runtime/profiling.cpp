// LayerTimes implementation.
#include "runtime/profiling.h"

#include <string>

namespace kiln
{

void LayerTimes::report(nvinfer1::IProfiler& profiler, EngineData const& data) const
{
    bool const byIndex = data.plan.profilingVerbosity == nvinfer1::ProfilingVerbosity::kNONE;
    for (size_t i = 0; i < mMs.size() && i < data.plan.nodes.size(); ++i)
    {
        std::string const name = byIndex ? std::to_string(i) : data.plan.nodes[i].name;
        profiler.reportLayerTime(name.c_str(), mMs[i]);
    }
}

} // namespace kiln
