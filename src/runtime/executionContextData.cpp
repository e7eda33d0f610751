// ExecutionContext: data-dependent shapes (plugin size tensors, IExprBuilder::declareSizeTensor). Before a run the
// shapes are evaluated with every data-dependent symbol at its upper bound, which sizes the context-owned buffers
// of the tensors depending on them. After the node writing a size tensor ran, the value is checked against the
// bound, binds the symbol, and the shapes are evaluated again for the remaining nodes. After the run, network
// outputs with data-dependent shapes go to their IOutputAllocator: reallocateOutputAsync with the real size, a
// copy, then notifyShape with the real dimensions. An output without an allocator is written in place to the
// address the application bound (TensorRT's behaviour: the application sized the buffer, see getMaxOutputSize), and
// getTensorShape reports its real shape after the run.
#include "core/dataType.h"
#include "core/quoting.h"
#include "runtime/engine.h"
#include "runtime/executionContext.h"

#include <cstdlib>
#include <cstring>

namespace kiln
{

Status ExecutionContext::checkDataDependentOutputs(char const* api, bool hasBindings) const
{
    if (!mData->hasDataDependentShapes)
    {
        return Status::ok();
    }
    for (int32_t pos = mData->nbInputs; pos < mData->nbIo(); ++pos)
    {
        int32_t const t = mData->plan.ioTensors[static_cast<size_t>(pos)];
        if (!mData->tensorDependsOnData[static_cast<size_t>(t)])
        {
            continue;
        }
        std::string const name = singleQuoted(mData->ioTensor(pos).name);
        if (hasBindings)
        {
            return invalidState(std::string("IExecutionContext::") + api + ": output " + name
                + " has a data-dependent shape, so its size is only known after the run; use enqueueV3 with an "
                  "IOutputAllocator (setOutputAllocator) instead of executeV2");
        }
        if (mAllocators[static_cast<size_t>(pos)] == nullptr && mAddresses[static_cast<size_t>(pos)] == nullptr)
        {
            return invalidState(std::string("IExecutionContext::") + api + ": output " + name
                + " has a data-dependent shape and neither an IOutputAllocator nor an address: set one with "
                  "setOutputAllocator, or bind a buffer with setTensorAddress that holds the largest result (up to "
                + std::to_string(mShapesNow.bytes[static_cast<size_t>(t)]) + " bytes, see getMaxOutputSize)");
        }
    }
    return Status::ok();
}

StatusOr<void*> ExecutionContext::dataBuffer(size_t tensor, int64_t bytes)
{
    DeviceBuffer& buffer = mDataBuffers[tensor];
    if (bytes <= 0 || buffer.size() >= bytes)
    {
        return static_cast<void*>(buffer.data());
    }
    if (mBackend.isCapturing(mRunStream))
    {
        return invalidState("tensor " + singleQuoted(mData->plan.tensors[tensor].name) + " has a data-dependent shape "
            "and its buffer must grow, which cannot happen while the stream is captured into a CUDA graph");
    }
    KILN_RETURN_IF_ERROR(mBackend.synchronize(mRunStream)); // earlier runs may still use the old buffer
    KILN_RETURN_IF_ERROR(buffer.allocate(mEngine.allocator(), bytes, "a tensor with a data-dependent shape")
                             .withContext("tensor " + singleQuoted(mData->plan.tensors[tensor].name)));
    mLogger.verbose("IExecutionContext " + singleQuoted(mName) + ": tensor " + singleQuoted(mData->plan.tensors[tensor].name)
        + " has a data-dependent shape; its buffer grew to " + std::to_string(buffer.size())
        + " bytes (the size at the upper bounds)");
    return static_cast<void*>(buffer.data());
}

Status ExecutionContext::bindSizeTensors(size_t n)
{
    Plan const& plan = mData->plan;
    ShapeGraph const& g = plan.shapes;
    std::string const who = mPlugins[n] != nullptr ? mPlugins[n]->label() : "layer " + singleQuoted(plan.nodes[n].name);
    for (int32_t s : mData->nodeBindsSymbols[n])
    {
        auto const symbol = static_cast<size_t>(s);
        auto const t = static_cast<size_t>(mData->symbolSizeTensor[symbol]);
        PlanTensor const& tensor = plan.tensors[t];
        if (mTensorData[t] == nullptr)
        {
            return internalError(who + ": size tensor " + singleQuoted(tensor.name) + " has no memory");
        }
        uint8_t raw[8] = {};
        KILN_RETURN_IF_ERROR(readToHost(raw, mTensorData[t], elementSize(tensor.type), mRunStream));
        int64_t const value = loadInt(raw, tensor.type, 0);
        int64_t const upper = mBoundSymbols[symbol];
        if (value < 0 || value > upper)
        {
            return Status(nvinfer1::ErrorCode::kFAILED_EXECUTION, who + " wrote " + std::to_string(value)
                + " to its size tensor " + singleQuoted(tensor.name) + " (data-dependent dimension "
                + singleQuoted(g.symbols()[symbol].name) + "), outside [0, " + std::to_string(upper)
                + "]: the upper bound declared with declareSizeTensor (" + g.toString(g.symbols()[symbol].upper) + ")");
        }
        mRunSymbols[symbol] = value;
    }
    KILN_RETURN_IF_ERROR(evaluateShapes(*mData, mProfile, mRunSymbols, mShapes, mRunShapes, &mData->boundsGraph)
                             .withContext(who + ": shapes after its size tensors were read"));
    mRunBound = true;
    ++mShapeGeneration;
    for (size_t t = 0; t < plan.tensors.size(); ++t)
    {
        if (!mData->tensorDependsOnData[t])
        {
            continue;
        }
        int64_t const need = mRunShapes.bytes[t];
        if (need > mShapesNow.bytes[t])
        {
            return invalidState(who + ": tensor " + singleQuoted(plan.tensors[t].name) + " needs " + std::to_string(need)
                + " bytes once its data-dependent dimensions are known, more than the " + std::to_string(mShapesNow.bytes[t])
                + " bytes at their upper bounds");
        }
    }
    // Folded value tensors (no producer) that depend on the new symbols get their real values.
    for (size_t t = 0; t < plan.tensors.size(); ++t)
    {
        PlanTensor const& tensor = plan.tensors[t];
        if (!tensor.hasValues || mData->producer[t] >= 0 || tensor.constant >= 0 || mTensorData[t] == nullptr
            || tensor.ioMode == nvinfer1::TensorIOMode::kINPUT)
        {
            continue;
        }
        bool dependent = false;
        for (ExprId id : tensor.values)
        {
            dependent = dependent || mData->exprLastBinder[static_cast<size_t>(id)] == static_cast<int32_t>(n);
        }
        if (!dependent)
        {
            continue;
        }
        KILN_RETURN_IF_ERROR(writeValues(t, mRunShapes.values[t], mRunStream));
    }
    return Status::ok();
}

Status ExecutionContext::finishDataDependentRun(char const* api, cudaStream_t stream)
{
    Plan const& plan = mData->plan;
    std::string const prefix = std::string("IExecutionContext::") + api + ": ";
    // Every constraint, including those on data-dependent dimensions, must hold for the real sizes.
    Status const constraints = plan.shapes.evaluate(mRunSymbols, mScratchValues);
    if (!constraints.isOk())
    {
        return Status(nvinfer1::ErrorCode::kFAILED_EXECUTION,
            prefix + "the data-dependent sizes of this run violate a shape constraint: " + constraints.message());
    }
    EvaluatedShapes const& finalShapes = runShapes();
    for (int32_t pos = mData->nbInputs; pos < mData->nbIo(); ++pos)
    {
        auto const t = static_cast<size_t>(plan.ioTensors[static_cast<size_t>(pos)]);
        if (!mData->tensorDependsOnData[t])
        {
            continue;
        }
        PlanTensor const& tensor = plan.tensors[t];
        nvinfer1::IOutputAllocator* allocator = mAllocators[static_cast<size_t>(pos)];
        if (allocator == nullptr)
        {
            continue; // written in place to the application's buffer (usesApplicationBuffer)
        }
        int64_t const bytes = finalShapes.bytes[t];
        // TensorRT asks for at least one byte, so that an empty output still gets a distinct address.
        uint64_t const request = bytes == 0 ? 1 : static_cast<uint64_t>(bytes);
        void* memory = allocator->reallocateOutputAsync(tensor.name.c_str(), mAddresses[static_cast<size_t>(pos)],
            request, static_cast<uint64_t>(ActivationMemory::kALIGNMENT), stream);
        if (memory == nullptr)
        {
            return failedAllocation(prefix + "the output allocator of " + singleQuoted(tensor.name) + " returned no memory for "
                + std::to_string(request) + " bytes");
        }
        KILN_RETURN_IF_ERROR(mBackend.copy(memory, mTensorData[t], bytes, CopyKind::kDEVICE_TO_DEVICE, stream));
        mAddresses[static_cast<size_t>(pos)] = memory;
        mAllocatedBytes[static_cast<size_t>(pos)] = request;
        allocator->notifyShape(tensor.name.c_str(), finalShapes.dims[t]);
    }
    for (size_t t = 0; t < plan.tensors.size(); ++t)
    {
        mLastRunDims[t] = finalShapes.dims[t];
    }
    mLastRunKey = mShapesNow.symbols;
    mLastRunProfile = mProfile;
    return Status::ok();
}

bool ExecutionContext::usesApplicationBuffer(size_t tensor, std::vector<void*> const& addresses)
{
    int32_t const pos = mData->ioPosition[tensor];
    if (pos < mData->nbInputs || !mData->tensorDependsOnData[tensor] || mAllocators[static_cast<size_t>(pos)] != nullptr
        || addresses[static_cast<size_t>(pos)] == nullptr)
    {
        return false;
    }
    // As in TensorRT: without an allocator the kernels write the output where the application bound it, and the
    // application answers for the buffer's size (logged once per address, not on every run).
    mTrustedBuffers.resize(static_cast<size_t>(mData->nbIo()), nullptr);
    if (mTrustedBuffers[static_cast<size_t>(pos)] == addresses[static_cast<size_t>(pos)])
    {
        return true;
    }
    mTrustedBuffers[static_cast<size_t>(pos)] = addresses[static_cast<size_t>(pos)];
    mLogger.verbose("IExecutionContext " + singleQuoted(mName) + ": output " + singleQuoted(mData->plan.tensors[tensor].name)
        + " has a data-dependent shape and no IOutputAllocator: it is written to the address set with setTensorAddress, "
          "and the application's buffer size is trusted (the largest result at the current input shapes takes "
        + std::to_string(mShapesNow.bytes[tensor]) + " bytes, see getMaxOutputSize)");
    return true;
}

nvinfer1::Dims ExecutionContext::reportedShape(int32_t tensor) const
{
    auto const t = static_cast<size_t>(tensor);
    nvinfer1::Dims dims = mShapesNow.dims[t];
    if (!mData->tensorDependsOnData[t])
    {
        return dims;
    }
    if (mLastRunProfile == mProfile && !mLastRunKey.empty() && mLastRunKey == mShapesNow.symbols)
    {
        return mLastRunDims[t];
    }
    auto const& exprs = mData->plan.tensors[t].dims;
    for (size_t i = 0; i < exprs.size(); ++i)
    {
        if (mData->exprLastBinder[static_cast<size_t>(exprs[i])] >= 0)
        {
            dims.d[i] = -1;
        }
    }
    return dims;
}

} // namespace kiln
