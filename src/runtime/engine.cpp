// Engine implementation: I/O and profile queries, serialization, and creation of contexts and inspectors.
#include "runtime/engine.h"

#include "core/apiGuard.h"
#include "core/dataType.h"
#include "core/hostMemory.h"
#include "core/tensorFormat.h"
#include "engine/engineReader.h"
#include "engine/engineWriter.h"
#include "engine/planValidation.h"
#include "runtime/engineInspector.h"
#include "runtime/engineKernelCheck.h"
#include "runtime/executionContext.h"
#include "runtime/runtimeConfig.h"
#include "runtime/shapeBinding.h"

namespace kiln
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::ExecutionContextAllocationStrategy;
using nvinfer1::OptProfileSelector;

namespace
{

Dims invalidDims()
{
    Dims d{};
    d.nbDims = -1;
    return d;
}

std::string nameOrNull(char const* name)
{
    return name == nullptr ? std::string("(null)") : "'" + std::string(name) + "'";
}

bool validSelector(OptProfileSelector s)
{
    auto const v = static_cast<int32_t>(s);
    return v >= 0 && v < nvinfer1::EnumMax<OptProfileSelector>();
}

} // namespace

StatusOr<std::unique_ptr<Engine>> createEngine(
    Plan plan, Logger const& logger, nvinfer1::IErrorRecorder* recorder, EngineLoadOptions const& options)
{
    KILN_RETURN_IF_ERROR(validatePlan(plan));
    KILN_ASSIGN_OR_RETURN(auto data, makeEngineData(std::move(plan)));
    auto engineLogger = std::make_shared<Logger const>(logger.user());
    Backend const& backend = *data->backend;
    EngineLoadOptions loadOptions = options;
    std::shared_ptr<DeviceWeights const> deviceWeights;
    if (backend.usesDeviceMemory())
    {
        if (loadOptions.allocator == nullptr)
        {
            loadOptions.allocator = &backend.defaultAllocator();
        }
        KILN_ASSIGN_OR_RETURN(deviceWeights, DeviceWeights::upload(data->plan, backend, loadOptions.allocator));
    }
    KILN_RETURN_IF_ERROR(checkEngineKernels(*data, deviceWeights.get()));
    KILN_ASSIGN_OR_RETURN(auto plugins, EnginePlugins::load(*data, loadOptions, engineLogger));
    nvinfer1::IGpuAllocator* const allocator = backend.usesDeviceMemory() ? loadOptions.allocator : nullptr;
    return std::make_unique<Engine>(
        std::move(data), std::move(engineLogger), recorder, std::move(plugins), allocator, std::move(deviceWeights));
}

Engine::Engine(std::shared_ptr<EngineData const> data, std::shared_ptr<Logger const> logger,
    nvinfer1::IErrorRecorder* recorder, std::shared_ptr<EnginePlugins> plugins, nvinfer1::IGpuAllocator* allocator,
    std::shared_ptr<DeviceWeights const> deviceWeights)
    : mData(std::move(data))
    , mLoggerHolder(std::move(logger))
    , mLogger(*mLoggerHolder)
    , mRecorder(recorder)
    , mPlugins(std::move(plugins))
    , mAllocator(allocator)
    , mDeviceWeights(std::move(deviceWeights))
{
}

int32_t Engine::lookup(char const* api, char const* name) const
{
    int32_t const pos = mData->findIo(name);
    if (pos < 0)
    {
        report(invalidArgument(std::string("ICudaEngine::") + api + ": " + nameOrNull(name)
            + " is not an input or output tensor of the engine"));
    }
    return pos;
}

int32_t Engine::lookupWithProfile(char const* api, char const* name, int32_t profileIndex) const
{
    int32_t const nbProfiles = static_cast<int32_t>(mData->plan.profiles.size());
    if (profileIndex < 0 || profileIndex >= nbProfiles)
    {
        report(invalidArgument(std::string("ICudaEngine::") + api + ": profile index " + std::to_string(profileIndex)
            + " is out of range (the engine has " + std::to_string(nbProfiles) + " optimization profiles)"));
        return -1;
    }
    return lookup(api, name);
}

// ---------------------------------------------------------------------------------------------------------
// I/O tensors
// ---------------------------------------------------------------------------------------------------------

