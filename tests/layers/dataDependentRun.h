// Test helper for layers with data-dependent output shapes (INonZeroLayer, INMSLayer): runs a built NetworkRunner
// engine with enqueueV3, giving every output whose shape is unknown before the run a poisoning IOutputAllocator,
// and returns each output's data and final dimensions.
#pragma once

#include "common/networkRunner.h"

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln::test
{

class PoisoningOutputAllocator : public nvinfer1::IOutputAllocator
{
public:
    void* reallocateOutputAsync(char const*, void* currentMemory, uint64_t size, uint64_t, cudaStream_t) noexcept override
    {
        (void) currentMemory;
        ++reallocations;
        memory.assign(size + 64, 0xEE); // poisoned
        return memory.data();
    }
    void notifyShape(char const*, nvinfer1::Dims const& dims) noexcept override
    {
        shape = dims;
        notified = true;
    }
    std::vector<uint8_t> memory;
    nvinfer1::Dims shape{-1, {}};
    bool notified{false};
    int32_t reallocations{0};
};

//! Run `r`'s engine on `inputs` (shape tensor inputs as INT32/INT64 host tensors); false with logger errors on failure.
inline bool runDataDependent(NetworkRunner& r, std::map<std::string, HostTensor> const& inputs,
    std::map<std::string, HostTensor>& outputs)
{
    std::unique_ptr<nvinfer1::IExecutionContext> ctx(r.engine().createExecutionContext());
    if (ctx == nullptr)
    {
        return false;
    }
    for (auto const& [name, t] : inputs)
    {
        if (!r.engine().isShapeInferenceIO(name.c_str()) && !ctx->setInputShape(name.c_str(), t.dims))
        {
            return false;
        }
        if (!ctx->setInputTensorAddress(name.c_str(), t.data()))
        {
            return false;
        }
    }
    std::map<std::string, std::unique_ptr<PoisoningOutputAllocator>> allocators;
    std::map<std::string, HostTensor> fixed;
    for (int32_t i = 0; i < r.engine().getNbIOTensors(); ++i)
    {
        char const* name = r.engine().getIOTensorName(i);
        if (r.engine().getTensorIOMode(name) != nvinfer1::TensorIOMode::kOUTPUT)
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
            auto alloc = std::make_unique<PoisoningOutputAllocator>();
            if (!ctx->setOutputAllocator(name, alloc.get()))
            {
                return false;
            }
            allocators[name] = std::move(alloc);
            continue;
        }
        HostTensor& out = fixed[name] = HostTensor(r.engine().getTensorDataType(name), shape);
        std::memset(out.data(), 0xEE, out.bytes.size());
        if (!ctx->setTensorAddress(name, out.bytes.empty() ? static_cast<void*>(&out) : out.data()))
        {
            return false;
        }
    }
    if (!ctx->enqueueV3(nullptr))
    {
        return false;
    }
    outputs = std::move(fixed);
    for (auto const& [name, alloc] : allocators)
    {
        if (!alloc->notified)
        {
            return false;
        }
        HostTensor t(r.engine().getTensorDataType(name.c_str()), alloc->shape);
        std::memcpy(t.data(), alloc->memory.data(), t.bytes.size());
        outputs[name] = std::move(t);
    }
    return true;
}

} // namespace kiln::test
