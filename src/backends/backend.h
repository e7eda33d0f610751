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
    //! Called on the running thread before a context's nodes run (CPU: gives oneDNN's OpenMP threads the pool's
    //! thread count, which OpenMP keeps per thread).
    virtual void beginRun() {}
};

//! Fusions a backend implements; the builder's fusion pass applies only these (docs/fusion.md).
enum class Fusion : uint32_t
{
    kEPILOGUE = 1U << 0,          //!< convolution / deconvolution / matrix multiply + bias or residual add + activation
    kPOINTWISE_PROGRAM = 1U << 1, //!< a chain of pointwise layers as one pointwise-program node
    kATTENTION = 1U << 2,         //!< matmul, scale, mask add, softmax, matmul as one attention node
    kGELU = 1U << 3,              //!< the erf GELU written as pointwise layers as one kGELU_ERF activation
    kRESIDUAL_NORM = 1U << 4,     //!< elementwise sum + layer norm as one normalization node (sum kept as an output)
    kINT8_CONVOLUTION = 1U << 5,  //!< DQ(x) and DQ(INT8 weights) into a convolution [+ activation] [+ Q] as one node
};

//! A tensor format that a backend's kernels of some layer kinds read and write directly, so that the builder keeps
//! activations in it between such layers, with reformat nodes at the region's boundaries (channelLastPass.cpp). CUDA:
//! kHWC8 FP16/BF16 for cuDNN's tensor-core convolutions and pooling; CPU with oneDNN: the layout oneDNN's FP32
//! convolution picks on the machine (kHWC on AVX-512 with oneDNN 2.6, kCHW16 where it picks nChw16c).
struct RegionFormat
{
    //! Kinds (bit 1 << LayerType) whose kernels run in `format`: convolution and pooling.
    uint64_t kinds{0};
    nvinfer1::TensorFormat format{nvinfer1::TensorFormat::kLINEAR};
    //! Activation types (bit 1 << DataType).
    uint32_t types{0};
    //! Every activation but an ungrouped convolution's data input must have whole vectors of channels (no padding
    //! channels); false: the kernels read and write the padding channels of `format` (oneDNN's padded blocks).
    bool wholeVectors{true};
    //! Kinds that compute element by element over equally shaped tensors (activations, unary layers, elementwise
    //! layers without broadcasting), which stay inside a region when all their inputs come from it and no tensor
    //! has padding channels.
    uint64_t agnosticKinds{0};
    //! Kinds that read a region tensor and write a linear one (CPU: the reduction of a global average pool; CUDA:
    //! the reduction over H and W of a global average pool or a squeeze-excitation mean).
    uint64_t readerKinds{0};
    //! A reader's output of extents [N, C, 1, 1] with whole vectors of channels is stored in the format when every
    //! reader of it is a region node (its bytes in kHWC8 are the linear ones, so the kernel writes the same either
    //! way): a squeeze-excitation's pooled vector then enters the region's 1x1 convolution without a reformat.
    bool readerOutputs{false};
    //! Format-agnostic elementwise layers (and fused pointwise programs) may broadcast an operand of extents
    //! [N, C, 1, 1] or [1, C, 1, 1] over the output's H and W (a squeeze-excitation's scaling): the kernels index
    //! such tensors in their storage order ([N, H, W, C] for kHWC8 without padding channels).
    bool channelBroadcast{false};
    //! A layer joins a region even when none of its neighbours does (its reformats then stand where the kernel would
    //! convert anyway: cuDNN's transposes on CUDA); false: such a lone layer stays linear (the CPU: oneDNN's own
    //! reorders cost the same as the reformats, and the plan stays smaller).
    bool loneLayers{true};

    static bool has(uint64_t mask, nvinfer1::LayerType k)
    {
        return static_cast<uint32_t>(k) < 64 && (mask & (uint64_t{1} << static_cast<uint32_t>(k))) != 0;
    }
    static uint64_t bit(nvinfer1::LayerType k) { return uint64_t{1} << static_cast<uint32_t>(k); }
};

