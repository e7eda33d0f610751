// ExecutionContext: the run (enqueueV3 / executeV2). A run binds and evaluates shapes, obtains output memory from
// output allocators, places every tensor (user buffers, the arena, constant weights, context buffers for
// data-dependent shapes and folded values), writes the values of folded shape tensors, runs the nodes' kernels in
// order (binding data-dependent symbols as their size tensors are written), delivers data-dependent outputs to
// their allocators, and reports per-layer timings. On the CPU backend all of it is synchronous; on the CUDA backend
// kernels are launched on the run's stream and the host waits only for values it must read (see the header). The
// buffers and device traffic besides the arena are in executionContextDevice.cpp.
#include "core/apiGuard.h"
#include "core/quoting.h"
#include "core/dataType.h"
#include "network/inferContext.h"
#include "runtime/loopRunner.h"
#include "runtime/engine.h"
#include "runtime/executionContext.h"

#include <cstring>
#include <exception>
#include <new>

namespace kiln
{

using nvinfer1::DataType;


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
        return mBackend.synchronize(nullptr).withContext("IExecutionContext::executeV2");
    });
}

Status ExecutionContext::run(char const* api, void* const* bindings, cudaStream_t stream)
{
    mRunStream = stream;
    int32_t const nbIo = mData->nbIo();
    for (int32_t pos = 0; pos < nbIo; ++pos)
    {
        void* a = bindings != nullptr ? bindings[pos] : mAddresses[static_cast<size_t>(pos)];
        mRunAddresses[static_cast<size_t>(pos)] = a;
        mConstAddresses[static_cast<size_t>(pos)] = a;
    }
    Status const shapes = prepareShapes(mConstAddresses);
    if (!shapes.isOk())
    {
        return shapes.withContext(std::string("IExecutionContext::") + api);
    }
    if (!mMissing.empty())
    {
        return missingInputsError(api);
    }
    KILN_RETURN_IF_ERROR(checkDataDependentOutputs(api, bindings != nullptr));
    if (bindings == nullptr)
    {
        KILN_RETURN_IF_ERROR(assignOutputsFromAllocators(stream));
    }
    if (mRunBound)
    {
        ++mShapeGeneration; // back from the last run's data-dependent shapes to the upper bounds
    }
    mRunBound = false;
    mRunSymbols = mData->hasDataDependentShapes ? mBoundSymbols : mSymbols;
    KILN_RETURN_IF_ERROR(bindTensorMemory(api, mRunAddresses));
    KILN_RETURN_IF_ERROR(prepareValueTensors(stream).withContext(std::string("IExecutionContext::") + api));
    KILN_RETURN_IF_ERROR(materializeValues(stream).withContext(std::string("IExecutionContext::") + api));
    KILN_RETURN_IF_ERROR(prepareScratch(stream).withContext(std::string("IExecutionContext::") + api));
    for (size_t n : mPluginNodes)
    {
        mPluginBindings[n]->stream = stream;
    }
    KILN_RETURN_IF_ERROR(launchNodes(api, stream, bindings == nullptr));
    if (mInputConsumedEvent != nullptr && mBackend.usesDeviceMemory())
    {
        // Kiln does not track the last reader of each input: the event fires once every node was launched and ran.
        KILN_RETURN_IF_ERROR(mBackend.recordEvent(mInputConsumedEvent, stream).withContext(
            std::string("IExecutionContext::") + api + ": recording the input-consumed event"));
    }
    if (mData->hasDataDependentShapes)
    {
        KILN_RETURN_IF_ERROR(finishDataDependentRun(api, stream));
    }
    if (bindings == nullptr)
    {
        EvaluatedShapes const& finalShapes = runShapes();
        for (int32_t pos = mData->nbInputs; pos < nbIo; ++pos)
        {
            nvinfer1::IOutputAllocator* allocator = mAllocators[static_cast<size_t>(pos)];
            int32_t const t = mData->plan.ioTensors[static_cast<size_t>(pos)];
            if (allocator != nullptr && !mData->tensorDependsOnData[static_cast<size_t>(t)])
            {
                allocator->notifyShape(mData->ioTensor(pos).name.c_str(), finalShapes.dims[static_cast<size_t>(t)]);
            }
        }
    }
    return Status::ok();
}

