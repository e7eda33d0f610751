// TensorBindings (see tensorBindings.h): the application's I/O addresses, the placement of every tensor for a run, and
// the kernels' views made from it.
#include "runtime/tensorBindings.h"

#include "core/quoting.h"
#include "runtime/runMemory.h"
#include "runtime/shapeState.h"

#include <cstring>

namespace kiln
{

TensorBindings::TensorBindings(EngineData const& data)
    : mData(data)
    , mIo(data.plan.ioTensors.size(), nullptr)
    , mTensors(data.plan.tensors.size(), nullptr)
    , mNodeStamp(data.plan.nodes.size(), kNONE)
    , mNodeInputs(data.plan.nodes.size())
    , mNodeOutputs(data.plan.nodes.size())
{
    for (size_t n = 0; n < data.plan.nodes.size(); ++n)
    {
        mNodeInputs[n].resize(data.plan.nodes[n].inputs.size());
        mNodeOutputs[n].resize(data.plan.nodes[n].outputs.size());
    }
}

void TensorBindings::setIo(int32_t position, void* address)
{
    void*& slot = mIo[static_cast<size_t>(position)];
    if (slot != address)
    {
        slot = address;
        ++mIoVersion;
    }
}

void TensorBindings::place(size_t tensor, void* address)
{
    if (mTensors[tensor] != address)
    {
        mTensors[tensor] = address;
        ++mStamp;
    }
}

Status TensorBindings::bind(char const* api, void* const* io, ShapeState const& shapes, RunMemory& memory,
    DeviceWeights const* weights, cudaStream_t stream)
{
    int32_t const profile = shapes.profile();
    EvaluatedShapes const& now = shapes.current();
    ActivationMemory const& arena = memory.arena();
    // executeV2's bindings are the application's own addresses more often than not.
    bool external = false;
    for (int32_t pos = 0; io != mIo.data() && pos < mData.nbIo() && !external; ++pos)
    {
        external = io[pos] != mIo[static_cast<size_t>(pos)];
    }
    // Same shapes, profile, activation memory and I/O addresses as the last binding: every address stands.
    if (!external && !mBoundExternal && mBoundGeneration == shapes.generation() && mBoundIoVersion == mIoVersion
        && mBoundBase == arena.base() && mBoundSize == arena.size() && mBoundProfile == profile)
    {
        return Status::ok();
    }
    mBoundGeneration = kNONE;
    auto const prefix = [api] { return std::string("IExecutionContext::") + api + ": "; };
    Plan const& plan = mData.plan;
    // Every I/O tensor with data needs an address.
    for (int32_t pos = 0; pos < mData.nbIo(); ++pos)
    {
        int32_t const t = plan.ioTensors[static_cast<size_t>(pos)];
        if (io[pos] == nullptr && now.bytes[static_cast<size_t>(t)] > 0
            && !mData.tensorDependsOnData[static_cast<size_t>(t)])
        {
            bool const input = pos < mData.nbInputs;
            return invalidState(prefix() + "no address is set for " + (input ? "input " : "output ")
                + singleQuoted(plan.tensors[static_cast<size_t>(t)].name) + " (call "
                + (input ? "setInputTensorAddress" : "setOutputTensorAddress") + " or setTensorAddress"
                + (std::strcmp(api, "executeV2") == 0 ? ", or pass it in the bindings" : "") + ")");
        }
    }
    KILN_RETURN_IF_ERROR(memory.checkArena(api, profile, now));
    for (size_t t = 0; t < plan.tensors.size(); ++t)
    {
        PlanTensor const& tensor = plan.tensors[t];
        int64_t const bytes = now.bytes[t];
        int32_t const pos = mData.ioPosition[t];
        void* data = nullptr;
        if (pos >= mData.nbInputs && mData.tensorDependsOnData[t] && memory.outputAllocator(pos) == nullptr
            && io[pos] != nullptr)
        {
            // A data-dependent output without an allocator: written in place to the application's buffer.
            memory.trustApplicationBuffer(pos, tensor.name, io[pos], bytes);
            data = io[pos];
        }
        else if ((mData.tensorDependsOnData[t] || (mData.tensorSizedAtRun[t] && pos < 0)) && tensor.constant < 0)
        {
            // Sized at the upper bounds of its data-dependent dimensions; outputs are copied to their allocator.
            KILN_ASSIGN_OR_RETURN(data, memory.dataBuffer(t, bytes, stream));
        }
        else if (pos >= 0)
        {
            data = io[pos];
        }
        else if (tensor.constant >= 0)
        {
            PlanWeights const& w = plan.weights[static_cast<size_t>(tensor.constant)];
            if (w.size < bytes)
            {
                return internalError(prefix() + "constant tensor " + singleQuoted(tensor.name) + " needs " + std::to_string(bytes)
                    + " bytes but its weights hold " + std::to_string(w.size));
            }
            data = weights != nullptr ? const_cast<void*>(weights->at(tensor.constant))
                                      : static_cast<void*>(const_cast<uint8_t*>(w.data));
        }
        else if (int64_t const offset = mData.arenaOffset(profile, static_cast<int32_t>(t)); offset >= 0)
        {
            int64_t const capacity = mData.arenaCapacity(profile, static_cast<int32_t>(t));
            if (bytes > capacity)
            {
                return invalidState(prefix() + "tensor " + singleQuoted(tensor.name) + " needs " + std::to_string(bytes)
                    + " bytes at the current shapes, but optimization profile " + std::to_string(profile)
                    + " reserved only " + std::to_string(capacity) + " bytes for it");
            }
            data = arena.base() == nullptr ? nullptr : arena.base() + offset;
        }
        if (data == nullptr && bytes > 0 && (mData.consumed[t] || mData.producer[t] >= 0))
        {
            return internalError(prefix() + "tensor " + singleQuoted(tensor.name) + " (" + std::to_string(bytes)
                + " bytes) has no memory in optimization profile " + std::to_string(profile));
        }
        mTensors[t] = data;
    }
    // Tensors whose values the run writes itself (RunMemory::materializeValues).
    mMaterialized.clear();
    for (size_t t = 0; t < plan.tensors.size(); ++t)
    {
        PlanTensor const& tensor = plan.tensors[t];
        if (mData.producer[t] < 0 && tensor.ioMode != nvinfer1::TensorIOMode::kINPUT && mTensors[t] != nullptr
            && now.bytes[t] != 0 && (tensor.constant >= 0 ? tensor.ioMode == nvinfer1::TensorIOMode::kOUTPUT : tensor.hasValues))
        {
            mMaterialized.push_back(t);
        }
    }
    mBoundExternal = external;
    mBoundIoVersion = mIoVersion;
    mBoundBase = arena.base();
    mBoundSize = arena.size();
    mBoundProfile = profile;
    mBoundGeneration = shapes.generation();
    ++mStamp;
    return Status::ok();
}

TensorView TensorBindings::view(int32_t t, EvaluatedShapes const& shapes) const
{
    TensorView v;
    if (t < 0)
    {
        return v;
    }
    auto const ti = static_cast<size_t>(t);
    PlanTensor const& tensor = mData.plan.tensors[ti];
    v.data = mTensors[ti];
    v.type = tensor.type;
    v.dims = shapes.dims[ti];
    v.values = tensor.hasValues ? shapes.values[ti].data() : nullptr;
    return v;
}

void TensorBindings::makeViews(size_t node, EvaluatedShapes const& shapes, bool hideUnknown)
{
    PlanNode const& n = mData.plan.nodes[node];
    std::vector<TensorView>& inputs = mNodeInputs[node];
    std::vector<TensorView>& outputs = mNodeOutputs[node];
    for (size_t k = 0; k < n.inputs.size(); ++k)
    {
        inputs[k] = view(n.inputs[k], shapes);
    }
    for (size_t k = 0; k < n.outputs.size(); ++k)
    {
        int32_t const t = n.outputs[k];
        outputs[k] = view(t, shapes);
        if (!hideUnknown || t < 0 || !mData.tensorDependsOnData[static_cast<size_t>(t)])
        {
            continue;
        }
        // Extents that depend on a size tensor the node itself (or a later one) writes are unknown (-1) to it.
        auto const& dims = mData.plan.tensors[static_cast<size_t>(t)].dims;
        for (size_t i = 0; i < dims.size(); ++i)
        {
            if (mData.exprLastBinder[static_cast<size_t>(dims[i])] >= static_cast<int32_t>(node))
            {
                outputs[k].dims.d[i] = -1;
            }
        }
    }
    mNodeStamp[node] = hideUnknown ? mStamp : kNONE;
}

} // namespace kiln
