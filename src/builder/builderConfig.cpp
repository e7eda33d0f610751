// BuilderConfig: setters validate, getters report; DLA and GPU-only settings are stored and logged as not
// applying to the CPU backend where that matters.
#include "builder/builderConfig.h"

#include "builder/timingCache.h"
#include "core/runtimeTypeInfo.h"

namespace kiln
{
using namespace nvinfer1;

BuilderConfig::BuilderConfig(Logger& logger)
    : mLogger(logger)
{
}

void BuilderConfig::setAvgTimingIterations(int32_t avgTiming) noexcept { mAvgTiming = avgTiming > 0 ? avgTiming : 1; }
int32_t BuilderConfig::getAvgTimingIterations() const noexcept { return mAvgTiming; }

void BuilderConfig::setEngineCapability(EngineCapability capability) noexcept
{
    if (capability != EngineCapability::kSTANDARD)
    {
        mLogger.error("IBuilderConfig::setEngineCapability: Kiln only builds kSTANDARD engines");
        return;
    }
    mCapability = capability;
}
EngineCapability BuilderConfig::getEngineCapability() const noexcept { return mCapability; }

void BuilderConfig::setInt8Calibrator(IInt8Calibrator* calibrator) noexcept { mCalibrator = calibrator; }
IInt8Calibrator* BuilderConfig::getInt8Calibrator() const noexcept { return mCalibrator; }

void BuilderConfig::setFlags(BuilderFlags builderFlags) noexcept { mFlags = builderFlags; }
BuilderFlags BuilderConfig::getFlags() const noexcept { return mFlags; }
void BuilderConfig::clearFlag(BuilderFlag builderFlag) noexcept { mFlags &= ~(1U << static_cast<uint32_t>(builderFlag)); }
void BuilderConfig::setFlag(BuilderFlag builderFlag) noexcept { mFlags |= 1U << static_cast<uint32_t>(builderFlag); }
bool BuilderConfig::getFlag(BuilderFlag builderFlag) const noexcept
{
    return (mFlags & (1U << static_cast<uint32_t>(builderFlag))) != 0;
}

void BuilderConfig::setDeviceType(ILayer const* layer, DeviceType deviceType) noexcept
{
    if (deviceType == DeviceType::kDLA)
    {
        mLogger.error("IBuilderConfig::setDeviceType: Kiln has no DLA; the layer stays on the default device");
        return;
    }
    mDeviceTypes[layer] = deviceType;
}
DeviceType BuilderConfig::getDeviceType(ILayer const* layer) const noexcept
{
    auto it = mDeviceTypes.find(layer);
    return it == mDeviceTypes.end() ? mDefaultDevice : it->second;
}
bool BuilderConfig::isDeviceTypeSet(ILayer const* layer) const noexcept { return mDeviceTypes.count(layer) != 0; }
void BuilderConfig::resetDeviceType(ILayer const* layer) noexcept { mDeviceTypes.erase(layer); }
bool BuilderConfig::canRunOnDLA(ILayer const*) const noexcept { return false; }
void BuilderConfig::setDLACore(int32_t dlaCore) noexcept
{
    mLogger.error("IBuilderConfig::setDLACore(" + std::to_string(dlaCore) + "): Kiln has no DLA cores");
}
int32_t BuilderConfig::getDLACore() const noexcept { return mDlaCore; }
void BuilderConfig::setDefaultDeviceType(DeviceType deviceType) noexcept
{
    if (deviceType == DeviceType::kDLA)
    {
        mLogger.error("IBuilderConfig::setDefaultDeviceType: Kiln has no DLA");
        return;
    }
    mDefaultDevice = deviceType;
}
DeviceType BuilderConfig::getDefaultDeviceType() const noexcept { return mDefaultDevice; }

void BuilderConfig::reset() noexcept
{
    Logger& logger = mLogger;
    this->~BuilderConfig();
    new (this) BuilderConfig(logger);
}

void BuilderConfig::setProfileStream(const cudaStream_t stream) noexcept { mProfileStream = stream; }
cudaStream_t BuilderConfig::getProfileStream() const noexcept { return mProfileStream; }

int32_t BuilderConfig::addOptimizationProfile(IOptimizationProfile const* profile) noexcept
{
    try
    {
        auto const* impl = safeDynamicCast<OptimizationProfile const>(profile);
        if (impl == nullptr)
        {
            mLogger.error("IBuilderConfig::addOptimizationProfile: the profile is null or was not created by "
                          "IBuilder::createOptimizationProfile");
            return -1;
        }
        if (!impl->isValid())
        {
            mLogger.error("IBuilderConfig::addOptimizationProfile: the profile is invalid (each input needs "
                          "kMIN <= kOPT <= kMAX, all three set, with equal ranks)");
            return -1;
        }
        mProfiles.push_back(impl->entries());
        return static_cast<int32_t>(mProfiles.size()) - 1;
    }
    catch (...)
    {
        return -1;
    }
}
int32_t BuilderConfig::getNbOptimizationProfiles() const noexcept { return static_cast<int32_t>(mProfiles.size()); }

void BuilderConfig::setProfilingVerbosity(ProfilingVerbosity verbosity) noexcept { mVerbosity = verbosity; }
ProfilingVerbosity BuilderConfig::getProfilingVerbosity() const noexcept { return mVerbosity; }

void BuilderConfig::setAlgorithmSelector(IAlgorithmSelector* selector) noexcept { mSelector = selector; }
IAlgorithmSelector* BuilderConfig::getAlgorithmSelector() const noexcept { return mSelector; }
bool BuilderConfig::setCalibrationProfile(IOptimizationProfile const* profile) noexcept
{
    mCalibrationProfile = profile;
    return true;
}
IOptimizationProfile const* BuilderConfig::getCalibrationProfile() noexcept { return mCalibrationProfile; }
void BuilderConfig::setQuantizationFlags(QuantizationFlags flags) noexcept { mQuantFlags = flags; }
QuantizationFlags BuilderConfig::getQuantizationFlags() const noexcept { return mQuantFlags; }
void BuilderConfig::clearQuantizationFlag(QuantizationFlag flag) noexcept { mQuantFlags &= ~(1U << static_cast<uint32_t>(flag)); }
void BuilderConfig::setQuantizationFlag(QuantizationFlag flag) noexcept { mQuantFlags |= 1U << static_cast<uint32_t>(flag); }
bool BuilderConfig::getQuantizationFlag(QuantizationFlag flag) const noexcept
{
    return (mQuantFlags & (1U << static_cast<uint32_t>(flag))) != 0;
}

bool BuilderConfig::setTacticSources(TacticSources tacticSources) noexcept
{
    mTacticSources = tacticSources;
    return true;
}
TacticSources BuilderConfig::getTacticSources() const noexcept { return mTacticSources; }

ITimingCache* BuilderConfig::createTimingCache(void const* blob, std::size_t size) const noexcept
{
    try
    {
        auto cache = TimingCache::create(blob, size);
        if (!cache.isOk())
        {
            mLogger.error(cache.status().message());
            return nullptr;
        }
        return std::move(cache).value().release();
    }
    catch (...)
    {
        return nullptr;
    }
}
bool BuilderConfig::setTimingCache(ITimingCache const& cache, bool) noexcept
{
    mTimingCache = &cache;
    return true;
}
ITimingCache const* BuilderConfig::getTimingCache() const noexcept { return mTimingCache; }

void BuilderConfig::setMemoryPoolLimit(MemoryPoolType pool, std::size_t poolSize) noexcept
{
    int32_t const p = static_cast<int32_t>(pool);
    if (p < 0 || p > static_cast<int32_t>(MemoryPoolType::kTACTIC_SHARED_MEMORY))
    {
        mLogger.error("IBuilderConfig::setMemoryPoolLimit: unknown pool " + std::to_string(p));
        return;
    }
    mPoolLimits[p] = poolSize;
}
std::size_t BuilderConfig::getMemoryPoolLimit(MemoryPoolType pool) const noexcept
{
    auto it = mPoolLimits.find(static_cast<int32_t>(pool));
    if (it != mPoolLimits.end())
    {
        return it->second;
    }
    // Defaults: the workspace may use all memory (TensorRT: the device's total); others are DLA/GPU specific.
    return pool == MemoryPoolType::kWORKSPACE || pool == MemoryPoolType::kTACTIC_DRAM ? SIZE_MAX : 0;
}

void BuilderConfig::setPreviewFeature(PreviewFeature feature, bool enable) noexcept
{
    mPreview[static_cast<int32_t>(feature)] = enable;
}
bool BuilderConfig::getPreviewFeature(PreviewFeature feature) const noexcept
{
    auto it = mPreview.find(static_cast<int32_t>(feature));
    return it != mPreview.end() && it->second;
}

void BuilderConfig::setBuilderOptimizationLevel(int32_t level) noexcept
{
    if (level < 0 || level > 5)
    {
        mLogger.error("IBuilderConfig::setBuilderOptimizationLevel: level must be in [0, 5]");
        return;
    }
    mOptLevel = level;
}
int32_t BuilderConfig::getBuilderOptimizationLevel() noexcept { return mOptLevel; }

void BuilderConfig::setHardwareCompatibilityLevel(HardwareCompatibilityLevel level) noexcept { mHwCompat = level; }
HardwareCompatibilityLevel BuilderConfig::getHardwareCompatibilityLevel() const noexcept { return mHwCompat; }

void BuilderConfig::setPluginsToSerialize(char const* const* paths, int32_t nbPaths) noexcept
{
    // The files are read (and checked to be shared libraries) when an engine is built; a null or empty path is
    // kept so that the build fails naming it.
    if (nbPaths < 0 || (nbPaths > 0 && paths == nullptr))
    {
        mLogger.error("IBuilderConfig::setPluginsToSerialize: " + std::string(nbPaths < 0 ? "nbPaths is negative ("
            + std::to_string(nbPaths) + ")" : "paths is null but nbPaths is " + std::to_string(nbPaths))
            + "; the list of plugin libraries to serialize is unchanged");
        return;
    }
    try
    {
        std::vector<std::string> copy;
        for (int32_t i = 0; i < nbPaths; ++i)
        {
            copy.emplace_back(paths[i] != nullptr ? paths[i] : "");
        }
        mPluginsToSerialize = std::move(copy);
    }
    catch (...)
    {
        mLogger.error("IBuilderConfig::setPluginsToSerialize: out of memory; the list is unchanged");
    }
}
char const* BuilderConfig::getPluginToSerialize(int32_t index) const noexcept
{
    if (index < 0 || index >= getNbPluginsToSerialize())
    {
        return nullptr;
    }
    return mPluginsToSerialize[static_cast<size_t>(index)].c_str();
}
int32_t BuilderConfig::getNbPluginsToSerialize() const noexcept { return static_cast<int32_t>(mPluginsToSerialize.size()); }

void BuilderConfig::setMaxAuxStreams(int32_t nbStreams) noexcept { mMaxAuxStreams = nbStreams; }
int32_t BuilderConfig::getMaxAuxStreams() const noexcept { return mMaxAuxStreams; }
void BuilderConfig::setProgressMonitor(IProgressMonitor* monitor) noexcept { mMonitor = monitor; }
IProgressMonitor* BuilderConfig::getProgressMonitor() const noexcept { return mMonitor; }
void BuilderConfig::setRuntimePlatform(RuntimePlatform runtimePlatform) noexcept { mPlatform = runtimePlatform; }
RuntimePlatform BuilderConfig::getRuntimePlatform() const noexcept { return mPlatform; }
void BuilderConfig::setMaxNbTactics(int32_t maxNbTactics) noexcept { mMaxNbTactics = maxNbTactics; }
int32_t BuilderConfig::getMaxNbTactics() const noexcept { return mMaxNbTactics; }
bool BuilderConfig::setTilingOptimizationLevel(TilingOptimizationLevel level) noexcept
{
    mTiling = level;
    return true;
}
TilingOptimizationLevel BuilderConfig::getTilingOptimizationLevel() const noexcept { return mTiling; }
bool BuilderConfig::setL2LimitForTiling(int64_t size) noexcept
{
    mL2Limit = size;
    return true;
}
int64_t BuilderConfig::getL2LimitForTiling() const noexcept { return mL2Limit; }
bool BuilderConfig::setRemoteAutoTuningConfig(char const* config) noexcept
{
    mLogger.error("IBuilderConfig::setRemoteAutoTuningConfig: remote auto-tuning is not supported by Kiln");
    mRemoteTuning = config != nullptr ? config : "";
    return false;
}
char const* BuilderConfig::getRemoteAutoTuningConfig() const noexcept { return mRemoteTuning.c_str(); }

} // namespace kiln
