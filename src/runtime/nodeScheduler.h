// NodeScheduler: the nodes of one execution context and their running. It holds one backend Kernel per plan node
// (created once with the context, plugin nodes with the context's own plugin object attached), reshapes a kernel
// before it runs when the shape generation changed, and runs the nodes in order: loops through loopRunner,
// conditional branches by reading their condition, size tensors of data-dependent shapes binding their symbols as
// they are written. It times each layer for a profiler (on the device where the backend has a NodeTimer, else on the
// host clock with a synchronisation per node; debug sync always on the host), and on a backend that captures graphs it
// replays an automatic CUDA graph of the run when shapes and addresses repeat (autoGraph.h).
#pragma once

#include "NvInferRuntime.h"
#include "backends/backend.h"
#include "core/logging.h"
#include "runtime/autoGraph.h"
#include "runtime/enginePlugins.h"
#include "runtime/errorRecorderRef.h"
#include "runtime/pluginResourceContext.h"
#include "runtime/profiling.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln
{

class Engine;
class RunMemory;
class ShapeState;
class TensorBindings;

//! `status`, with "IExecutionContext::<api>" as its context when it failed (the text is built only then, so that the
//! run path builds no strings).
inline Status withApiContext(Status status, char const* api)
{
    return status.isOk() ? status : status.withContext(std::string("IExecutionContext::") + api);
}

class NodeScheduler
{
public:
    //! The parts the scheduler reads and writes while it runs belong to the same context and outlive it.
    NodeScheduler(Engine const& engine, ErrorRecorderRef const& recorder, std::string const& contextName,
        ShapeState& shapes, TensorBindings& bindings, RunMemory& memory);

    //! attachToContext for every plugin node, then every node's kernel. Fails naming the node.
    Status create();
    //! Before the nodes run on `stream`: scratch memory for the current shapes, plugin workspaces and stream.
    Status prepare(cudaStream_t stream);
    //! Run every node on `stream`, or the automatic CUDA graph's capture or replay of them (`mayUseGraph`: enqueueV3).
    //! Errors start with "IExecutionContext::<api>: ".
    Status launch(char const* api, cudaStream_t stream, bool mayUseGraph);

    //! Automatic CUDA graphs for this context (kiln::setAutoCudaGraphs).
    AutoGraph& autoGraph() { return mAutoGraph; }
    AutoGraph const& autoGraph() const { return mAutoGraph; }

    // Profiling and debugging hooks.
    void setProfiler(nvinfer1::IProfiler* profiler);
    nvinfer1::IProfiler* profiler() const { return mProfiler; }
    void setDebugSync(bool sync) { mDebugSync = sync; }
    bool debugSync() const { return mDebugSync; }
    void setEnqueueEmitsProfile(bool emits) { mEnqueueEmitsProfile = emits; }
    bool enqueueEmitsProfile() const { return mEnqueueEmitsProfile; }
    void setDebugListener(nvinfer1::IDebugListener* listener) { mDebugListener = listener; }
    nvinfer1::IDebugListener* debugListener() const { return mDebugListener; }
    //! Forget the last run's layer timings (a new profile or profiler).
    void clearTimes() { mTimes.clear(); }
    //! reportToProfiler: give the last run's layer timings to the profiler.
    Status reportTimes() const;

private:
    Status attachPlugins();
    Status createKernels();
    Status runNodes(char const* api, cudaStream_t stream);
    //! Why this run cannot be captured into a graph (a static string, or the engine's reason), or nullptr.
    char const* graphBlocker(cudaStream_t stream) const;
    //! The device-side layer timer for this run on `stream`, or nullptr when the layers are timed on the host (no
    //! profiler, the CPU backend, or a run in which something may wait for the stream).
    NodeTimer* deviceTimerFor(cudaStream_t stream);
    //! After node `n` ran: read the size tensors it wrote, bind their symbols and re-evaluate the shapes.
    Status bindSizeTensors(size_t n, cudaStream_t stream);

    Engine const& mEngine;
    EngineData const& mData;
    Logger const& mLogger;
    ErrorRecorderRef const& mRecorder;
    std::string const& mContextName;
    Backend const& mBackend;
    ShapeState& mShapes;
    TensorBindings& mBindings;
    RunMemory& mMemory;

    // The plugin members come before the kernels (which point into the bindings), the engine's plugins and the
    // resource context before the context's own plugins (destroyed in reverse order).
    std::shared_ptr<EnginePlugins> mEnginePlugins;
    std::unique_ptr<PluginResourceContext> mPluginResources;
    std::vector<std::unique_ptr<PluginAdapter>> mPlugins;        // per node: the context's plugin, else nullptr
    std::vector<std::unique_ptr<PluginBinding>> mPluginBindings; // per node
    std::vector<size_t> mPluginNodes;                            // nodes with a plugin binding
    uint64_t mWorkspaceStamp{~uint64_t{0}};                      // the binding the plugin workspaces were set in
    std::unique_ptr<BackendSession> mSession;
    std::vector<std::unique_ptr<Kernel>> mKernels;
    std::vector<uint64_t> mKernelGeneration; // per node: the shape generation it reshaped for
    AutoGraph mAutoGraph;
    std::string mGraphBlocker; // why this engine's runs can never be captured (empty: they can)

    nvinfer1::IProfiler* mProfiler{nullptr};
    LayerTimes mTimes;
    std::unique_ptr<NodeTimer> mNodeTimer; // device-side layer timing (created with the first profiled run)
    bool mNodeTimerUnavailable{false};     // the backend has none: time on the host
    bool mEnqueueEmitsProfile{true};
    bool mDebugSync{false};
    nvinfer1::IDebugListener* mDebugListener{nullptr};
};

} // namespace kiln
