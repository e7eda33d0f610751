// ExecutionContext: Kiln's IExecutionContext (either backend), a thin facade over the four parts that hold what a
// run mutates, so that contexts of one engine run concurrently on different threads without locks:
//   ShapeState      (shapeState.h)      the profile, input shapes, symbols, evaluated shapes and their generation;
//   TensorBindings  (tensorBindings.h)  the one address table: application I/O addresses, every tensor's address
//                                       for the run, the kernels' views;
//   RunMemory       (runMemory.h)       the activation arena (or the application's setDeviceMemoryV2), workspaces,
//                                       scratch, data-dependent and folded-value buffers, output allocators;
//   NodeScheduler   (nodeScheduler.h)   the per-node kernels and plugins, reshape on a new shape generation, the run
//                                       loop (loops, conditionals), profiling hooks and automatic CUDA graphs.
// The facade checks the API's arguments, keeps the plain settings and sequences a run (run(), executionContextRun.cpp).
//
// CPU backend: enqueueV3() executes synchronously on the calling thread; its stream argument is only passed on to
// plugins' enqueue(); "device memory" is host memory; input-consumed events are not supported.
// CUDA backend: enqueueV3() launches every node on the given stream and returns without waiting, except where the
// host needs a value computed on the device (size tensors of data-dependent shapes, conditions of IIfConditional,
// assertion layers), where it synchronises the stream. Shape-tensor values live in host memory; constant tensors
// point into the engine's device weights; folded value tensors live in a context buffer written when they change.
//
// Plugins: each plugin node gets the context's own plugin object at creation (attachToContext) and is detached and
// destroyed with the context. Data-dependent shapes (plugin size tensors): shapes are first evaluated with every
// data-dependent symbol at its upper bound; tensors depending on such symbols live in context-owned buffers of
// that size; after the node writing a size tensor ran, its value binds the symbol and the remaining shapes are
// re-evaluated. Network outputs with data-dependent shapes go to their IOutputAllocator after the run, or, without
// one, are written in place to the buffer the application bound (it answers for the size).
#pragma once

