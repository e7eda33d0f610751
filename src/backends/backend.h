// Backend: what the builder and the runtime ask of a backend (CPU or CUDA), so that neither names a device.
// A backend says which layers it can run and with which tactics, creates one kernel per plan node per execution
// context, and owns memory movement (copies, synchronisation, events) for engines built for it. The CPU backend is
// part of libkiln (backends/cpu/cpuBackend.cpp); the CUDA backend lives in the module libkiln_cuda.so, loaded on
// demand (backends/backendRegistry.cpp), so libkiln loads on machines without CUDA.
#pragma once

#include "backends/cpu/cpuKernel.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln
{

//! What a kernel gets for one run besides its tensors.
struct RunContext
{
    cudaStream_t stream{nullptr}; //!< the enqueueV3 stream (CPU backend: passed on to plugins only)
    void* workspace{nullptr};     //!< at least the kernel's workspaceSize(), 256-byte aligned (device memory on CUDA)
    int64_t workspaceBytes{0};
};

//! One plan node's implementation in one execution context.
class Kernel
{
public:
    virtual ~Kernel() = default;
    //! Scratch memory needed for these shapes (asked with the profile's largest shapes when planning).
    virtual int64_t workspaceSize(std::vector<TensorView> const& /*inputs*/, std::vector<TensorView> const& /*outputs*/) const
    {
        return 0;
    }
    //! Run (CPU) or launch on ctx.stream (CUDA). Inputs/outputs follow the node's slots and carry their final shapes;
    //! data pointers are in the backend's memory, TensorView::values are host pointers.
    virtual Status execute(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) = 0;
};

//! Per execution context (or per build) state of a backend: library handles, caches. Kernels made by a session
//! must not outlive it.
class BackendSession
{
public:
    virtual ~BackendSession() = default;
    //! The kernel of `setup.node` with its recorded tactic. Plugin nodes are not asked: the runtime runs them itself.
    virtual StatusOr<std::unique_ptr<Kernel>> createKernel(KernelSetup const& setup) = 0;
};

enum class CopyKind : int32_t
{
    kHOST_TO_DEVICE,
    kDEVICE_TO_HOST,
    kDEVICE_TO_DEVICE,
};

class Backend
{
public:
    virtual ~Backend() = default;
    //! "cpu" or "cuda": the name recorded in the engine.
    virtual char const* name() const = 0;
    //! True when tensors live in device memory (host pointers are then only valid for shape tensors).
    virtual bool usesDeviceMemory() const = 0;
    //! Human-readable description of the device, e.g. "NVIDIA H200 (sm_90, 139 GiB)" or "host CPU".
    virtual std::string deviceName() const = 0;

    //! Candidate tactics for a node, best first; empty = the backend cannot run it with these types.
    virtual std::vector<std::string> tactics(KernelSetup const& setup) const = 0;
    virtual StatusOr<std::unique_ptr<BackendSession>> createSession() const = 0;

    //! The allocator used when the application set none (CUDA: stream-ordered cudaMallocAsync; CPU: aligned host).
    virtual nvinfer1::IGpuAllocator& defaultAllocator() const = 0;
    //! Copy `bytes` on `stream` (asynchronous on CUDA; a host→device copy from pageable memory may return before it
    //! completes but the source may be reused at once).
    virtual Status copy(void* dst, void const* src, int64_t bytes, CopyKind kind, cudaStream_t stream) const = 0;
    virtual Status memset(void* dst, int32_t value, int64_t bytes, cudaStream_t stream) const = 0;
    //! Wait until all work on `stream` finished.
    virtual Status synchronize(cudaStream_t stream) const = 0;
    //! Record `event` on `stream` (CPU: unsupported).
    virtual Status recordEvent(cudaEvent_t event, cudaStream_t stream) const = 0;
    //! True when `stream` is being captured into a CUDA graph (operations that synchronise must then refuse).
    virtual bool isCapturing(cudaStream_t stream) const = 0;
    //! The device current for the calling thread (-1 on the CPU).
    virtual int32_t currentDevice() const = 0;
};

//! The CPU backend (always available).
Backend const& cpuBackend();
//! The CUDA backend: loads libkiln_cuda.so on first use (next to libkiln, then the library search path, or the file
//! named by KILN_CUDA_BACKEND) and checks that a device is present. The error says why it is unavailable.
StatusOr<Backend const*> cudaBackend();
//! The backend recorded in an engine under `name`.
StatusOr<Backend const*> backendNamed(std::string const& name);

//! Entry point of libkiln_cuda.so (C linkage so that dlsym finds it). Returns nullptr and fills `error` when
//! unusable (e.g. no device). `abiVersion` must equal kBACKEND_ABI_VERSION.
using CreateBackendFn = Backend const* (*)(int32_t abiVersion, char* error, int64_t errorSize);
constexpr int32_t kBACKEND_ABI_VERSION = 1;
constexpr char const* kCUDA_BACKEND_ENTRY = "kilnCreateCudaBackend";

} // namespace kiln
