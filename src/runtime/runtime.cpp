// Runtime implementation: engine deserialization from memory and from application stream readers.
#include "runtime/runtime.h"

#include "core/apiGuard.h"
#include "engine/engineFormat.h"
#include "engine/engineReader.h"
#include "plugin/pluginRegistry.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <vector>

namespace kiln
{

using nvinfer1::ICudaEngine;

StatusOr<ICudaEngine*> deserializeEngineBytes(nvinfer1::ILogger& logger, nvinfer1::IErrorRecorder* recorder,
    void const* data, size_t size, EngineLoadOptions const& options)
{
    if (data == nullptr)
    {
        return invalidArgument("the engine data is a null pointer");
    }
    KILN_ASSIGN_OR_RETURN(Plan plan, readEngine(data, size));
    Logger engineLogger(&logger);
    KILN_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, createEngine(std::move(plan), engineLogger, recorder, options));
    return static_cast<ICudaEngine*>(engine.release());
}

namespace
{

//! Read a whole engine file from `read(destination, nbBytes)` (which returns the bytes read, 0 at the end,
//! negative on error). The header tells the file size; memory grows only as data actually arrives, so a
//! corrupt size field cannot make Kiln allocate more than the stream holds.
StatusOr<std::vector<uint8_t>> readStream(std::function<int64_t(void*, int64_t)> const& read, char const* api)
{
    constexpr size_t kCHUNK = size_t{16} << 20;
    std::vector<uint8_t> bytes;
    size_t target = engine::kOFF_FILE_SIZE + 8; // enough to learn the file size
    bool sized = false;
    while (bytes.size() < target)
    {
        size_t const want = std::min(target - bytes.size(), kCHUNK);
        size_t const have = bytes.size();
        bytes.resize(have + want);
        int64_t const got = read(bytes.data() + have, static_cast<int64_t>(want));
        if (got < 0)
        {
            return Status(nvinfer1::ErrorCode::kFAILED_EXECUTION, std::string(api)
                + ": the stream reader reported an error after " + std::to_string(have) + " bytes");
        }
        bytes.resize(have + static_cast<size_t>(std::min<int64_t>(got, static_cast<int64_t>(want))));
        if (got == 0)
        {
            break; // end of stream: the reader will report the truncation
        }
        if (!sized && bytes.size() >= engine::kOFF_FILE_SIZE + 8)
        {
            sized = true;
            if (std::memcmp(bytes.data(), engine::kMAGIC, sizeof(engine::kMAGIC)) != 0)
            {
                break; // not a Kiln engine: let the reader explain
            }
            uint64_t const fileSize = engine::loadU64(bytes.data() + engine::kOFF_FILE_SIZE);
            target = static_cast<size_t>(std::max<uint64_t>(fileSize, bytes.size()));
        }
    }
    return bytes;
}

} // namespace

Runtime::Runtime(nvinfer1::ILogger& logger)
    : mUserLogger(logger)
    , mLogger(&logger)
    , mRegistry(createLocalRegistry(&globalPluginRegistry(), &logger, "the runtime's plugin registry"))
{
    setRegistryLogger(&logger);
}

Runtime::~Runtime() noexcept
{
    // The global plugin registry must never log to a logger that may die with this runtime.
    unsetRegistryLogger(&mUserLogger);
}

void Runtime::setDLACore(int32_t dlaCore) noexcept
{
    mLogger.report(invalidArgument("IRuntime::setDLACore: DLA core " + std::to_string(dlaCore)
                       + " does not exist (Kiln has no DLA; getNbDLACores() is 0)"),
        mRecorder.get());
}

int32_t Runtime::getDLACore() const noexcept
{
    return -1;
}

int32_t Runtime::getNbDLACores() const noexcept
{
    return 0;
}

void Runtime::setGpuAllocator(nvinfer1::IGpuAllocator* allocator) noexcept
{
    // Engines loaded afterwards use it: CUDA engines for their weights, their contexts' activation memory and
    // buffers, and every engine offers it to plugins (IPluginResourceContext::getGpuAllocator,
    // IPluginV2Ext::attachToContext). CPU engines keep their own tensors in host memory.
    mGpuAllocator = allocator;
}

void Runtime::setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept
{
    mRecorder.set(recorder);
}

nvinfer1::IErrorRecorder* Runtime::getErrorRecorder() const noexcept
{
    return mRecorder.get();
}

