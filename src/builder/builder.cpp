// Builder: the IBuilder entry points and the pass pipeline.
#include "builder/builder.h"

#include "builder/backendChoice.h"
#include "builder/buildContext.h"
#include "core/apiGuard.h"
#include "core/hostMemory.h"
#include "engine/engineWriter.h"
#include "plugin/embeddedLibraries.h"
#include "plugin/pluginRegistry.h"
#include "runtime/runtime.h"
#include "core/runtimeTypeInfo.h"

#include <thread>

namespace kiln
{
using namespace nvinfer1;

namespace
{

//! Reports pass progress to the user's IProgressMonitor and turns a cancel request into an error.
class ProgressReporter
{
public:
    ProgressReporter(IProgressMonitor* monitor, int32_t nbSteps)
        : mMonitor(monitor)
    {
        if (mMonitor != nullptr)
        {
            mMonitor->phaseStart(kPHASE, nullptr, nbSteps);
        }
    }
    ~ProgressReporter()
    {
        if (mMonitor != nullptr)
        {
            mMonitor->phaseFinish(kPHASE);
        }
    }
    Status step(int32_t index)
    {
        if (mMonitor != nullptr && !mMonitor->stepComplete(kPHASE, index))
        {
            return Status(ErrorCode::kINVALID_STATE, "the build was cancelled by the IProgressMonitor");
        }
        return Status::ok();
    }

private:
    static constexpr char const* kPHASE = "Building engine";
    IProgressMonitor* mMonitor;
};

} // namespace

Builder::Builder(ILogger& logger)
    : mUserLogger(logger)
    , mLogger(&logger)
    , mRegistry(createLocalRegistry(&globalPluginRegistry(), &logger, "the builder's plugin registry"))
{
    setRegistryLogger(&logger);
}

Builder::~Builder() noexcept
{
    unsetRegistryLogger(&mUserLogger);
    if (mRecorder != nullptr)
    {
        mRecorder->decRefCount();
    }
}

bool Builder::platformHasFastFp16() const noexcept { return false; }
bool Builder::platformHasFastInt8() const noexcept { return false; }
int32_t Builder::getMaxDLABatchSize() const noexcept { return 1; }
int32_t Builder::getNbDLACores() const noexcept { return 0; }
bool Builder::platformHasTf32() const noexcept { return false; }

void Builder::setGpuAllocator(IGpuAllocator*) noexcept
{
    mLogger.verbose("IBuilder::setGpuAllocator: Kiln's builder allocates its few build-time buffers itself; the "
                    "allocator is not used");
}

IBuilderConfig* Builder::createBuilderConfig() noexcept
{
    return apiGuard<IBuilderConfig*>(mLogger, mRecorder, nullptr, [&]() -> IBuilderConfig* {
        return new BuilderConfig(mLogger);
    });
}

INetworkDefinition* Builder::createNetworkV2(NetworkDefinitionCreationFlags flags) noexcept
{
    return apiGuard<INetworkDefinition*>(mLogger, mRecorder, nullptr, [&]() -> StatusOr<INetworkDefinition*> {
        uint32_t const known = (1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kEXPLICIT_BATCH))
            | (1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED))
            | (1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kPREFER_JIT_PYTHON_PLUGINS))
            | (1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kPREFER_AOT_PYTHON_PLUGINS));
        if ((flags & ~known) != 0)
        {
            return invalidArgument("createNetworkV2: unknown NetworkDefinitionCreationFlags bits " + std::to_string(flags));
        }
        return static_cast<INetworkDefinition*>(new NetworkDefinition(*this, mLogger, flags));
    });
}

IOptimizationProfile* Builder::createOptimizationProfile() noexcept
{
    return apiGuard<IOptimizationProfile*>(mLogger, mRecorder, nullptr, [&]() -> IOptimizationProfile* {
        std::lock_guard<std::mutex> lock(mMutex);
        mProfiles.push_back(std::make_unique<OptimizationProfile>(mLogger));
        return mProfiles.back().get();
    });
}

