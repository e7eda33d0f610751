// PluginResourceContext: the resource context an execution context offers its plugins.
#include "runtime/pluginResourceContext.h"

namespace kiln
{

PluginResourceContext::PluginResourceContext(nvinfer1::IGpuAllocator* allocator, ErrorRecorderRef const& recorder)
    : mAllocator(allocator != nullptr ? allocator : &hostGpuAllocator())
    , mRecorder(recorder)
{
}

nvinfer1::IGpuAllocator* PluginResourceContext::getGpuAllocator() const noexcept
{
    return mAllocator;
}

nvinfer1::IErrorRecorder* PluginResourceContext::getErrorRecorder() const noexcept
{
    return mRecorder.get();
}

} // namespace kiln
