// gpuTestUtils.cpp — device buffers, streams, the test output allocator and the backend-aware engine runner of
// kilnGpuTests (see gpuTestUtils.h).
#include "gpuTestUtils.h"

#include <algorithm>
#include <cstring>

namespace kiln::test::gpu
{

std::string cudaUnavailableReason()
{
    int32_t count = 0;
    cudaError_t const status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess)
    {
        (void) cudaGetLastError();
        return "cudaGetDeviceCount: " + cudaText(status);
    }
    if (count == 0)
    {
        return "no CUDA device";
    }
    return std::to_string(count) + " CUDA device(s) present, but kiln::isBackendAvailable(kCUDA) is false "
           "(libkiln_cuda.so missing or refused)";
}

std::string cudaText(cudaError_t status)
{
    return std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")";
}

cudaMemoryType memoryTypeOf(void const* pointer)
{
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess)
    {
        (void) cudaGetLastError();
        return cudaMemoryTypeUnregistered;
    }
    return attributes.type;
}

bool isDeviceMemory(void const* pointer)
{
    cudaMemoryType const type = memoryTypeOf(pointer);
    return type == cudaMemoryTypeDevice || type == cudaMemoryTypeManaged;
}

// ---- DeviceBuffer ------------------------------------------------------------------------------------------------

DeviceBuffer::DeviceBuffer(size_t bytes)
    : mBytes(bytes)
{
    cudaError_t const status = cudaMalloc(&mData, std::max<size_t>(bytes, 1));
    if (status != cudaSuccess)
    {
        ADD_FAILURE() << "cudaMalloc(" << bytes << "): " << cudaText(status);
        mData = nullptr;
        mBytes = 0;
    }
}

