// The CUDA runtime calls kilnexec makes for engines on the CUDA backend (devices, streams, events, device and pinned
// host memory, copies, graph capture and replay), behind an interface that names no CUDA header. When kilnexec is
// built without CUDA (KILNEXEC_HAVE_CUDA = 0) every call fails with "kilnexec was built without CUDA", so the rest of
// kilnexec has no #if.
#pragma once

#include "NvInferRuntimeBase.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace kilnexec
{
namespace cuda
{

//! True when kilnexec was built with the CUDA runtime.
bool built();

//! The number of CUDA devices; false with `error` (the CUDA error string) when none can be counted.
bool deviceCount(int32_t& count, std::string& error);

//! Make `index` the current device of this thread; false with `error`.
bool setDevice(int32_t index, std::string& error);

//! "NVIDIA H200 (device 0, sm_90, 132 SMs, 139.8 GiB, CUDA driver 13.0 / runtime 13.0)"; "" when unavailable.
std::string deviceDescription(int32_t index);

//! The current device (0 when it cannot be asked).
int32_t currentDevice();

//! Clear the thread's last CUDA error (after a failed capture), returning its text ("" when none).
std::string takeLastError();

//! Device memory from cudaMalloc, released with cudaFree.
std::shared_ptr<void> deviceAlloc(size_t bytes, std::string& error);

//! Page-locked host memory from cudaMallocHost, released with cudaFreeHost.
std::shared_ptr<void> pinnedAlloc(size_t bytes, std::string& error);

//! Synchronous cudaMemset (setup only: poisoning fresh buffers).
bool memsetSync(void* device, int32_t value, size_t bytes, std::string& error);

enum class CopyKind : int32_t
{
    kHOST_TO_DEVICE,
    kDEVICE_TO_HOST,
};

//! cudaMemcpyAsync on `stream`.
bool copyAsync(void* dst, void const* src, size_t bytes, CopyKind kind, cudaStream_t stream, std::string& error);

//! cudaStreamSynchronize(stream).
bool streamSynchronize(cudaStream_t stream, std::string& error);

//! A created stream (cudaStreamCreateWithFlags, non-blocking), destroyed with the object.
class Stream
{
public:
    Stream() = default;
    ~Stream();
    Stream(Stream const&) = delete;
    Stream& operator=(Stream const&) = delete;
    bool create(std::string& error);
    cudaStream_t get() const { return mStream; }
    bool synchronize(std::string& error) const;

private:
    cudaStream_t mStream{nullptr};
};

//! A timing event (cudaEventCreate), destroyed with the object.
class Event
{
public:
    Event() = default;
    ~Event();
    Event(Event const&) = delete;
    Event& operator=(Event const&) = delete;
    bool create(std::string& error);
    bool record(cudaStream_t stream, std::string& error);
    bool synchronize(std::string& error) const;
    //! Milliseconds from `start` to `end` (both recorded and complete); false with `error`.
    static bool elapsedMs(Event const& start, Event const& end, float& ms, std::string& error);

private:
    cudaEvent_t mEvent{nullptr};
};

//! One captured enqueueV3, instantiated and replayed with cudaGraphLaunch.
class Graph
{
public:
    Graph() = default;
    ~Graph();
    Graph(Graph const&) = delete;
    Graph& operator=(Graph const&) = delete;
    //! cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal).
    bool beginCapture(cudaStream_t stream, std::string& error);
    //! cudaStreamEndCapture; always ends the capture begun on `stream`. False with `error` when the capture was
    //! invalidated or produced no graph.
    bool endCapture(cudaStream_t stream, std::string& error);
    //! cudaGraphInstantiate of the captured graph.
    bool instantiate(std::string& error);
    bool launch(cudaStream_t stream, std::string& error);
    bool ready() const { return mExec != nullptr; }

private:
    void* mGraph{nullptr}; //!< cudaGraph_t
    void* mExec{nullptr};  //!< cudaGraphExec_t
};

} // namespace cuda
} // namespace kilnexec
