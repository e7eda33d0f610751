// HostMemoryBackend: the memory side of backends whose tensors live in host memory (the CPU backend, the null
// backend): the host allocator, synchronous copies and fills, no streams to wait for, no events or graph capture.
#pragma once

#include "backends/backend.h"
#include "backends/hostAllocator.h"

#include <cstring>
#include <string>

namespace kiln
{

class HostMemoryBackend : public Backend
{
public:
    nvinfer1::IGpuAllocator& defaultAllocator() const override { return hostGpuAllocator(); }
    Status copy(void* dst, void const* src, int64_t bytes, CopyKind, cudaStream_t) const override
    {
        if (bytes > 0)
        {
            std::memmove(dst, src, static_cast<size_t>(bytes));
        }
        return Status::ok();
    }
    Status memset(void* dst, int32_t value, int64_t bytes, cudaStream_t) const override
    {
        if (bytes > 0)
        {
            std::memset(dst, value, static_cast<size_t>(bytes));
        }
        return Status::ok();
    }
    //! Runs are synchronous: nothing to wait for.
    Status synchronize(cudaStream_t) const override { return Status::ok(); }
    Status recordEvent(cudaEvent_t, cudaStream_t) const override
    {
        return unsupported("CUDA events are not supported by " + backendDisplayName(*this)
            + " (runs are synchronous)");
    }
    bool isCapturing(cudaStream_t) const override { return false; }
    int32_t currentDevice() const override { return -1; }
};

} // namespace kiln
