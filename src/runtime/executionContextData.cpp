// ExecutionContext: data-dependent shapes (plugin size tensors, IExprBuilder::declareSizeTensor). Before a run the
// shapes are evaluated with every data-dependent symbol at its upper bound (ShapeState), which sizes the
// context-owned buffers of the tensors depending on them (RunMemory::dataBuffer). After the node writing a size
// tensor ran, the value is checked against the bound, binds the symbol, and the shapes are evaluated again for the
// remaining nodes (NodeScheduler::bindSizeTensors). After the run (this file), network outputs with data-dependent
// shapes go to their IOutputAllocator: reallocateOutputAsync with the real size, a copy, then notifyShape with the
// real dimensions. An output without an allocator is written in place to the address the application bound
// (TensorRT's behaviour: the application sized the buffer, see getMaxOutputSize; TensorBindings::bind), and
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
        if (mMemory.outputAllocator(pos) == nullptr && mBindings.io(pos) == nullptr)
        {
            return invalidState(std::string("IExecutionContext::") + api + ": output " + name
                + " has a data-dependent shape and neither an IOutputAllocator nor an address: set one with "
                  "setOutputAllocator, or bind a buffer with setTensorAddress that holds the largest result (up to "
                + std::to_string(mShapes.current().bytes[static_cast<size_t>(t)]) + " bytes, see getMaxOutputSize)");
        }
    }
    return Status::ok();
}

Status ExecutionContext::finishDataDependentRun(char const* api, cudaStream_t stream)
{
    Plan const& plan = mData->plan;
    std::string const prefix = std::string("IExecutionContext::") + api + ": ";
    // Every constraint, including those on data-dependent dimensions, must hold for the real sizes.
    Status const constraints = mShapes.checkRunConstraints();
    if (!constraints.isOk())
    {
        return Status(nvinfer1::ErrorCode::kFAILED_EXECUTION,
            prefix + "the data-dependent sizes of this run violate a shape constraint: " + constraints.message());
    }
    EvaluatedShapes const& finalShapes = mShapes.runShapes();
    for (int32_t pos = mData->nbInputs; pos < mData->nbIo(); ++pos)
    {
        auto const t = static_cast<size_t>(plan.ioTensors[static_cast<size_t>(pos)]);
        if (!mData->tensorDependsOnData[t])
        {
            continue;
        }
        PlanTensor const& tensor = plan.tensors[t];
        nvinfer1::IOutputAllocator* allocator = mMemory.outputAllocator(pos);
        if (allocator == nullptr)
        {
            continue; // written in place to the application's buffer (RunMemory::trustApplicationBuffer)
        }
        int64_t const bytes = finalShapes.bytes[t];
        // TensorRT asks for at least one byte, so that an empty output still gets a distinct address.
        uint64_t const request = bytes == 0 ? 1 : static_cast<uint64_t>(bytes);
        void* memory = allocator->reallocateOutputAsync(tensor.name.c_str(), mBindings.io(pos),
            request, static_cast<uint64_t>(ActivationMemory::kALIGNMENT), stream);
        if (memory == nullptr)
        {
            return failedAllocation(prefix + "the output allocator of " + singleQuoted(tensor.name) + " returned no memory for "
                + std::to_string(request) + " bytes");
        }
        KILN_RETURN_IF_ERROR(mEngine.backend().copy(memory, mBindings.data(t), bytes, CopyKind::kDEVICE_TO_DEVICE, stream));
        mBindings.setIo(pos, memory);
        mMemory.recordAllocation(pos, request);
        allocator->notifyShape(tensor.name.c_str(), finalShapes.dims[t]);
    }
    mShapes.recordRun();
    return Status::ok();
}

} // namespace kiln
