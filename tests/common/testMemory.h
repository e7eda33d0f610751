// Test I/O memory on either backend: a buffer in host memory (CPU backend) or device memory (CUDA backend), a CUDA
// stream, and whether this test executable can reach device memory at all. The CUDA half is compiled only into the
// executables that link the CUDA runtime (KILN_TEST_CUDA_RUNTIME = 1: kilnGpuTests, kilnCudaTests); elsewhere
// (kilnTests) every device request fails with a message saying so, and no test header names a CUDA type.
#pragma once

#include "NvInferRuntimeBase.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::test
{

//! True when this executable can allocate and copy device memory on a present CUDA device; `why` says why not.
bool deviceMemoryAvailable(std::string& why);

//! A test-owned buffer of `bytes` bytes (at least one, so that empty tensors get a valid address), filled with
//! `poison`: host memory, or device memory (cudaMalloc) when `device`. Failures are test failures.
class TestBuffer
{
public:
    TestBuffer() = default;
    TestBuffer(bool device, size_t bytes, uint8_t poison = 0xA5);
    ~TestBuffer();
    TestBuffer(TestBuffer&& other) noexcept;
    TestBuffer& operator=(TestBuffer&& other) noexcept;
    TestBuffer(TestBuffer const&) = delete;
    TestBuffer& operator=(TestBuffer const&) = delete;

    void* data() const { return mData; }
    size_t bytes() const { return mBytes; }
    bool onDevice() const { return mDevice; }
    //! Synchronous copies of `bytes` (at most bytes()) in and out; false (and a test failure) on error.
    bool upload(void const* host, size_t bytes);
    bool download(void* host, size_t bytes) const;

private:
    void release();
    bool copy(void* dst, void const* src, size_t bytes, bool toBuffer) const;
    bool mDevice{false};
    void* mData{nullptr};
    size_t mBytes{0};
    std::vector<uint8_t> mHost;
};

//! A CUDA stream created for one run (nullptr, the CPU backend's stream, when `device` is false).
class TestStream
{
public:
    explicit TestStream(bool device);
    ~TestStream();
    TestStream(TestStream const&) = delete;
    TestStream& operator=(TestStream const&) = delete;
    cudaStream_t get() const { return mStream; }
    //! Waits for the stream; false with `error` on failure (true at once for the CPU backend).
    bool synchronize(std::string& error) const;

private:
    cudaStream_t mStream{nullptr};
};

} // namespace kiln::test
