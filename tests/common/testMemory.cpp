// Test I/O memory (see testMemory.h): host vectors always; cudaMalloc'd device memory and streams only where the
// executable links the CUDA runtime (KILN_TEST_CUDA_RUNTIME), failing with a clear message elsewhere.
#include "common/testMemory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <utility>

#if KILN_TEST_CUDA_RUNTIME
#include <cuda_runtime_api.h>
#endif

namespace kiln::test
{
namespace
{

#if KILN_TEST_CUDA_RUNTIME
std::string cudaText(cudaError_t status)
{
    return std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")";
}

bool cudaOk(cudaError_t status, char const* call)
{
    if (status == cudaSuccess)
    {
        return true;
    }
    ADD_FAILURE() << call << ": " << cudaText(status);
    return false;
}
#else
constexpr char const* kNO_CUDA_RUNTIME
    = "this test executable is built without the CUDA runtime (the CUDA instances of the layer tests run in "
      "kilnGpuTests)";
#endif

} // namespace

bool deviceMemoryAvailable(std::string& why)
{
#if KILN_TEST_CUDA_RUNTIME
    int count = 0;
    cudaError_t const status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess)
    {
        (void) cudaGetLastError();
        why = "cudaGetDeviceCount: " + cudaText(status);
        return false;
    }
    if (count == 0)
    {
        why = "no CUDA device";
        return false;
    }
    return true;
#else
    why = kNO_CUDA_RUNTIME;
    return false;
#endif
}

TestBuffer::TestBuffer(bool device, size_t bytes, uint8_t poison)
    : mDevice(device)
    , mBytes(bytes)
{
    size_t const size = std::max<size_t>(bytes, 1);
    if (!device)
    {
        mHost.assign(size, poison);
        mData = mHost.data();
        return;
    }
#if KILN_TEST_CUDA_RUNTIME
    // cudaMemset runs on the legacy default stream, asynchronously to the host; the engines run on non-blocking
    // streams, which do not wait for it: the poison is complete before the buffer is handed out.
    if (!cudaOk(cudaMalloc(&mData, size), "cudaMalloc") || !cudaOk(cudaMemset(mData, poison, size), "cudaMemset")
        || !cudaOk(cudaDeviceSynchronize(), "cudaDeviceSynchronize after cudaMemset"))
    {
        release();
    }
#else
    ADD_FAILURE() << "device buffer requested: " << kNO_CUDA_RUNTIME;
    mBytes = 0;
#endif
}

TestBuffer::~TestBuffer()
{
    release();
}

TestBuffer::TestBuffer(TestBuffer&& other) noexcept
{
    *this = std::move(other);
}

TestBuffer& TestBuffer::operator=(TestBuffer&& other) noexcept
{
    if (this != &other)
    {
        release();
        mDevice = other.mDevice;
        mBytes = other.mBytes;
        mHost = std::move(other.mHost);
        mData = mDevice ? other.mData : mHost.data();
        other.mData = nullptr;
        other.mBytes = 0;
        other.mHost.clear();
    }
    return *this;
}

void TestBuffer::release()
{
#if KILN_TEST_CUDA_RUNTIME
    if (mDevice && mData != nullptr)
    {
        (void) cudaFree(mData);
    }
#endif
    mData = nullptr;
    mBytes = 0;
    mHost.clear();
}

bool TestBuffer::copy(void* dst, void const* src, size_t bytes, bool toBuffer) const
{
    if (bytes > mBytes || (bytes > 0 && mData == nullptr))
    {
        ADD_FAILURE() << "copy of " << bytes << " bytes " << (toBuffer ? "into" : "out of") << " a test buffer of "
                      << mBytes;
        return false;
    }
    if (bytes == 0)
    {
        return true;
    }
    if (!mDevice)
    {
        std::memcpy(dst, src, bytes);
        return true;
    }
#if KILN_TEST_CUDA_RUNTIME
    return cudaOk(cudaMemcpy(dst, src, bytes, toBuffer ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost),
        toBuffer ? "cudaMemcpy (host to device)" : "cudaMemcpy (device to host)");
#else
    return false;
#endif
}

bool TestBuffer::upload(void const* host, size_t bytes)
{
    return copy(mData, host, bytes, true);
}

bool TestBuffer::download(void* host, size_t bytes) const
{
    return copy(host, mData, bytes, false);
}

TestStream::TestStream(bool device)
{
    if (!device)
    {
        return;
    }
#if KILN_TEST_CUDA_RUNTIME
    if (!cudaOk(cudaStreamCreateWithFlags(&mStream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"))
    {
        mStream = nullptr;
    }
#else
    ADD_FAILURE() << "CUDA stream requested: " << kNO_CUDA_RUNTIME;
#endif
}

TestStream::~TestStream()
{
#if KILN_TEST_CUDA_RUNTIME
    if (mStream != nullptr)
    {
        (void) cudaStreamDestroy(mStream);
    }
#endif
}

bool TestStream::synchronize(std::string& error) const
{
#if KILN_TEST_CUDA_RUNTIME
    if (mStream == nullptr)
    {
        return true;
    }
    cudaError_t const status = cudaStreamSynchronize(mStream);
    if (status != cudaSuccess)
    {
        error = "cudaStreamSynchronize: " + cudaText(status);
        return false;
    }
#else
    (void) error;
#endif
    return true;
}

} // namespace kiln::test
