// gpuTestUtils.h — helpers of the GPU test executable kilnGpuTests (tests/gpu): RAII device buffers, host<->device
// copies of test tensors, the skip macro for machines without the CUDA backend, an IOutputAllocator handing out
// device (or host) memory, and a runner that builds one network for a chosen backend and runs it with buffers in
// that backend's memory (device buffers and a real stream on kCUDA, host buffers on kCPU).
#pragma once

#include "NvInfer.h"
#include "common/networkRunner.h"
#include "kiln/KilnBackend.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln::test::gpu
{

//! Why the CUDA backend is unavailable here (no device, no driver ...), for skip messages.
std::string cudaUnavailableReason();

//! Skips the current test, visibly, when engines cannot be built and run for kiln::BackendKind::kCUDA.
#define KILN_REQUIRE_CUDA_BACKEND()                                                                                    \
    do                                                                                                                 \
    {                                                                                                                  \
        if (!::kiln::isBackendAvailable(::kiln::BackendKind::kCUDA))                                                   \
        {                                                                                                              \
            GTEST_SKIP() << "SKIP: no CUDA GPU / CUDA backend unavailable ("                                           \
                         << ::kiln::test::gpu::cudaUnavailableReason() << ")";                                         \
        }                                                                                                              \
    } while (0)

//! "cudaErrorX (message)" for failure messages.
std::string cudaText(cudaError_t status);

//! The memory type cudaPointerGetAttributes reports (cudaMemoryTypeUnregistered on failure, error cleared).
cudaMemoryType memoryTypeOf(void const* pointer);
//! True for device or managed memory.
bool isDeviceMemory(void const* pointer);

//! Device memory owned by the test (cudaMalloc / cudaFree). Failures are recorded as test failures.
class DeviceBuffer
{
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t bytes);
    ~DeviceBuffer();
    DeviceBuffer(DeviceBuffer&& other) noexcept;
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
    DeviceBuffer(DeviceBuffer const&) = delete;
    DeviceBuffer& operator=(DeviceBuffer const&) = delete;

    void* get() const { return mData; }
    size_t bytes() const { return mBytes; }
    //! Synchronous copies (the test's own transfers, outside the engine's stream).
    void upload(void const* host, size_t bytes);
    void download(void* host, size_t bytes) const;
    void fill(uint8_t byte);

private:
    void release();
    void* mData{nullptr};
    size_t mBytes{0};
};

//! A device copy of `t` (at least one byte, so that empty tensors get a valid address too).
DeviceBuffer toDevice(HostTensor const& t);
//! `t.dims` elements of `t.type` copied from device memory at `device`.
HostTensor fromDevice(void const* device, nvinfer1::DataType type, nvinfer1::Dims const& dims);

//! A stream created and destroyed by the test.
class Stream
{
public:
    Stream();
    ~Stream();
    Stream(Stream const&) = delete;
    Stream& operator=(Stream const&) = delete;
    cudaStream_t get() const { return mStream; }
    //! cudaStreamSynchronize; failure recorded as a test failure.
    bool synchronize() const;

private:
    cudaStream_t mStream{nullptr};
};

//! IOutputAllocator for outputs of data-dependent shape: device memory (cudaMalloc) for kCUDA engines, host memory
//! for kCPU ones. Poisons what it hands out and records every call.
class TestOutputAllocator : public nvinfer1::IOutputAllocator
{
public:
    explicit TestOutputAllocator(bool device)
        : mDevice(device)
    {
    }
    ~TestOutputAllocator() override;

    void* reallocateOutputAsync(char const* tensorName, void* currentMemory, uint64_t size, uint64_t alignment,
        cudaStream_t stream) noexcept override;
    void notifyShape(char const* tensorName, nvinfer1::Dims const& dims) noexcept override;

    void* memory() const { return mDevice ? mDeviceMemory : static_cast<void*>(const_cast<uint8_t*>(mHost.data())); }
    int32_t reallocations{0};
    int32_t notifications{0};
    uint64_t requestedBytes{0};
    cudaStream_t lastStream{nullptr};
    nvinfer1::Dims shape{-1, {}};

private:
    bool mDevice;
    void* mDeviceMemory{nullptr};
    uint64_t mCapacity{0};
    std::vector<uint8_t> mHost;
};

//! Builds the network that `body` adds to a NetworkRunner, for `backend` (kiln::setBuilderBackend). The runner
//! owns the engine (runner->engine()); nullptr, with the logger's errors as a test failure, when the build fails.
std::unique_ptr<NetworkRunner> buildFor(
    kiln::BackendKind backend, std::function<void(NetworkRunner&)> const& body, uint32_t networkFlags = 0);

//! One run of `engine` on a new execution context. kCUDA: inputs are copied to device buffers, outputs are poisoned
//! device buffers, enqueueV3 runs on `stream` (a test stream when null) and is synchronised, outputs are copied
//! back. kCPU: host buffers and enqueueV3(nullptr). Outputs named in `allocators` go through them and come back
//! with the notified shape. False (with `error` set) when a step fails.
bool runEngine(nvinfer1::ICudaEngine& engine, kiln::BackendKind backend,
    std::map<std::string, HostTensor> const& inputs, std::map<std::string, HostTensor>& outputs, std::string& error,
    std::map<std::string, TestOutputAllocator*> const& allocators = {}, cudaStream_t stream = nullptr);

} // namespace kiln::test::gpu