ICudaEngine* Runtime::deserializeBytes(char const* api, void const* data, size_t size) noexcept
{
    return apiGuard(mLogger, mRecorder.get(), static_cast<ICudaEngine*>(nullptr), [&]() -> StatusOr<ICudaEngine*> {
        EngineLoadOptions options;
        options.registry = mRegistry.get();
        options.hostCodeAllowed = mEngineHostCodeAllowed;
        options.allocator = mGpuAllocator;
        auto engine = deserializeEngineBytes(mUserLogger, mRecorder.get(), data, size, options);
        if (!engine.isOk())
        {
            return engine.status().withContext(std::string("IRuntime::") + api + ": cannot deserialize the engine");
        }
        return engine;
    });
}

ICudaEngine* Runtime::deserializeCudaEngine(void const* blob, std::size_t size) noexcept
{
    return deserializeBytes("deserializeCudaEngine", blob, size);
}

ICudaEngine* Runtime::deserializeCudaEngine(nvinfer1::IStreamReader& streamReader) noexcept
{
    return apiGuard(mLogger, mRecorder.get(), static_cast<ICudaEngine*>(nullptr), [&]() -> StatusOr<ICudaEngine*> {
        KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
            readStream([&](void* dst, int64_t n) { return streamReader.read(dst, n); },
                "IRuntime::deserializeCudaEngine(IStreamReader&)"));
        // deserializeBytes reports its own failures.
        return deserializeBytes("deserializeCudaEngine(IStreamReader&)", bytes.data(), bytes.size());
    });
}

ICudaEngine* Runtime::deserializeCudaEngine(nvinfer1::IStreamReaderV2& streamReader) noexcept
{
    return apiGuard(mLogger, mRecorder.get(), static_cast<ICudaEngine*>(nullptr), [&]() -> StatusOr<ICudaEngine*> {
        // The CPU backend reads into host memory, so no stream is passed to the reader.
        KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
            readStream([&](void* dst, int64_t n) { return streamReader.read(dst, n, nullptr); },
                "IRuntime::deserializeCudaEngine(IStreamReaderV2&)"));
        return deserializeBytes("deserializeCudaEngine(IStreamReaderV2&)", bytes.data(), bytes.size());
    });
}

nvinfer1::ILogger* Runtime::getLogger() const noexcept
{
    return &mUserLogger;
}

bool Runtime::setMaxThreads(int32_t maxThreads) noexcept
{
    if (maxThreads < 1)
    {
        mLogger.report(invalidArgument("IRuntime::setMaxThreads: maxThreads must be at least 1, got "
                           + std::to_string(maxThreads)),
            mRecorder.get());
        return false;
    }
    mMaxThreads = maxThreads;
    return true;
}

int32_t Runtime::getMaxThreads() const noexcept
{
    return mMaxThreads;
}

void Runtime::setTemporaryDirectory(char const* path) noexcept
{
    apiGuard(mLogger, mRecorder.get(), false, [&]() -> bool {
        mHasTemporaryDirectory = path != nullptr;
        mTemporaryDirectory = path != nullptr ? std::string(path) : std::string();
        return true;
    });
}

char const* Runtime::getTemporaryDirectory() const noexcept
{
    return mHasTemporaryDirectory ? mTemporaryDirectory.c_str() : nullptr;
}

void Runtime::setTempfileControlFlags(nvinfer1::TempfileControlFlags flags) noexcept
{
    mTempfileFlags = flags;
}

nvinfer1::TempfileControlFlags Runtime::getTempfileControlFlags() const noexcept
{
    return mTempfileFlags;
}

nvinfer1::IPluginRegistry& Runtime::getPluginRegistry() noexcept
{
    return *mRegistry;
}

nvinfer1::IRuntime* Runtime::loadRuntime(char const* path) noexcept
{
    mLogger.report(unsupported(std::string("IRuntime::loadRuntime(") + (path != nullptr ? path : "(null)")
                       + "): lean runtimes are not supported by Kiln; this runtime loads every Kiln engine itself"),
        mRecorder.get());
    return nullptr;
}

void Runtime::setEngineHostCodeAllowed(bool allowed) noexcept
{
    mEngineHostCodeAllowed = allowed; // engines embedding plugin libraries load them only when this is true
}

bool Runtime::getEngineHostCodeAllowed() const noexcept
{
    return mEngineHostCodeAllowed;
}

} // namespace kiln
