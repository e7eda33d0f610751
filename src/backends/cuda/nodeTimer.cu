// The CUDA backend's NodeTimer. begin() launches a one-thread gate kernel that polls a flag in mapped pinned host
// memory, so the nodes enqueued after it wait on the device while the host enqueues the rest of the run; release()
// sets the flag and waits for the stream. The events recorded between the nodes then measure device time only: with
// the queue full, each node starts as soon as the one before it ends. The gate gives up after kGATE_LIMIT_NS (a
// node that waits for its own stream would otherwise hang until then); the timer reports that it did.
#include "backends/cuda/cudaCheck.h"
#include "backends/cuda/nodeTimer.h"

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace kiln::cuda
{
namespace
{

constexpr unsigned long long kGATE_LIMIT_NS = 200ULL * 1000ULL * 1000ULL; // 200 ms
constexpr uint32_t kOPEN = 1;
constexpr uint32_t kTIMED_OUT = 2;

__device__ unsigned long long globalTimerNs()
{
    unsigned long long t = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

//! Waits until the host opens the gate (`*gate` becomes kOPEN) or the limit passes (then it writes kTIMED_OUT).
__global__ void nodeTimerGateKernel(uint32_t volatile* gate, unsigned long long limitNs)
{
    unsigned long long const start = globalTimerNs();
    while (*gate != kOPEN)
    {
        if (globalTimerNs() - start > limitNs)
        {
            *gate = kTIMED_OUT;
            return;
        }
        __nanosleep(1000);
    }
}

class CudaNodeTimer final : public NodeTimer
{
public:
    ~CudaNodeTimer() override
    {
        for (cudaEvent_t e : mEvents)
        {
            cudaEventDestroy(e);
        }
        if (mHostGate != nullptr)
        {
            cudaFreeHost(mHostGate);
        }
    }

    Status init()
    {
        void* host = nullptr;
        KILN_CUDA_CHECK(cudaHostAlloc(&host, sizeof(uint32_t), cudaHostAllocMapped));
        mHostGate = static_cast<uint32_t*>(host);
        *mHostGate = kOPEN;
        void* device = nullptr;
        KILN_CUDA_CHECK(cudaHostGetDevicePointer(&device, host, 0));
        mDeviceGate = static_cast<uint32_t*>(device);
        return Status::ok();
    }

    Status begin(cudaStream_t stream, size_t marks) override
    {
        while (mEvents.size() < marks + 1)
        {
            cudaEvent_t e = nullptr;
            KILN_CUDA_CHECK(cudaEventCreate(&e));
            mEvents.push_back(e);
        }
        mMarks = marks;
        __atomic_store_n(mHostGate, 0U, __ATOMIC_RELEASE);
        nodeTimerGateKernel<<<1, 1, 0, stream>>>(mDeviceGate, kGATE_LIMIT_NS);
        Status const launched = launchStatus("the layer timer's gate kernel");
        if (!launched.isOk())
        {
            __atomic_store_n(mHostGate, kOPEN, __ATOMIC_RELEASE);
            return launched;
        }
        return cudaStatus(cudaEventRecord(mEvents[0], stream), "cudaEventRecord");
    }

    Status mark(size_t index, cudaStream_t stream) override
    {
        if (index == 0 || index > mMarks)
        {
            return internalError("layer timer: mark " + std::to_string(index) + " outside 1.." + std::to_string(mMarks));
        }
        return cudaStatus(cudaEventRecord(mEvents[index], stream), "cudaEventRecord");
    }

    Status release(cudaStream_t stream) override
    {
        uint32_t expected = 0;
        // The gate kernel may already have given up (kTIMED_OUT); then the flag keeps saying so.
        mTimedOut = !__atomic_compare_exchange_n(mHostGate, &expected, kOPEN, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
        return cudaStatus(cudaStreamSynchronize(stream), "cudaStreamSynchronize (layer timing)");
    }

    StatusOr<float> elapsedMs(size_t index) const override
    {
        if (index == 0 || index > mMarks)
        {
            return internalError("layer timer: no mark " + std::to_string(index));
        }
        float ms = 0.F;
        KILN_CUDA_CHECK(cudaEventElapsedTime(&ms, mEvents[index - 1], mEvents[index]));
        return ms;
    }

    bool gateTimedOut() const override { return mTimedOut; }

private:
    uint32_t* mHostGate{nullptr};
    uint32_t* mDeviceGate{nullptr};
    std::vector<cudaEvent_t> mEvents;
    size_t mMarks{0};
    bool mTimedOut{false};
};

} // namespace

StatusOr<std::unique_ptr<NodeTimer>> createCudaNodeTimer()
{
    auto timer = std::make_unique<CudaNodeTimer>();
    KILN_RETURN_IF_ERROR(timer->init().withContext("creating the CUDA layer timer"));
    return std::unique_ptr<NodeTimer>(std::move(timer));
}

} // namespace kiln::cuda