int32_t Engine::getNbIOTensors() const noexcept
{
    return mData->nbIo();
}

char const* Engine::getIOTensorName(int32_t index) const noexcept
{
    if (index < 0 || index >= mData->nbIo())
    {
        report(invalidArgument("ICudaEngine::getIOTensorName: index " + std::to_string(index) + " is out of range (the engine has "
            + std::to_string(mData->nbIo()) + " I/O tensors)"));
        return nullptr;
    }
    return mData->ioTensor(index).name.c_str();
}

Dims Engine::getTensorShape(char const* tensorName) const noexcept
{
    int32_t const pos = lookup("getTensorShape", tensorName);
    return pos < 0 ? invalidDims() : engineDims(*mData, mData->plan.ioTensors[static_cast<size_t>(pos)]);
}

DataType Engine::getTensorDataType(char const* tensorName) const noexcept
{
    int32_t const pos = lookup("getTensorDataType", tensorName);
    return pos < 0 ? DataType::kFLOAT : mData->ioTensor(pos).type;
}

nvinfer1::TensorLocation Engine::getTensorLocation(char const* tensorName) const noexcept
{
    int32_t const pos = lookup("getTensorLocation", tensorName);
    if (pos < 0)
    {
        return nvinfer1::TensorLocation::kDEVICE;
    }
    return mData->ioTensor(pos).hostShapeTensor ? nvinfer1::TensorLocation::kHOST : nvinfer1::TensorLocation::kDEVICE;
}

bool Engine::isShapeInferenceIO(char const* tensorName) const noexcept
{
    int32_t const pos = lookup("isShapeInferenceIO", tensorName);
    return pos >= 0 && mData->ioTensor(pos).hostShapeTensor;
}

nvinfer1::TensorIOMode Engine::getTensorIOMode(char const* tensorName) const noexcept
{
    // TensorRT answers kNONE for unknown names without treating it as an error.
    int32_t const pos = mData->findIo(tensorName);
    return pos < 0 ? nvinfer1::TensorIOMode::kNONE : mData->ioTensor(pos).ioMode;
}

char const* Engine::getAliasedInputTensor(char const* tensorName) const noexcept
{
    // An output written in place of an input (a plugin's getAliasedInput), when both are network I/O.
    int32_t const pos = lookup("getAliasedInputTensor", tensorName);
    if (pos < 0 || mData->ioAliasedInput[static_cast<size_t>(pos)] < 0)
    {
        return nullptr;
    }
    return mData->ioTensor(mData->ioAliasedInput[static_cast<size_t>(pos)]).name.c_str();
}

int32_t Engine::getTensorBytesPerComponent(char const* tensorName) const noexcept
{
    return getTensorBytesPerComponent(tensorName, 0);
}

int32_t Engine::getTensorBytesPerComponent(char const* tensorName, int32_t profileIndex) const noexcept
{
    int32_t const pos = lookupWithProfile("getTensorBytesPerComponent", tensorName, profileIndex);
    return pos < 0 ? -1 : static_cast<int32_t>(elementSize(mData->ioTensor(pos).type));
}

int32_t Engine::getTensorComponentsPerElement(char const* tensorName) const noexcept
{
    return getTensorComponentsPerElement(tensorName, 0);
}

int32_t Engine::getTensorComponentsPerElement(char const* tensorName, int32_t profileIndex) const noexcept
{
    int32_t const pos = lookupWithProfile("getTensorComponentsPerElement", tensorName, profileIndex);
    return pos < 0 ? -1 : formatComponents(mData->ioTensor(pos).format);
}

nvinfer1::TensorFormat Engine::getTensorFormat(char const* tensorName) const noexcept
{
    return getTensorFormat(tensorName, 0);
}

nvinfer1::TensorFormat Engine::getTensorFormat(char const* tensorName, int32_t profileIndex) const noexcept
{
    int32_t const pos = lookupWithProfile("getTensorFormat", tensorName, profileIndex);
    return pos < 0 ? nvinfer1::TensorFormat::kLINEAR : mData->ioTensor(pos).format;
}

char const* Engine::getTensorFormatDesc(char const* tensorName) const noexcept
{
    return getTensorFormatDesc(tensorName, 0);
}