std::string ExecutionContext::graphBlocker(cudaStream_t stream) const
{
    if (!mGraphBlocker.empty())
    {
        return mGraphBlocker; // a property of the engine (createKernels)
    }
    if (stream == nullptr)
    {
        return "the legacy default stream cannot be captured (pass a stream created with cudaStreamCreate)";
    }
    if (mBackend.isCapturing(stream))
    {
        return "the stream is already being captured (the application's graph records the plain launches)";
    }
    if (mProfiler != nullptr || mDebugSync)
    {
        return "a profiler or debug sync times each layer";
    }
    if (mDebugListener != nullptr)
    {
        return "a debug listener reads tensors on the host";
    }
    return {};
}

Status ExecutionContext::launchNodes(char const* api, cudaStream_t stream, bool mayUseGraph)
{
    if (!mayUseGraph || !mAutoGraph.enabled() || !mBackend.capabilities().capturesGraphs)
    {
        return runNodes(api, stream);
    }
    // The graph's key: every tensor's address, the scratch memory and the activation memory.
    mGraphKey.assign(mTensorData.begin(), mTensorData.end());
    mGraphKey.push_back(mScratch.data());
    mGraphKey.push_back(mMemory.base());
    switch (mAutoGraph.choose(mShapeGeneration, mGraphKey, graphBlocker(stream)))
    {
    case AutoGraph::Step::kREPLAY: return mAutoGraph.replay(stream).withContext(std::string("IExecutionContext::") + api);
    case AutoGraph::Step::kCAPTURE:
        if (mAutoGraph.beginCapture(stream))
        {
            Status const ran = runNodes(api, stream);
            if (mAutoGraph.endCaptureAndLaunch(stream, ran, mShapeGeneration, mGraphKey))
            {
                return Status::ok();
            }
        }
        break; // nothing ran: launch the nodes plainly
    case AutoGraph::Step::kPLAIN: break;
    }
    KILN_RETURN_IF_ERROR(runNodes(api, stream));
    mAutoGraph.plainRunDone(mShapeGeneration);
    return Status::ok();
}

Status ExecutionContext::assignOutputsFromAllocators(cudaStream_t stream)
{
    for (int32_t pos = mData->nbInputs; pos < mData->nbIo(); ++pos)
    {
        nvinfer1::IOutputAllocator* allocator = mAllocators[static_cast<size_t>(pos)];
        if (allocator == nullptr)
        {
            continue;
        }
        PlanTensor const& t = mData->ioTensor(pos);
        if (mData->tensorDependsOnData[static_cast<size_t>(mData->plan.ioTensors[static_cast<size_t>(pos)])])
        {
            continue; // allocated after the run, once its size is known
        }
        auto const bytes = static_cast<uint64_t>(mShapesNow.bytes[static_cast<size_t>(mData->plan.ioTensors[static_cast<size_t>(pos)])]);
        void* current = mAddresses[static_cast<size_t>(pos)];
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
        mAddresses[static_cast<size_t>(pos)] = memory;
        mRunAddresses[static_cast<size_t>(pos)] = memory;
        mAllocatedBytes[static_cast<size_t>(pos)] = request;
    }
    return Status::ok();
}

