// IoBuffers' memory (ioBuffers.h): host buffers (aligned, or pinned for CUDA engines, poisoned with 0xFF bytes),
// device buffers (cudaMalloc, poisoned the same way), and the host<->device copies of each run on the runner's stream.
#include "deviceRuntime.h"
#include "ioBuffers.h"

#include <cstdlib>
#include <cstring>

namespace kilnexec
{

bool IoBuffers::allocate(Tensor& tensor, size_t bytes, std::string& error)
{
    size_t const capacity = (bytes + 255) / 256 * 256 + 256;
    if (mOnDevice)
    {
        // Pinned host memory, so that the copies on the stream are asynchronous DMA transfers (as trtexec's).
        std::string cudaError;
        std::shared_ptr<void> pinned = cuda::pinnedAlloc(capacity, cudaError);
        if (pinned == nullptr)
        {
            error = "kilnexec: cannot allocate " + std::to_string(bytes) + " bytes of pinned host memory for tensor '"
                + tensor.name + "': " + cudaError;
            return false;
        }
        tensor.data = std::shared_ptr<uint8_t>(pinned, static_cast<uint8_t*>(pinned.get()));
    }
    else
    {
        void* memory = std::aligned_alloc(256, capacity);
        if (memory == nullptr)
        {
            error = "kilnexec: cannot allocate " + std::to_string(bytes) + " bytes for tensor '" + tensor.name + "'";
            return false;
        }
        tensor.data = std::shared_ptr<uint8_t>(static_cast<uint8_t*>(memory), [](uint8_t* p) { std::free(p); });
    }
    std::memset(tensor.data.get(), 0xFF, capacity); // poisoned: an output the engine does not write shows up as NaN/-1
    tensor.capacity = capacity;
    tensor.bytes = bytes;
    return true;
}

bool IoBuffers::allocateDevice(Tensor& tensor, size_t bytes, std::string& error)
{
    size_t const capacity = (bytes + 255) / 256 * 256 + 256;
    std::string cudaError;
    std::shared_ptr<void> memory = cuda::deviceAlloc(capacity, cudaError);
    if (memory == nullptr || !cuda::memsetSync(memory.get(), 0xFF, capacity, cudaError))
    {
        error = "kilnexec: cannot allocate " + std::to_string(bytes) + " bytes of device memory for tensor '"
            + tensor.name + "': " + cudaError;
        return false;
    }
    tensor.device = memory;
    tensor.deviceCapacity = capacity;
    tensor.bytes = bytes;
    return true;
}

bool IoBuffers::hasDataDependentOutputs() const
{
    for (Tensor const& tensor : mTensors)
    {
        if (tensor.dataDependent)
        {
            return true;
        }
    }
    return false;
}

bool IoBuffers::copyInputsToDevice(cudaStream_t stream, std::string& error)
{
    for (Tensor const& tensor : mTensors)
    {
        std::string cudaError;
        if (tensor.isInput && tensor.onDevice
            && !cuda::copyAsync(tensor.device.get(), tensor.data.get(), tensor.bytes, cuda::CopyKind::kHOST_TO_DEVICE,
                stream, cudaError))
        {
            error = "kilnexec: copying input '" + tensor.name + "' to the device failed: " + cudaError;
            return false;
        }
    }
    return true;
}

bool IoBuffers::copyOutputsToHost(cudaStream_t stream, std::string& error)
{
    for (Tensor& tensor : mTensors)
    {
        if (tensor.isInput || !tensor.onDevice)
        {
            continue;
        }
        if (tensor.bytes > tensor.capacity && !allocate(tensor, tensor.bytes, error))
        {
            return false; // a data-dependent output grew past its host buffer
        }
        std::string cudaError;
        if (!cuda::copyAsync(tensor.data.get(), tensor.device.get(), tensor.bytes, cuda::CopyKind::kDEVICE_TO_HOST,
                stream, cudaError))
        {
            error = "kilnexec: copying output '" + tensor.name + "' from the device failed: " + cudaError;
            return false;
        }
    }
    return true;
}

} // namespace kilnexec
