// The host-memory IGpuAllocator: the "device memory" of backends whose tensors live in host memory (the CPU
// backend, the null backend), and the allocator plugins get on them when the application set none.
#include "backends/hostAllocator.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace kiln
{

namespace
{

//! Sizes of the live allocations, so that reallocate() can copy the old contents.
struct HostAllocations
{
    std::mutex mutex;
    std::unordered_map<void*, uint64_t> sizes;
};

HostAllocations& allocations()
{
    static HostAllocations* instance = new HostAllocations(); // never destroyed: plugins may free at exit
    return *instance;
}

void* alignedAllocate(uint64_t size, uint64_t alignment)
{
    uint64_t align = alignment < sizeof(void*) ? sizeof(void*) : alignment;
    if ((align & (align - 1)) != 0)
    {
        return nullptr; // not a power of two
    }
    uint64_t const bytes = size == 0 ? align : (size + align - 1) / align * align;
    if (bytes < size)
    {
        return nullptr; // overflow
    }
    return std::aligned_alloc(static_cast<size_t>(align), static_cast<size_t>(bytes));
}

} // namespace

void* HostGpuAllocator::allocate(uint64_t const size, uint64_t const alignment, nvinfer1::AllocatorFlags const) noexcept
{
    try
    {
        void* memory = alignedAllocate(size, alignment);
        if (memory != nullptr)
        {
            std::lock_guard<std::mutex> lock(allocations().mutex);
            allocations().sizes[memory] = size;
        }
        return memory;
    }
    catch (...)
    {
        return nullptr;
    }
}

void* HostGpuAllocator::reallocate(void* const baseAddr, uint64_t alignment, uint64_t newSize) noexcept
{
    try
    {
        uint64_t oldSize = 0;
        {
            std::lock_guard<std::mutex> lock(allocations().mutex);
            auto it = allocations().sizes.find(baseAddr);
            if (it == allocations().sizes.end())
            {
                return nullptr; // not ours
            }
            oldSize = it->second;
        }
        if (newSize <= oldSize && reinterpret_cast<uintptr_t>(baseAddr) % (alignment == 0 ? 1 : alignment) == 0)
        {
            return baseAddr;
        }
        void* memory = allocate(newSize, alignment, 0);
        if (memory == nullptr)
        {
            return nullptr; // TensorRT: the old block stays valid
        }
        std::memcpy(memory, baseAddr, static_cast<size_t>(oldSize < newSize ? oldSize : newSize));
        deallocate(baseAddr);
        return memory;
    }
    catch (...)
    {
        return nullptr;
    }
}

bool HostGpuAllocator::deallocate(void* const memory) noexcept
{
    if (memory == nullptr)
    {
        return true;
    }
    try
    {
        std::lock_guard<std::mutex> lock(allocations().mutex);
        if (allocations().sizes.erase(memory) == 0)
        {
            return false;
        }
    }
    catch (...)
    {
        return false;
    }
    std::free(memory);
    return true;
}

HostGpuAllocator& hostGpuAllocator()
{
    static HostGpuAllocator instance;
    return instance;
}

} // namespace kiln