Status ExecutionContext::bindTensorMemory(char const* api, std::vector<void*> const& addresses)
{
    // Same shapes, profile, activation memory and I/O addresses as the last binding: every address stands.
    mBindKey.assign(addresses.begin(), addresses.end());
    mBindKey.push_back(mMemory.base());
    mBindKey.push_back(reinterpret_cast<void*>(static_cast<uintptr_t>(mMemory.size())));
    mBindKey.push_back(reinterpret_cast<void*>(static_cast<uintptr_t>(mProfile)));
    if (mData->hasDataDependentShapes)
    {
        // Whether a data-dependent output goes to its allocator or in place to the application's buffer.
        mBindKey.insert(mBindKey.end(), mAllocators.begin() + mData->nbInputs, mAllocators.end());
    }
    if (mBoundGeneration == mShapeGeneration && mBindKey == mBoundKey)
    {
        return Status::ok();
    }
    mBoundGeneration = kNO_GENERATION;
    auto const prefix = [api] { return std::string("IExecutionContext::") + api + ": "; };
    Plan const& plan = mData->plan;
    // Every I/O tensor with data needs an address.
    for (int32_t pos = 0; pos < mData->nbIo(); ++pos)
    {
        int32_t const t = plan.ioTensors[static_cast<size_t>(pos)];
        if (addresses[static_cast<size_t>(pos)] == nullptr && mShapesNow.bytes[static_cast<size_t>(t)] > 0
            && !mData->tensorDependsOnData[static_cast<size_t>(t)])
        {
            bool const input = pos < mData->nbInputs;
            return invalidState(prefix() + "no address is set for " + (input ? "input " : "output ")
                + singleQuoted(plan.tensors[static_cast<size_t>(t)].name) + " (call "
                + (input ? "setInputTensorAddress" : "setOutputTensorAddress") + " or setTensorAddress"
                + (std::strcmp(api, "executeV2") == 0 ? ", or pass it in the bindings" : "") + ")");
        }
    }
    // Activation memory.
    int64_t const required = requiredArenaBytes();
    if (required > 0 && !mMemory.present())
    {
        return invalidState(prefix() + "the context was created with ExecutionContextAllocationStrategy::kUSER_MANAGED "
            "and has no activation memory: call setDeviceMemoryV2 with at least " + std::to_string(required)
            + " bytes (256-byte aligned)");
    }
    if (required > 0 && mMemory.size() >= 0 && mMemory.size() < required)
    {
        return invalidState(prefix() + "the activation memory given with setDeviceMemoryV2 has " + std::to_string(mMemory.size())
            + " bytes, but the current input shapes need " + std::to_string(required) + " bytes (optimization profile "
            + std::to_string(mProfile) + " needs up to " + std::to_string(plan.profiles[static_cast<size_t>(mProfile)].arenaSize)
            + ")");
    }
    for (size_t t = 0; t < plan.tensors.size(); ++t)
    {
        PlanTensor const& tensor = plan.tensors[t];
        int64_t const bytes = mShapesNow.bytes[t];
        int32_t const pos = mData->ioPosition[t];
        void* data = nullptr;
        if (usesApplicationBuffer(t, addresses))
        {
            data = addresses[static_cast<size_t>(pos)];
        }
        else if ((mData->tensorDependsOnData[t] || (mData->tensorSizedAtRun[t] && pos < 0)) && tensor.constant < 0)
        {
            // Sized at the upper bounds of its data-dependent dimensions; outputs are copied to their allocator.
            KILN_ASSIGN_OR_RETURN(data, dataBuffer(t, bytes));
        }
        else if (pos >= 0)
        {
            data = addresses[static_cast<size_t>(pos)];
        }
        else if (tensor.constant >= 0)
        {
            PlanWeights const& w = plan.weights[static_cast<size_t>(tensor.constant)];
            if (w.size < bytes)
            {
                return internalError(prefix() + "constant tensor " + singleQuoted(tensor.name) + " needs " + std::to_string(bytes)
                    + " bytes but its weights hold " + std::to_string(w.size));
            }
            data = mDeviceWeights != nullptr ? const_cast<void*>(mDeviceWeights->at(tensor.constant))
                                             : static_cast<void*>(const_cast<uint8_t*>(w.data));
        }
        else if (int64_t const offset = mData->arenaOffset(mProfile, static_cast<int32_t>(t)); offset >= 0)
        {
            int64_t const capacity = mData->arenaCapacity(mProfile, static_cast<int32_t>(t));
            if (bytes > capacity)
            {
                return invalidState(prefix() + "tensor " + singleQuoted(tensor.name) + " needs " + std::to_string(bytes)
                    + " bytes at the current shapes, but optimization profile " + std::to_string(mProfile)
                    + " reserved only " + std::to_string(capacity) + " bytes for it");
            }
            data = mMemory.base() == nullptr ? nullptr : mMemory.base() + offset;
        }
        if (data == nullptr && bytes > 0 && (mData->consumed[t] || mData->producer[t] >= 0))
        {
            return internalError(prefix() + "tensor " + singleQuoted(tensor.name) + " (" + std::to_string(bytes)
                + " bytes) has no memory in optimization profile " + std::to_string(mProfile));
        }
        mTensorData[t] = data;
    }
    // Plugin workspaces live in the arena at the offsets of the current profile.
    PlanProfile const& profile = plan.profiles[static_cast<size_t>(mProfile)];
    for (size_t n = 0; n < mPluginBindings.size(); ++n)
    {
        if (mPluginBindings[n] == nullptr)
        {
            continue;
        }
        bool const has = n < profile.workspaceSizes.size() && profile.workspaceSizes[n] > 0 && profile.workspaceOffsets[n] >= 0;
        mPluginBindings[n]->workspace = has && mMemory.base() != nullptr ? mMemory.base() + profile.workspaceOffsets[n] : nullptr;
    }
    // Tensors whose values the run writes itself (materializeValues).
    mMaterialized.clear();
    for (size_t t = 0; t < plan.tensors.size(); ++t)
    {
        PlanTensor const& tensor = plan.tensors[t];
        if (mData->producer[t] < 0 && tensor.ioMode != nvinfer1::TensorIOMode::kINPUT && mTensorData[t] != nullptr
            && mShapesNow.bytes[t] != 0 && (tensor.constant >= 0 ? tensor.ioMode == nvinfer1::TensorIOMode::kOUTPUT : tensor.hasValues))
        {
            mMaterialized.push_back(t);
        }
    }
    mBoundKey.swap(mBindKey);
    mBoundGeneration = mShapeGeneration;
    ++mViewStamp;
    return Status::ok();
}

