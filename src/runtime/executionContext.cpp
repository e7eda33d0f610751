// ExecutionContext: creation (kernels, arena), input shapes and shape inference, profiles and activation memory.
// Addresses, allocators and settings are in executionContextSettings.cpp; the run in executionContextRun.cpp.
#include "runtime/executionContext.h"
#include "core/quoting.h"

#include "core/apiGuard.h"
#include "backends/common/pluginKernel.h"
#include "core/dataType.h"
#include "network/inferContext.h"
#include "runtime/engine.h"

#include <cstring>

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
    , mStrategy(strategy)
    , mConfig(std::make_unique<RuntimeConfig>(engine.sharedLogger()))
    , mMemory(engine.allocator())
    , mBackend(engine.backend())
    , mDeviceWeights(engine.deviceWeights())
    , mAutoGraph(engine.backend(), *engine.sharedLogger())
    , mNvtxVerbosity(engine.plan().profilingVerbosity)
{
    mConfig->setExecutionContextAllocationStrategy(strategy);
    size_t const nbIo = mData->plan.ioTensors.size();
    mShapes.resize(static_cast<size_t>(mData->nbInputs));
    mAddresses.assign(nbIo, nullptr);
    mAllocators.assign(nbIo, nullptr);
    mAllocatedBytes.assign(nbIo, 0);
    mRunAddresses.assign(nbIo, nullptr);
    mConstAddresses.assign(nbIo, nullptr);
    mTensorData.assign(mData->plan.tensors.size(), nullptr);
    mDataBuffers.resize(mData->plan.tensors.size());
    mLastRunDims.resize(mData->plan.tensors.size());
}

StatusOr<std::unique_ptr<ExecutionContext>> ExecutionContext::create(
    Engine const& engine, ExecutionContextAllocationStrategy strategy)
{
    if (!isValidAllocationStrategy(strategy))
    {
        return invalidArgument("unknown ExecutionContextAllocationStrategy " + std::to_string(static_cast<int32_t>(strategy)));
    }
    EngineData const& d = engine.data();
    std::unique_ptr<ExecutionContext> ctx(new ExecutionContext(engine, strategy));
    KILN_RETURN_IF_ERROR(ctx->attachPlugins());
    KILN_RETURN_IF_ERROR(ctx->createKernels());
    if (strategy == ExecutionContextAllocationStrategy::kSTATIC)
    {
        KILN_RETURN_IF_ERROR(ctx->mMemory.allocate(d.maxArenaSize, false));
    }
    else if (strategy == ExecutionContextAllocationStrategy::kON_PROFILE_CHANGE)
    {
        KILN_RETURN_IF_ERROR(ctx->mMemory.allocate(d.plan.profiles[0].arenaSize, true));
    }
    return ctx;
}

Status ExecutionContext::attachPlugins()
{
    Plan const& plan = mData->plan;
    mEnginePlugins = mEngine.plugins();
    mPlugins.resize(plan.nodes.size());
    mPluginBindings.resize(plan.nodes.size());
    if (mEnginePlugins == nullptr || mEnginePlugins->empty())
    {
        return Status::ok();
    }
    nvinfer1::IGpuAllocator* allocator = mEnginePlugins->allocator();
    if (allocator == nullptr && mBackend.usesDeviceMemory())
    {
        allocator = &mBackend.defaultAllocator();
    }
    mPluginResources = std::make_unique<PluginResourceContext>(allocator, mRecorder);
    for (size_t n = 0; n < plan.nodes.size(); ++n)
    {
        EnginePlugin* shared = mEnginePlugins->node(n);
        if (shared == nullptr)
        {
            continue;
        }
        StatusOr<std::unique_ptr<PluginAdapter>> attached = internalError("not attached");
        {
            // attachToContext clones the engine's object: contexts created on several threads take turns.
            std::lock_guard<std::mutex> lock(shared->mutex);
            attached = shared->adapter->attachToContext(*mPluginResources);
        }
        if (!attached.isOk())
        {
            return attached.status().withContext("cannot create an execution context");
        }
        if (attached.value() == nullptr)
        {
            return internalError("cannot create an execution context: " + shared->adapter->label()
                + ": attachToContext gave no plugin object");
        }
        auto binding = std::make_unique<PluginBinding>();
        binding->adapter = attached.value().get();
        if (attached.value()->object() == shared->adapter->object())
        {
            // A plain IPluginV2 is shared by the engine's contexts.
            binding->sharedMutex = &shared->mutex;
            binding->sharedConfiguredBy = &shared->configuredBy;
        }
        PlanNode const& node = plan.nodes[n];
        binding->nbShapeInputs = shared->nbShapeInputs;
        size_t const nbRegular = node.inputs.size() - static_cast<size_t>(shared->nbShapeInputs);
        for (size_t k = 0; k < nbRegular; ++k)
        {
            int32_t const t = node.inputs[k];
            PlanTensor const* tensor = t >= 0 ? &plan.tensors[static_cast<size_t>(t)] : nullptr;
            binding->inputFormats.push_back(tensor != nullptr ? tensor->format : nvinfer1::TensorFormat::kLINEAR);
            binding->inputScales.push_back(tensor != nullptr ? tensor->scale : -1.0F);
        }
        for (int32_t t : node.outputs)
        {
            binding->outputFormats.push_back(plan.tensors[static_cast<size_t>(t)].format);
            binding->outputScales.push_back(plan.tensors[static_cast<size_t>(t)].scale);
        }
        mPlugins[n] = std::move(attached).value();
        mPluginBindings[n] = std::move(binding);
    }
    return Status::ok();
}

