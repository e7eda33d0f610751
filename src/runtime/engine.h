// Engine: Kiln's ICudaEngine (either backend). Immutable after creation and shared by its execution
// contexts and inspectors (they hold the same EngineData). Its plugin objects (EnginePlugins, recreated from the
// plan's plugin records at creation) are shared with its contexts, which attach their own clones. Tensor queries
// are by I/O name; names that are not engine inputs/outputs are reported as errors and answered with the neutral
// value TensorRT uses.
#pragma once

#include "NvInferRuntime.h"
#include "core/logging.h"
#include "runtime/deviceWeights.h"
#include "runtime/engineData.h"
#include "runtime/enginePlugins.h"
#include "runtime/errorRecorderRef.h"

#include <memory>

namespace kiln
{

class Engine final : public nvinfer1::ICudaEngine
{
public:
    //! An engine whose plugins were recreated by EnginePlugins::load with `logger` (shared with them).
    Engine(std::shared_ptr<EngineData const> data, std::shared_ptr<Logger const> logger,
        nvinfer1::IErrorRecorder* recorder, std::shared_ptr<EnginePlugins> plugins,
        nvinfer1::IGpuAllocator* allocator = nullptr, std::shared_ptr<DeviceWeights const> deviceWeights = nullptr);
    ~Engine() noexcept override = default;

    nvinfer1::Dims getTensorShape(char const* tensorName) const noexcept override;
    nvinfer1::DataType getTensorDataType(char const* tensorName) const noexcept override;
    int32_t getNbLayers() const noexcept override;
    nvinfer1::IHostMemory* serialize() const noexcept override;
    nvinfer1::IExecutionContext* createExecutionContext(
        nvinfer1::ExecutionContextAllocationStrategy strategy) noexcept override;
    nvinfer1::TensorLocation getTensorLocation(char const* tensorName) const noexcept override;
    bool isShapeInferenceIO(char const* tensorName) const noexcept override;
    nvinfer1::TensorIOMode getTensorIOMode(char const* tensorName) const noexcept override;
    char const* getAliasedInputTensor(char const* tensorName) const noexcept override;
    nvinfer1::IExecutionContext* createExecutionContextWithoutDeviceMemory() noexcept override;
    nvinfer1::IExecutionContext* createExecutionContext(nvinfer1::IRuntimeConfig* runtimeConfig) noexcept override;
    nvinfer1::IRuntimeConfig* createRuntimeConfig() noexcept override;
    size_t getDeviceMemorySize() const noexcept override;
    size_t getDeviceMemorySizeForProfile(int32_t profileIndex) const noexcept override;
    int64_t getDeviceMemorySizeV2() const noexcept override;
    int64_t getDeviceMemorySizeForProfileV2(int32_t profileIndex) const noexcept override;
    bool isRefittable() const noexcept override;
    int32_t getTensorBytesPerComponent(char const* tensorName) const noexcept override;
    int32_t getTensorBytesPerComponent(char const* tensorName, int32_t profileIndex) const noexcept override;
    int32_t getTensorComponentsPerElement(char const* tensorName) const noexcept override;
    int32_t getTensorComponentsPerElement(char const* tensorName, int32_t profileIndex) const noexcept override;
    nvinfer1::TensorFormat getTensorFormat(char const* tensorName) const noexcept override;
    nvinfer1::TensorFormat getTensorFormat(char const* tensorName, int32_t profileIndex) const noexcept override;
    char const* getTensorFormatDesc(char const* tensorName) const noexcept override;
    char const* getTensorFormatDesc(char const* tensorName, int32_t profileIndex) const noexcept override;
    int32_t getTensorVectorizedDim(char const* tensorName) const noexcept override;
    int32_t getTensorVectorizedDim(char const* tensorName, int32_t profileIndex) const noexcept override;
    char const* getName() const noexcept override;
    int32_t getNbOptimizationProfiles() const noexcept override;
    nvinfer1::Dims getProfileShape(
        char const* tensorName, int32_t profileIndex, nvinfer1::OptProfileSelector select) const noexcept override;
    int32_t const* getProfileTensorValues(
        char const* tensorName, int32_t profileIndex, nvinfer1::OptProfileSelector select) const noexcept override;
    nvinfer1::EngineCapability getEngineCapability() const noexcept override;
    void setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept override;
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override;
    bool hasImplicitBatchDimension() const noexcept override;
    nvinfer1::TacticSources getTacticSources() const noexcept override;
    nvinfer1::ProfilingVerbosity getProfilingVerbosity() const noexcept override;
    nvinfer1::IEngineInspector* createEngineInspector() const noexcept override;
    int32_t getNbIOTensors() const noexcept override;
    char const* getIOTensorName(int32_t index) const noexcept override;
    nvinfer1::HardwareCompatibilityLevel getHardwareCompatibilityLevel() const noexcept override;
    int32_t getNbAuxStreams() const noexcept override;
    nvinfer1::ISerializationConfig* createSerializationConfig() noexcept override;
    nvinfer1::IHostMemory* serializeWithConfig(nvinfer1::ISerializationConfig& config) const noexcept override;
    bool setWeightStreamingBudget(int64_t gpuMemoryBudget) noexcept override;
    int64_t getWeightStreamingBudget() const noexcept override;
    int64_t getMinimumWeightStreamingBudget() const noexcept override;
    int64_t getStreamableWeightsSize() const noexcept override;
    bool setWeightStreamingBudgetV2(int64_t gpuMemoryBudget) noexcept override;
    int64_t getWeightStreamingBudgetV2() const noexcept override;
    int64_t getWeightStreamingAutomaticBudget() const noexcept override;
    int64_t getWeightStreamingScratchMemorySize() const noexcept override;
    bool isDebugTensor(char const* name) const noexcept override;
    int64_t const* getProfileTensorValuesV2(
        char const* tensorName, int32_t profileIndex, nvinfer1::OptProfileSelector select) const noexcept override;
    int64_t getEngineStat(nvinfer1::EngineStat stat) const noexcept override;

