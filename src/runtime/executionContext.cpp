// ExecutionContext (the facade, see executionContext.h): creation of the parts, input shapes and shape inference,
// profiles and activation memory. Addresses, allocators and settings are in executionContextSettings.cpp; the run in
// executionContextRun.cpp; data-dependent outputs in executionContextData.cpp.
#include "runtime/executionContext.h"
#include "core/quoting.h"

#include "core/apiGuard.h"
#include "runtime/engine.h"

namespace kiln
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::ExecutionContextAllocationStrategy;
using nvinfer1::TensorIOMode;

namespace
{

std::string nameOrNull(char const* name)
{
    return name == nullptr ? std::string("(null)") : singleQuoted(name);
}

Dims invalidDims()
{
    Dims d{};
    d.nbDims = -1;
    return d;
}
} // namespace

ExecutionContext::ExecutionContext(Engine const& engine, ExecutionContextAllocationStrategy strategy)
    : mEngine(engine)
    , mData(engine.sharedData())
    , mLoggerHolder(engine.sharedLogger())
    , mLogger(*mLoggerHolder)
    , mRecorder(engine.recorder())
    , mConfig(std::make_unique<RuntimeConfig>(engine.sharedLogger()))
    , mDeviceWeights(engine.deviceWeights())
    , mShapes(*mData)
    , mMemory(*mData, engine.backend(), engine.allocator(), strategy, *mLoggerHolder, mName)
    , mBindings(*mData)
    , mScheduler(engine, mRecorder, mName, mShapes, mBindings, mMemory)
    , mNvtxVerbosity(engine.plan().profilingVerbosity)
{
    mConfig->setExecutionContextAllocationStrategy(strategy);
}

StatusOr<std::unique_ptr<ExecutionContext>> ExecutionContext::create(
    Engine const& engine, ExecutionContextAllocationStrategy strategy)
{
    if (!isValidAllocationStrategy(strategy))
    {
        return invalidArgument("unknown ExecutionContextAllocationStrategy " + std::to_string(static_cast<int32_t>(strategy)));
    }
    std::unique_ptr<ExecutionContext> ctx(new ExecutionContext(engine, strategy));
    KILN_RETURN_IF_ERROR(ctx->mScheduler.create());
    KILN_RETURN_IF_ERROR(ctx->mMemory.allocateArena());
    return ctx;
}

int32_t ExecutionContext::lookup(char const* api, char const* name) const
{
    int32_t const pos = mData->findIo(name);
    if (pos < 0)
    {
        report(invalidArgument(std::string("IExecutionContext::") + api + ": " + nameOrNull(name)
            + " is not an input or output tensor of the engine"));
    }
    return pos;
}

// ---------------------------------------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------------------------------------

EvaluatedShapes const* ExecutionContext::currentShapes() const
{
    Status const st = prepareShapes();
    return st.isOk() && mShapes.missing().empty() && mShapes.current().valid ? &mShapes.current() : nullptr;
}

bool ExecutionContext::setInputShape(char const* tensorName, Dims const& dims) noexcept
{
    int32_t const pos = lookup("setInputShape", tensorName);
    if (pos < 0)
    {
        return false;
    }
    return apiGuard(mLogger, mRecorder.get(), false, [&]() -> Status {
        if (pos >= mData->nbInputs)
        {
            return invalidArgument("IExecutionContext::setInputShape: " + singleQuoted(tensorName)
                + " is an output; only input shapes can be set");
        }
        return mShapes.setInputShape(pos, dims).withContext("IExecutionContext::setInputShape");
    });
}

Dims ExecutionContext::getTensorShape(char const* tensorName) const noexcept
{
    return apiGuard(mLogger, mRecorder.get(), invalidDims(), [&]() -> Dims {
        int32_t const pos = lookup("getTensorShape", tensorName);
        if (pos < 0)
        {
            return invalidDims();
        }
        int32_t const tensor = mData->plan.ioTensors[static_cast<size_t>(pos)];
        if (pos < mData->nbInputs && mShapes.input(pos).set)
        {
            return mShapes.input(pos).dims;
        }
        Status const st = prepareShapes();
        if (!st.isOk())
        {
            report(st.withContext("IExecutionContext::getTensorShape(" + singleQuoted(tensorName) + ")"));
            return invalidDims();
        }
        if (!mShapes.missing().empty())
        {
            return engineDims(*mData, tensor);
        }
        return mShapes.reportedShape(tensor);
    });
}

Dims ExecutionContext::getTensorStrides(char const* tensorName) const noexcept
{
    return apiGuard(mLogger, mRecorder.get(), invalidDims(), [&]() -> Dims {
        if (mData->findIo(tensorName) < 0)
        {
            lookup("getTensorStrides", tensorName);
            return invalidDims();
        }
        Dims const shape = getTensorShape(tensorName);
        if (shape.nbDims < 0)
        {
            return invalidDims();
        }
        Dims strides{};
        strides.nbDims = shape.nbDims;
        int64_t stride = 1;
        for (int32_t i = shape.nbDims - 1; i >= 0; --i)
        {
            if (shape.d[i] < 0)
            {
                // Not known yet: every stride to the left depends on it.
                for (int32_t k = i; k >= 0; --k)
                {
                    strides.d[k] = -1;
                }
                break;
            }
            strides.d[i] = stride;
            stride *= shape.d[i];
        }
        return strides;
    });
}

