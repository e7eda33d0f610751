// Plugin tactic timing: see pluginTiming.h.
#include "builder/pluginTiming.h"

#include "core/dataType.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>

namespace kiln
{
using nvinfer1::DataType;

namespace
{
constexpr int32_t kTIMED_RUNS = 5;

struct FreeDeleter
{
    void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<void, FreeDeleter>;

Buffer allocate(int64_t bytes)
{
    size_t const size = static_cast<size_t>((std::max<int64_t>(bytes, 1) + 63) / 64 * 64);
    return Buffer(std::aligned_alloc(64, size));
}

//! Random values of the tensor's type: floats in [-1, 1], integers in [0, 3], booleans 0/1.
void fillRandom(void* data, TimingTensor const& t, std::mt19937& rng)
{
    int64_t const size = elementSize(t.desc.type);
    int64_t const n = size > 0 ? t.bytes / size : 0;
    std::uniform_real_distribution<double> real(-1.0, 1.0);
    std::uniform_int_distribution<int32_t> integer(0, 3);
    for (int64_t i = 0; i < n; ++i)
    {
        double const v = isFloatType(t.desc.type) ? real(rng)
                                                  : (t.desc.type == DataType::kBOOL ? integer(rng) % 2 : integer(rng));
        storeElement(data, t.desc.type, i, v);
    }
}

} // namespace

StatusOr<int32_t> timePluginTactics(PluginAdapter& plugin, std::vector<int32_t> const& tactics,
    std::vector<TimingTensor> const& inputs, std::vector<TimingTensor> const& outputs, int64_t workspaceBytes,
    Logger const& logger)
{
    std::mt19937 rng(1234);
    std::vector<Buffer> buffers;
    std::vector<void const*> inPtrs;
    std::vector<void*> outPtrs;
    std::vector<nvinfer1::PluginTensorDesc> inDescs;
    std::vector<nvinfer1::PluginTensorDesc> outDescs;
    for (TimingTensor const& t : inputs)
    {
        buffers.push_back(allocate(t.bytes));
        if (buffers.back() == nullptr)
        {
            return failedAllocation(plugin.label() + ": cannot allocate " + std::to_string(t.bytes)
                + " bytes to time its tactics");
        }
        fillRandom(buffers.back().get(), t, rng);
        inPtrs.push_back(buffers.back().get());
        inDescs.push_back(t.desc);
    }
    for (TimingTensor const& t : outputs)
    {
        buffers.push_back(allocate(t.bytes));
        if (buffers.back() == nullptr)
        {
            return failedAllocation(plugin.label() + ": cannot allocate " + std::to_string(t.bytes)
                + " bytes to time its tactics");
        }
        outPtrs.push_back(buffers.back().get());
        outDescs.push_back(t.desc);
    }
    Buffer workspace = allocate(workspaceBytes);
    if (workspace == nullptr)
    {
        return failedAllocation(plugin.label() + ": cannot allocate its workspace to time its tactics");
    }
    KILN_RETURN_IF_ERROR(plugin.onShapeChange(inDescs, outDescs));
    int32_t best = 0;
    double bestTime = -1.0;
    std::string report;
    for (int32_t tactic : tactics)
    {
        Status st = plugin.setTactic(tactic);
        std::vector<double> times;
        for (int32_t run = 0; st.isOk() && run <= kTIMED_RUNS; ++run)
        {
            auto const start = std::chrono::steady_clock::now();
            st = plugin.enqueue(inDescs, outDescs, inPtrs.data(), outPtrs.data(),
                workspaceBytes > 0 ? workspace.get() : nullptr, nullptr);
            auto const end = std::chrono::steady_clock::now();
            if (run > 0) // the first run warms up
            {
                times.push_back(std::chrono::duration<double, std::milli>(end - start).count());
            }
        }
        if (!st.isOk())
        {
            logger.warning(plugin.label() + ": tactic " + std::to_string(tactic) + " failed while timing and is "
                + "skipped: " + st.message());
            continue;
        }
        std::sort(times.begin(), times.end());
        double const median = times[times.size() / 2];
        report += (report.empty() ? "" : ", ") + std::string("tactic ") + std::to_string(tactic) + ": "
            + std::to_string(median) + " ms";
        if (bestTime < 0.0 || median < bestTime)
        {
            bestTime = median;
            best = tactic;
        }
    }
    if (bestTime < 0.0)
    {
        return failedExecution(plugin.label() + ": every tactic failed while timing (see the warnings above)");
    }
    logger.verbose(plugin.label() + ": timed tactics at the opt shapes of profile 0 (median of "
        + std::to_string(kTIMED_RUNS) + " runs): " + report + "; chose tactic " + std::to_string(best));
    return best;
}

} // namespace kiln
