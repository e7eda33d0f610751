// ExecutionContext: the memory a run needs besides the arena, and host<->device traffic inside a run: folded shape
// values (in the tensors on the CPU, in a context buffer rewritten only when they change on the GPU), the kernels'
// scratch buffer sized for the current shapes, and the reads of device values the host must see (size tensors,
// conditions). Growing a buffer or reading a value refuses to happen while the stream is captured into a CUDA graph.
#include "core/dataType.h"
#include "core/quoting.h"
#include "runtime/engine.h"
#include "runtime/executionContext.h"

#include <algorithm>
#include <cstring>

namespace kiln
{

using nvinfer1::DataType;

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

Status ExecutionContext::writeValues(size_t t, std::vector<int64_t> const& values, cudaStream_t stream)
{
    PlanTensor const& tensor = mData->plan.tensors[t];
    if (!mBackend.usesDeviceMemory())
    {
        storeValues(mTensorData[t], tensor.type, values);
        return Status::ok();
    }
    if (!mValueOffsets.empty() && mValueOffsets[t] >= 0)
    {
        mValueProfile = -1; // the value buffer now holds this run's values: rewrite it next run
    }
    std::vector<uint8_t> staging(values.size() * static_cast<size_t>(elementSize(tensor.type)));
    storeValues(staging.data(), tensor.type, values);
    // A copy from pageable memory has consumed its source when cudaMemcpyAsync returns.
    return mBackend.copy(mTensorData[t], staging.data(), static_cast<int64_t>(staging.size()), CopyKind::kHOST_TO_DEVICE, stream);
}

Status ExecutionContext::prepareValueTensors(cudaStream_t stream)
{
    if (!mBackend.usesDeviceMemory())
    {
        return Status::ok();
    }
    Plan const& plan = mData->plan;
    if (mValueOffsets.empty())
    {
        mValueOffsets.assign(plan.tensors.size(), -1);
    }
    // Internal folded value tensors: read-only for the nodes, so they can live outside the arena, written only when
    // their values change (which keeps runs capturable into CUDA graphs).
    bool const same = mValueProfile == mProfile && mValueKey == mRunSymbols;
    if (same && mValueStamp == mViewStamp)
    {
        return Status::ok(); // neither the values nor the binding changed: the addresses set last time stand
    }
    int64_t total = 0;
    for (size_t t = 0; t < plan.tensors.size(); ++t)
    {
        PlanTensor const& tensor = plan.tensors[t];
        if (!tensor.hasValues || mData->producer[t] >= 0 || tensor.constant >= 0 || mData->ioPosition[t] >= 0
            || mShapesNow.bytes[t] <= 0)
        {
            mValueOffsets[t] = -1;
            continue;
        }
        mValueOffsets[t] = total;
        total += (mShapesNow.bytes[t] + ActivationMemory::kALIGNMENT - 1) / ActivationMemory::kALIGNMENT
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
            KILN_RETURN_IF_ERROR(mValueBuffer.allocate(mEngine.allocator(), total, "folded shape values"));
        }
        mValueStaging.assign(static_cast<size_t>(total), 0);
        for (size_t t = 0; t < plan.tensors.size(); ++t)
        {
            if (mValueOffsets[t] >= 0)
            {
                storeValues(mValueStaging.data() + mValueOffsets[t], plan.tensors[t].type, mShapesNow.values[t]);
            }
        }
        KILN_RETURN_IF_ERROR(mBackend.copy(mValueBuffer.data(), mValueStaging.data(), total, CopyKind::kHOST_TO_DEVICE, stream));
        mValueKey = mRunSymbols;
        mValueProfile = mProfile;
    }
    for (size_t t = 0; t < plan.tensors.size(); ++t)
    {
        if (mValueOffsets[t] >= 0)
        {
            mTensorData[t] = mValueBuffer.data() + mValueOffsets[t];
        }
    }
    mValueStamp = mViewStamp;
    return Status::ok();
}

Status ExecutionContext::prepareScratch(cudaStream_t stream)
{
    if (mScratchProfile == mProfile && mScratchKey == mRunSymbols)
    {
        return Status::ok();
    }
    Plan const& plan = mData->plan;
    int64_t need = 0;
    for (size_t n = 0; n < plan.nodes.size(); ++n)
    {
        // The node's view vectors are filled again before the node runs.
        PlanNode const& node = plan.nodes[n];
        auto& inputs = mNodeInputs[n];
        auto& outputs = mNodeOutputs[n];
        for (size_t k = 0; k < node.inputs.size(); ++k)
        {
            inputs[k] = runView(node.inputs[k]);
        }
        for (size_t k = 0; k < node.outputs.size(); ++k)
        {
            outputs[k] = runView(node.outputs[k]);
        }
        need = std::max(need, mKernels[n]->workspaceSize(inputs, outputs));
    }
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
        KILN_RETURN_IF_ERROR(mScratch.allocate(mEngine.allocator(), need, "kernel scratch memory"));
    }
    mScratchNeeded = need;
    mScratchKey = mRunSymbols;
    mScratchProfile = mProfile;
    return Status::ok();
}

Status ExecutionContext::readToHost(void* host, void const* src, int64_t bytes, cudaStream_t stream) const
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

} // namespace kiln
