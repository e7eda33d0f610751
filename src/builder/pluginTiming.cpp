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

//! A buffer in the backend's memory (device memory on the GPU), freed with the same allocator.
class Buffer
{
public:
    Buffer(Backend const& backend, int64_t bytes)
        : mAllocator(backend.defaultAllocator())
    {
        auto const size = static_cast<uint64_t>((std::max<int64_t>(bytes, 1) + 255) / 256 * 256);
        KILN_IGNORE_DEPRECATED_BEGIN
        mData = mAllocator.allocate(size, 256, 0);
        KILN_IGNORE_DEPRECATED_END
    }
    ~Buffer()
    {
        KILN_IGNORE_DEPRECATED_BEGIN
        mAllocator.deallocate(mData);
        KILN_IGNORE_DEPRECATED_END
    }
    Buffer(Buffer const&) = delete;
    Buffer& operator=(Buffer const&) = delete;
    void* get() const { return mData; }

private:
    nvinfer1::IGpuAllocator& mAllocator;
    void* mData{nullptr};
};

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
    Backend const& backend, Logger const& logger)
{
    std::mt19937 rng(1234);
    std::vector<std::unique_ptr<Buffer>> buffers;
    std::vector<void const*> inPtrs;
    std::vector<void*> outPtrs;
    std::vector<nvinfer1::PluginTensorDesc> inDescs;
    std::vector<nvinfer1::PluginTensorDesc> outDescs;
    for (TimingTensor const& t : inputs)
    {
        buffers.push_back(std::make_unique<Buffer>(backend, t.bytes));
        if (buffers.back()->get() == nullptr)
        {
            return failedAllocation(plugin.label() + ": cannot allocate " + std::to_string(t.bytes)
                + " bytes to time its tactics");
        }
        std::vector<uint8_t> host(static_cast<size_t>(std::max<int64_t>(t.bytes, 0)));
        fillRandom(host.data(), t, rng);
        KILN_RETURN_IF_ERROR(backend.copy(buffers.back()->get(), host.data(), t.bytes, CopyKind::kHOST_TO_DEVICE, nullptr));
        inPtrs.push_back(buffers.back()->get());
        inDescs.push_back(t.desc);
    }
    for (TimingTensor const& t : outputs)
    {
        buffers.push_back(std::make_unique<Buffer>(backend, t.bytes));
        if (buffers.back()->get() == nullptr)
        {
            return failedAllocation(plugin.label() + ": cannot allocate " + std::to_string(t.bytes)
                + " bytes to time its tactics");
        }
        outPtrs.push_back(buffers.back()->get());
        outDescs.push_back(t.desc);
    }
    KILN_RETURN_IF_ERROR(backend.synchronize(nullptr));
    Buffer workspace(backend, workspaceBytes);
    if (workspace.get() == nullptr)
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
            if (st.isOk())
            {
                st = backend.synchronize(nullptr);
            }
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
