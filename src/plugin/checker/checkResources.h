// CheckResources: the IPluginResourceContext the contract checker hands to attachToContext(), like an execution
// context does: a host-memory IGpuAllocator (the checker runs plugins on host memory) and no error recorder.
#pragma once

#include "NvInferRuntime.h"

namespace kiln::checker
{

//! IGpuAllocator over aligned host memory.
class HostAllocator final : public nvinfer1::IGpuAllocator
{
public:
    void* allocate(uint64_t const size, uint64_t const alignment, nvinfer1::AllocatorFlags const flags) noexcept
        override;
    bool deallocate(void* const memory) noexcept override;
};

class CheckResources final : public nvinfer1::IPluginResourceContext
{
public:
    nvinfer1::IGpuAllocator* getGpuAllocator() const noexcept override;
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override;

private:
    mutable HostAllocator mAllocator;
};

} // namespace kiln::checker