Status ExecutionContext::materializeValues(cudaStream_t stream)
{
    Plan const& plan = mData->plan;
    for (size_t t : mMaterialized)
    {
        PlanTensor const& tensor = plan.tensors[t];
        void* data = mTensorData[t];
        if (tensor.constant >= 0)
        {
            void const* source = mDeviceWeights != nullptr ? mDeviceWeights->at(tensor.constant)
                                                           : plan.weights[static_cast<size_t>(tensor.constant)].data;
            CopyKind const kind = mBackend.usesDeviceMemory() ? CopyKind::kDEVICE_TO_DEVICE : CopyKind::kHOST_TO_DEVICE;
            KILN_RETURN_IF_ERROR(mBackend.copy(data, source, mShapesNow.bytes[t], kind, stream));
            continue;
        }
        // On the GPU, folded values of internal tensors live in the value buffer (prepareValueTensors).
        if (!mBackend.usesDeviceMemory() || mValueOffsets.empty() || mValueOffsets[t] < 0)
        {
            KILN_RETURN_IF_ERROR(writeValues(t, mShapesNow.values[t], stream));
        }
    }
    return Status::ok();
}

TensorView ExecutionContext::runView(int32_t t) const
{
    TensorView v;
    if (t < 0)
    {
        return v;
    }
    auto const ti = static_cast<size_t>(t);
    EvaluatedShapes const& shapes = runShapes();
    PlanTensor const& tensor = mData->plan.tensors[ti];
    v.data = mTensorData[ti];
    v.type = tensor.type;
    v.dims = shapes.dims[ti];
    v.values = tensor.hasValues ? shapes.values[ti].data() : nullptr;
    return v;
}

