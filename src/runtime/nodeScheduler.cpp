// NodeScheduler (see nodeScheduler.h): creation of the nodes' kernels (plugins attached to the context), scratch and
// plugin workspaces before a run, the run loop with its control flow, size tensors and layer timing, and the choice
// between plain launches and an automatic CUDA graph.
#include "runtime/nodeScheduler.h"

#include "backends/common/pluginKernel.h"
#include "core/dataType.h"
#include "core/layerKinds.h"
#include "core/quoting.h"
#include "runtime/engine.h"
#include "runtime/loopRunner.h"
#include "runtime/runMemory.h"
#include "runtime/shapeState.h"
#include "runtime/tensorBindings.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <new>

namespace kiln
{

NodeScheduler::NodeScheduler(Engine const& engine, ErrorRecorderRef const& recorder, std::string const& contextName,
    ShapeState& shapes, TensorBindings& bindings, RunMemory& memory)
    : mEngine(engine)
    , mData(engine.data())
    , mLogger(*engine.sharedLogger())
    , mRecorder(recorder)
    , mContextName(contextName)
    , mBackend(engine.backend())
    , mShapes(shapes)
    , mBindings(bindings)
    , mMemory(memory)
    , mAutoGraph(engine.backend(), *engine.sharedLogger())
{
}

Status NodeScheduler::create()
{
    KILN_RETURN_IF_ERROR(attachPlugins());
    return createKernels();
}

Status NodeScheduler::attachPlugins()
{
    Plan const& plan = mData.plan;
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
        mPluginNodes.push_back(n);
    }
    return Status::ok();
}