void Builder::setErrorRecorder(IErrorRecorder* recorder) noexcept
{
    if (recorder != nullptr)
    {
        recorder->incRefCount();
    }
    if (mRecorder != nullptr)
    {
        mRecorder->decRefCount();
    }
    mRecorder = recorder;
}

IErrorRecorder* Builder::getErrorRecorder() const noexcept { return mRecorder; }

void Builder::reset() noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    mProfiles.clear();
}

StatusOr<std::vector<uint8_t>> Builder::buildEngineBytes(INetworkDefinition const& network, IBuilderConfig const& config) const
{
    auto const* net = safeDynamicCast<NetworkDefinition const>(&network);
    auto const* cfg = safeDynamicCast<BuilderConfig const>(&config);
    if (net == nullptr || cfg == nullptr)
    {
        return invalidArgument("the network and config must be created by this Kiln builder");
    }
    KILN_ASSIGN_OR_RETURN(BackendChoice const choice, chooseBackend(*cfg, mLogger));
    if (choice.backend == &cpuBackend() || !choice.fallBackToCpu)
    {
        return buildEngineBytes(*net, *cfg, *choice.backend);
    }
    StatusOr<std::vector<uint8_t>> gpu = buildEngineBytes(*net, *cfg, *choice.backend);
    if (gpu.isOk() || gpu.status().code() != ErrorCode::kUNSUPPORTED_STATE)
    {
        return gpu;
    }
    mLogger.info("the CUDA backend cannot run this network (" + gpu.status().message()
        + "); building it for the CPU backend instead (kiln::setBuilderBackend selects a backend explicitly)");
    return buildEngineBytes(*net, *cfg, cpuBackend());
}

StatusOr<std::vector<uint8_t>> Builder::buildEngineBytes(
    NetworkDefinition const& net, BuilderConfig const& cfgRef, Backend const& backend) const
{
    BuilderConfig const* cfg = &cfgRef;
    BuildContext ctx{net, *cfg, mLogger, &backend, nullptr, Plan{}, {}, {}, {}};
    // The backend's kernels (autotuning of cuDNN plans and cuBLASLt algorithms) log to this build's logger.
    struct VerboseLog
    {
        Backend const& backend;
        Logger const* previous;
        ~VerboseLog() { (void) backend.exchangeVerboseLogger(previous); }
    } const verboseLog{backend, backend.exchangeVerboseLogger(&mLogger)};
    ctx.plan.backend = backend.name();
    using Pass = Status (*)(BuildContext&);
    Pass const passes[] = {analyzePass, checkConfigPass, lowerPass, profilesPass, pluginPass, constantReshapePass, precisionPass, fusionPass,
        channelLastPass, tacticsPass, inPlaceAddPass, memoryPass};
    ProgressReporter progress(cfg->getProgressMonitor(), static_cast<int32_t>(std::size(passes)) + 1);
    int32_t step = 0;
    for (Pass pass : passes)
    {
        KILN_RETURN_IF_ERROR(pass(ctx));
        KILN_RETURN_IF_ERROR(progress.step(step++));
    }
    Plan& plan = ctx.plan;
    plan.name = net.getName();
    plan.apiVersion = NV_TENSORRT_VERSION;
    plan.kilnVersion = KILN_VERSION_MAJOR * 10000 + KILN_VERSION_MINOR * 100 + KILN_VERSION_PATCH;
    plan.builderFlags = cfg->getFlags();
    plan.stronglyTyped = net.stronglyTyped();
    plan.profilingVerbosity = cfg->getProfilingVerbosity();
    plan.hardwareCompatibility = cfg->getHardwareCompatibilityLevel();
    // IBuilderConfig::setPluginsToSerialize: embed the plugin library files (a missing or non-library file fails).
    KILN_ASSIGN_OR_RETURN(plan.pluginLibraries, readPluginLibraries(cfg->pluginsToSerialize()));
    KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, writeEngine(plan));
    KILN_RETURN_IF_ERROR(progress.step(step));
    mLogger.info("Kiln built an engine for the " + std::string(backend.name()) + " backend with " + std::to_string(plan.nodes.size()) + " layers, "
        + std::to_string(plan.profiles.size()) + " optimization profile(s), " + std::to_string(bytes.size()) + " bytes");
    return bytes;
}