    // Kiln-internal accessors.
    EngineData const& data() const { return *mData; }
    std::shared_ptr<EngineData const> const& sharedData() const { return mData; }
    Plan const& plan() const { return mData->plan; }
    Logger const& logger() const { return mLogger; }
    std::shared_ptr<Logger const> const& sharedLogger() const { return mLoggerHolder; }
    //! The engine-level plugin objects (never nullptr; empty for engines without plugin nodes).
    std::shared_ptr<EnginePlugins> const& plugins() const { return mPlugins; }
    nvinfer1::IErrorRecorder* recorder() const { return mRecorder.get(); }
    Backend const& backend() const { return *mData->backend; }
    //! Where contexts get device memory: the runtime's IGpuAllocator, else the backend's default; nullptr on the
    //! CPU backend (aligned host memory).
    nvinfer1::IGpuAllocator* allocator() const { return mAllocator; }
    //! The weights on the device (CUDA engines), else nullptr.
    std::shared_ptr<DeviceWeights const> const& deviceWeights() const { return mDeviceWeights; }
    //! Report a failure of an engine API call (logger + error recorder).
    void report(Status const& status) const { mLogger.report(status, mRecorder.get()); }

private:
    //! I/O position of `name`; reports an error naming `api` and returns -1 when it is not an I/O tensor.
    int32_t lookup(char const* api, char const* name) const;
    //! lookup() plus a profile index check.
    int32_t lookupWithProfile(char const* api, char const* name, int32_t profileIndex) const;
    nvinfer1::IExecutionContext* makeContext(nvinfer1::ExecutionContextAllocationStrategy strategy) noexcept;

    std::shared_ptr<EngineData const> mData;
    std::shared_ptr<Logger const> mLoggerHolder; // shared with contexts, configs and inspectors
    Logger const& mLogger;
    ErrorRecorderRef mRecorder;
    std::shared_ptr<EnginePlugins> mPlugins;
    nvinfer1::IGpuAllocator* mAllocator{nullptr};
    std::shared_ptr<DeviceWeights const> mDeviceWeights;
};

//! Wrap a plan in an Engine (the runtime's deserializeCudaEngine and the builder's buildEngineWithConfig both
//! use this). Validates the plan (engine/engineReader.h validatePlan), derives the runtime tables and recreates
//! the plugins of plugin nodes through `options.registry` (see EnginePlugins::load).
//! The engine logs to `logger`'s ILogger and starts with `recorder` as its error recorder.
StatusOr<std::unique_ptr<Engine>> createEngine(Plan plan, Logger const& logger,
    nvinfer1::IErrorRecorder* recorder = nullptr, EngineLoadOptions const& options = EngineLoadOptions{});

} // namespace kiln
