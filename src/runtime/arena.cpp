// ActivationMemory and DeviceBuffer implementation.
#include "runtime/arena.h"

#include <cstdlib>
#include <string>
#include <utility>

namespace kiln
{

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : mAllocator(other.mAllocator)
    , mData(std::exchange(other.mData, nullptr))
    , mSize(std::exchange(other.mSize, 0))
{
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept
{
    if (this != &other)
    {
        release();
        mAllocator = other.mAllocator;
        mData = std::exchange(other.mData, nullptr);
        mSize = std::exchange(other.mSize, 0);
    }
    return *this;
}

Status DeviceBuffer::allocate(nvinfer1::IGpuAllocator* allocator, int64_t size, char const* what)
{
    if (size < 0)
    {
        return invalidArgument(std::string(what) + ": size " + std::to_string(size) + " is negative");
    }
    release();
    mAllocator = allocator;
    if (size == 0)
    {
        return Status::ok();
    }
    int64_t const rounded = (size + ActivationMemory::kALIGNMENT - 1) / ActivationMemory::kALIGNMENT
        * ActivationMemory::kALIGNMENT;
    void* p = nullptr;
    if (allocator == nullptr)
    {
        p = std::aligned_alloc(static_cast<size_t>(ActivationMemory::kALIGNMENT), static_cast<size_t>(rounded));
    }
    else
    {
        KILN_IGNORE_DEPRECATED_BEGIN
        p = allocator->allocate(static_cast<uint64_t>(rounded), static_cast<uint64_t>(ActivationMemory::kALIGNMENT), 0);
        KILN_IGNORE_DEPRECATED_END
    }
    if (p == nullptr)
    {
        return failedAllocation("cannot allocate " + std::to_string(size) + " bytes of " + what
            + (allocator != nullptr ? " (the GPU allocator returned nullptr)" : ""));
    }
    if (reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(ActivationMemory::kALIGNMENT) != 0)
    {
        mData = static_cast<uint8_t*>(p);
        release();
        return failedAllocation(std::string(what) + ": the GPU allocator returned memory that is not 256-byte aligned");
    }
    mData = static_cast<uint8_t*>(p);
    mSize = rounded;
    return Status::ok();
}

Status DeviceBuffer::reserve(nvinfer1::IGpuAllocator* allocator, int64_t size, char const* what)
{
    if (mData != nullptr && mSize >= size && mAllocator == allocator)
    {
        return Status::ok();
    }
    return allocate(allocator, size, what);
}

void DeviceBuffer::release()
{
    if (mData != nullptr)
    {
        if (mAllocator == nullptr)
        {
            std::free(mData);
        }
        else
        {
            KILN_IGNORE_DEPRECATED_BEGIN
            mAllocator->deallocate(mData);
            KILN_IGNORE_DEPRECATED_END
        }
    }
    mData = nullptr;
    mSize = 0;
}

Status ActivationMemory::allocate(int64_t size, bool exact)
{
    if (size < 0)
    {
        return invalidArgument("activation memory size " + std::to_string(size) + " is negative");
    }
    if (mIsOwned && mPresent && mSize >= size && (!exact || mSize == size))
    {
        return Status::ok();
    }
    release();
    KILN_RETURN_IF_ERROR(mOwned.allocate(mAllocator, size, "activation memory"));
    mSize = size;
    mIsOwned = true;
    mPresent = true;
    return Status::ok();
}

void ActivationMemory::useExternal(void* memory, int64_t size)
{
    release();
    mExternal = static_cast<uint8_t*>(memory);
    mSize = size;
    mIsOwned = false;
    mPresent = memory != nullptr || size == 0;
}

void ActivationMemory::release()
{
    mOwned.release();
    mExternal = nullptr;
    mSize = 0;
    mIsOwned = false;
    mPresent = false;
}

} // namespace kiln
