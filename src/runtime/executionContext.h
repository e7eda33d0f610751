// ExecutionContext: Kiln's IExecutionContext (either backend). It owns everything a run mutates — one backend
// Kernel per plan node, the activation arena, input shapes, tensor addresses, the evaluated shapes and the layer
// timings — so contexts of one engine run concurrently on different threads without locks.
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
#include "runtime/arena.h"
#include "runtime/autoGraph.h"
#include "runtime/enginePlugins.h"
#include "runtime/errorRecorderRef.h"
#include "runtime/pluginResourceContext.h"
#include "runtime/profiling.h"
#include "runtime/runtimeConfig.h"
#include "runtime/shapeBinding.h"

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
    AutoGraph& autoGraph() { return mAutoGraph; }
    AutoGraph const& autoGraph() const { return mAutoGraph; }
    //! Shapes of every tensor for the current inputs, or nullptr when they cannot be computed yet.
    EvaluatedShapes const* currentShapes() const;

private:
    ExecutionContext(Engine const& engine, nvinfer1::ExecutionContextAllocationStrategy strategy);
    //! attachToContext for every plugin node (the context's own plugin objects and their kernel bindings).
    Status attachPlugins();
    Status createKernels();

    void report(Status const& status) const { mLogger.report(status, mRecorder.get()); }
    //! I/O position of `name` or -1 (reported, naming `api`).
    int32_t lookup(char const* api, char const* name) const;
    //! Bind and (if the binding changed) evaluate shapes for `addresses`. Missing inputs are left in mMissing.
    Status prepareShapes(std::vector<void const*> const& addresses) const;
    //! prepareShapes with the context's own addresses.
    Status prepareShapes() const;
    //! Error naming the inputs in mMissing.
    Status missingInputsError(char const* api) const;
    //! Arena bytes the evaluated shapes need (highest end of a tensor in the arena).
    int64_t requiredArenaBytes() const;
    //! Write shape-tensor output values (known from shape inference) to their host buffers.
    void writeShapeOutputs(std::vector<void*> const& addresses) const;

    //! The body of enqueueV3 (bindings == nullptr) and executeV2.
    Status run(char const* api, void* const* bindings, cudaStream_t stream);
    Status assignOutputsFromAllocators(cudaStream_t stream);
    Status bindTensorMemory(char const* api, std::vector<void*> const& addresses);
    Status materializeValues(cudaStream_t stream);
    Status runNodes(char const* api, cudaStream_t stream);
    //! runNodes, or the automatic CUDA graph's capture or replay of it (enqueueV3 only: `mayUseGraph`).
    Status launchNodes(char const* api, cudaStream_t stream, bool mayUseGraph);
    //! Why this run cannot be captured into a graph, or empty.
    std::string graphBlocker(cudaStream_t stream) const;
    //! View of tensor `t` for the run in progress (empty for an absent optional input).
    TensorView runView(int32_t t) const;
    //! Scratch memory for the kernels (sized for the current shapes, grown outside runs being captured).
    Status prepareScratch(cudaStream_t stream);
    //! Device copies of folded value tensors (CUDA backend), rewritten when their values change.
    Status prepareValueTensors(cudaStream_t stream);
    //! Store `values` into tensor `t` (its memory is device memory on the CUDA backend).
    Status writeValues(size_t t, std::vector<int64_t> const& values, cudaStream_t stream);
    //! Copy `bytes` of device memory to `host` and wait (CUDA); plain memcpy on the CPU.
    Status readToHost(void* host, void const* src, int64_t bytes, cudaStream_t stream) const;

    // Data-dependent shapes (executionContextData.cpp).
    //! Refuse runs that cannot deliver data-dependent outputs (executeV2, outputs with neither an IOutputAllocator
    //! nor an address).
    Status checkDataDependentOutputs(char const* api, bool hasBindings) const;
    //! True (and a verbose line) when tensor `tensor` is a data-dependent output without an IOutputAllocator that is
    //! written in place to the application's buffer at `addresses`.
    bool usesApplicationBuffer(size_t tensor, std::vector<void*> const& addresses);
    //! Context-owned memory of a tensor outside the arena whose shape depends on data (grown as needed).
    StatusOr<void*> dataBuffer(size_t tensor, int64_t bytes);
    //! After node `n` ran: read the size tensors it wrote, bind their symbols and re-evaluate the shapes.
    Status bindSizeTensors(size_t n);
    //! After the run: check the constraints that involve data-dependent symbols, and hand outputs with
    //! data-dependent shapes to their output allocators (reallocateOutputAsync, copy, notifyShape).
    Status finishDataDependentRun(char const* api, cudaStream_t stream);
    //! Shape of I/O tensor `tensor` as getTensorShape reports it: -1 for extents known only after a run, the
    //! last run's extents when the inputs did not change since.
    nvinfer1::Dims reportedShape(int32_t tensor) const;
    //! Shapes of the run in progress (the upper-bound shapes until a size tensor is read).
    EvaluatedShapes const& runShapes() const { return mRunBound ? mRunShapes : mShapesNow; }

    Engine const& mEngine;
    std::shared_ptr<EngineData const> mData;
    std::shared_ptr<Logger const> mLoggerHolder;
    Logger const& mLogger;
    ErrorRecorderRef mRecorder;
    nvinfer1::ExecutionContextAllocationStrategy mStrategy;
    std::unique_ptr<RuntimeConfig> mConfig;
    std::string mName;
    int32_t mProfile{0};

    //! Shapes change → the generation grows; a kernel whose generation differs reshapes before it runs.
    static constexpr uint64_t kNO_GENERATION = ~uint64_t{0};
    mutable uint64_t mShapeGeneration{0};

    // Per I/O position.
    std::vector<InputShape> mShapes; // inputs only
    std::vector<void*> mAddresses;
    std::vector<nvinfer1::IOutputAllocator*> mAllocators;
    //! Per I/O position: the application buffer last logged as trusted (usesApplicationBuffer).
    std::vector<void*> mTrustedBuffers;
    std::vector<uint64_t> mAllocatedBytes; // bytes last obtained from the output's allocator (0: none)

    // Shape cache (mutable: const queries such as getTensorShape evaluate on demand).
    mutable EvaluatedShapes mShapesNow;
    mutable std::vector<int64_t> mSymbols;
    mutable std::vector<int32_t> mMissing;
    mutable std::vector<void const*> mConstAddresses;
    mutable BindScratch mBindScratch;

    // Execution state. The plugin members come before the kernels (which point into the bindings), the engine's
    // plugins and the resource context before the context's own plugins (destroyed in reverse order).
    ActivationMemory mMemory;
    std::shared_ptr<EnginePlugins> mEnginePlugins;
    std::unique_ptr<PluginResourceContext> mPluginResources;
    std::vector<std::unique_ptr<PluginAdapter>> mPlugins;        // per node: the context's plugin, else nullptr
    std::vector<std::unique_ptr<PluginBinding>> mPluginBindings; // per node
    Backend const& mBackend;
    std::unique_ptr<BackendSession> mSession;
    std::shared_ptr<DeviceWeights const> mDeviceWeights;
    std::vector<std::unique_ptr<Kernel>> mKernels;
    std::vector<size_t> mPluginNodes; // nodes with a plugin binding
    AutoGraph mAutoGraph;
    std::string mGraphBlocker;        // why this engine's runs can never be captured (empty: they can)
    std::vector<void*> mGraphKey;
    // The binding of tensor memory (bindTensorMemory), kept while shapes, profile, memory and I/O addresses stand.
    std::vector<void*> mBindKey;
    std::vector<void*> mBoundKey;
    uint64_t mBoundGeneration{kNO_GENERATION};
    uint64_t mViewStamp{0};               // grows with every new binding
    std::vector<uint64_t> mNodeViewStamp; // per node: the binding its views were made from
    std::vector<size_t> mMaterialized;    // tensors whose values each run writes (materializeValues)
    std::vector<uint64_t> mKernelGeneration;
    DeviceBuffer mScratch;                 // kernels' workspace (shared: nodes run one after another)
    std::vector<int64_t> mScratchKey;      // symbols the scratch size was computed for
    int32_t mScratchProfile{-1};
    int64_t mScratchNeeded{0};
    DeviceBuffer mValueBuffer;             // CUDA: folded value tensors
    std::vector<uint8_t> mValueStaging;
    std::vector<int64_t> mValueOffsets;    // per tensor: offset in mValueBuffer, -1 when not there
    std::vector<int64_t> mValueKey;        // run symbols the value buffer holds
    uint64_t mValueStamp{~uint64_t{0}};    // the binding (mViewStamp) the value tensors' addresses were set in
    int32_t mValueProfile{-1};
    cudaStream_t mRunStream{nullptr};
    std::vector<std::vector<TensorView>> mNodeInputs;
    std::vector<std::vector<TensorView>> mNodeOutputs;
    std::vector<void*> mTensorData; // per tensor, for the current run
    std::vector<void*> mRunAddresses;

    // Data-dependent shapes.
    mutable std::vector<int64_t> mBoundSymbols; // mSymbols with data-dependent symbols at their upper bounds
    std::vector<int64_t> mRunSymbols;           // during a run: symbols bound so far
    EvaluatedShapes mRunShapes;                 // during a run: shapes once a size tensor was read
    bool mRunBound{false};                      // mRunShapes is current
    mutable std::vector<int64_t> mScratchValues;
    std::vector<DeviceBuffer> mDataBuffers;        // per tensor (device memory on the CUDA backend)
    std::vector<nvinfer1::Dims> mLastRunDims;      // per tensor: extents after the last successful run
    std::vector<int64_t> mLastRunKey;              // input binding of that run (empty: none)
    int32_t mLastRunProfile{-1};

    // Settings.
    nvinfer1::IProfiler* mProfiler{nullptr};
    LayerTimes mTimes;
    bool mEnqueueEmitsProfile{true};
    bool mDebugSync{false};
    size_t mPersistentCacheLimit{0};
    nvinfer1::ProfilingVerbosity mNvtxVerbosity;
    nvinfer1::IDebugListener* mDebugListener{nullptr};
    nvinfer1::IGpuAllocator* mTemporaryAllocator{nullptr};
    cudaEvent_t mInputConsumedEvent{nullptr};
};

} // namespace kiln
