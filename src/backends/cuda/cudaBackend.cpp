// The CUDA backend behind the Backend interface (backends/backend.h), and the entry point of the module
// libkiln_cuda.so that libkiln loads with dlopen. Kernels come from the CUDA kernel table and run on the stream of
// the run; memory is device memory; copies are cudaMemcpyAsync on the run's stream.
#include "backends/backend.h"
#include "backends/cuda/cudaCheck.h"
#include "backends/cuda/cudaKernel.h"
#include "backends/cuda/cudaLibraries.h"
#include "backends/cuda/kernels/autotune.h"
#include "backends/cuda/nodeTimer.h"
#include "core/verboseLog.h"
#include "network/inferContext.h"

#include <cuda_runtime_api.h>

#include <cstring>
#include <string>

namespace kiln::cuda
{

namespace
{

//! The default device allocator: cudaMalloc for allocate(), stream-ordered cudaMallocAsync for allocateAsync().
class CudaDefaultAllocator final : public nvinfer1::IGpuAllocator
{
public:
    void* allocate(uint64_t const size, uint64_t const, nvinfer1::AllocatorFlags const) noexcept override
    {
        void* p = nullptr;
        // cudaMalloc returns 256-byte aligned memory, which covers every alignment Kiln asks for.
        return cudaMalloc(&p, size == 0 ? 1 : size) == cudaSuccess ? p : nullptr;
    }
    bool deallocate(void* const memory) noexcept override
    {
        return memory == nullptr || cudaFree(memory) == cudaSuccess;
    }
    void* allocateAsync(uint64_t const size, uint64_t const, nvinfer1::AllocatorFlags const,
        cudaStream_t stream) noexcept override
    {
        void* p = nullptr;
        return cudaMallocAsync(&p, size == 0 ? 1 : size, stream) == cudaSuccess ? p : nullptr;
    }
    bool deallocateAsync(void* const memory, cudaStream_t stream) noexcept override
    {
        return memory == nullptr || cudaFreeAsync(memory, stream) == cudaSuccess;
    }
};

//! One execution context's (or the builder's tactic timing's) kernels: each gets the session's library handles as
//! KernelSetup::sessionState and is returned as the factory made it.
class CudaSession final : public BackendSession
{
public:
    StatusOr<std::unique_ptr<Kernel>> createKernel(KernelSetup const& setup) override
    {
        PlanNode const& node = *setup.node;
        KernelFactory const factory = cudaKernelFactory(node.kind);
        if (factory == nullptr)
        {
            return unsupported(std::string("the CUDA backend does not implement ") + layerKindName(node.kind)
                + " layers yet");
        }
        KILN_RETURN_IF_ERROR(checkKernelFormats(setup));
        // Choices the builder recorded by timing (kernels/autotune.h): the kernel's reshape takes them instead of timing.
        if (std::string const recorded = node.attrs.getString("autotune"); !recorded.empty())
        {
            importTuning(recorded);
        }
        KernelSetup withLibraries = setup;
        withLibraries.sessionState = &mLibraries;
        KILN_ASSIGN_OR_RETURN(std::unique_ptr<Kernel> kernel, factory(withLibraries));
        if (kernel == nullptr)
        {
            return internalError(std::string("the CUDA kernel factory of ") + layerKindName(node.kind)
                + " returned no kernel");
        }
        return kernel;
    }

private:
    CudaLibraries mLibraries; //!< kernels keep its address (they do not outlive the session)
};

//! An instantiated CUDA graph.
class CudaCapturedRun final : public CapturedRun
{
public:
    explicit CudaCapturedRun(cudaGraphExec_t exec)
        : mExec(exec)
    {
    }
    ~CudaCapturedRun() override { cudaGraphExecDestroy(mExec); }
    CudaCapturedRun(CudaCapturedRun const&) = delete;
    CudaCapturedRun& operator=(CudaCapturedRun const&) = delete;
    Status launch(cudaStream_t stream) override { return cudaStatus(cudaGraphLaunch(mExec, stream), "cudaGraphLaunch"); }
    cudaGraphExec_t exec() const { return mExec; }

private:
    cudaGraphExec_t mExec;
};

cudaMemcpyKind memcpyKind(CopyKind kind)
{
    switch (kind)
    {
    case CopyKind::kHOST_TO_DEVICE: return cudaMemcpyHostToDevice;
    case CopyKind::kDEVICE_TO_HOST: return cudaMemcpyDeviceToHost;
    case CopyKind::kDEVICE_TO_DEVICE: return cudaMemcpyDeviceToDevice;
    }
    return cudaMemcpyDefault;
}

class CudaBackend final : public Backend
{
public:
    explicit CudaBackend(std::string deviceName)
        : mDeviceName(std::move(deviceName))
    {
    }
    char const* name() const override { return "cuda"; }
    //! This module's own thread-local verbose log (the kernels' autotuning reports there).
    Logger const* exchangeVerboseLogger(Logger const* logger) const override
    {
        return exchangeThreadVerboseLogger(logger);
    }
    std::vector<std::string>* exchangeTuningRecorder(std::vector<std::string>* recorder) const override
    {
        return ::kiln::cuda::exchangeTuningRecorder(recorder); // the module's own (kernels/autotune.h)
    }
    BackendCapabilities const& capabilities() const override
    {
        static BackendCapabilities const caps = [] {
            BackendCapabilities c;
            c.deviceMemory = true;
            c.timesTactics = true;
            c.capturesGraphs = true;
            // Attention: cuDNN's flash attention for FP16/BF16 (the fusion asks the kernel for each candidate). GELU:
            // the erf GELU's five layers become one activation, which the matrix multiply's epilogue then takes
            // (cuBLASLt's GELU epilogue in FP16/BF16).
            c.fusions = static_cast<uint32_t>(Fusion::kEPILOGUE) | static_cast<uint32_t>(Fusion::kPOINTWISE_PROGRAM)
                | static_cast<uint32_t>(Fusion::kATTENTION) | static_cast<uint32_t>(Fusion::kGELU)
                | static_cast<uint32_t>(Fusion::kRESIDUAL_NORM);
            c.reducedPrecisions = (1U << static_cast<uint32_t>(nvinfer1::DataType::kHALF))
                | (1U << static_cast<uint32_t>(nvinfer1::DataType::kBF16));
            // cuDNN's tensor-core convolutions read NHWC: NCHW tensors cost a transpose of the data before and of
            // the result after each convolution (and its fused NHWC engines take the residual addition).
            c.region.kinds = RegionFormat::bit(nvinfer1::LayerType::kCONVOLUTION)
                | RegionFormat::bit(nvinfer1::LayerType::kPOOLING);
            c.region.format = nvinfer1::TensorFormat::kHWC8;
            c.region.types = c.reducedPrecisions;
            // Element-by-element kernels over equally shaped tensors without padding channels compute the same in any
            // layout: activations, unary layers, elementwise layers and fused pointwise programs (MobileNetV3's
            // hard-swish, EfficientNet's SiLU) stay between the convolutions instead of reformatting around them.
            c.region.agnosticKinds = RegionFormat::bit(nvinfer1::LayerType::kACTIVATION)
                | RegionFormat::bit(nvinfer1::LayerType::kUNARY) | RegionFormat::bit(nvinfer1::LayerType::kELEMENTWISE);
            // Squeeze-excitation blocks stay in kHWC8: the reduction over H and W (global average pooling) reads it
            // (reduce.cu's channel-vector kernel) and writes its [N, C, 1, 1] mean in it when only region nodes read
            // it, and the scaling x * s broadcasts s [N, C, 1, 1] in storage order (elementWise.cu,
            // pointwiseProgram.cu).
            c.region.readerKinds = RegionFormat::bit(nvinfer1::LayerType::kREDUCE);
            c.region.readerOutputs = true;
            c.region.channelBroadcast = true;
            return c;
        }();
        return caps;
    }
    std::string deviceName() const override { return mDeviceName; }

