// BuilderConfig: Kiln's IBuilderConfig. Holds flags, memory pool limits, optimization profiles, the progress
// monitor and the other build settings; the builder reads them through the accessors at the bottom.
#pragma once

#include "NvInfer.h"
#include "builder/optimizationProfile.h"
#include "core/logging.h"

#include <map>
#include <string>
#include <vector>

namespace kiln
{

class BuilderConfig final : public nvinfer1::IBuilderConfig
{
public:
    explicit BuilderConfig(Logger& logger);
    ~BuilderConfig() noexcept override = default;

    void setAvgTimingIterations(int32_t avgTiming) noexcept override;
    int32_t getAvgTimingIterations() const noexcept override;
    void setEngineCapability(nvinfer1::EngineCapability capability) noexcept override;
    nvinfer1::EngineCapability getEngineCapability() const noexcept override;
    void setInt8Calibrator(nvinfer1::IInt8Calibrator* calibrator) noexcept override;
    nvinfer1::IInt8Calibrator* getInt8Calibrator() const noexcept override;
    void setFlags(nvinfer1::BuilderFlags builderFlags) noexcept override;
    nvinfer1::BuilderFlags getFlags() const noexcept override;
    void clearFlag(nvinfer1::BuilderFlag builderFlag) noexcept override;
    void setFlag(nvinfer1::BuilderFlag builderFlag) noexcept override;
    bool getFlag(nvinfer1::BuilderFlag builderFlag) const noexcept override;
    void setDeviceType(nvinfer1::ILayer const* layer, nvinfer1::DeviceType deviceType) noexcept override;
    nvinfer1::DeviceType getDeviceType(nvinfer1::ILayer const* layer) const noexcept override;
    bool isDeviceTypeSet(nvinfer1::ILayer const* layer) const noexcept override;
    void resetDeviceType(nvinfer1::ILayer const* layer) noexcept override;
    bool canRunOnDLA(nvinfer1::ILayer const* layer) const noexcept override;
    void setDLACore(int32_t dlaCore) noexcept override;
    int32_t getDLACore() const noexcept override;
    void setDefaultDeviceType(nvinfer1::DeviceType deviceType) noexcept override;
    nvinfer1::DeviceType getDefaultDeviceType() const noexcept override;
    void reset() noexcept override;
    void setProfileStream(const cudaStream_t stream) noexcept override;
    cudaStream_t getProfileStream() const noexcept override;
    int32_t addOptimizationProfile(nvinfer1::IOptimizationProfile const* profile) noexcept override;
    int32_t getNbOptimizationProfiles() const noexcept override;
    void setProfilingVerbosity(nvinfer1::ProfilingVerbosity verbosity) noexcept override;
    nvinfer1::ProfilingVerbosity getProfilingVerbosity() const noexcept override;
    void setAlgorithmSelector(nvinfer1::IAlgorithmSelector* selector) noexcept override;
    nvinfer1::IAlgorithmSelector* getAlgorithmSelector() const noexcept override;
    bool setCalibrationProfile(nvinfer1::IOptimizationProfile const* profile) noexcept override;
    nvinfer1::IOptimizationProfile const* getCalibrationProfile() noexcept override;
    void setQuantizationFlags(nvinfer1::QuantizationFlags flags) noexcept override;
    nvinfer1::QuantizationFlags getQuantizationFlags() const noexcept override;
    void clearQuantizationFlag(nvinfer1::QuantizationFlag flag) noexcept override;
    void setQuantizationFlag(nvinfer1::QuantizationFlag flag) noexcept override;
    bool getQuantizationFlag(nvinfer1::QuantizationFlag flag) const noexcept override;
    bool setTacticSources(nvinfer1::TacticSources tacticSources) noexcept override;
    nvinfer1::TacticSources getTacticSources() const noexcept override;
    nvinfer1::ITimingCache* createTimingCache(void const* blob, std::size_t size) const noexcept override;
    bool setTimingCache(nvinfer1::ITimingCache const& cache, bool ignoreMismatch) noexcept override;
    nvinfer1::ITimingCache const* getTimingCache() const noexcept override;
    void setMemoryPoolLimit(nvinfer1::MemoryPoolType pool, std::size_t poolSize) noexcept override;
    std::size_t getMemoryPoolLimit(nvinfer1::MemoryPoolType pool) const noexcept override;
    void setPreviewFeature(nvinfer1::PreviewFeature feature, bool enable) noexcept override;
    bool getPreviewFeature(nvinfer1::PreviewFeature feature) const noexcept override;
    void setBuilderOptimizationLevel(int32_t level) noexcept override;
    int32_t getBuilderOptimizationLevel() noexcept override;
    void setHardwareCompatibilityLevel(nvinfer1::HardwareCompatibilityLevel hardwareCompatibilityLevel) noexcept override;
    nvinfer1::HardwareCompatibilityLevel getHardwareCompatibilityLevel() const noexcept override;
    void setPluginsToSerialize(char const* const* paths, int32_t nbPaths) noexcept override;
    char const* getPluginToSerialize(int32_t index) const noexcept override;
    int32_t getNbPluginsToSerialize() const noexcept override;
    void setMaxAuxStreams(int32_t nbStreams) noexcept override;
    int32_t getMaxAuxStreams() const noexcept override;
    void setProgressMonitor(nvinfer1::IProgressMonitor* monitor) noexcept override;
    nvinfer1::IProgressMonitor* getProgressMonitor() const noexcept override;
    void setRuntimePlatform(nvinfer1::RuntimePlatform runtimePlatform) noexcept override;
    nvinfer1::RuntimePlatform getRuntimePlatform() const noexcept override;
    void setMaxNbTactics(int32_t maxNbTactics) noexcept override;
    int32_t getMaxNbTactics() const noexcept override;
    bool setTilingOptimizationLevel(nvinfer1::TilingOptimizationLevel level) noexcept override;
    nvinfer1::TilingOptimizationLevel getTilingOptimizationLevel() const noexcept override;
    bool setL2LimitForTiling(int64_t size) noexcept override;
    int64_t getL2LimitForTiling() const noexcept override;
    bool setRemoteAutoTuningConfig(char const* config) noexcept override;
    char const* getRemoteAutoTuningConfig() const noexcept override;

