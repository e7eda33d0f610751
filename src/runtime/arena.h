// ActivationMemory: the activation arena of one execution context — either owned (allocated by Kiln through the
// context's allocator: aligned host memory on the CPU backend, device memory from the IGpuAllocator on the CUDA
// backend) or supplied by the application (setDeviceMemory/setDeviceMemoryV2 with
// ExecutionContextAllocationStrategy::kUSER_MANAGED). DeviceBuffer is one owned allocation of the same kind.
#pragma once

#include "NvInferRuntime.h"
#include "core/status.h"

#include <cstdint>

namespace kiln
{

//! One allocation from an IGpuAllocator (or aligned host memory when the allocator is nullptr), freed with it.
class DeviceBuffer
{
public:
    DeviceBuffer() = default;
    ~DeviceBuffer() { release(); }
    DeviceBuffer(DeviceBuffer const&) = delete;
    DeviceBuffer& operator=(DeviceBuffer const&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept;
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;

    //! Replace the allocation by one of at least `size` bytes (256-byte aligned); `what` names it in errors.
    Status allocate(nvinfer1::IGpuAllocator* allocator, int64_t size, char const* what);
    //! allocate() unless the current allocation already holds `size` bytes.
    Status reserve(nvinfer1::IGpuAllocator* allocator, int64_t size, char const* what);
    void release();

    uint8_t* data() const { return mData; }
    int64_t size() const { return mSize; }

private:
    nvinfer1::IGpuAllocator* mAllocator{nullptr};
    uint8_t* mData{nullptr};
    int64_t mSize{0};
};

class ActivationMemory
{
public:
    //! Alignment of every arena Kiln allocates, and required of application-supplied memory.
    static constexpr int64_t kALIGNMENT = 256;

    //! `allocator` nullptr: aligned host memory (the CPU backend).
    explicit ActivationMemory(nvinfer1::IGpuAllocator* allocator = nullptr)
        : mAllocator(allocator)
    {
    }
    ActivationMemory(ActivationMemory const&) = delete;
    ActivationMemory& operator=(ActivationMemory const&) = delete;

    void setAllocator(nvinfer1::IGpuAllocator* allocator) { mAllocator = allocator; }

    //! Own at least `size` bytes. Keeps the current allocation when it is owned and large enough unless
    //! `exact` asks to shrink it to `size`.
    Status allocate(int64_t size, bool exact);
    //! Use application memory; `size` -1 means unknown (deprecated setDeviceMemory). Frees owned memory.
    void useExternal(void* memory, int64_t size);
    void release();

    bool present() const { return mPresent; }
    uint8_t* base() const { return mExternal != nullptr ? mExternal : mOwned.data(); }
    //! Usable bytes; -1 when application memory of unknown size.
    int64_t size() const { return mSize; }
    bool owned() const { return mIsOwned; }

private:
    nvinfer1::IGpuAllocator* mAllocator{nullptr};
    DeviceBuffer mOwned;
    uint8_t* mExternal{nullptr};
    int64_t mSize{0};
    bool mIsOwned{false};
    bool mPresent{false};
};

} // namespace kiln