    bool implements(nvinfer1::LayerType kind) const override
    {
        return isPluginKind(kind) || cudaKernelFactory(kind) != nullptr;
    }
    std::vector<std::string> tactics(KernelSetup const& setup) const override
    {
        if (isPluginKind(setup.node->kind))
        {
            return {"plugin"};
        }
        CudaTacticsFn const fn = cudaKernelTactics(setup.node->kind);
        return fn == nullptr || cudaKernelFactory(setup.node->kind) == nullptr ? std::vector<std::string>{} : fn(setup);
    }
    StatusOr<std::unique_ptr<BackendSession>> createSession() const override
    {
        return std::unique_ptr<BackendSession>(std::make_unique<CudaSession>());
    }

    nvinfer1::IGpuAllocator& defaultAllocator() const override { return mAllocator; }
    Status copy(void* dst, void const* src, int64_t bytes, CopyKind kind, cudaStream_t stream) const override
    {
        if (bytes <= 0)
        {
            return Status::ok();
        }
        return cudaStatus(cudaMemcpyAsync(dst, src, static_cast<size_t>(bytes), memcpyKind(kind), stream), "cudaMemcpyAsync");
    }
    Status memset(void* dst, int32_t value, int64_t bytes, cudaStream_t stream) const override
    {
        if (bytes <= 0)
        {
            return Status::ok();
        }
        return cudaStatus(cudaMemsetAsync(dst, value, static_cast<size_t>(bytes), stream), "cudaMemsetAsync");
    }
    Status synchronize(cudaStream_t stream) const override
    {
        KILN_CUDA_CHECK(cudaStreamSynchronize(stream));
        // Every launch before this point has finished without a fault. A non-sticky error still recorded as the
        // runtime's last error comes from a host-side call that its caller already handled or ignored (a library's
        // setup: MobileNetV3's and EfficientNet's first timed kernel, the depthwise convolution, reported such a
        // cudaErrorInvalidValue as its own launch failure and lost the timing); clear it so that it is not.
        (void) cudaGetLastError();
        return Status::ok();
    }
    Status recordEvent(cudaEvent_t event, cudaStream_t stream) const override
    {
        return cudaStatus(cudaEventRecord(event, stream), "cudaEventRecord");
    }
    StatusOr<std::unique_ptr<NodeTimer>> createNodeTimer() const override { return createCudaNodeTimer(); }
    bool isCapturing(cudaStream_t stream) const override
    {
        cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
        return cudaStreamIsCapturing(stream, &status) == cudaSuccess && status != cudaStreamCaptureStatusNone;
    }
    int32_t currentDevice() const override
    {
        int device = -1;
        return cudaGetDevice(&device) == cudaSuccess ? device : -1;
    }