char const* Engine::getTensorFormatDesc(char const* tensorName, int32_t profileIndex) const noexcept
{
    int32_t const pos = lookupWithProfile("getTensorFormatDesc", tensorName, profileIndex);
    return pos < 0 ? nullptr : mData->formatDesc[static_cast<size_t>(pos)].c_str();
}

int32_t Engine::getTensorVectorizedDim(char const* tensorName) const noexcept
{
    return getTensorVectorizedDim(tensorName, 0);
}

int32_t Engine::getTensorVectorizedDim(char const* tensorName, int32_t profileIndex) const noexcept
{
    int32_t const pos = lookupWithProfile("getTensorVectorizedDim", tensorName, profileIndex);
    if (pos < 0)
    {
        return -1;
    }
    PlanTensor const& t = mData->ioTensor(pos);
    return formatVectorizedDim(t.format, static_cast<int32_t>(t.dims.size()));
}

bool Engine::isDebugTensor(char const* /*name*/) const noexcept
{
    return false; // Kiln engines carry no debug tensors yet
}

// ---------------------------------------------------------------------------------------------------------
// Profiles
// ---------------------------------------------------------------------------------------------------------

int32_t Engine::getNbOptimizationProfiles() const noexcept
{
    return static_cast<int32_t>(mData->plan.profiles.size());
}

Dims Engine::getProfileShape(char const* tensorName, int32_t profileIndex, OptProfileSelector select) const noexcept
{
    int32_t const pos = lookupWithProfile("getProfileShape", tensorName, profileIndex);
    if (pos < 0)
    {
        return invalidDims();
    }
    if (!validSelector(select) || pos >= mData->nbInputs)
    {
        report(invalidArgument("ICudaEngine::getProfileShape: " + nameOrNull(tensorName)
            + (pos >= mData->nbInputs ? " is an output; profiles describe inputs" : " with an unknown selector")));
        return invalidDims();
    }
    int32_t const entry = mData->profileInput[static_cast<size_t>(profileIndex)][static_cast<size_t>(pos)];
    if (entry < 0)
    {
        // Inputs without profile entries have build-time constant shapes.
        return engineDims(*mData, mData->plan.ioTensors[static_cast<size_t>(pos)]);
    }
    PlanProfileInput const& in = mData->plan.profiles[static_cast<size_t>(profileIndex)].inputs[static_cast<size_t>(entry)];
    switch (select)
    {
    case OptProfileSelector::kMIN: return in.min;
    case OptProfileSelector::kOPT: return in.opt;
    case OptProfileSelector::kMAX: return in.max;
    }
    return invalidDims();
}

int64_t const* Engine::getProfileTensorValuesV2(
    char const* tensorName, int32_t profileIndex, OptProfileSelector select) const noexcept
{
    int32_t const pos = lookupWithProfile("getProfileTensorValuesV2", tensorName, profileIndex);
    if (pos < 0 || !validSelector(select))
    {
        return nullptr;
    }
    int32_t const entry = mData->profileInput[static_cast<size_t>(profileIndex)][static_cast<size_t>(pos)];
    if (entry < 0)
    {
        return nullptr;
    }
    PlanProfileInput const& in = mData->plan.profiles[static_cast<size_t>(profileIndex)].inputs[static_cast<size_t>(entry)];
    std::vector<int64_t> const* values[3] = {&in.minValues, &in.optValues, &in.maxValues};
    auto const& v = *values[static_cast<size_t>(select)];
    if (v.empty())
    {
        report(invalidArgument("ICudaEngine::getProfileTensorValuesV2: " + nameOrNull(tensorName)
            + " is not a shape tensor input"));
        return nullptr;
    }
    return v.data();
}

int32_t const* Engine::getProfileTensorValues(
    char const* tensorName, int32_t profileIndex, OptProfileSelector select) const noexcept
{
    if (getProfileTensorValuesV2(tensorName, profileIndex, select) == nullptr)
    {
        return nullptr;
    }
    int32_t const pos = mData->findIo(tensorName);
    return mData->profileValues32[static_cast<size_t>(profileIndex)][static_cast<size_t>(pos)][static_cast<size_t>(select)].data();
}

// ---------------------------------------------------------------------------------------------------------
// Memory
// ---------------------------------------------------------------------------------------------------------

