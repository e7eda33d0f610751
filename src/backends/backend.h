// Backend: what the builder and the runtime ask of a backend (CPU or CUDA), so that neither names a device.
// A backend says which layers it can run and with which tactics, creates one kernel per plan node per execution
// context, and owns memory movement (copies, synchronisation, events) for engines built for it. The CPU backend is
// part of libkiln (backends/cpu/cpuBackend.cpp); the CUDA backend lives in the module libkiln_cuda.so, loaded on
// demand (backends/backendRegistry.cpp), so libkiln loads on machines without CUDA.
#pragma once

#include "backends/kernel.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln
{

//! Per execution context (or per build) state of a backend: library handles, caches. Kernels made by a session
//! must not outlive it.
class BackendSession
{
public:
    virtual ~BackendSession() = default;
    //! The kernel of `setup.node` with its recorded tactic. Plugin nodes are not asked: the runtime gives them the
    //! kernel of backends/common/pluginKernel.h, which calls the plugin's enqueue with this backend's pointers.
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

    //! True when the backend has kernels for layers of `kind` (with some types).
    virtual bool implements(nvinfer1::LayerType kind) const = 0;
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