    Status beginCapture(cudaStream_t stream) const override
    {
        // Thread-local mode: work other threads enqueue meanwhile is not affected, and this thread's calls that
        // cannot be captured (synchronisation, allocation) fail instead of being silently reordered.
        return cudaStatus(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    }
    StatusOr<std::unique_ptr<CapturedRun>> endCapture(cudaStream_t stream, std::unique_ptr<CapturedRun> previous) const override
    {
        cudaGraph_t graph = nullptr;
        cudaError_t const ended = cudaStreamEndCapture(stream, &graph);
        if (ended != cudaSuccess || graph == nullptr)
        {
            cudaGetLastError(); // the capture error is not sticky: clear it for the plain run that follows
            return unsupported(std::string("the captured work was invalid (") + cudaGetErrorString(ended)
                + "): something in the run cannot be captured, such as a plugin that synchronises");
        }
        if (previous != nullptr)
        {
            cudaGraphExecUpdateResultInfo info{};
            auto* const captured = static_cast<CudaCapturedRun*>(previous.get());
            if (cudaGraphExecUpdate(captured->exec(), graph, &info) == cudaSuccess)
            {
                cudaGraphDestroy(graph);
                return previous;
            }
            cudaGetLastError(); // a structural change: instantiate anew
        }
        cudaGraphExec_t exec = nullptr;
        cudaError_t const made = cudaGraphInstantiate(&exec, graph, 0);
        cudaGraphDestroy(graph);
        if (made != cudaSuccess)
        {
            cudaGetLastError();
            return unsupported(std::string("cudaGraphInstantiate failed: ") + cudaGetErrorString(made));
        }
        return std::unique_ptr<CapturedRun>(std::make_unique<CudaCapturedRun>(exec));
    }

private:
    std::string mDeviceName;
    mutable CudaDefaultAllocator mAllocator;
};

void writeError(char* error, int64_t size, std::string const& text)
{
    if (error == nullptr || size <= 0)
    {
        return;
    }
    size_t const n = std::min(text.size(), static_cast<size_t>(size - 1));
    std::memcpy(error, text.data(), n);
    error[n] = '\0';
}

} // namespace

} // namespace kiln::cuda

extern "C" __attribute__((visibility("default"))) kiln::Backend const* kilnCreateCudaBackend(
    int32_t abiVersion, char* error, int64_t errorSize)
{
    using namespace kiln::cuda;
    try
    {
        if (abiVersion != kiln::kBACKEND_ABI_VERSION)
        {
            writeError(error, errorSize, "libkiln_cuda.so implements backend ABI " + std::to_string(kiln::kBACKEND_ABI_VERSION)
                + " but libkiln asks for " + std::to_string(abiVersion) + " (mixed Kiln installations?)");
            return nullptr;
        }
        int count = 0;
        cudaError_t const err = cudaGetDeviceCount(&count);
        if (err != cudaSuccess || count == 0)
        {
            writeError(error, errorSize, err != cudaSuccess
                    ? std::string("no usable CUDA device: cudaGetDeviceCount failed: ") + cudaGetErrorString(err)
                    : std::string("no CUDA device is present"));
            return nullptr;
        }
        int device = 0;
        cudaGetDevice(&device);
        cudaDeviceProp prop{};
        std::string name = "CUDA device " + std::to_string(device);
        if (cudaGetDeviceProperties(&prop, device) == cudaSuccess)
        {
            name = std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", "
                + std::to_string(prop.totalGlobalMem >> 30) + " GiB)";
        }
        static CudaBackend const* backend = new CudaBackend(name); // lives as long as the process
        return backend;
    }
    catch (...)
    {
        writeError(error, errorSize, "the CUDA backend failed to start (exception)");
        return nullptr;
    }
}