size_t Engine::getDeviceMemorySize() const noexcept
{
    return static_cast<size_t>(getDeviceMemorySizeV2());
}

size_t Engine::getDeviceMemorySizeForProfile(int32_t profileIndex) const noexcept
{
    int64_t const size = getDeviceMemorySizeForProfileV2(profileIndex);
    return size < 0 ? 0 : static_cast<size_t>(size);
}

int64_t Engine::getDeviceMemorySizeV2() const noexcept
{
    return mData->maxArenaSize;
}

int64_t Engine::getDeviceMemorySizeForProfileV2(int32_t profileIndex) const noexcept
{
    int32_t const nbProfiles = static_cast<int32_t>(mData->plan.profiles.size());
    if (profileIndex < 0 || profileIndex >= nbProfiles)
    {
        report(invalidArgument("ICudaEngine::getDeviceMemorySizeForProfileV2: profile index " + std::to_string(profileIndex)
            + " is out of range (the engine has " + std::to_string(nbProfiles) + " optimization profiles)"));
        return -1;
    }
    return mData->plan.profiles[static_cast<size_t>(profileIndex)].arenaSize;
}

// ---------------------------------------------------------------------------------------------------------
// Contexts, inspectors, configs
// ---------------------------------------------------------------------------------------------------------

nvinfer1::IExecutionContext* Engine::makeContext(ExecutionContextAllocationStrategy strategy) noexcept
{
    return apiGuard(mLogger, mRecorder.get(), static_cast<nvinfer1::IExecutionContext*>(nullptr),
        [&]() -> StatusOr<nvinfer1::IExecutionContext*> {
            auto ctx = ExecutionContext::create(*this, strategy);
            if (!ctx.isOk())
            {
                return ctx.status().withContext("ICudaEngine::createExecutionContext");
            }
            return static_cast<nvinfer1::IExecutionContext*>(std::move(ctx).value().release());
        });
}

nvinfer1::IExecutionContext* Engine::createExecutionContext(ExecutionContextAllocationStrategy strategy) noexcept
{
    return makeContext(strategy);
}

nvinfer1::IExecutionContext* Engine::createExecutionContextWithoutDeviceMemory() noexcept
{
    return makeContext(ExecutionContextAllocationStrategy::kUSER_MANAGED);
}

nvinfer1::IExecutionContext* Engine::createExecutionContext(nvinfer1::IRuntimeConfig* runtimeConfig) noexcept
{
    if (runtimeConfig == nullptr)
    {
        report(invalidArgument("ICudaEngine::createExecutionContext: runtimeConfig is a null pointer"));
        return nullptr;
    }
    return makeContext(runtimeConfig->getExecutionContextAllocationStrategy());
}

nvinfer1::IRuntimeConfig* Engine::createRuntimeConfig() noexcept
{
    return apiGuard(mLogger, mRecorder.get(), static_cast<nvinfer1::IRuntimeConfig*>(nullptr),
        [&]() -> nvinfer1::IRuntimeConfig* { return new RuntimeConfig(mLoggerHolder); });
}

nvinfer1::IEngineInspector* Engine::createEngineInspector() const noexcept
{
    return apiGuard(mLogger, mRecorder.get(), static_cast<nvinfer1::IEngineInspector*>(nullptr),
        [&]() -> nvinfer1::IEngineInspector* { return new EngineInspector(*this); });
}

nvinfer1::ISerializationConfig* Engine::createSerializationConfig() noexcept
{
    return apiGuard(mLogger, mRecorder.get(), static_cast<nvinfer1::ISerializationConfig*>(nullptr),
        [&]() -> nvinfer1::ISerializationConfig* { return new SerializationConfig(mLoggerHolder); });
}

// ---------------------------------------------------------------------------------------------------------
// Serialization
// ---------------------------------------------------------------------------------------------------------

nvinfer1::IHostMemory* Engine::serialize() const noexcept
{
    return apiGuard(mLogger, mRecorder.get(), static_cast<nvinfer1::IHostMemory*>(nullptr),
        [&]() -> StatusOr<nvinfer1::IHostMemory*> {
            auto bytes = writeEngine(mData->plan);
            if (!bytes.isOk())
            {
                return bytes.status().withContext("ICudaEngine::serialize");
            }
            return static_cast<nvinfer1::IHostMemory*>(new HostMemory(std::move(bytes).value()));
        });
}