//! What a backend offers. The builder asks these questions (and the backend's tactics) and never names a device.
struct BackendCapabilities
{
    //! Tensors live in device memory (host pointers are then only valid for shape tensors).
    bool deviceMemory{false};
    //! The builder times a node's candidate tactics on the device and keeps the fastest; otherwise the backend's
    //! first (best-ranked) tactic is taken.
    bool timesTactics{false};
    //! Runs can be captured into graphs and replayed (automatic graphs, --useCudaGraph).
    bool capturesGraphs{false};
    //! ILoop bodies run on it (the loop interpreter needs tensors in host memory).
    bool runsLoops{false};
    //! Plugins' enqueue gets host pointers: a plugin must opt in (kiln::IPluginCpuSupport) to run on it.
    bool hostPlugins{false};
    //! Fusion bits (Fusion).
    uint32_t fusions{0};
    //! Types that weakly typed layers may be lowered to under kFP16 / kBF16 (bit 1 << DataType); 0: computes in FP32.
    uint32_t reducedPrecisions{0};
    //! A tactic that needs no workspace (kept when the kWORKSPACE pool limit is 0), or nullptr.
    char const* workspaceFreeTactic{nullptr};
    //! Environment variable that forces a tactic by name for every node that has it (e.g. KILN_CPU_TACTIC), or nullptr.
    char const* forcedTacticVariable{nullptr};
    //! The format the backend keeps 4-D activations in between the layers that read and write it directly (the
    //! builder's channelLastPass; kinds 0: none). The pass still asks each node's kernel at every profile shape.
    RegionFormat region;
    //! A convolution's fused residual addition (fuse.add, of the output's shape) may share the output's arena slot
    //! when the residual dies there (the builder's inPlaceAddPass): its kernel adds into the residual where it lies.
    bool addsInPlace{false};

    bool fuses(Fusion f) const { return (fusions & static_cast<uint32_t>(f)) != 0; }
    bool lowersTo(nvinfer1::DataType t) const { return (reducedPrecisions & (1U << static_cast<uint32_t>(t))) != 0; }
    bool runsInRegion(nvinfer1::LayerType k) const { return RegionFormat::has(region.kinds, k); }
};

//! A run captured from a stream and instantiated (a CUDA graph), replayable on any stream of its device.
class CapturedRun
{
public:
    virtual ~CapturedRun() = default;
    virtual Status launch(cudaStream_t stream) = 0;
};

enum class CopyKind : int32_t
{
    kHOST_TO_DEVICE,
    kDEVICE_TO_HOST,
    kDEVICE_TO_DEVICE,
};

//! Device-side layer timing for a profiler, on backends whose kernels run asynchronously on a device. The runtime
//! holds the stream behind a gate while it enqueues one run, records a mark after every node, then opens the gate and
//! waits: a node's time is the device time between the mark before it and its own, without the host's launch gaps
//! and without a synchronisation per node (which is what timing on the host measures instead).
class NodeTimer
{
public:
    virtual ~NodeTimer() = default;
    //! Hold `stream` until release() (or a time limit, so that work that waits for the stream cannot hang the
    //! run) and record mark 0 on it. `marks` more marks follow.
    virtual Status begin(cudaStream_t stream, size_t marks) = 0;
    //! Record mark `index` (1 to `marks`) on `stream`.
    virtual Status mark(size_t index, cudaStream_t stream) = 0;
    //! Open the gate and wait until `stream` finished.
    virtual Status release(cudaStream_t stream) = 0;
    //! After release: device milliseconds between mark `index - 1` and mark `index`.
    virtual StatusOr<float> elapsedMs(size_t index) const = 0;
    //! True when the gate opened on its time limit, before release: the times then include the host's gaps.
    virtual bool gateTimedOut() const = 0;
};