bool ExecutionContext::allInputDimensionsSpecified() const noexcept
{
    for (int32_t pos = 0; pos < mData->nbInputs; ++pos)
    {
        if (mShapes.input(pos).set)
        {
            continue;
        }
        for (ExprId id : mData->ioTensor(pos).dims)
        {
            if (!mData->plan.shapes.isConstant(id))
            {
                return false;
            }
        }
    }
    return true;
}

bool ExecutionContext::allInputShapesSpecified() const noexcept
{
    for (int32_t pos = 0; pos < mData->nbInputs; ++pos)
    {
        if (mData->ioTensor(pos).hostShapeTensor && mBindings.io(pos) == nullptr)
        {
            return false;
        }
    }
    return true;
}

int32_t ExecutionContext::inferShapes(int32_t nbMaxNames, char const** tensorNames) noexcept
{
    return apiGuard(mLogger, mRecorder.get(), int32_t{-1}, [&]() -> StatusOr<int32_t> {
        if (nbMaxNames < 0 || (nbMaxNames > 0 && tensorNames == nullptr))
        {
            return invalidArgument("IExecutionContext::inferShapes: nbMaxNames must be >= 0 and tensorNames non-null "
                                   "when nbMaxNames > 0");
        }
        Status const st = prepareShapes();
        if (!st.isOk())
        {
            return st.withContext("IExecutionContext::inferShapes");
        }
        std::vector<int32_t> const& missing = mShapes.missing();
        if (!missing.empty())
        {
            for (size_t i = 0; i < missing.size() && static_cast<int32_t>(i) < nbMaxNames; ++i)
            {
                tensorNames[i] = mData->ioTensor(missing[i]).name.c_str();
            }
            return static_cast<int32_t>(missing.size());
        }
        mShapes.writeShapeOutputs(mBindings.ioTable());
        std::string dataDependent;
        for (int32_t pos = mData->nbInputs; pos < mData->nbIo(); ++pos)
        {
            if (mData->tensorDependsOnData[static_cast<size_t>(mData->plan.ioTensors[static_cast<size_t>(pos)])])
            {
                dataDependent += (dataDependent.empty() ? "" : ", ") + singleQuoted(mData->ioTensor(pos).name);
            }
        }
        if (!dataDependent.empty())
        {
            mLogger.info("IExecutionContext::inferShapes: the shapes of output(s) " + dataDependent
                + " depend on data and cannot be inferred; they are known after enqueueV3 (use an IOutputAllocator)");
        }
        return int32_t{0};
    });
}

size_t ExecutionContext::updateDeviceMemorySizeForShapes() noexcept
{
    return apiGuard(mLogger, mRecorder.get(), size_t{0}, [&]() -> StatusOr<size_t> {
        Status const st = prepareShapes();
        if (!st.isOk())
        {
            return st.withContext("IExecutionContext::updateDeviceMemorySizeForShapes");
        }
        if (!mShapes.missing().empty())
        {
            return mShapes.missingInputsError("updateDeviceMemorySizeForShapes");
        }
        return static_cast<size_t>(mMemory.requiredArenaBytes(mShapes.profile(), mShapes.current()));
    });
}

int64_t ExecutionContext::getMaxOutputSize(char const* tensorName) const noexcept
{
    return apiGuard(mLogger, mRecorder.get(), int64_t{-1}, [&]() -> int64_t {
        int32_t const pos = lookup("getMaxOutputSize", tensorName);
        if (pos < 0)
        {
            return -1;
        }
        if (pos < mData->nbInputs)
        {
            report(invalidArgument("IExecutionContext::getMaxOutputSize: " + singleQuoted(tensorName) + " is an input"));
            return -1;
        }
        Status const st = prepareShapes();
        if (!st.isOk() || !mShapes.missing().empty())
        {
            return -1;
        }
        return mShapes.current().bytes[static_cast<size_t>(mData->plan.ioTensors[static_cast<size_t>(pos)])];
    });
}

// ---------------------------------------------------------------------------------------------------------
// Profiles and memory
// ---------------------------------------------------------------------------------------------------------

int32_t ExecutionContext::getOptimizationProfile() const noexcept
{
    return mShapes.profile();
}

bool ExecutionContext::setOptimizationProfileAsync(int32_t profileIndex, cudaStream_t /*stream*/) noexcept
{
    return apiGuard(mLogger, mRecorder.get(), false, [&]() -> Status {
        int32_t const nbProfiles = static_cast<int32_t>(mData->plan.profiles.size());
        if (profileIndex < 0 || profileIndex >= nbProfiles)
        {
            return invalidArgument("IExecutionContext::setOptimizationProfileAsync: profile index "
                + std::to_string(profileIndex) + " is out of range (the engine has " + std::to_string(nbProfiles)
                + " optimization profiles)");
        }
        if (profileIndex == mShapes.profile())
        {
            return Status::ok();
        }
        KILN_RETURN_IF_ERROR(mMemory.selectProfile(profileIndex).withContext("IExecutionContext::setOptimizationProfileAsync"));
        // As in TensorRT, a new profile invalidates the input shapes set so far.
        mShapes.selectProfile(profileIndex);
        mScheduler.clearTimes();
        return Status::ok();
    });
}

void ExecutionContext::setDeviceMemory(void* memory) noexcept
{
    apiGuard(mLogger, mRecorder.get(), false, [&]() -> Status {
        return mMemory.useDeviceMemory("setDeviceMemory", memory, -1, false);
    });
}

void ExecutionContext::setDeviceMemoryV2(void* memory, int64_t size) noexcept
{
    apiGuard(mLogger, mRecorder.get(), false, [&]() -> Status {
        return mMemory.useDeviceMemory("setDeviceMemoryV2", memory, size, true);
    });
}

} // namespace kiln