DeviceBuffer::~DeviceBuffer()
{
    release();
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : mData(other.mData)
    , mBytes(other.mBytes)
{
    other.mData = nullptr;
    other.mBytes = 0;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept
{
    if (this != &other)
    {
        release();
        mData = other.mData;
        mBytes = other.mBytes;
        other.mData = nullptr;
        other.mBytes = 0;
    }
    return *this;
}

void DeviceBuffer::release()
{
    if (mData != nullptr)
    {
        cudaError_t const status = cudaFree(mData);
        EXPECT_EQ(status, cudaSuccess) << "cudaFree: " << cudaText(status);
        mData = nullptr;
        mBytes = 0;
    }
}

void DeviceBuffer::upload(void const* host, size_t bytes)
{
    ASSERT_LE(bytes, mBytes);
    if (bytes == 0)
    {
        return;
    }
    cudaError_t const status = cudaMemcpy(mData, host, bytes, cudaMemcpyHostToDevice);
    EXPECT_EQ(status, cudaSuccess) << "cudaMemcpy H2D: " << cudaText(status);
}

void DeviceBuffer::download(void* host, size_t bytes) const
{
    ASSERT_LE(bytes, mBytes);
    if (bytes == 0)
    {
        return;
    }
    cudaError_t const status = cudaMemcpy(host, mData, bytes, cudaMemcpyDeviceToHost);
    EXPECT_EQ(status, cudaSuccess) << "cudaMemcpy D2H: " << cudaText(status);
}

void DeviceBuffer::fill(uint8_t byte)
{
    // Complete before returning: the engines' non-blocking streams do not wait for the legacy stream's memset.
    cudaError_t status = cudaMemset(mData, byte, std::max<size_t>(mBytes, 1));
    status = status == cudaSuccess ? cudaDeviceSynchronize() : status;
    EXPECT_EQ(status, cudaSuccess) << "cudaMemset: " << cudaText(status);
}

DeviceBuffer toDevice(HostTensor const& t)
{
    DeviceBuffer buffer(t.bytes.size());
    buffer.upload(t.data(), t.bytes.size());
    return buffer;
}

HostTensor fromDevice(void const* device, nvinfer1::DataType type, nvinfer1::Dims const& dims)
{
    HostTensor t(type, dims);
    if (!t.bytes.empty())
    {
        cudaError_t const status = cudaMemcpy(t.data(), device, t.bytes.size(), cudaMemcpyDeviceToHost);
        EXPECT_EQ(status, cudaSuccess) << "cudaMemcpy D2H: " << cudaText(status);
    }
    return t;
}

// ---- Stream ------------------------------------------------------------------------------------------------------

Stream::Stream()
{
    cudaError_t const status = cudaStreamCreateWithFlags(&mStream, cudaStreamNonBlocking);
    if (status != cudaSuccess)
    {
        ADD_FAILURE() << "cudaStreamCreate: " << cudaText(status);
        mStream = nullptr;
    }
}

Stream::~Stream()
{
    if (mStream != nullptr)
    {
        (void) cudaStreamSynchronize(mStream);
        (void) cudaStreamDestroy(mStream);
    }
}

bool Stream::synchronize() const
{
    cudaError_t const status = cudaStreamSynchronize(mStream);
    EXPECT_EQ(status, cudaSuccess) << "cudaStreamSynchronize: " << cudaText(status);
    return status == cudaSuccess;
}

// ---- TestOutputAllocator -----------------------------------------------------------------------------------------

TestOutputAllocator::~TestOutputAllocator()
{
    if (mDeviceMemory != nullptr)
    {
        (void) cudaDeviceSynchronize();
        (void) cudaFree(mDeviceMemory);
    }
}

void* TestOutputAllocator::reallocateOutputAsync(
    char const*, void*, uint64_t size, uint64_t, cudaStream_t stream) noexcept
{
    ++reallocations;
    requestedBytes = size;
    lastStream = stream;
    uint64_t const bytes = std::max<uint64_t>(size, 1);
    if (!mDevice)
    {
        mHost.assign(static_cast<size_t>(bytes), uint8_t{0xA5});
        return mHost.data();
    }
    if (bytes > mCapacity)
    {
        if (mDeviceMemory != nullptr)
        {
            (void) cudaStreamSynchronize(stream);
            (void) cudaFree(mDeviceMemory);
            mDeviceMemory = nullptr;
            mCapacity = 0;
        }
        if (cudaMalloc(&mDeviceMemory, static_cast<size_t>(bytes)) != cudaSuccess)
        {
            (void) cudaGetLastError();
            mDeviceMemory = nullptr;
            return nullptr;
        }
        mCapacity = bytes;
    }
    (void) cudaMemsetAsync(mDeviceMemory, 0xA5, static_cast<size_t>(bytes), stream);
    return mDeviceMemory;
}

void TestOutputAllocator::notifyShape(char const*, nvinfer1::Dims const& dims) noexcept
{
    ++notifications;
    shape = dims;
}

// ---- building and running ----------------------------------------------------------------------------------------

std::unique_ptr<NetworkRunner> buildFor(
    kiln::BackendKind backend, std::function<void(NetworkRunner&)> const& body, uint32_t networkFlags)
{
    auto runner = std::make_unique<NetworkRunner>(networkFlags);
    if (!kiln::setBuilderBackend(&runner->config(), backend))
    {
        ADD_FAILURE() << "setBuilderBackend failed:\n" << runner->logger().allErrors();
        return nullptr;
    }
    body(*runner);
    if (::testing::Test::HasFatalFailure())
    {
        return nullptr;
    }
    if (!runner->build())
    {
        ADD_FAILURE() << "build for backend " << static_cast<int32_t>(backend) << " failed:\n"
                      << runner->logger().allErrors();
        return nullptr;
    }
    EXPECT_EQ(kiln::getEngineBackend(&runner->engine()), backend);
    return runner;
}

namespace
{

bool shapeKnown(nvinfer1::Dims const& d)
{
    return d.nbDims >= 0 && std::all_of(d.d, d.d + d.nbDims, [](int64_t e) { return e >= 0; });
}

} // namespace

bool runEngine(nvinfer1::ICudaEngine& engine, kiln::BackendKind backend,
    std::map<std::string, HostTensor> const& inputs, std::map<std::string, HostTensor>& outputs, std::string& error,
    std::map<std::string, TestOutputAllocator*> const& allocators, cudaStream_t stream)
{
    bool const device = backend == kiln::BackendKind::kCUDA;
    std::unique_ptr<nvinfer1::IExecutionContext> ctx(engine.createExecutionContext());
    if (ctx == nullptr)
    {
        error = "createExecutionContext failed";
        return false;
    }
    std::vector<DeviceBuffer> deviceBuffers;
    std::map<std::string, HostTensor> hostInputs = inputs; // stable host addresses for the CPU backend
    for (auto& [name, t] : hostInputs)
    {
        if (!ctx->setInputShape(name.c_str(), t.dims))
        {
            error = "setInputShape(" + name + ") failed";
            return false;
        }
        void* address = t.bytes.empty() ? static_cast<void*>(&t) : t.data();
        if (device)
        {
            deviceBuffers.push_back(toDevice(t));
            address = deviceBuffers.back().get();
        }
        if (!ctx->setInputTensorAddress(name.c_str(), address))
        {
            error = "setInputTensorAddress(" + name + ") failed";
            return false;
        }
    }
    outputs.clear();
    std::map<std::string, void*> deviceOutputs;
    for (int32_t i = 0; i < engine.getNbIOTensors(); ++i)
    {
        char const* name = engine.getIOTensorName(i);
        if (engine.getTensorIOMode(name) != nvinfer1::TensorIOMode::kOUTPUT)
        {
            continue;
        }
        auto const found = allocators.find(name);
        if (found != allocators.end())
        {
            if (!ctx->setOutputAllocator(name, found->second))
            {
                error = std::string("setOutputAllocator(") + name + ") failed";
                return false;
            }
            continue;
        }
        nvinfer1::Dims const shape = ctx->getTensorShape(name);
        if (!shapeKnown(shape))
        {
            error = std::string("output ") + name + " has no known shape and no allocator";
            return false;
        }
        HostTensor out(engine.getTensorDataType(name), shape);
        std::fill(out.bytes.begin(), out.bytes.end(), uint8_t{0xA5});
        HostTensor& slot = outputs[name] = std::move(out);
        void* address = slot.bytes.empty() ? static_cast<void*>(&slot) : slot.data();
        if (device)
        {
            deviceBuffers.emplace_back(slot.bytes.size());
            deviceBuffers.back().fill(0xA5);
            address = deviceBuffers.back().get();
            deviceOutputs[name] = address;
        }
        if (!ctx->setTensorAddress(name, address))
        {
            error = std::string("setTensorAddress(") + name + ") failed";
            return false;
        }
    }
    std::unique_ptr<Stream> ownStream;
    if (device && stream == nullptr)
    {
        ownStream = std::make_unique<Stream>();
        stream = ownStream->get();
    }
    if (!ctx->enqueueV3(device ? stream : nullptr))
    {
        error = "enqueueV3 failed";
        return false;
    }
    if (device)
    {
        cudaError_t const status = cudaStreamSynchronize(stream);
        if (status != cudaSuccess)
        {
            error = "cudaStreamSynchronize after enqueueV3: " + cudaText(status);
            return false;
        }
        for (auto const& [name, address] : deviceOutputs)
        {
            HostTensor& slot = outputs[name];
            slot = fromDevice(address, slot.type, slot.dims);
        }
    }
    for (auto const& [name, allocator] : allocators)
    {
        if (!shapeKnown(allocator->shape))
        {
            error = "output " + name + ": the allocator was not told a shape";
            return false;
        }
        nvinfer1::DataType const type = engine.getTensorDataType(name.c_str());
        HostTensor out(type, allocator->shape);
        if (allocator->requestedBytes < out.bytes.size())
        {
            error = "output " + name + ": the allocator was asked for fewer bytes than the output holds";
            return false;
        }
        if (device)
        {
            out = fromDevice(allocator->memory(), type, allocator->shape);
        }
        else if (!out.bytes.empty())
        {
            std::memcpy(out.data(), allocator->memory(), out.bytes.size());
        }
        outputs[name] = std::move(out);
    }
    return true;
}

} // namespace kiln::test::gpu