Status ExecutionContext::createKernels()
{
    Plan const& plan = mData->plan;
    KILN_ASSIGN_OR_RETURN(mSession, mBackend.createSession());
    mKernels.reserve(plan.nodes.size());
    mKernelGeneration.assign(plan.nodes.size(), kNO_GENERATION);
    mNodeViewStamp.assign(plan.nodes.size(), ~uint64_t{0});
    if (mData->hasDataDependentShapes)
    {
        mGraphBlocker = "the engine has data-dependent shapes (size tensors are read on the host during the run)";
    }
    else if (!mData->controlFlow.empty())
    {
        mGraphBlocker = "the engine has conditionals or loops (their conditions are read on the host)";
    }
    mNodeInputs.resize(plan.nodes.size());
    mNodeOutputs.resize(plan.nodes.size());
    for (size_t n = 0; n < plan.nodes.size(); ++n)
    {
        PlanNode const& node = plan.nodes[n];
        std::string const label = "node " + singleQuoted(node.name) + " (" + layerKindName(node.kind) + ")";
        KernelSetup setup = makeKernelSetup(plan, node);
        setup.plugin = mPluginBindings[n].get();
        if (mDeviceWeights != nullptr)
        {
            for (size_t w = 0; w < node.weights.size(); ++w)
            {
                setup.weights[w].device = mDeviceWeights->at(node.weights[w]);
            }
        }
        // Plugin nodes run the context's plugin object with the backend's pointers (backends/common/pluginKernel.h).
        StatusOr<std::unique_ptr<Kernel>> kernel
            = isPluginKind(node.kind) ? createPluginKernel(setup) : mSession->createKernel(setup);
        if (!kernel.isOk())
        {
            return Status(kernel.status().code(), "cannot create an execution context: the " + std::string(mBackend.name())
                + " kernel for " + label + (node.tactic.empty() ? std::string() : ", tactic " + singleQuoted(node.tactic))
                + " failed: " + kernel.status().message());
        }
        if (kernel.value() == nullptr)
        {
            return internalError("cannot create an execution context: the kernel factory for " + label
                + " returned no kernel");
        }
        mKernels.push_back(std::move(kernel).value());
        if (mPluginBindings[n] != nullptr)
        {
            mPluginNodes.push_back(n);
        }
        if (node.kind == nvinfer1::LayerType::kASSERTION && mGraphBlocker.empty())
        {
            mGraphBlocker = "assertion layer " + singleQuoted(node.name) + " reads its condition on the host";
        }
        mNodeInputs[n].resize(node.inputs.size());
        mNodeOutputs[n].resize(node.outputs.size());
    }
    return Status::ok();
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

Status ExecutionContext::prepareShapes(std::vector<void const*> const& addresses) const
{
    mMissing.clear();
    KILN_RETURN_IF_ERROR(bindSymbols(*mData, mProfile, mShapes, addresses, mSymbols, mMissing, mBindScratch));
    if (!mMissing.empty())
    {
        return Status::ok();
    }
    if (mShapesNow.valid && mShapesNow.profile == mProfile && mShapesNow.symbols == mSymbols)
    {
        return Status::ok();
    }
    ++mShapeGeneration; // kernels reshape before their next run
    if (!mData->hasDataDependentShapes)
    {
        return evaluateShapes(*mData, mProfile, mSymbols, mShapes, mShapesNow);
    }
    // Data-dependent symbols stand at their upper bounds until a run reads their size tensors.
    mBoundSymbols = mSymbols;
    KILN_RETURN_IF_ERROR(bindUpperBounds(*mData, mBoundSymbols, mScratchValues));
    KILN_RETURN_IF_ERROR(evaluateShapes(*mData, mProfile, mBoundSymbols, mShapes, mShapesNow, &mData->boundsGraph));
    mShapesNow.symbols = mSymbols; // the cache key is the input binding
    return Status::ok();
}

Status ExecutionContext::prepareShapes() const
{
    for (size_t i = 0; i < mAddresses.size(); ++i)
    {
        mConstAddresses[i] = mAddresses[i];
    }
    return prepareShapes(mConstAddresses);
}

Status ExecutionContext::missingInputsError(char const* api) const
{
    std::string names;
    for (int32_t pos : mMissing)
    {
        PlanTensor const& t = mData->ioTensor(pos);
        bool const needsShape = pos < static_cast<int32_t>(mShapes.size()) && !mShapes[static_cast<size_t>(pos)].set;
        names += (names.empty() ? "" : ", ") + singleQuoted(t.name)
            + (needsShape && !t.hostShapeTensor ? " (call setInputShape)" : " (set its host address with setTensorAddress)");
    }
    return invalidState(std::string("IExecutionContext::") + api + ": input shapes are not fully specified: " + names);
}

EvaluatedShapes const* ExecutionContext::currentShapes() const
{
    Status const st = prepareShapes();
    return st.isOk() && mMissing.empty() && mShapesNow.valid ? &mShapesNow : nullptr;
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
        Status const st = checkInputShape(*mData, mProfile, pos, dims);
        if (!st.isOk())
        {
            return st.withContext("IExecutionContext::setInputShape");
        }
        InputShape& shape = mShapes[static_cast<size_t>(pos)];
        Dims clean{};
        clean.nbDims = dims.nbDims;
        std::memcpy(clean.d, dims.d, sizeof(int64_t) * static_cast<size_t>(dims.nbDims));
        if (!shape.set || std::memcmp(shape.dims.d, clean.d, sizeof(clean.d)) != 0)
        {
            mShapesNow.valid = false;
        }
        shape.set = true;
        shape.dims = clean;
        return Status::ok();
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
        if (pos < mData->nbInputs && mShapes[static_cast<size_t>(pos)].set)
        {
            return mShapes[static_cast<size_t>(pos)].dims;
        }
        Status const st = prepareShapes();
        if (!st.isOk())
        {
            report(st.withContext("IExecutionContext::getTensorShape(" + singleQuoted(tensorName) + ")"));
            return invalidDims();
        }
        if (!mMissing.empty())
        {
            return engineDims(*mData, tensor);
        }
        return reportedShape(tensor);
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
        if (mShapes[static_cast<size_t>(pos)].set)
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
        if (mData->ioTensor(pos).hostShapeTensor && mAddresses[static_cast<size_t>(pos)] == nullptr)
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
        if (!mMissing.empty())
        {
            for (size_t i = 0; i < mMissing.size() && static_cast<int32_t>(i) < nbMaxNames; ++i)
            {
                tensorNames[i] = mData->ioTensor(mMissing[i]).name.c_str();
            }
            return static_cast<int32_t>(mMissing.size());
        }
        writeShapeOutputs(mAddresses);
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

void ExecutionContext::writeShapeOutputs(std::vector<void*> const& addresses) const
{
    for (int32_t pos = mData->nbInputs; pos < mData->nbIo(); ++pos)
    {
        PlanTensor const& t = mData->ioTensor(pos);
        void* address = addresses[static_cast<size_t>(pos)];
        if (!t.hasValues || !t.hostShapeTensor || address == nullptr)
        {
            continue;
        }
        auto const& values = mShapesNow.values[static_cast<size_t>(mData->plan.ioTensors[static_cast<size_t>(pos)])];
        for (size_t i = 0; i < values.size(); ++i)
        {
            if (isIntegerType(t.type) || t.type == DataType::kBOOL)
            {
                storeInt(address, t.type, static_cast<int64_t>(i), values[i]);
            }
            else
            {
                storeElement(address, t.type, static_cast<int64_t>(i), floatValue(values[i])); // bits of a double
            }
        }
    }
}

int64_t ExecutionContext::requiredArenaBytes() const
{
    int64_t required = 0;
    PlanProfile const& profile = mData->plan.profiles[static_cast<size_t>(mProfile)];
    for (size_t n = 0; n < profile.workspaceOffsets.size(); ++n)
    {
        if (profile.workspaceOffsets[n] >= 0 && profile.workspaceSizes[n] > 0)
        {
            required = std::max(required, profile.workspaceOffsets[n] + profile.workspaceSizes[n]);
        }
    }
    for (size_t t = 0; t < mData->plan.tensors.size(); ++t)
    {
        int64_t const offset = mData->arenaOffset(mProfile, static_cast<int32_t>(t));
        if (offset >= 0 && mData->ioPosition[t] < 0 && mData->plan.tensors[t].constant < 0
            && !mData->tensorDependsOnData[t])
        {
            required = std::max(required, offset + mShapesNow.bytes[t]);
        }
    }
    return required;
}

size_t ExecutionContext::updateDeviceMemorySizeForShapes() noexcept
{
    return apiGuard(mLogger, mRecorder.get(), size_t{0}, [&]() -> StatusOr<size_t> {
        Status const st = prepareShapes();
        if (!st.isOk())
        {
            return st.withContext("IExecutionContext::updateDeviceMemorySizeForShapes");
        }
        if (!mMissing.empty())
        {
            return missingInputsError("updateDeviceMemorySizeForShapes");
        }
        return static_cast<size_t>(requiredArenaBytes());
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
        if (!st.isOk() || !mMissing.empty())
        {
            return -1;
        }
        return mShapesNow.bytes[static_cast<size_t>(mData->plan.ioTensors[static_cast<size_t>(pos)])];
    });
}

// ---------------------------------------------------------------------------------------------------------
// Profiles and memory
// ---------------------------------------------------------------------------------------------------------

int32_t ExecutionContext::getOptimizationProfile() const noexcept
{
    return mProfile;
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
        if (profileIndex == mProfile)
        {
            return Status::ok();
        }
        if (mStrategy == ExecutionContextAllocationStrategy::kON_PROFILE_CHANGE)
        {
            KILN_RETURN_IF_ERROR(mMemory.allocate(mData->plan.profiles[static_cast<size_t>(profileIndex)].arenaSize, true)
                                     .withContext("IExecutionContext::setOptimizationProfileAsync"));
        }
        // As in TensorRT, a new profile invalidates the input shapes set so far.
        mProfile = profileIndex;
        for (InputShape& s : mShapes)
        {
            s = InputShape{};
        }
        mShapesNow.valid = false;
        mTimes.clear();
        return Status::ok();
    });
}