class Backend;
class Logger;
//! "the CPU backend", "the CUDA backend": the backend's name for messages.
std::string backendDisplayName(Backend const& backend);

class Backend
{
public:
    virtual ~Backend() = default;
    //! The name recorded in the engine ("cpu", "cuda", ...); used in messages and to find the backend at load.
    virtual char const* name() const = 0;
    virtual BackendCapabilities const& capabilities() const = 0;
    //! Makes `logger` this thread's verbose log in the backend's code (core/verboseLog.h; a backend in its own module
    //! holds its own copy of it) and returns the previous one. Kernels that choose by timing report there.
    virtual Logger const* exchangeVerboseLogger(Logger const* logger) const;
    //! Makes `recorder` this thread's recorder of the choices the backend's kernels make by timing (entries that the
    //! builder stores in the node's "autotune" attribute and the backend imports when it creates the node's kernel at
    //! load, so that loading does not time again) and returns the previous one. Backends that time nothing: none.
    virtual std::vector<std::string>* exchangeTuningRecorder(std::vector<std::string>* /*recorder*/) const
    {
        return nullptr;
    }
    //! True when tensors live in device memory (host pointers are then only valid for shape tensors).
    bool usesDeviceMemory() const { return capabilities().deviceMemory; }
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
    //! A device-side layer timer (NodeTimer), or unsupported where kernels run on the host (the CPU backend: the
    //! runtime times its nodes on the host clock).
    virtual StatusOr<std::unique_ptr<NodeTimer>> createNodeTimer() const
    {
        return unsupported(backendDisplayName(*this) + " has no device-side layer timer");
    }
    //! True when `stream` is being captured into a CUDA graph (operations that synchronise must then refuse).
    virtual bool isCapturing(cudaStream_t stream) const = 0;
    //! The device current for the calling thread (-1 on the CPU).
    virtual int32_t currentDevice() const = 0;

    //! Start capturing the work this thread enqueues on `stream` (backends whose capabilities().capturesGraphs).
    virtual Status beginCapture(cudaStream_t /*stream*/) const
    {
        return unsupported(backendDisplayName(*this) + " cannot capture runs");
    }
    //! End the capture on `stream` and make it replayable. With `previous`, updates it in place when the new capture
    //! has the same structure (cheaper than a new instantiation) and returns it. Fails, with the capture ended and
    //! nothing kept, when the captured work was invalid (e.g. something synchronised the stream while capturing).
    virtual StatusOr<std::unique_ptr<CapturedRun>> endCapture(
        cudaStream_t /*stream*/, std::unique_ptr<CapturedRun> /*previous*/) const
    {
        return unsupported(backendDisplayName(*this) + " cannot capture runs");
    }
};

//! The CPU backend (always available; the reference the other backends are checked against).
Backend const& cpuBackend();
//! The CUDA backend: loads libkiln_cuda.so on first use (next to libkiln, then the library search path, or the file
//! named by KILN_CUDA_BACKEND) and checks that a device is present. The error says why it is unavailable.
StatusOr<Backend const*> cudaBackend();
//! The backend recorded in an engine under `name`.
StatusOr<Backend const*> backendNamed(std::string const& name);

//! Entry point of libkiln_cuda.so (C linkage so that dlsym finds it). Returns nullptr and fills `error` when
//! unusable (e.g. no device). `abiVersion` must equal kBACKEND_ABI_VERSION.
using CreateBackendFn = Backend const* (*)(int32_t abiVersion, char* error, int64_t errorSize);
constexpr int32_t kBACKEND_ABI_VERSION = 6; // 4: BackendCapabilities::region and addsInPlace, KernelSetup::constantInputs;
                                            // 5: RegionFormat::readerOutputs and channelBroadcast,
                                            // Backend::exchangeVerboseLogger and exchangeTuningRecorder;
                                            // 6: Backend::createNodeTimer
constexpr char const* kCUDA_BACKEND_ENTRY = "kilnCreateCudaBackend";

} // namespace kiln
