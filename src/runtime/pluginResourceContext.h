// PluginResourceContext: the nvinfer1::IPluginResourceContext an execution context offers its plugins
// (IPluginV3OneRuntime::attachToContext, and the allocator of IPluginV2Ext::attachToContext). It hands out the
// runtime's IGpuAllocator or, on the CPU backend without one, a host-memory allocator, and the context's current
// error recorder.
#pragma once

#include "NvInferRuntime.h"
#include "backends/hostAllocator.h"
#include "runtime/errorRecorderRef.h"

namespace kiln
{

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
