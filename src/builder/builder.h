// Builder: Kiln's IBuilder. Creates networks, configs and profiles, and runs the build passes that turn a
// network into a serialized engine (see buildContext.h for the pass order).
#pragma once

#include "NvInfer.h"
#include "core/logging.h"
#include "core/status.h"

#include <memory>
#include <mutex>
#include <vector>

namespace kiln
{
class Backend;
class BuilderConfig;
class NetworkDefinition;
class OptimizationProfile;
class PluginRegistry;

class Builder final : public nvinfer1::IBuilder
{
public:
    explicit Builder(nvinfer1::ILogger& logger);
    ~Builder() noexcept override;

    bool platformHasFastFp16() const noexcept override;
    bool platformHasFastInt8() const noexcept override;
    int32_t getMaxDLABatchSize() const noexcept override;
    int32_t getNbDLACores() const noexcept override;
    void setGpuAllocator(nvinfer1::IGpuAllocator* allocator) noexcept override;
    nvinfer1::IBuilderConfig* createBuilderConfig() noexcept override;
    nvinfer1::INetworkDefinition* createNetworkV2(nvinfer1::NetworkDefinitionCreationFlags flags) noexcept override;
    nvinfer1::IOptimizationProfile* createOptimizationProfile() noexcept override;
    void setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept override;
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override;
    void reset() noexcept override;
    bool platformHasTf32() const noexcept override;
    nvinfer1::IHostMemory* buildSerializedNetwork(
        nvinfer1::INetworkDefinition& network, nvinfer1::IBuilderConfig& config) noexcept override;
    bool buildSerializedNetworkToStream(nvinfer1::INetworkDefinition& network, nvinfer1::IBuilderConfig& config,
        nvinfer1::IStreamWriter& writer) noexcept override;
    nvinfer1::IHostMemory* buildSerializedNetwork(nvinfer1::INetworkDefinition& network,
        nvinfer1::IBuilderConfig& config, nvinfer1::IHostMemory*& kernelText) noexcept override;
    nvinfer1::ICudaEngine* buildEngineWithConfig(
        nvinfer1::INetworkDefinition& network, nvinfer1::IBuilderConfig& config) noexcept override;
    bool isNetworkSupported(
        nvinfer1::INetworkDefinition const& network, nvinfer1::IBuilderConfig const& config) const noexcept override;
    nvinfer1::ILogger* getLogger() const noexcept override;
    bool setMaxThreads(int32_t maxThreads) noexcept override;
    int32_t getMaxThreads() const noexcept override;
    nvinfer1::IPluginRegistry& getPluginRegistry() noexcept override;

    //! Build the engine bytes (used by every build entry point).
    StatusOr<std::vector<uint8_t>> buildEngineBytes(
        nvinfer1::INetworkDefinition const& network, nvinfer1::IBuilderConfig const& config) const;
    //! Build for one backend (builder tests pass a null backend, backends/null/nullBackend.h).
    StatusOr<std::vector<uint8_t>> buildEngineBytes(
        NetworkDefinition const& network, BuilderConfig const& config, Backend const& backend) const;

private:

    nvinfer1::ILogger& mUserLogger;
    mutable Logger mLogger;
    nvinfer1::IErrorRecorder* mRecorder{nullptr};
    std::vector<std::unique_ptr<OptimizationProfile>> mProfiles;
    std::unique_ptr<PluginRegistry> mRegistry;
    int32_t mMaxThreads{1};
    std::mutex mMutex;
};

} // namespace kiln