nvinfer1::IHostMemory* Engine::serializeWithConfig(nvinfer1::ISerializationConfig& config) const noexcept
{
    auto const flags = config.getFlags();
    if ((flags & (1U << static_cast<uint32_t>(nvinfer1::SerializationFlag::kEXCLUDE_WEIGHTS))) != 0)
    {
        report(unsupported("ICudaEngine::serializeWithConfig: SerializationFlag::kEXCLUDE_WEIGHTS is not supported "
                           "(Kiln engines are not refittable yet)"));
        return nullptr;
    }
    // kEXCLUDE_LEAN_RUNTIME: Kiln engines embed no lean runtime. kINCLUDE_REFIT: only meaningful with
    // kEXCLUDE_WEIGHTS. Both leave the output unchanged.
    return serialize();
}

// ---------------------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------------------

int32_t Engine::getNbLayers() const noexcept
{
    return static_cast<int32_t>(mData->plan.nodes.size());
}

char const* Engine::getName() const noexcept
{
    return mData->plan.name.c_str();
}

bool Engine::isRefittable() const noexcept
{
    return false;
}

nvinfer1::EngineCapability Engine::getEngineCapability() const noexcept
{
    return nvinfer1::EngineCapability::kSTANDARD;
}

void Engine::setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept
{
    mRecorder.set(recorder);
}

nvinfer1::IErrorRecorder* Engine::getErrorRecorder() const noexcept
{
    return mRecorder.get();
}

bool Engine::hasImplicitBatchDimension() const noexcept
{
    return false;
}

nvinfer1::TacticSources Engine::getTacticSources() const noexcept
{
    return 0; // no CUDA libraries are involved on the CPU backend
}

nvinfer1::ProfilingVerbosity Engine::getProfilingVerbosity() const noexcept
{
    return mData->plan.profilingVerbosity;
}

nvinfer1::HardwareCompatibilityLevel Engine::getHardwareCompatibilityLevel() const noexcept
{
    return mData->plan.hardwareCompatibility;
}

int32_t Engine::getNbAuxStreams() const noexcept
{
    return 0;
}

int64_t Engine::getEngineStat(nvinfer1::EngineStat stat) const noexcept
{
    switch (stat)
    {
    case nvinfer1::EngineStat::kTOTAL_WEIGHTS_SIZE: return mData->totalWeightsSize;
    case nvinfer1::EngineStat::kSTRIPPED_WEIGHTS_SIZE: return -1; // Kiln does not strip weights (kSTRIP_PLAN)
    }
    report(invalidArgument("ICudaEngine::getEngineStat: unknown statistic " + std::to_string(static_cast<int32_t>(stat))));
    return -1;
}

// ---------------------------------------------------------------------------------------------------------
// Weight streaming (engines are never built with kWEIGHT_STREAMING on the CPU backend)
// ---------------------------------------------------------------------------------------------------------

bool Engine::setWeightStreamingBudget(int64_t gpuMemoryBudget) noexcept
{
    return setWeightStreamingBudgetV2(gpuMemoryBudget);
}

int64_t Engine::getWeightStreamingBudget() const noexcept
{
    return -1; // -1: weight streaming disabled
}

int64_t Engine::getMinimumWeightStreamingBudget() const noexcept
{
    return 0;
}

int64_t Engine::getStreamableWeightsSize() const noexcept
{
    return 0;
}

bool Engine::setWeightStreamingBudgetV2(int64_t /*gpuMemoryBudget*/) noexcept
{
    report(unsupported("ICudaEngine::setWeightStreamingBudgetV2: the engine was not built with "
                       "BuilderFlag::kWEIGHT_STREAMING (weight streaming is not supported by the CPU backend)"));
    return false;
}

int64_t Engine::getWeightStreamingBudgetV2() const noexcept
{
    return 0; // equals getStreamableWeightsSize(): every weight stays resident
}

int64_t Engine::getWeightStreamingAutomaticBudget() const noexcept
{
    return 0;
}

int64_t Engine::getWeightStreamingScratchMemorySize() const noexcept
{
    return 0;
}

} // namespace kiln