void ExecutionContext::setDeviceMemory(void* memory) noexcept
{
    apiGuard(mLogger, mRecorder.get(), false, [&]() -> Status {
        if (mStrategy != ExecutionContextAllocationStrategy::kUSER_MANAGED)
        {
            return invalidState("IExecutionContext::setDeviceMemory: the context was not created with "
                                "ExecutionContextAllocationStrategy::kUSER_MANAGED, so it manages its own memory");
        }
        if (reinterpret_cast<uintptr_t>(memory) % ActivationMemory::kALIGNMENT != 0)
        {
            return invalidArgument("IExecutionContext::setDeviceMemory: the memory must be 256-byte aligned");
        }
        mMemory.useExternal(memory, -1);
        return Status::ok();
    });
}

void ExecutionContext::setDeviceMemoryV2(void* memory, int64_t size) noexcept
{
    apiGuard(mLogger, mRecorder.get(), false, [&]() -> Status {
        if (mStrategy != ExecutionContextAllocationStrategy::kUSER_MANAGED)
        {
            return invalidState("IExecutionContext::setDeviceMemoryV2: the context was not created with "
                                "ExecutionContextAllocationStrategy::kUSER_MANAGED, so it manages its own memory");
        }
        if (size < 0 || (memory == nullptr && size > 0))
        {
            return invalidArgument("IExecutionContext::setDeviceMemoryV2: invalid memory " + std::string(memory ? "" : "nullptr ")
                + "of size " + std::to_string(size));
        }
        if (reinterpret_cast<uintptr_t>(memory) % ActivationMemory::kALIGNMENT != 0)
        {
            return invalidArgument("IExecutionContext::setDeviceMemoryV2: the memory must be 256-byte aligned");
        }
        mMemory.useExternal(memory, size);
        return Status::ok();
    });
}

} // namespace kiln