IHostMemory* Builder::buildSerializedNetwork(INetworkDefinition& network, IBuilderConfig& config) noexcept
{
    return apiGuard<IHostMemory*>(mLogger, mRecorder, nullptr, [&]() -> StatusOr<IHostMemory*> {
        KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, buildEngineBytes(network, config));
        return static_cast<IHostMemory*>(new HostMemory(std::move(bytes)));
    });
}

IHostMemory* Builder::buildSerializedNetwork(
    INetworkDefinition& network, IBuilderConfig& config, IHostMemory*& kernelText) noexcept
{
    kernelText = nullptr; // the CPU backend has no kernel text to return
    return buildSerializedNetwork(network, config);
}

bool Builder::buildSerializedNetworkToStream(INetworkDefinition& network, IBuilderConfig& config, IStreamWriter& writer) noexcept
{
    return apiGuard<bool>(mLogger, mRecorder, false, [&]() -> Status {
        KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, buildEngineBytes(network, config));
        int64_t written = 0;
        while (written < static_cast<int64_t>(bytes.size()))
        {
            int64_t const n = writer.write(bytes.data() + written, static_cast<int64_t>(bytes.size()) - written);
            if (n <= 0)
            {
                return Status(ErrorCode::kFAILED_EXECUTION, "buildSerializedNetworkToStream: the IStreamWriter wrote "
                    + std::to_string(written) + " of " + std::to_string(bytes.size()) + " bytes and then failed");
            }
            written += n;
        }
        return Status::ok();
    });
}

ICudaEngine* Builder::buildEngineWithConfig(INetworkDefinition& network, IBuilderConfig& config) noexcept
{
    return apiGuard<ICudaEngine*>(mLogger, mRecorder, nullptr, [&]() -> StatusOr<ICudaEngine*> {
        KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, buildEngineBytes(network, config));
        // Go through the engine file so a built engine behaves exactly like a deserialized one.
        // Plugins come back through the builder's registry; libraries embedded by setPluginsToSerialize were
        // chosen by this application, so their code may be loaded.
        EngineLoadOptions options;
        options.registry = mRegistry.get();
        options.hostCodeAllowed = true;
        return deserializeEngineBytes(mUserLogger, mRecorder, bytes.data(), bytes.size(), options);
    });
}

bool Builder::isNetworkSupported(INetworkDefinition const& network, IBuilderConfig const& config) const noexcept
{
    return apiGuard<bool>(mLogger, mRecorder, false, [&]() -> Status {
        return buildEngineBytes(network, config).status();
    });
}

ILogger* Builder::getLogger() const noexcept { return &mUserLogger; }

bool Builder::setMaxThreads(int32_t maxThreads) noexcept
{
    if (maxThreads < 1)
    {
        return false;
    }
    mMaxThreads = maxThreads;
    return true;
}

int32_t Builder::getMaxThreads() const noexcept { return mMaxThreads; }

IPluginRegistry& Builder::getPluginRegistry() noexcept { return *mRegistry; }

} // namespace kiln

extern "C" TENSORRTAPI void* createInferBuilder_INTERNAL(void* logger, int32_t version) noexcept
{
    if (logger == nullptr)
    {
        return nullptr;
    }
    auto* userLogger = static_cast<nvinfer1::ILogger*>(logger);
    if (version / 10000 != NV_TENSORRT_MAJOR)
    {
        userLogger->log(nvinfer1::ILogger::Severity::kERROR,
            ("createInferBuilder: the application was compiled against TensorRT API " + std::to_string(version)
                + ", but this Kiln implements API " + std::to_string(NV_TENSORRT_VERSION))
                .c_str());
        return nullptr;
    }
    try
    {
        return static_cast<nvinfer1::IBuilder*>(new kiln::Builder(*userLogger));
    }
    catch (...)
    {
        return nullptr;
    }
}
