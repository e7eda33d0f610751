// RunMemory: the memory of one execution context besides the tensors the application owns. It holds the activation
// arena (owned as the allocation strategy says, or set by the application with setDeviceMemory(V2)), the plugins'
// workspaces in it, the kernels' scratch buffer sized for the current shapes, the buffers of tensors whose shapes
// depend on data, the device copy of folded shape values (CUDA), and the output allocators with what they handed out.
// It also does the host<->device traffic of a run that is not a kernel: writing folded values, reading a device value
// the host must see. Growing a buffer or reading a value refuses to happen while the stream is captured into a graph.
#pragma once

#include "NvInferRuntime.h"
#include "backends/backend.h"
#include "core/logging.h"
#include "runtime/arena.h"
#include "runtime/deviceWeights.h"
#include "runtime/shapeBinding.h"

#include <string>
#include <vector>

namespace kiln
{

class TensorBindings;

class RunMemory
{
public:
    //! `allocator`: the engine's (nullptr on the CPU backend without one); `contextName` names the context in logs.
    RunMemory(EngineData const& data, Backend const& backend, nvinfer1::IGpuAllocator* allocator,
        nvinfer1::ExecutionContextAllocationStrategy strategy, Logger const& logger, std::string const& contextName);

    // Activation arena.
    //! Allocate the arena as the strategy says for profile 0 (nothing for kUSER_MANAGED).
    Status allocateArena();
    //! A new optimization profile: kON_PROFILE_CHANGE re-allocates the arena for it.
    Status selectProfile(int32_t profile);
    //! setDeviceMemoryV2 (`sizeGiven`) and setDeviceMemory (size unknown): use the application's memory; errors name
    //! `api`.
    Status useDeviceMemory(char const* api, void* memory, int64_t size, bool sizeGiven);
    ActivationMemory const& arena() const { return mArena; }
    //! Arena bytes `shapes` need in `profile` (the highest end of a tensor or workspace in the arena).
    int64_t requiredArenaBytes(int32_t profile, EvaluatedShapes const& shapes) const;
    //! Fail (message starting with "IExecutionContext::<api>: ") when the arena is absent or smaller than `shapes` need.
    Status checkArena(char const* api, int32_t profile, EvaluatedShapes const& shapes) const;
    //! Workspace of plugin node `node` in `profile`, nullptr when it has none.
    uint8_t* workspace(int32_t profile, size_t node) const;

    // Tensors outside the arena.
    //! Context-owned memory of a tensor whose shape depends on data (grown as needed, never while `stream` is
    //! being captured).
    StatusOr<void*> dataBuffer(size_t tensor, int64_t bytes, cudaStream_t stream);
    //! CUDA: place the internal folded value tensors in the value buffer and upload their values when they changed
    //! (profile, run symbols) since the last upload. Nothing on the CPU backend.
    Status prepareValueTensors(int32_t profile, EvaluatedShapes const& shapes, std::vector<int64_t> const& runSymbols,
        TensorBindings& bindings, cudaStream_t stream);
    //! Write the values of every tensor the binding lists as materialized (constant outputs, folded values).
    Status materializeValues(TensorBindings const& bindings, EvaluatedShapes const& shapes, DeviceWeights const* weights,
        cudaStream_t stream);
    //! Store `values` into tensor `t` at `data` (device memory on the CUDA backend).
    Status writeValues(size_t t, void* data, std::vector<int64_t> const& values, cudaStream_t stream);
    //! Copy `bytes` of device memory to `host` and wait (CUDA); plain memcpy on the CPU.
    Status readToHost(void* host, void const* src, int64_t bytes, cudaStream_t stream) const;

    // Kernels' scratch memory (shared: nodes run one after another).
    //! The scratch memory was sized for `profile` and `symbols`.
    bool scratchCurrent(int32_t profile, std::vector<int64_t> const& symbols) const
    {
        return mScratchProfile == profile && mScratchKey == symbols;
    }
    //! Hold at least `need` bytes of scratch memory, sized for `profile` and `symbols`.
    Status reserveScratch(int64_t need, int32_t profile, std::vector<int64_t> const& symbols, cudaStream_t stream);
    uint8_t* scratch() const { return mScratch.data(); }
    int64_t scratchBytes() const { return mScratchNeeded; }

    // Output allocators (per I/O position).
    nvinfer1::IOutputAllocator* outputAllocator(int32_t position) const { return mAllocators[static_cast<size_t>(position)]; }
    void setOutputAllocator(int32_t position, nvinfer1::IOutputAllocator* allocator);
    //! The application moved output `position`: what its allocator handed out before is not known to fit any more.
    void forgetAllocation(int32_t position) { mAllocatedBytes[static_cast<size_t>(position)] = 0; }
    //! Before a run: outputs with an allocator (and a shape known before the run) get memory for `shapes`; their new
    //! addresses go to `bindings`.
    Status assignOutputsFromAllocators(EvaluatedShapes const& shapes, TensorBindings& bindings, cudaStream_t stream);
    //! A data-dependent output without an allocator is written in place to the application's buffer `address`; the
    //! verbose log says once per address that the application's size (the bound is `bytes`) is trusted.
    void trustApplicationBuffer(int32_t position, std::string const& name, void* address, int64_t bytes);
    //! Output `position`'s allocator handed out `bytes` (what later runs may use without asking again).
    void recordAllocation(int32_t position, uint64_t bytes) { mAllocatedBytes[static_cast<size_t>(position)] = bytes; }

private:
    EngineData const& mData;
    Backend const& mBackend;
    nvinfer1::IGpuAllocator* mAllocator;
    nvinfer1::ExecutionContextAllocationStrategy mStrategy;
    Logger const& mLogger;
    std::string const& mContextName;

    ActivationMemory mArena;
    DeviceBuffer mScratch;
    std::vector<int64_t> mScratchKey; // symbols the scratch size was computed for
    int32_t mScratchProfile{-1};
    int64_t mScratchNeeded{0};
    std::vector<DeviceBuffer> mDataBuffers; // per tensor (device memory on the CUDA backend)
    std::vector<void*> mTrustedBuffers;     // per I/O position: the application buffer last logged as trusted
    DeviceBuffer mValueBuffer;              // CUDA: folded value tensors
    std::vector<uint8_t> mValueStaging;
    std::vector<int64_t> mValueOffsets;     // per tensor: offset in mValueBuffer, -1 when not there
    std::vector<int64_t> mValueKey;         // run symbols the value buffer holds
    uint64_t mValueStamp{~uint64_t{0}};     // the binding the value tensors' addresses were set in
    int32_t mValueProfile{-1};
    std::vector<nvinfer1::IOutputAllocator*> mAllocators;
    std::vector<uint64_t> mAllocatedBytes; // bytes last obtained from the output's allocator (0: none)
};

} // namespace kiln
