// CheckResources implementation: a host allocator behind the IPluginResourceContext given to plugins.
#include "plugin/checker/checkResources.h"

#include <cstdlib>

namespace kiln::checker
{

void* HostAllocator::allocate(uint64_t const size, uint64_t const alignment, nvinfer1::AllocatorFlags const) noexcept
{
    if (size == 0)
    {
        return nullptr;
    }
    uint64_t align = alignment < sizeof(void*) ? sizeof(void*) : alignment;
    if ((align & (align - 1)) != 0)
    {
        return nullptr;
    }
    void* memory = nullptr;
    if (posix_memalign(&memory, static_cast<size_t>(align), static_cast<size_t>(size)) != 0)
    {
        return nullptr;
    }
    return memory;
}

bool HostAllocator::deallocate(void* const memory) noexcept
{
    std::free(memory);
    return true;
}

nvinfer1::IGpuAllocator* CheckResources::getGpuAllocator() const noexcept
{
    return &mAllocator;
}

nvinfer1::IErrorRecorder* CheckResources::getErrorRecorder() const noexcept
{
    return nullptr;
}

} // namespace kiln::checker
