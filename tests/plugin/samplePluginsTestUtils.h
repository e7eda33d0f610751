// samplePluginsTestUtils.h — helpers shared by the sample/standard plugin tests (tests/plugin/samplePlugins*Test.cpp,
// standardPlugins*Test.cpp, lifecycle*Test.cpp): create plugins through the registry, run an engine with any
// inputs (including outputs of data-dependent shape through an IOutputAllocator), and load engine bytes in a
// fresh runtime.
#pragma once

#include "NvInfer.h"
#include "common/networkRunner.h"
#include "samplePluginUtils.h"
#include "samplePlugins.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::test::samplesupport
{

//! A sample V2-family plugin created by its registered creator (namespace "kilnSamples").
inline std::unique_ptr<nvinfer1::IPluginV2, void (*)(nvinfer1::IPluginV2*)> createV2(
    char const* name, std::vector<nvinfer1::PluginField> const& fields = {})
{
    auto deleter = [](nvinfer1::IPluginV2* p) {
        if (p != nullptr)
        {
            p->destroy();
        }
    };
    EXPECT_TRUE(samples::registerSamplePlugins());
    auto* creator = getPluginRegistry()->getPluginCreator(name, "1", samples::kSAMPLE_NAMESPACE);
    EXPECT_NE(creator, nullptr) << "creator " << name << " not registered";
    if (creator == nullptr)
    {
        return {nullptr, deleter};
    }
    nvinfer1::PluginFieldCollection fc{static_cast<int32_t>(fields.size()), fields.data()};
    return {creator->createPlugin(name, &fc), deleter};
}

//! A sample IPluginV3 created by its registered creator for the build phase.
inline std::unique_ptr<nvinfer1::IPluginV3> createV3(char const* name, std::vector<nvinfer1::PluginField> const& fields = {})
{
    EXPECT_TRUE(samples::registerSamplePlugins());
    auto* creator = dynamic_cast<nvinfer1::IPluginCreatorV3One*>(
        getPluginRegistry()->getCreator(name, "1", samples::kSAMPLE_NAMESPACE));
    EXPECT_NE(creator, nullptr) << "creator " << name << " not registered";
    if (creator == nullptr)
    {
        return nullptr;
    }
    nvinfer1::PluginFieldCollection fc{static_cast<int32_t>(fields.size()), fields.data()};
    return std::unique_ptr<nvinfer1::IPluginV3>(creator->createPlugin(name, &fc, nvinfer1::TensorRTPhase::kBUILD));
}

//! Output allocator that records every reallocateOutputAsync/notifyShape call and poisons what it hands out.
class RecordingOutputAllocator : public nvinfer1::IOutputAllocator
{
public:
    void* reallocateOutputAsync(
        char const* tensorName, void*, uint64_t size, uint64_t alignment, cudaStream_t) noexcept override
    {
        ++reallocations;
        lastName = tensorName == nullptr ? "" : tensorName;
        requestedBytes = size;
        requestedAlignment = alignment;
        buffer.assign(std::max<uint64_t>(size, 1) + 64, 0xA5);
        return buffer.data();
    }
    void notifyShape(char const* tensorName, nvinfer1::Dims const& dims) noexcept override
    {
        ++notifications;
        notifiedName = tensorName == nullptr ? "" : tensorName;
        shape = dims;
    }

    int32_t reallocations{0};
    int32_t notifications{0};
    std::string lastName;
    std::string notifiedName;
    uint64_t requestedBytes{0};
    uint64_t requestedAlignment{0};
    nvinfer1::Dims shape{-1, {}};
    std::vector<uint8_t> buffer;
};

//! Runs `engine` once with `inputs` on a new execution context. Outputs of known shape are poisoned host tensors;
//! outputs named in `allocators` go through those allocators and are returned with the notified shape.
inline bool runEngine(nvinfer1::ICudaEngine& engine, std::map<std::string, HostTensor> const& inputs,
    std::map<std::string, HostTensor>& outputs, int32_t profile = 0,
    std::map<std::string, RecordingOutputAllocator*> const& allocators = {})
{
    std::unique_ptr<nvinfer1::IExecutionContext> ctx(engine.createExecutionContext());
    if (ctx == nullptr || (profile != 0 && !ctx->setOptimizationProfileAsync(profile, nullptr)))
    {
        return false;
    }
    for (auto const& [name, t] : inputs)
    {
        if (!engine.isShapeInferenceIO(name.c_str()) && !ctx->setInputShape(name.c_str(), t.dims))
        {
            return false;
        }
        if (!ctx->setInputTensorAddress(name.c_str(), t.data()))
        {
            return false;
        }
    }
    outputs.clear();
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
                return false;
            }
            continue;
        }
        nvinfer1::Dims const shape = ctx->getTensorShape(name);
        if (shape.nbDims < 0 || std::any_of(shape.d, shape.d + shape.nbDims, [](int64_t d) { return d < 0; }))
        {
            return false;
        }
        HostTensor out(engine.getTensorDataType(name), shape);
        std::fill(out.bytes.begin(), out.bytes.end(), uint8_t{0xA5});
        auto& slot = outputs[name] = std::move(out);
        if (!ctx->setTensorAddress(name, slot.bytes.empty() ? static_cast<void*>(&slot) : slot.data()))
        {
            return false;
        }
    }
    if (!ctx->enqueueV3(nullptr))
    {
        return false;
    }
    for (auto const& [name, allocator] : allocators)
    {
        HostTensor out(engine.getTensorDataType(name.c_str()), allocator->shape);
        if (allocator->buffer.size() < out.bytes.size())
        {
            return false;
        }
        std::memcpy(out.data(), allocator->buffer.data(), out.bytes.size());
        outputs[name] = std::move(out);
    }
    return true;
}

//! The engine deserialized from `bytes` by a brand-new runtime (kept alive in `runtime`).
inline std::unique_ptr<nvinfer1::ICudaEngine> loadInFreshRuntime(std::vector<uint8_t> const& bytes,
    nvinfer1::ILogger& logger, std::unique_ptr<nvinfer1::IRuntime>& runtime)
{
    runtime.reset(nvinfer1::createInferRuntime(logger));
    if (runtime == nullptr)
    {
        return nullptr;
    }
    return std::unique_ptr<nvinfer1::ICudaEngine>(runtime->deserializeCudaEngine(bytes.data(), bytes.size()));
}

//! A PluginField pointing at `value` (which must outlive the field).
inline nvinfer1::PluginField int32Field(char const* name, int32_t const& value)
{
    return nvinfer1::PluginField{name, &value, nvinfer1::PluginFieldType::kINT32, 1};
}
inline nvinfer1::PluginField floatField(char const* name, float const& value)
{
    return nvinfer1::PluginField{name, &value, nvinfer1::PluginFieldType::kFLOAT32, 1};
}

} // namespace kiln::test::samplesupport

KILN_IGNORE_DEPRECATED_END