Status ExecutionContext::runNodes(char const* api, cudaStream_t stream)
{
    Plan const& plan = mData->plan;
    bool const timing = mProfiler != nullptr || mDebugSync;
    if (mProfiler != nullptr)
    {
        mTimes.begin(plan.nodes.size());
    }
    // Loops and conditional branches (see controlFlowPlan.h), parsed when the engine was loaded.
    ControlFlowPlan const& controlFlow = mData->controlFlow;
    std::vector<LayerTimes::Clock::duration> loopTimes;
    if (mProfiler != nullptr && !controlFlow.loops.empty())
    {
        loopTimes.assign(plan.nodes.size(), LayerTimes::Clock::duration::zero());
    }
    // Extents that depend on a size tensor the node itself (or a later one) writes are unknown (-1) to it.
    auto const hideUnknown = [&](TensorView& v, int32_t t, size_t n) {
        if (t < 0 || !mData->tensorDependsOnData[static_cast<size_t>(t)])
        {
            return;
        }
        auto const& dims = plan.tensors[static_cast<size_t>(t)].dims;
        for (size_t i = 0; i < dims.size(); ++i)
        {
            if (mData->exprLastBinder[static_cast<size_t>(dims[i])] >= static_cast<int32_t>(n))
            {
                v.dims.d[i] = -1;
            }
        }
    };
    // Loops rebind tensors as they iterate, and data-dependent shapes change within a run.
    bool const refreshAllViews = !controlFlow.loops.empty() || mData->hasDataDependentShapes;
    auto const runNode = [&](size_t n, bool inLoop) -> Status {
        PlanNode const& node = plan.nodes[n];
        auto& inputs = mNodeInputs[n];
        auto& outputs = mNodeOutputs[n];
        // Views change with the binding (addresses) and the shapes; loop bodies get new tensors per iteration.
        if (inLoop || refreshAllViews || mNodeViewStamp[n] != mViewStamp || mKernelGeneration[n] != mShapeGeneration)
        {
            for (size_t k = 0; k < node.inputs.size(); ++k)
            {
                inputs[k] = runView(node.inputs[k]);
            }
            for (size_t k = 0; k < node.outputs.size(); ++k)
            {
                outputs[k] = runView(node.outputs[k]);
                hideUnknown(outputs[k], node.outputs[k], n);
            }
            mNodeViewStamp[n] = mViewStamp;
        }
        auto const start = timing ? LayerTimes::Clock::now() : LayerTimes::Clock::time_point{};
        Status st;
        try
        {
            // Loop bodies see new shapes per iteration; elsewhere kernels reshape only after the shapes changed.
            if (inLoop || mKernelGeneration[n] != mShapeGeneration)
            {
                st = mKernels[n]->reshape(inputs, outputs);
                mKernelGeneration[n] = st.isOk() && !inLoop ? mShapeGeneration : kNO_GENERATION;
            }
            if (st.isOk())
            {
                st = mKernels[n]->run(inputs, outputs, RunContext{stream, mScratch.data(), mScratchNeeded});
            }
            if (st.isOk() && timing && mBackend.usesDeviceMemory())
            {
                st = mBackend.synchronize(stream); // per-layer timing and debug sync wait for each node
            }
        }
        catch (std::bad_alloc const&)
        {
            st = failedAllocation("out of memory");
        }
        catch (std::exception const& e)
        {
            st = internalError(std::string("exception: ") + e.what());
        }
        catch (...)
        {
            st = internalError("unknown exception");
        }
        if (st.isOk() && !mData->nodeBindsSymbols.empty() && !mData->nodeBindsSymbols[n].empty())
        {
            st = bindSizeTensors(n);
        }
        if (!st.isOk())
        {
            mTimes.clear();
            auto const code = st.code() == nvinfer1::ErrorCode::kSUCCESS ? nvinfer1::ErrorCode::kFAILED_EXECUTION : st.code();
            if (mPluginBindings[n] != nullptr)
            {
                // The plugin adapter's messages name the plugin, its layer and the call.
                std::string const label = mPlugins[n]->label();
                std::string const& message = st.message();
                return Status(code, std::string("IExecutionContext::") + api + ": "
                        + (message.find(label) == std::string::npos ? label + ": " + message : message));
            }
            return Status(code, std::string("IExecutionContext::") + api + ": node " + singleQuoted(node.name) + " ("
                    + layerKindName(node.kind) + ") failed: " + st.message());
        }
        if (timing)
        {
            auto const end = LayerTimes::Clock::now();
            if (mProfiler != nullptr)
            {
                if (inLoop)
                {
                    loopTimes[n] += end - start; // reported once, as the node's total over all iterations
                }
                else
                {
                    mTimes.record(n, start, end);
                }
            }
            if (mDebugSync)
            {
                mLogger.verbose("IExecutionContext " + singleQuoted(mName) + ": node " + singleQuoted(node.name) + " ("
                    + layerKindName(node.kind) + (node.tactic.empty() ? "" : ", tactic " + node.tactic) + ") finished in "
                    + std::to_string(std::chrono::duration<double, std::milli>(end - start).count()) + " ms");
            }
        }
        return Status::ok();
    };
    for (size_t n = 0; n < plan.nodes.size(); ++n)
    {
        if (!controlFlow.empty())
        {
            if (int32_t const loop = controlFlow.loopAt[n]; loop >= 0)
            {
                if (!mBackend.capabilities().runsLoops)
                {
                    return unsupported(std::string("IExecutionContext::") + api + ": loops (ILoop) do not run on "
                        + backendDisplayName(mBackend) + " yet; build this network for the CPU backend");
                }
                LoopPlan const& lp = controlFlow.loops[static_cast<size_t>(loop)];
                Status const st = runLoop(api, lp, plan, runShapes(), mTensorData, runNode);
                if (!st.isOk())
                {
                    mTimes.clear();
                    return st;
                }
                if (mProfiler != nullptr)
                {
                    for (size_t k = lp.first; k <= lp.last; ++k)
                    {
                        mTimes.record(k, LayerTimes::Clock::time_point{}, LayerTimes::Clock::time_point{} + loopTimes[k]);
                    }
                }
                n = lp.last;
                continue;
            }
            if (int32_t const cond = controlFlow.branchCondition[n]; cond >= 0)
            {
                auto const* where = static_cast<uint8_t const*>(mTensorData[static_cast<size_t>(cond)]);
                uint8_t flag = 0;
                if (where != nullptr)
                {
                    KILN_RETURN_IF_ERROR(readToHost(&flag, where, 1, stream).withContext(
                        std::string("IExecutionContext::") + api + ": reading the condition of a conditional"));
                }
                if (where == nullptr || (flag != 0 ? 1 : 0) != controlFlow.branch[n])
                {
                    continue; // the other branch is taken
                }
            }
        }
        KILN_RETURN_IF_ERROR(runNode(n, false));
    }
    if (mProfiler != nullptr)
    {
        mTimes.finish();
        if (mEnqueueEmitsProfile)
        {
            mTimes.report(*mProfiler, *mData);
        }
    }
    return Status::ok();
}

} // namespace kiln
