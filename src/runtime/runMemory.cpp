// RunMemory (see runMemory.h): the activation arena and workspaces, scratch, data-dependent and folded-value buffers,
// output allocators, and the host<->device traffic of a run besides the kernels.
#include "runtime/runMemory.h"

#include "core/dataType.h"
#include "core/quoting.h"
#include "runtime/tensorBindings.h"

#include <algorithm>
#include <cstring>

namespace kiln
{

using nvinfer1::DataType;
using nvinfer1::ExecutionContextAllocationStrategy;

namespace
{

void storeValues(void* data, DataType type, std::vector<int64_t> const& values)
{
    for (size_t i = 0; i < values.size(); ++i)
    {
        if (isIntegerType(type) || type == DataType::kBOOL)
        {
            storeInt(data, type, static_cast<int64_t>(i), values[i]);
        }
        else
        {
            // Values of FLOAT tensors are doubles held as bit patterns (core/shapeExpr.h).
            storeElement(data, type, static_cast<int64_t>(i), floatValue(values[i]));
        }
    }
}

} // namespace

RunMemory::RunMemory(EngineData const& data, Backend const& backend, nvinfer1::IGpuAllocator* allocator,
    ExecutionContextAllocationStrategy strategy, Logger const& logger, std::string const& contextName)
    : mData(data)
    , mBackend(backend)
    , mAllocator(allocator)
    , mStrategy(strategy)
    , mLogger(logger)
    , mContextName(contextName)
    , mArena(allocator)
    , mDataBuffers(data.plan.tensors.size())
    , mAllocators(data.plan.ioTensors.size(), nullptr)
    , mAllocatedBytes(data.plan.ioTensors.size(), 0)
{
}

// ---------------------------------------------------------------------------------------------------------
// Activation arena
// ---------------------------------------------------------------------------------------------------------

Status RunMemory::allocateArena()
{
    if (mStrategy == ExecutionContextAllocationStrategy::kSTATIC)
    {
        return mArena.allocate(mData.maxArenaSize, false);
    }
    if (mStrategy == ExecutionContextAllocationStrategy::kON_PROFILE_CHANGE)
    {
        return mArena.allocate(mData.plan.profiles[0].arenaSize, true);
    }
    return Status::ok();
}

Status RunMemory::selectProfile(int32_t profile)
{
    if (mStrategy != ExecutionContextAllocationStrategy::kON_PROFILE_CHANGE)
    {
        return Status::ok();
    }
    return mArena.allocate(mData.plan.profiles[static_cast<size_t>(profile)].arenaSize, true);
}

Status RunMemory::useDeviceMemory(char const* api, void* memory, int64_t size, bool sizeGiven)
{
    std::string const prefix = std::string("IExecutionContext::") + api + ": ";
    if (mStrategy != ExecutionContextAllocationStrategy::kUSER_MANAGED)
    {
        return invalidState(prefix + "the context was not created with "
            "ExecutionContextAllocationStrategy::kUSER_MANAGED, so it manages its own memory");
    }
    if (sizeGiven && (size < 0 || (memory == nullptr && size > 0)))
    {
        return invalidArgument(prefix + "invalid memory " + std::string(memory ? "" : "nullptr ") + "of size "
            + std::to_string(size));
    }
    if (reinterpret_cast<uintptr_t>(memory) % ActivationMemory::kALIGNMENT != 0)
    {
        return invalidArgument(prefix + "the memory must be 256-byte aligned");
    }
    mArena.useExternal(memory, sizeGiven ? size : -1);
    return Status::ok();
}

int64_t RunMemory::requiredArenaBytes(int32_t profile, EvaluatedShapes const& shapes) const
{
    int64_t required = 0;
    PlanProfile const& p = mData.plan.profiles[static_cast<size_t>(profile)];
    for (size_t n = 0; n < p.workspaceOffsets.size(); ++n)
    {
        if (p.workspaceOffsets[n] >= 0 && p.workspaceSizes[n] > 0)
        {
            required = std::max(required, p.workspaceOffsets[n] + p.workspaceSizes[n]);
        }
    }
    for (size_t t = 0; t < mData.plan.tensors.size(); ++t)
    {
        int64_t const offset = mData.arenaOffset(profile, static_cast<int32_t>(t));
        if (offset >= 0 && mData.ioPosition[t] < 0 && mData.plan.tensors[t].constant < 0 && !mData.tensorDependsOnData[t])
        {
            required = std::max(required, offset + shapes.bytes[t]);
        }
    }
    return required;
}

Status RunMemory::checkArena(char const* api, int32_t profile, EvaluatedShapes const& shapes) const
{
    auto const prefix = [api] { return std::string("IExecutionContext::") + api + ": "; };
    int64_t const required = requiredArenaBytes(profile, shapes);
    if (required > 0 && !mArena.present())
    {
        return invalidState(prefix() + "the context was created with ExecutionContextAllocationStrategy::kUSER_MANAGED "
            "and has no activation memory: call setDeviceMemoryV2 with at least " + std::to_string(required)
            + " bytes (256-byte aligned)");
    }
    if (required > 0 && mArena.size() >= 0 && mArena.size() < required)
    {
        return invalidState(prefix() + "the activation memory given with setDeviceMemoryV2 has " + std::to_string(mArena.size())
            + " bytes, but the current input shapes need " + std::to_string(required) + " bytes (optimization profile "
            + std::to_string(profile) + " needs up to "
            + std::to_string(mData.plan.profiles[static_cast<size_t>(profile)].arenaSize) + ")");
    }
    return Status::ok();
}

uint8_t* RunMemory::workspace(int32_t profile, size_t node) const
{
    PlanProfile const& p = mData.plan.profiles[static_cast<size_t>(profile)];
    bool const has = node < p.workspaceSizes.size() && p.workspaceSizes[node] > 0 && p.workspaceOffsets[node] >= 0;
    return has && mArena.base() != nullptr ? mArena.base() + p.workspaceOffsets[node] : nullptr;
}

// ---------------------------------------------------------------------------------------------------------
// Tensors outside the arena
// ---------------------------------------------------------------------------------------------------------

StatusOr<void*> RunMemory::dataBuffer(size_t tensor, int64_t bytes, cudaStream_t stream)
{
    DeviceBuffer& buffer = mDataBuffers[tensor];
    if (bytes <= 0 || buffer.size() >= bytes)
    {
        return static_cast<void*>(buffer.data());
    }
    if (mBackend.isCapturing(stream))
    {
        return invalidState("tensor " + singleQuoted(mData.plan.tensors[tensor].name) + " has a data-dependent shape "
            "and its buffer must grow, which cannot happen while the stream is captured into a CUDA graph");
    }
    KILN_RETURN_IF_ERROR(mBackend.synchronize(stream)); // earlier runs may still use the old buffer
    KILN_RETURN_IF_ERROR(buffer.allocate(mAllocator, bytes, "a tensor with a data-dependent shape")
                             .withContext("tensor " + singleQuoted(mData.plan.tensors[tensor].name)));
    mLogger.verbose("IExecutionContext " + singleQuoted(mContextName) + ": tensor "
        + singleQuoted(mData.plan.tensors[tensor].name) + " has a data-dependent shape; its buffer grew to "
        + std::to_string(buffer.size()) + " bytes (the size at the upper bounds)");
    return static_cast<void*>(buffer.data());
}

Status RunMemory::writeValues(size_t t, void* data, std::vector<int64_t> const& values, cudaStream_t stream)
{
    PlanTensor const& tensor = mData.plan.tensors[t];
    if (!mBackend.usesDeviceMemory())
    {
        storeValues(data, tensor.type, values);
        return Status::ok();
    }
    if (!mValueOffsets.empty() && mValueOffsets[t] >= 0)
    {
        mValueProfile = -1; // the value buffer now holds this run's values: rewrite it next run
    }
    std::vector<uint8_t> staging(values.size() * static_cast<size_t>(elementSize(tensor.type)));
    storeValues(staging.data(), tensor.type, values);
    // A copy from pageable memory has consumed its source when cudaMemcpyAsync returns.
    return mBackend.copy(data, staging.data(), static_cast<int64_t>(staging.size()), CopyKind::kHOST_TO_DEVICE, stream);
}

Status RunMemory::prepareValueTensors(int32_t profile, EvaluatedShapes const& shapes,
    std::vector<int64_t> const& runSymbols, TensorBindings& bindings, cudaStream_t stream)
{
    if (!mBackend.usesDeviceMemory())
    {
        return Status::ok();
    }
    Plan const& plan = mData.plan;
    if (mValueOffsets.empty())
    {
        mValueOffsets.assign(plan.tensors.size(), -1);
    }
    // Internal folded value tensors: read-only for the nodes, so they can live outside the arena, written only when
    // their values change (which keeps runs capturable into CUDA graphs).
    bool const same = mValueProfile == profile && mValueKey == runSymbols;
    if (same && mValueStamp == bindings.stamp())
    {
        return Status::ok(); // neither the values nor the binding changed: the addresses set last time stand
    }
    int64_t total = 0;
    for (size_t t = 0; t < plan.tensors.size(); ++t)
    {
        PlanTensor const& tensor = plan.tensors[t];
        if (!tensor.hasValues || mData.producer[t] >= 0 || tensor.constant >= 0 || mData.ioPosition[t] >= 0
            || shapes.bytes[t] <= 0)
        {
            mValueOffsets[t] = -1;
            continue;
        }
        mValueOffsets[t] = total;
        total += (shapes.bytes[t] + ActivationMemory::kALIGNMENT - 1) / ActivationMemory::kALIGNMENT
            * ActivationMemory::kALIGNMENT;
    }
    if (total == 0)
    {
        return Status::ok();
    }
    if (!same || mValueBuffer.size() < total)
    {
        if (mBackend.isCapturing(stream))
        {
            return invalidState("the values of folded shape tensors changed since the last run and must be copied to "
                                "the device, which cannot be captured into a CUDA graph: run enqueueV3 once with these "
                                "input shapes before capturing");
        }
        if (mValueBuffer.size() < total)
        {
            if (mValueBuffer.data() != nullptr)
            {
                KILN_RETURN_IF_ERROR(mBackend.synchronize(stream)); // earlier runs may still read the old buffer
            }
            KILN_RETURN_IF_ERROR(mValueBuffer.allocate(mAllocator, total, "folded shape values"));
        }
        mValueStaging.assign(static_cast<size_t>(total), 0);
        for (size_t t = 0; t < plan.tensors.size(); ++t)
        {
            if (mValueOffsets[t] >= 0)
            {
                storeValues(mValueStaging.data() + mValueOffsets[t], plan.tensors[t].type, shapes.values[t]);
            }
        }
        KILN_RETURN_IF_ERROR(mBackend.copy(mValueBuffer.data(), mValueStaging.data(), total, CopyKind::kHOST_TO_DEVICE, stream));
        mValueKey = runSymbols;
        mValueProfile = profile;
    }
    for (size_t t = 0; t < plan.tensors.size(); ++t)
    {
        if (mValueOffsets[t] >= 0)
        {
            bindings.place(t, mValueBuffer.data() + mValueOffsets[t]);
        }
    }
    mValueStamp = bindings.stamp();
    return Status::ok();
}

Status RunMemory::materializeValues(
    TensorBindings const& bindings, EvaluatedShapes const& shapes, DeviceWeights const* weights, cudaStream_t stream)
{
    Plan const& plan = mData.plan;
    for (size_t t : bindings.materialized())
    {
        PlanTensor const& tensor = plan.tensors[t];
        void* data = bindings.data(t);
        if (tensor.constant >= 0)
        {
            void const* source = weights != nullptr ? weights->at(tensor.constant)
                                                    : plan.weights[static_cast<size_t>(tensor.constant)].data;
            CopyKind const kind = mBackend.usesDeviceMemory() ? CopyKind::kDEVICE_TO_DEVICE : CopyKind::kHOST_TO_DEVICE;
            KILN_RETURN_IF_ERROR(mBackend.copy(data, source, shapes.bytes[t], kind, stream));
            continue;
        }
        // On the GPU, folded values of internal tensors live in the value buffer (prepareValueTensors).
        if (!mBackend.usesDeviceMemory() || mValueOffsets.empty() || mValueOffsets[t] < 0)
        {
            KILN_RETURN_IF_ERROR(writeValues(t, data, shapes.values[t], stream));
        }
    }
    return Status::ok();
}

Status RunMemory::readToHost(void* host, void const* src, int64_t bytes, cudaStream_t stream) const
{
    if (!mBackend.usesDeviceMemory())
    {
        std::memcpy(host, src, static_cast<size_t>(bytes));
        return Status::ok();
    }
    if (mBackend.isCapturing(stream))
    {
        return invalidState("the engine must read a value computed on the device (a size tensor, a condition) in the "
                            "middle of the run, which cannot be captured into a CUDA graph");
    }
    KILN_RETURN_IF_ERROR(mBackend.copy(host, src, bytes, CopyKind::kDEVICE_TO_HOST, stream));
    return mBackend.synchronize(stream);
}

// ---------------------------------------------------------------------------------------------------------
// Scratch memory
// ---------------------------------------------------------------------------------------------------------

Status RunMemory::reserveScratch(int64_t need, int32_t profile, std::vector<int64_t> const& symbols, cudaStream_t stream)
{
    if (need > mScratch.size())
    {
        if (mBackend.isCapturing(stream))
        {
            return invalidState("the kernels need more scratch memory for these shapes, which cannot be allocated "
                                "while the stream is captured into a CUDA graph: run enqueueV3 once before capturing");
        }
        if (mScratch.data() != nullptr)
        {
            KILN_RETURN_IF_ERROR(mBackend.synchronize(stream)); // earlier runs may still use the old scratch memory
        }
        KILN_RETURN_IF_ERROR(mScratch.allocate(mAllocator, need, "kernel scratch memory"));
    }
    mScratchNeeded = need;
    mScratchKey = symbols;
    mScratchProfile = profile;
    return Status::ok();
}

// ---------------------------------------------------------------------------------------------------------
// Output allocators
// ---------------------------------------------------------------------------------------------------------

void RunMemory::setOutputAllocator(int32_t position, nvinfer1::IOutputAllocator* allocator)
{
    mAllocators[static_cast<size_t>(position)] = allocator;
    mAllocatedBytes[static_cast<size_t>(position)] = 0;
}

void RunMemory::trustApplicationBuffer(int32_t position, std::string const& name, void* address, int64_t bytes)
{
    // As in TensorRT: without an allocator the kernels write the output where the application bound it, and the
    // application answers for the buffer's size (logged once per address, not on every run).
    mTrustedBuffers.resize(static_cast<size_t>(mData.nbIo()), nullptr);
    if (mTrustedBuffers[static_cast<size_t>(position)] == address)
    {
        return;
    }
    mTrustedBuffers[static_cast<size_t>(position)] = address;
    mLogger.verbose("IExecutionContext " + singleQuoted(mContextName) + ": output " + singleQuoted(name)
        + " has a data-dependent shape and no IOutputAllocator: it is written to the address set with setTensorAddress, "
          "and the application's buffer size is trusted (the largest result at the current input shapes takes "
        + std::to_string(bytes) + " bytes, see getMaxOutputSize)");
}

Status RunMemory::assignOutputsFromAllocators(EvaluatedShapes const& shapes, TensorBindings& bindings, cudaStream_t stream)
{
    for (int32_t pos = mData.nbInputs; pos < mData.nbIo(); ++pos)
    {
        nvinfer1::IOutputAllocator* allocator = mAllocators[static_cast<size_t>(pos)];
        if (allocator == nullptr)
        {
            continue;
        }
        PlanTensor const& t = mData.ioTensor(pos);
        auto const tensor = static_cast<size_t>(mData.plan.ioTensors[static_cast<size_t>(pos)]);
        if (mData.tensorDependsOnData[tensor])
        {
            continue; // allocated after the run, once its size is known
        }
        auto const bytes = static_cast<uint64_t>(shapes.bytes[tensor]);
        void* current = bindings.io(pos);
        if (current != nullptr && bytes <= mAllocatedBytes[static_cast<size_t>(pos)])
        {
            continue;
        }
        // TensorRT asks for at least one byte, so that an empty output still gets a distinct address.
        uint64_t const request = bytes == 0 ? 1 : bytes;
        void* memory = allocator->reallocateOutputAsync(
            t.name.c_str(), current, request, static_cast<uint64_t>(ActivationMemory::kALIGNMENT), stream);
        if (memory == nullptr)
        {
            return failedAllocation("IExecutionContext::enqueueV3: the output allocator of " + singleQuoted(t.name)
                + " returned no memory for " + std::to_string(request) + " bytes");
        }
        int64_t const align = elementSize(t.type);
        if (align > 1 && reinterpret_cast<uintptr_t>(memory) % static_cast<uintptr_t>(align) != 0)
        {
            return invalidArgument("IExecutionContext::enqueueV3: the output allocator of " + singleQuoted(t.name)
                + " returned memory that is not aligned to its element size");
        }
        bindings.setIo(pos, memory);
        mAllocatedBytes[static_cast<size_t>(pos)] = request;
    }
    return Status::ok();
}

} // namespace kiln