#include "NvInferRuntime.h"
#include "backends/backend.h"
#include "runtime/deviceWeights.h"
#include "core/logging.h"
#include "runtime/errorRecorderRef.h"
#include "runtime/nodeScheduler.h"
#include "runtime/runMemory.h"
#include "runtime/runtimeConfig.h"
#include "runtime/shapeState.h"
#include "runtime/tensorBindings.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln
{

class Engine;

class ExecutionContext final : public nvinfer1::IExecutionContext
{
public:
    //! Create a context with profile 0 selected: builds every node's kernel and allocates the arena as the
    //! strategy says. Fails (naming the node) when a kernel is missing or cannot be created.
    static StatusOr<std::unique_ptr<ExecutionContext>> create(
        Engine const& engine, nvinfer1::ExecutionContextAllocationStrategy strategy);
    ~ExecutionContext() noexcept override = default;

    void setDebugSync(bool sync) noexcept override;
    bool getDebugSync() const noexcept override;
    void setProfiler(nvinfer1::IProfiler* profiler) noexcept override;
    nvinfer1::IProfiler* getProfiler() const noexcept override;
    nvinfer1::ICudaEngine const& getEngine() const noexcept override;
    void setName(char const* name) noexcept override;
    char const* getName() const noexcept override;
    void setDeviceMemory(void* memory) noexcept override;
    void setDeviceMemoryV2(void* memory, int64_t size) noexcept override;
    nvinfer1::Dims getTensorStrides(char const* tensorName) const noexcept override;
    int32_t getOptimizationProfile() const noexcept override;
    bool setInputShape(char const* tensorName, nvinfer1::Dims const& dims) noexcept override;
    nvinfer1::Dims getTensorShape(char const* tensorName) const noexcept override;
    bool allInputDimensionsSpecified() const noexcept override;
    bool allInputShapesSpecified() const noexcept override;
    void setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept override;
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override;
    bool executeV2(void* const* bindings) noexcept override;
    bool setOptimizationProfileAsync(int32_t profileIndex, cudaStream_t stream) noexcept override;
    void setEnqueueEmitsProfile(bool enqueueEmitsProfile) noexcept override;
    bool getEnqueueEmitsProfile() const noexcept override;
    bool reportToProfiler() const noexcept override;
    bool setTensorAddress(char const* tensorName, void* data) noexcept override;
    void const* getTensorAddress(char const* tensorName) const noexcept override;
    bool setOutputTensorAddress(char const* tensorName, void* data) noexcept override;
    bool setInputTensorAddress(char const* tensorName, void const* data) noexcept override;
    void* getOutputTensorAddress(char const* tensorName) const noexcept override;
    int32_t inferShapes(int32_t nbMaxNames, char const** tensorNames) noexcept override;
    size_t updateDeviceMemorySizeForShapes() noexcept override;
    bool setInputConsumedEvent(cudaEvent_t event) noexcept override;
    cudaEvent_t getInputConsumedEvent() const noexcept override;
    bool setOutputAllocator(char const* tensorName, nvinfer1::IOutputAllocator* outputAllocator) noexcept override;
    nvinfer1::IOutputAllocator* getOutputAllocator(char const* tensorName) const noexcept override;
    int64_t getMaxOutputSize(char const* tensorName) const noexcept override;
    bool setTemporaryStorageAllocator(nvinfer1::IGpuAllocator* allocator) noexcept override;
    nvinfer1::IGpuAllocator* getTemporaryStorageAllocator() const noexcept override;
    bool enqueueV3(cudaStream_t stream) noexcept override;
    void setPersistentCacheLimit(size_t size) noexcept override;
    size_t getPersistentCacheLimit() const noexcept override;
    bool setNvtxVerbosity(nvinfer1::ProfilingVerbosity verbosity) noexcept override;
    nvinfer1::ProfilingVerbosity getNvtxVerbosity() const noexcept override;
    void setAuxStreams(cudaStream_t* auxStreams, int32_t nbStreams) noexcept override;
    bool setDebugListener(nvinfer1::IDebugListener* listener) noexcept override;
    nvinfer1::IDebugListener* getDebugListener() noexcept override;
    bool setTensorDebugState(char const* name, bool flag) noexcept override;
    bool getDebugState(char const* name) const noexcept override;
    nvinfer1::IRuntimeConfig* getRuntimeConfig() const noexcept override;
    bool setAllTensorsDebugState(bool flag) noexcept override;
    bool setUnfusedTensorsDebugState(bool flag) noexcept override;
    bool getUnfusedTensorsDebugState() const noexcept override;
    bool setCommunicator(void* communicator) noexcept override;

    // Kiln-internal.
    Engine const& engine() const { return mEngine; }
    //! Automatic CUDA graphs for this context (kiln::setAutoCudaGraphs).
    AutoGraph& autoGraph() { return mScheduler.autoGraph(); }
    AutoGraph const& autoGraph() const { return mScheduler.autoGraph(); }
    //! Shapes of every tensor for the current inputs, or nullptr when they cannot be computed yet.
    EvaluatedShapes const* currentShapes() const;

private:
    ExecutionContext(Engine const& engine, nvinfer1::ExecutionContextAllocationStrategy strategy);

    void report(Status const& status) const { mLogger.report(status, mRecorder.get()); }
    //! I/O position of `name` or -1 (reported, naming `api`).
    int32_t lookup(char const* api, char const* name) const;
    //! Shapes for the application's own addresses (missing inputs are left in mShapes.missing()).
    Status prepareShapes() const { return mShapes.prepare(mBindings.ioTable()); }

    //! The body of enqueueV3 (bindings == nullptr) and executeV2.
    Status run(char const* api, void* const* bindings, cudaStream_t stream);

    // Data-dependent shapes (executionContextData.cpp).
    //! Refuse runs that cannot deliver data-dependent outputs (executeV2, outputs without an IOutputAllocator).
    Status checkDataDependentOutputs(char const* api, bool hasBindings) const;
    //! After the run: check the constraints that involve data-dependent symbols, and hand outputs with
    //! data-dependent shapes to their output allocators (reallocateOutputAsync, copy, notifyShape).
    Status finishDataDependentRun(char const* api, cudaStream_t stream);

    Engine const& mEngine;
    std::shared_ptr<EngineData const> mData;
    std::shared_ptr<Logger const> mLoggerHolder;
    Logger const& mLogger;
    ErrorRecorderRef mRecorder;
    std::unique_ptr<RuntimeConfig> mConfig;
    std::string mName;
    std::shared_ptr<DeviceWeights const> mDeviceWeights;

    // The parts, in the order they depend on each other (the scheduler, destroyed first, uses the other three).
    ShapeState mShapes;
    RunMemory mMemory;
    TensorBindings mBindings;
    NodeScheduler mScheduler;

    // Settings.
    size_t mPersistentCacheLimit{0};
    nvinfer1::ProfilingVerbosity mNvtxVerbosity;
    nvinfer1::IGpuAllocator* mTemporaryAllocator{nullptr};
    cudaEvent_t mInputConsumedEvent{nullptr};
};

} // namespace kiln
