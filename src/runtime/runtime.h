// Runtime: Kiln's IRuntime. Deserializes engine files (from memory or from application stream readers) into
// Engines for the backend each file names (CPU, or CUDA when available). DLA does not exist here (0 cores). The GPU
// allocator (setGpuAllocator) provides the device memory of CUDA engines and is offered to plugins.
#pragma once

#include "NvInferRuntime.h"
#include "core/logging.h"
#include "runtime/engine.h"
#include "runtime/errorRecorderRef.h"

#include <memory>
#include <string>

namespace kiln
{

class PluginRegistry;

class Runtime final : public nvinfer1::IRuntime
{
public:
    explicit Runtime(nvinfer1::ILogger& logger);
    ~Runtime() noexcept override;

    void setDLACore(int32_t dlaCore) noexcept override;
    int32_t getDLACore() const noexcept override;
    int32_t getNbDLACores() const noexcept override;
    void setGpuAllocator(nvinfer1::IGpuAllocator* allocator) noexcept override;
    void setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept override;
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override;
    nvinfer1::ICudaEngine* deserializeCudaEngine(void const* blob, std::size_t size) noexcept override;
    nvinfer1::ICudaEngine* deserializeCudaEngine(nvinfer1::IStreamReader& streamReader) noexcept override;
    nvinfer1::ICudaEngine* deserializeCudaEngine(nvinfer1::IStreamReaderV2& streamReader) noexcept override;
    nvinfer1::ILogger* getLogger() const noexcept override;
    bool setMaxThreads(int32_t maxThreads) noexcept override;
    int32_t getMaxThreads() const noexcept override;
    void setTemporaryDirectory(char const* path) noexcept override;
    char const* getTemporaryDirectory() const noexcept override;
    void setTempfileControlFlags(nvinfer1::TempfileControlFlags flags) noexcept override;
    nvinfer1::TempfileControlFlags getTempfileControlFlags() const noexcept override;
    nvinfer1::IPluginRegistry& getPluginRegistry() noexcept override;
    nvinfer1::IRuntime* loadRuntime(char const* path) noexcept override;
    void setEngineHostCodeAllowed(bool allowed) noexcept override;
    bool getEngineHostCodeAllowed() const noexcept override;

    nvinfer1::IGpuAllocator* gpuAllocator() const { return mGpuAllocator; }

private:
    nvinfer1::ICudaEngine* deserializeBytes(char const* api, void const* data, size_t size) noexcept;

    nvinfer1::ILogger& mUserLogger;
    Logger mLogger;
    ErrorRecorderRef mRecorder;
    std::unique_ptr<PluginRegistry> mRegistry;
    nvinfer1::IGpuAllocator* mGpuAllocator{nullptr};
    int32_t mMaxThreads{1};
    std::string mTemporaryDirectory;
    bool mHasTemporaryDirectory{false};
    nvinfer1::TempfileControlFlags mTempfileFlags{3U}; // kALLOW_IN_MEMORY_FILES | kALLOW_TEMPORARY_FILES
    bool mEngineHostCodeAllowed{false};
};

//! Read an engine file and wrap it in an Engine logging to `logger`, starting with `recorder`. Plugins are
//! recreated through `options.registry` (the runtime's or the builder's own registry; parent search reaches the
//! global one). Errors (truncated, corrupt, foreign or version-mismatched files, unsupported backends, missing
//! plugin creators, plugin failures) come back as a Status with the reader's or the plugin's message. The
//! builder's buildEngineWithConfig uses this so built and loaded engines are identical.
StatusOr<nvinfer1::ICudaEngine*> deserializeEngineBytes(nvinfer1::ILogger& logger, nvinfer1::IErrorRecorder* recorder,
    void const* data, size_t size, EngineLoadOptions const& options);

} // namespace kiln
