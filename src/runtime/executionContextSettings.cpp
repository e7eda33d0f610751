// ExecutionContext: tensor addresses, output allocators, profiler and the plain settings (debug, NVTX,
// persistent cache, aux streams, debug tensors, communicator) — including what the CPU backend does not support.
#include "core/apiGuard.h"
#include "core/quoting.h"
#include "core/dataType.h"
#include "runtime/engine.h"
#include "runtime/executionContext.h"

namespace kiln
{

namespace
{

std::string nameOrNull(char const* name)
{
    return name == nullptr ? std::string("(null)") : singleQuoted(name);
}

//! Ordering of profiling verbosities by the amount of detail (kNONE < kLAYER_NAMES_ONLY < kDETAILED).
int32_t detailLevel(nvinfer1::ProfilingVerbosity v)
{
    switch (v)
    {
    case nvinfer1::ProfilingVerbosity::kNONE: return 0;
    case nvinfer1::ProfilingVerbosity::kLAYER_NAMES_ONLY: return 1;
    case nvinfer1::ProfilingVerbosity::kDETAILED: return 2;
    }
    return -1;
}

} // namespace

// ---------------------------------------------------------------------------------------------------------
// Addresses and output allocators
// ---------------------------------------------------------------------------------------------------------

bool ExecutionContext::setTensorAddress(char const* tensorName, void* data) noexcept
{
    int32_t const pos = lookup("setTensorAddress", tensorName);
    if (pos < 0)
    {
        return false;
    }
    return apiGuard(mLogger, mRecorder.get(), false, [&]() -> Status {
        PlanTensor const& t = mData->ioTensor(pos);
        int64_t const align = elementSize(t.type);
        if (align > 1 && reinterpret_cast<uintptr_t>(data) % static_cast<uintptr_t>(align) != 0)
        {
            return invalidArgument("IExecutionContext::setTensorAddress: the address for " + singleQuoted(t.name)
                + " is not aligned to its element size (" + std::to_string(align) + " bytes for " + dataTypeName(t.type) + ")");
        }
        if (mBindings.io(pos) != data)
        {
            mMemory.forgetAllocation(pos);
        }
        mBindings.setIo(pos, data);
        return Status::ok();
    });
}

bool ExecutionContext::setInputTensorAddress(char const* tensorName, void const* data) noexcept
{
    int32_t const pos = mData->findIo(tensorName);
    if (pos >= mData->nbInputs)
    {
        report(invalidArgument("IExecutionContext::setInputTensorAddress: " + singleQuoted(tensorName) + " is an output"));
        return false;
    }
    return setTensorAddress(tensorName, const_cast<void*>(data));
}

bool ExecutionContext::setOutputTensorAddress(char const* tensorName, void* data) noexcept
{
    int32_t const pos = mData->findIo(tensorName);
    if (pos >= 0 && pos < mData->nbInputs)
    {
        report(invalidArgument("IExecutionContext::setOutputTensorAddress: " + singleQuoted(tensorName) + " is an input"));
        return false;
    }
    return setTensorAddress(tensorName, data);
}

void const* ExecutionContext::getTensorAddress(char const* tensorName) const noexcept
{
    int32_t const pos = lookup("getTensorAddress", tensorName);
    return pos < 0 ? nullptr : mBindings.io(pos);
}

void* ExecutionContext::getOutputTensorAddress(char const* tensorName) const noexcept
{
    int32_t const pos = lookup("getOutputTensorAddress", tensorName);
    if (pos < 0)
    {
        return nullptr;
    }
    if (pos < mData->nbInputs)
    {
        report(invalidArgument("IExecutionContext::getOutputTensorAddress: " + singleQuoted(tensorName) + " is an input"));
        return nullptr;
    }
    return mBindings.io(pos);
}

bool ExecutionContext::setOutputAllocator(char const* tensorName, nvinfer1::IOutputAllocator* outputAllocator) noexcept
{
    int32_t const pos = lookup("setOutputAllocator", tensorName);
    if (pos < 0)
    {
        return false;
    }
    if (pos < mData->nbInputs)
    {
        report(invalidArgument("IExecutionContext::setOutputAllocator: " + singleQuoted(tensorName) + " is an input"));
        return false;
    }
    mMemory.setOutputAllocator(pos, outputAllocator);
    mBindings.ioChanged(); // the binding of a data-dependent output depends on its allocator
    return true;
}

nvinfer1::IOutputAllocator* ExecutionContext::getOutputAllocator(char const* tensorName) const noexcept
{
    int32_t const pos = lookup("getOutputAllocator", tensorName);
    return pos < mData->nbInputs ? nullptr : mMemory.outputAllocator(pos);
}

bool ExecutionContext::setInputConsumedEvent(cudaEvent_t event) noexcept
{
    if (event != nullptr && !mEngine.backend().usesDeviceMemory())
    {
        report(unsupported("IExecutionContext::setInputConsumedEvent: events are not supported by the CPU backend "
                           "(enqueueV3 runs synchronously, so inputs are consumed when it returns)"));
        return false;
    }
    mInputConsumedEvent = event; // recorded by enqueueV3 once no node reads the inputs any more
    return true;
}

cudaEvent_t ExecutionContext::getInputConsumedEvent() const noexcept
{
    return mInputConsumedEvent;
}

// ---------------------------------------------------------------------------------------------------------
// Plain settings
// ---------------------------------------------------------------------------------------------------------

void ExecutionContext::setDebugSync(bool sync) noexcept
{
    mScheduler.setDebugSync(sync);
}

bool ExecutionContext::getDebugSync() const noexcept
{
    return mScheduler.debugSync();
}

void ExecutionContext::setProfiler(nvinfer1::IProfiler* profiler) noexcept
{
    mScheduler.setProfiler(profiler);
}

nvinfer1::IProfiler* ExecutionContext::getProfiler() const noexcept
{
    return mScheduler.profiler();
}

nvinfer1::ICudaEngine const& ExecutionContext::getEngine() const noexcept
{
    return mEngine;
}

void ExecutionContext::setName(char const* name) noexcept
{
    apiGuard(mLogger, mRecorder.get(), false, [&]() -> bool {
        mName = name == nullptr ? std::string() : std::string(name);
        return true;
    });
}

char const* ExecutionContext::getName() const noexcept
{
    return mName.c_str();
}

void ExecutionContext::setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept
{
    mRecorder.set(recorder);
}

nvinfer1::IErrorRecorder* ExecutionContext::getErrorRecorder() const noexcept
{
    return mRecorder.get();
}

void ExecutionContext::setEnqueueEmitsProfile(bool enqueueEmitsProfile) noexcept
{
    mScheduler.setEnqueueEmitsProfile(enqueueEmitsProfile);
}

bool ExecutionContext::getEnqueueEmitsProfile() const noexcept
{
    return mScheduler.enqueueEmitsProfile();
}

bool ExecutionContext::reportToProfiler() const noexcept
{
    return apiGuard(mLogger, mRecorder.get(), false, [&]() -> Status { return mScheduler.reportTimes(); });
}

bool ExecutionContext::setTemporaryStorageAllocator(nvinfer1::IGpuAllocator* allocator) noexcept
{
    // The CPU kernels need no temporary storage beyond the arena; the allocator is kept for getTemporaryStorageAllocator.
    mTemporaryAllocator = allocator;
    return true;
}

nvinfer1::IGpuAllocator* ExecutionContext::getTemporaryStorageAllocator() const noexcept
{
    return mTemporaryAllocator;
}

void ExecutionContext::setPersistentCacheLimit(size_t size) noexcept
{
    // There is no persistent L2 cache to configure on the CPU; the value is only stored.
    mPersistentCacheLimit = size;
}

size_t ExecutionContext::getPersistentCacheLimit() const noexcept
{
    return mPersistentCacheLimit;
}

bool ExecutionContext::setNvtxVerbosity(nvinfer1::ProfilingVerbosity verbosity) noexcept
{
    int32_t const level = detailLevel(verbosity);
    if (level < 0)
    {
        report(invalidArgument("IExecutionContext::setNvtxVerbosity: unknown verbosity "
            + std::to_string(static_cast<int32_t>(verbosity))));
        return false;
    }
    if (level > detailLevel(mData->plan.profilingVerbosity))
    {
        report(invalidArgument("IExecutionContext::setNvtxVerbosity: the verbosity cannot be raised above the one the "
                               "engine was built with"));
        return false;
    }
    mNvtxVerbosity = verbosity;
    return true;
}

nvinfer1::ProfilingVerbosity ExecutionContext::getNvtxVerbosity() const noexcept
{
    return mNvtxVerbosity;
}

void ExecutionContext::setAuxStreams(cudaStream_t* auxStreams, int32_t nbStreams) noexcept
{
    if (nbStreams < 0 || (nbStreams > 0 && auxStreams == nullptr))
    {
        report(invalidArgument("IExecutionContext::setAuxStreams: invalid stream array"));
        return;
    }
    // Kiln engines use no auxiliary streams (getNbAuxStreams() is 0): every node runs on the enqueueV3 stream.
    mLogger.verbose("IExecutionContext::setAuxStreams: ignored; the engine uses no auxiliary streams ("
        + std::string(mEngine.backend().name()) + " backend)");
}

bool ExecutionContext::setDebugListener(nvinfer1::IDebugListener* listener) noexcept
{
    mScheduler.setDebugListener(listener);
    return true;
}

nvinfer1::IDebugListener* ExecutionContext::getDebugListener() noexcept
{
    return mScheduler.debugListener();
}

bool ExecutionContext::setTensorDebugState(char const* name, bool /*flag*/) noexcept
{
    report(invalidArgument("IExecutionContext::setTensorDebugState: " + nameOrNull(name)
        + " is not a debug tensor of the engine (Kiln engines have no debug tensors yet)"));
    return false;
}

bool ExecutionContext::getDebugState(char const* /*name*/) const noexcept
{
    return false;
}

nvinfer1::IRuntimeConfig* ExecutionContext::getRuntimeConfig() const noexcept
{
    return mConfig.get();
}

bool ExecutionContext::setAllTensorsDebugState(bool /*flag*/) noexcept
{
    return true; // the engine has no debug tensors, so there is nothing to switch
}

bool ExecutionContext::setUnfusedTensorsDebugState(bool /*flag*/) noexcept
{
    report(unsupported("IExecutionContext::setUnfusedTensorsDebugState: the engine has no unfused debug tensors "
                       "(INetworkDefinition::markUnfusedTensorsAsDebugTensors is not supported by Kiln yet)"));
    return false;
}

bool ExecutionContext::getUnfusedTensorsDebugState() const noexcept
{
    return false;
}

bool ExecutionContext::setCommunicator(void* /*communicator*/) noexcept
{
    report(unsupported("IExecutionContext::setCommunicator: multi-device communicators are not supported by the "
                       "CPU backend"));
    return false;
}

} // namespace kiln