    //! Snapshots of the profiles added (the user may destroy or reuse the profile objects afterwards).
    std::vector<std::map<std::string, ProfileEntry>> const& profiles() const { return mProfiles; }

    //! The plugin library paths given to setPluginsToSerialize(), in order (the builder embeds these files).
    std::vector<std::string> const& pluginsToSerialize() const { return mPluginsToSerialize; }

    //! The backend to build for (kiln::setBuilderBackend, include/kiln/KilnBackend.h): 0 default, 1 CPU, 2 CUDA.
    int32_t backendKind() const { return mBackendKind; }
    void setBackendKind(int32_t kind) { mBackendKind = kind; }
    Logger& logger() const { return mLogger; }

private:
    Logger& mLogger;
    int32_t mAvgTiming{1};
    nvinfer1::EngineCapability mCapability{nvinfer1::EngineCapability::kSTANDARD};
    nvinfer1::IInt8Calibrator* mCalibrator{nullptr};
    nvinfer1::BuilderFlags mFlags{0};
    nvinfer1::DeviceType mDefaultDevice{nvinfer1::DeviceType::kGPU};
    std::map<nvinfer1::ILayer const*, nvinfer1::DeviceType> mDeviceTypes;
    int32_t mDlaCore{-1};
    cudaStream_t mProfileStream{nullptr};
    std::vector<std::map<std::string, ProfileEntry>> mProfiles;
    nvinfer1::ProfilingVerbosity mVerbosity{nvinfer1::ProfilingVerbosity::kLAYER_NAMES_ONLY};
    nvinfer1::IAlgorithmSelector* mSelector{nullptr};
    nvinfer1::IOptimizationProfile const* mCalibrationProfile{nullptr};
    nvinfer1::QuantizationFlags mQuantFlags{0};
    nvinfer1::TacticSources mTacticSources{0};
    nvinfer1::ITimingCache const* mTimingCache{nullptr};
    std::map<int32_t, std::size_t> mPoolLimits;
    std::map<int32_t, bool> mPreview;
    int32_t mOptLevel{3};
    nvinfer1::HardwareCompatibilityLevel mHwCompat{nvinfer1::HardwareCompatibilityLevel::kNONE};
    std::vector<std::string> mPluginsToSerialize;
    int32_t mMaxAuxStreams{-1};
    nvinfer1::IProgressMonitor* mMonitor{nullptr};
    nvinfer1::RuntimePlatform mPlatform{nvinfer1::RuntimePlatform::kSAME_AS_BUILD};
    int32_t mMaxNbTactics{-1};
    nvinfer1::TilingOptimizationLevel mTiling{nvinfer1::TilingOptimizationLevel::kNONE};
    int64_t mL2Limit{-1};
    std::string mRemoteTuning;
    int32_t mBackendKind{0};
};

} // namespace kiln
