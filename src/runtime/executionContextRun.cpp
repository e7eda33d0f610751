// ExecutionContext: the run (enqueueV3 / executeV2), sequenced over the context's parts. A run binds and evaluates
// shapes (ShapeState), obtains output memory from output allocators (RunMemory), places every tensor
// (TensorBindings::bind), writes the values of folded shape tensors (RunMemory), runs the nodes' kernels in order or
// replays their automatic CUDA graph (NodeScheduler), delivers data-dependent outputs to their allocators
// (executionContextData.cpp) and tells the allocators the final shapes. On the CPU backend all of it is synchronous;
// on the CUDA backend kernels are launched on the run's stream and the host waits only for values it must read. A
// run with unchanged shapes and addresses builds no strings and allocates nothing.
#include "core/apiGuard.h"
#include "runtime/engine.h"
#include "runtime/executionContext.h"

namespace kiln
{

bool ExecutionContext::enqueueV3(cudaStream_t stream) noexcept
{
    // CPU: runs synchronously on the calling thread; the stream only reaches plugins' enqueue().
    // CUDA: asynchronous on `stream`.
    return apiGuard(mLogger, mRecorder.get(), false, [&]() -> Status { return run("enqueueV3", nullptr, stream); });
}

bool ExecutionContext::executeV2(void* const* bindings) noexcept
{
    return apiGuard(mLogger, mRecorder.get(), false, [&]() -> Status {
        if (bindings == nullptr && mData->nbIo() > 0)
        {
            return invalidArgument("IExecutionContext::executeV2: bindings is a null pointer");
        }
        KILN_RETURN_IF_ERROR(run("executeV2", bindings, nullptr));
        return mEngine.backend().synchronize(nullptr).withContext("IExecutionContext::executeV2");
    });
}

Status ExecutionContext::run(char const* api, void* const* bindings, cudaStream_t stream)
{
    // executeV2's bindings stand for this run only; enqueueV3 runs with the application's I/O addresses.
    void* const* io = bindings != nullptr ? bindings : mBindings.ioTable();
    KILN_RETURN_IF_ERROR(withApiContext(mShapes.prepare(io), api));
    if (!mShapes.missing().empty())
    {
        return mShapes.missingInputsError(api);
    }
    KILN_RETURN_IF_ERROR(checkDataDependentOutputs(api, bindings != nullptr));
    if (bindings == nullptr)
    {
        KILN_RETURN_IF_ERROR(mMemory.assignOutputsFromAllocators(mShapes.current(), mBindings, stream));
    }
    mShapes.beginRun();
    KILN_RETURN_IF_ERROR(mBindings.bind(api, io, mShapes, mMemory, mDeviceWeights.get(), stream));
    EvaluatedShapes const& shapes = mShapes.current();
    KILN_RETURN_IF_ERROR(withApiContext(
        mMemory.prepareValueTensors(mShapes.profile(), shapes, mShapes.runSymbols(), mBindings, stream), api));
    KILN_RETURN_IF_ERROR(withApiContext(mMemory.materializeValues(mBindings, shapes, mDeviceWeights.get(), stream), api));
    KILN_RETURN_IF_ERROR(withApiContext(mScheduler.prepare(stream), api));
    KILN_RETURN_IF_ERROR(mScheduler.launch(api, stream, bindings == nullptr));
    Backend const& backend = mEngine.backend();
    if (mInputConsumedEvent != nullptr && backend.usesDeviceMemory())
    {
        // Kiln does not track the last reader of each input: the event fires once every node was launched and ran.
        Status const recorded = backend.recordEvent(mInputConsumedEvent, stream);
        if (!recorded.isOk())
        {
            return recorded.withContext(std::string("IExecutionContext::") + api + ": recording the input-consumed event");
        }
    }
    if (mData->hasDataDependentShapes)
    {
        KILN_RETURN_IF_ERROR(finishDataDependentRun(api, stream));
    }
    if (bindings == nullptr)
    {
        EvaluatedShapes const& finalShapes = mShapes.runShapes();
        for (int32_t pos = mData->nbInputs; pos < mData->nbIo(); ++pos)
        {
            nvinfer1::IOutputAllocator* allocator = mMemory.outputAllocator(pos);
            int32_t const t = mData->plan.ioTensors[static_cast<size_t>(pos)];
            if (allocator != nullptr && !mData->tensorDependsOnData[static_cast<size_t>(t)])
            {
                allocator->notifyShape(mData->ioTensor(pos).name.c_str(), finalShapes.dims[static_cast<size_t>(t)]);
            }
        }
    }
    return Status::ok();
}

} // namespace kiln
