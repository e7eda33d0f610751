// PluginResourceContext: the nvinfer1::IPluginResourceContext an execution context offers its plugins
// (IPluginV3OneRuntime::attachToContext, and the allocator of IPluginV2Ext::attachToContext). It hands out the
// runtime's IGpuAllocator or, on the CPU backend without one, a host-memory allocator, and the context's current
// error recorder.
#pragma once

#include "NvInferRuntime.h"
#include "runtime/errorRecorderRef.h"

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

class PluginResourceContext final : public nvinfer1::IPluginResourceContext
{
public:
    //! `allocator` nullptr selects hostGpuAllocator(). `recorder` is the context's recorder reference, read at
    //! each call so that IExecutionContext::setErrorRecorder is seen by plugins; it must outlive this object.
    PluginResourceContext(nvinfer1::IGpuAllocator* allocator, ErrorRecorderRef const& recorder);

    nvinfer1::IGpuAllocator* getGpuAllocator() const noexcept override;
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override;

private:
    nvinfer1::IGpuAllocator* mAllocator;
    ErrorRecorderRef const& mRecorder;
};

} // namespace kiln
