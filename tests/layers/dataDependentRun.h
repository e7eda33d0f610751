// Test helper for layers with data-dependent output shapes (INonZeroLayer, INMSLayer): runs a built NetworkRunner
// engine with enqueueV3, giving every output whose shape is unknown before the run a poisoning IOutputAllocator,
// and returns each output's data and final dimensions. On a CUDA engine the I/O it places on the device lives in
// device buffers (inputs uploaded, outputs and allocations poisoned) and the run goes on a stream.
#pragma once

#include "common/networkRunner.h"

#include <map>
#include <memory>
#include <string>

namespace kiln::test
{

class PoisoningOutputAllocator : public nvinfer1::IOutputAllocator
{
public:
    explicit PoisoningOutputAllocator(bool device)
        : mDevice(device)
    {
    }
    void* reallocateOutputAsync(char const*, void* currentMemory, uint64_t size, uint64_t, cudaStream_t) noexcept override
    {
        (void) currentMemory;
        ++reallocations;
        buffer = TestBuffer(mDevice, static_cast<size_t>(size) + 64, 0xEE); // poisoned
        return buffer.data();
    }
    void notifyShape(char const*, nvinfer1::Dims const& dims) noexcept override
    {
        shape = dims;
        notified = true;
    }
    TestBuffer buffer;
    nvinfer1::Dims shape{-1, {}};
    bool notified{false};
    int32_t reallocations{0};

private:
    bool mDevice;
};

//! Run `r`'s engine on `inputs` (shape tensor inputs as INT32/INT64 host tensors); false with logger errors on failure.
inline bool runDataDependent(NetworkRunner& r, std::map<std::string, HostTensor> const& inputs,
    std::map<std::string, HostTensor>& outputs)
{
    nvinfer1::ICudaEngine& engine = r.engine();
    bool const cudaEngine = kiln::getEngineBackend(&engine) == kiln::BackendKind::kCUDA;
    std::unique_ptr<nvinfer1::IExecutionContext> ctx(engine.createExecutionContext());
    std::map<std::string, TestBuffer> buffers;
    if (ctx == nullptr || !NetworkRunner::bindInputs(engine, *ctx, inputs, buffers))
    {
        return false;
    }
    std::map<std::string, std::unique_ptr<PoisoningOutputAllocator>> allocators;
    std::map<std::string, HostTensor> fixed;
    for (int32_t i = 0; i < engine.getNbIOTensors(); ++i)
    {
        char const* name = engine.getIOTensorName(i);
        if (engine.getTensorIOMode(name) != nvinfer1::TensorIOMode::kOUTPUT)
        {
            continue;
        }
        nvinfer1::Dims const shape = ctx->getTensorShape(name);
        bool known = shape.nbDims >= 0;
        for (int32_t d = 0; d < shape.nbDims; ++d)
        {
            known = known && shape.d[d] >= 0;
        }
        if (!known)
        {
            auto alloc = std::make_unique<PoisoningOutputAllocator>(NetworkRunner::onDevice(engine, name));
            if (!ctx->setOutputAllocator(name, alloc.get()))
            {
                return false;
            }
            allocators[name] = std::move(alloc);
            continue;
        }
        HostTensor const& out = fixed[name] = HostTensor(engine.getTensorDataType(name), shape);
        TestBuffer& b = buffers[name] = TestBuffer(NetworkRunner::onDevice(engine, name), out.bytes.size(), 0xEE); // poisoned
        if (!ctx->setTensorAddress(name, b.data()))
        {
            return false;
        }
    }
    TestStream stream(cudaEngine);
    std::string error;
    if (!ctx->enqueueV3(stream.get()) || !stream.synchronize(error))
    {
        EXPECT_TRUE(error.empty()) << error;
        return false;
    }
    for (auto& [name, t] : fixed)
    {
        if (!buffers[name].download(t.data(), t.bytes.size()))
        {
            return false;
        }
    }
    outputs = std::move(fixed);
    for (auto const& [name, alloc] : allocators)
    {
        if (!alloc->notified)
        {
            return false;
        }
        HostTensor t(engine.getTensorDataType(name.c_str()), alloc->shape);
        if (!alloc->buffer.download(t.data(), t.bytes.size()))
        {
            return false;
        }
        outputs[name] = std::move(t);
    }
    return true;
}

} // namespace kiln::test
