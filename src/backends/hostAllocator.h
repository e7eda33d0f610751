// HostGpuAllocator: an nvinfer1::IGpuAllocator over aligned host memory, for backends whose "device memory" is host
// memory (capabilities().deviceMemory == false).
#pragma once

#include "NvInferRuntime.h"

namespace kiln
{

//! IGpuAllocator over aligned host memory: the CPU backend's "device memory" is host memory. Thread-safe.
class HostGpuAllocator final : public nvinfer1::IGpuAllocator
{
public:
    void* allocate(uint64_t const size, uint64_t const alignment, nvinfer1::AllocatorFlags const flags) noexcept override;
    void* reallocate(void* const baseAddr, uint64_t alignment, uint64_t newSize) noexcept override;
    bool deallocate(void* const memory) noexcept override;
};

//! The process-wide host allocator used when the runtime has no IGpuAllocator.
HostGpuAllocator& hostGpuAllocator();

} // namespace kiln