Status NodeScheduler::createKernels()
{
    Plan const& plan = mData.plan;
    DeviceWeights const* deviceWeights = mEngine.deviceWeights().get();
    KILN_ASSIGN_OR_RETURN(mSession, mBackend.createSession());
    mKernels.reserve(plan.nodes.size());
    mKernelGeneration.assign(plan.nodes.size(), ShapeState::kNO_GENERATION);
    if (mData.hasDataDependentShapes)
    {
        mGraphBlocker = "the engine has data-dependent shapes (size tensors are read on the host during the run)";
    }
    else if (!mData.controlFlow.empty())
    {
        mGraphBlocker = "the engine has conditionals or loops (their conditions are read on the host)";
    }
    for (size_t n = 0; n < plan.nodes.size(); ++n)
    {
        PlanNode const& node = plan.nodes[n];
        std::string const label = "node " + singleQuoted(node.name) + " (" + layerKindName(node.kind) + ")";
        KernelSetup setup = makeKernelSetup(plan, node);
        setup.plugin = mPluginBindings[n].get();
        if (deviceWeights != nullptr)
        {
            deviceWeights->attach(node, setup);
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
        if (node.kind == nvinfer1::LayerType::kASSERTION && mGraphBlocker.empty())
        {
            mGraphBlocker = "assertion layer " + singleQuoted(node.name) + " reads its condition on the host";
        }
    }
    return Status::ok();
}

Status NodeScheduler::prepare(cudaStream_t stream)
{
    int32_t const profile = mShapes.profile();
    std::vector<int64_t> const& symbols = mShapes.runSymbols();
    if (!mMemory.scratchCurrent(profile, symbols))
    {
        EvaluatedShapes const& shapes = mShapes.runShapes();
        int64_t need = 0;
        for (size_t n = 0; n < mKernels.size(); ++n)
        {
            // The node's views are made again before the node runs.
            mBindings.makeViews(n, shapes, false);
            need = std::max(need, mKernels[n]->workspaceSize(mBindings.inputs(n), mBindings.outputs(n)));
        }
        KILN_RETURN_IF_ERROR(mMemory.reserveScratch(need, profile, symbols, stream));
    }
    if (mWorkspaceStamp != mBindings.stamp())
    {
        // Plugin workspaces live in the arena at the offsets of the current profile.
        for (size_t n : mPluginNodes)
        {
            mPluginBindings[n]->workspace = mMemory.workspace(profile, n);
        }
        mWorkspaceStamp = mBindings.stamp();
    }
    for (size_t n : mPluginNodes)
    {
        mPluginBindings[n]->stream = stream;
    }
    return Status::ok();
}

char const* NodeScheduler::graphBlocker(cudaStream_t stream) const
{
    if (!mGraphBlocker.empty())
    {
        return mGraphBlocker.c_str(); // a property of the engine (createKernels)
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
    return nullptr;
}

Status NodeScheduler::launch(char const* api, cudaStream_t stream, bool mayUseGraph)
{
    if (!mayUseGraph || !mAutoGraph.enabled() || !mBackend.capabilities().capturesGraphs)
    {
        return runNodes(api, stream);
    }
    // The graph's key: the shapes, every tensor's address (the binding's stamp) and the scratch memory.
    AutoGraph::Key const key{mShapes.generation(), mBindings.stamp(), mMemory.scratch()};
    switch (mAutoGraph.choose(key, graphBlocker(stream)))
    {
    case AutoGraph::Step::kREPLAY: return withApiContext(mAutoGraph.replay(stream), api);
    case AutoGraph::Step::kCAPTURE:
        if (mAutoGraph.beginCapture(stream))
        {
            Status const ran = runNodes(api, stream);
            if (mAutoGraph.endCaptureAndLaunch(stream, ran, key))
            {
                return Status::ok();
            }
        }
        break; // nothing ran: launch the nodes plainly
    case AutoGraph::Step::kPLAIN: break;
    }
    KILN_RETURN_IF_ERROR(runNodes(api, stream));
    mAutoGraph.plainRunDone(mShapes.generation());
    return Status::ok();
}

namespace
{

//! Opens a held timer gate when a run fails before its end (the stream would otherwise wait out the gate).
struct GateGuard
{
    NodeTimer* timer;
    cudaStream_t stream;
    bool held{false};
    GateGuard(NodeTimer* t, cudaStream_t s) : timer(t), stream(s) {}
    GateGuard(GateGuard const&) = delete;
    GateGuard& operator=(GateGuard const&) = delete;
    ~GateGuard()
    {
        if (held)
        {
            (void) timer->release(stream);
        }
    }
};

} // namespace

NodeTimer* NodeScheduler::deviceTimerFor(cudaStream_t stream)
{
    // Device-side timing needs the whole run enqueued behind the gate: nothing in it may wait for the stream (plugins
    // may, and so do control flow, data-dependent shapes and debug sync), and a captured stream cannot be waited for.
    if (mProfiler == nullptr || mDebugSync || !mBackend.usesDeviceMemory() || !mPluginNodes.empty()
        || !mData.controlFlow.empty() || mData.hasDataDependentShapes || mBackend.isCapturing(stream)
        || mNodeTimerUnavailable)
    {
        return nullptr;
    }
    if (mNodeTimer == nullptr)
    {
        StatusOr<std::unique_ptr<NodeTimer>> timer = mBackend.createNodeTimer();
        if (!timer.isOk())
        {
            mNodeTimerUnavailable = true;
            mLogger.verbose("IExecutionContext " + singleQuoted(mContextName) + ": layers are timed on the host ("
                + timer.status().message() + ")");
            return nullptr;
        }
        mNodeTimer = std::move(timer).value();
    }
    return mNodeTimer.get();
}

Status NodeScheduler::runNodes(char const* api, cudaStream_t stream)
{
    Plan const& plan = mData.plan;
    if (mSession != nullptr)
    {
        mSession->beginRun();
    }
    // Loops and conditional branches (see controlFlowPlan.h), parsed when the engine was loaded.
    ControlFlowPlan const& controlFlow = mData.controlFlow;
    NodeTimer* const deviceTimer = deviceTimerFor(stream);
    bool const timing = (mProfiler != nullptr && deviceTimer == nullptr) || mDebugSync; // on the host clock
    if (mProfiler != nullptr)
    {
        mTimes.begin(plan.nodes.size());
    }
    GateGuard gate{deviceTimer, stream};
    if (deviceTimer != nullptr)
    {
        KILN_RETURN_IF_ERROR(withApiContext(deviceTimer->begin(stream, plan.nodes.size()), api));
        gate.held = true;
    }
    std::vector<LayerTimes::Clock::duration> loopTimes;
    if (mProfiler != nullptr && !controlFlow.loops.empty())
    {
        loopTimes.assign(plan.nodes.size(), LayerTimes::Clock::duration::zero());
    }
    // Loops rebind tensors as they iterate, and data-dependent shapes change within a run.
    bool const refreshAllViews = !controlFlow.loops.empty() || mData.hasDataDependentShapes;
    RunContext const runContext{stream, mMemory.scratch(), mMemory.scratchBytes()};
    auto const runNode = [&](size_t n, bool inLoop) -> Status {
        PlanNode const& node = plan.nodes[n];
        uint64_t const generation = mShapes.generation();
        // Views change with the binding (addresses) and the shapes; loop bodies get new tensors per iteration.
        if (inLoop || refreshAllViews || !mBindings.viewsCurrent(n) || mKernelGeneration[n] != generation)
        {
            mBindings.makeViews(n, mShapes.runShapes(), true);
        }
        auto& inputs = mBindings.inputs(n);
        auto& outputs = mBindings.outputs(n);
        auto const start = timing ? LayerTimes::Clock::now() : LayerTimes::Clock::time_point{};
        Status st;
        try
        {
            // Loop bodies see new shapes per iteration; elsewhere kernels reshape only after the shapes changed.
            if (inLoop || mKernelGeneration[n] != generation)
            {
                st = mKernels[n]->reshape(inputs, outputs);
                mKernelGeneration[n] = st.isOk() && !inLoop ? generation : ShapeState::kNO_GENERATION;
            }
            if (st.isOk())
            {
                st = mKernels[n]->run(inputs, outputs, runContext);
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
        if (st.isOk() && deviceTimer != nullptr)
        {
            st = deviceTimer->mark(n + 1, stream);
        }
        if (st.isOk() && !mData.nodeBindsSymbols.empty() && !mData.nodeBindsSymbols[n].empty())
        {
            st = bindSizeTensors(n, stream);
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
                mLogger.verbose("IExecutionContext " + singleQuoted(mContextName) + ": node " + singleQuoted(node.name)
                    + " (" + layerKindName(node.kind) + (node.tactic.empty() ? "" : ", tactic " + node.tactic)
                    + ") finished in " + std::to_string(std::chrono::duration<double, std::milli>(end - start).count())
                    + " ms");
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
                Status const st = runLoop(api, lp, plan, mShapes.runShapes(), mBindings.table(), runNode);
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
                auto const* where = static_cast<uint8_t const*>(mBindings.data(static_cast<size_t>(cond)));
                uint8_t flag = 0;
                if (where != nullptr)
                {
                    KILN_RETURN_IF_ERROR(mMemory.readToHost(&flag, where, 1, stream).withContext(
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
    if (deviceTimer != nullptr)
    {
        gate.held = false;
        KILN_RETURN_IF_ERROR(withApiContext(deviceTimer->release(stream), api));
        for (size_t n = 0; n < plan.nodes.size(); ++n)
        {
            StatusOr<float> const ms = deviceTimer->elapsedMs(n + 1);
            KILN_RETURN_IF_ERROR(withApiContext(ms.status(), api));
            mTimes.setMilliseconds(n, ms.value());
        }
        if (deviceTimer->gateTimedOut())
        {
            mLogger.verbose("IExecutionContext " + singleQuoted(mContextName) + ": the layer timer's gate opened on "
                "its time limit before the run was enqueued; this run's layer times include the host's launch gaps");
        }
    }
    if (mProfiler != nullptr)
    {
        mTimes.finish();
        if (mEnqueueEmitsProfile)
        {
            mTimes.report(*mProfiler, mData);
        }
    }
    return Status::ok();
}

Status NodeScheduler::bindSizeTensors(size_t n, cudaStream_t stream)
{
    Plan const& plan = mData.plan;
    ShapeGraph const& g = plan.shapes;
    std::string const who = mPlugins[n] != nullptr ? mPlugins[n]->label() : "layer " + singleQuoted(plan.nodes[n].name);
    for (int32_t s : mData.nodeBindsSymbols[n])
    {
        auto const symbol = static_cast<size_t>(s);
        auto const t = static_cast<size_t>(mData.symbolSizeTensor[symbol]);
        PlanTensor const& tensor = plan.tensors[t];
        if (mBindings.data(t) == nullptr)
        {
            return internalError(who + ": size tensor " + singleQuoted(tensor.name) + " has no memory");
        }
        uint8_t raw[8] = {};
        KILN_RETURN_IF_ERROR(mMemory.readToHost(raw, mBindings.data(t), elementSize(tensor.type), stream));
        int64_t const value = loadInt(raw, tensor.type, 0);
        int64_t const upper = mShapes.upperBound(symbol);
        if (value < 0 || value > upper)
        {
            return Status(nvinfer1::ErrorCode::kFAILED_EXECUTION, who + " wrote " + std::to_string(value)
                + " to its size tensor " + singleQuoted(tensor.name) + " (data-dependent dimension "
                + singleQuoted(g.symbols()[symbol].name) + "), outside [0, " + std::to_string(upper)
                + "]: the upper bound declared with declareSizeTensor (" + g.toString(g.symbols()[symbol].upper) + ")");
        }
        mShapes.bindRunSymbol(symbol, value);
    }
    KILN_RETURN_IF_ERROR(mShapes.evaluateRun().withContext(who + ": shapes after its size tensors were read"));
    EvaluatedShapes const& upperShapes = mShapes.current();
    EvaluatedShapes const& runShapes = mShapes.runShapes();
    for (size_t t = 0; t < plan.tensors.size(); ++t)
    {
        if (!mData.tensorDependsOnData[t])
        {
            continue;
        }
        int64_t const need = runShapes.bytes[t];
        if (need > upperShapes.bytes[t])
        {
            return invalidState(who + ": tensor " + singleQuoted(plan.tensors[t].name) + " needs " + std::to_string(need)
                + " bytes once its data-dependent dimensions are known, more than the "
                + std::to_string(upperShapes.bytes[t]) + " bytes at their upper bounds");
        }
    }
    // Folded value tensors (no producer) that depend on the new symbols get their real values.
    for (size_t t = 0; t < plan.tensors.size(); ++t)
    {
        PlanTensor const& tensor = plan.tensors[t];
        if (!tensor.hasValues || mData.producer[t] >= 0 || tensor.constant >= 0 || mBindings.data(t) == nullptr
            || tensor.ioMode == nvinfer1::TensorIOMode::kINPUT)
        {
            continue;
        }
        bool dependent = false;
        for (ExprId id : tensor.values)
        {
            dependent = dependent || mData.exprLastBinder[static_cast<size_t>(id)] == static_cast<int32_t>(n);
        }
        if (!dependent)
        {
            continue;
        }
        KILN_RETURN_IF_ERROR(mMemory.writeValues(t, mBindings.data(t), runShapes.values[t], stream));
    }
    return Status::ok();
}

void NodeScheduler::setProfiler(nvinfer1::IProfiler* profiler)
{
    mProfiler = profiler;
    mTimes.clear();
}

Status NodeScheduler::reportTimes() const
{
    if (mProfiler == nullptr)
    {
        return invalidState("IExecutionContext::reportToProfiler: no profiler is set (setProfiler)");
    }
    if (!mTimes.complete())
    {
        return invalidState("IExecutionContext::reportToProfiler: there are no layer timings yet; run enqueueV3 "
                            "or executeV2 with the profiler set first");
    }
    mTimes.report(*mProfiler, mData);
    return Status::ok();
}

} // namespace kiln
