// The CPU backend behind the Backend interface: the kernel table's kernels (returned as they are), host memory,
// synchronous copies.
#include "backends/backend.h"
#include "backends/cpu/cpuKernel.h"
#include "backends/cpu/kernels/convolutionCommon.h"
#include "backends/cpu/kernels/oneDnnFormats.h"

#include "network/inferContext.h"
#include "backends/hostMemoryBackend.h"
#include "core/threadPool.h"

#include <cstring>
#include <dlfcn.h>

namespace kiln
{

// oneDNN runs on OpenMP, whose thread count is a per-thread setting. The OpenMP runtime is the one oneDNN loaded
// (found by name, so Kiln needs no OpenMP to build). The count stays within OpenMP's thread limit (OMP_THREAD_LIMIT):
// oneDNN splits its work for omp_get_max_threads() threads, and a parallel region that the limit gives fewer threads
// would leave the other threads' parts uncomputed (wrong outputs, no error).
void applyCpuOpenMpThreads()
{
    using SetThreadsFn = void (*)(int);
    using GetLimitFn = int (*)();
    static auto const setThreads = reinterpret_cast<SetThreadsFn>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
    static auto const getLimit = reinterpret_cast<GetLimitFn>(dlsym(RTLD_DEFAULT, "omp_get_thread_limit"));
    thread_local int32_t applied = 0;
    int32_t threads = cpuThreadPool().threads();
    if (getLimit != nullptr)
    {
        int const limit = getLimit();
        threads = limit >= 1 && limit < threads ? limit : threads;
    }
    if (setThreads != nullptr && threads != applied)
    {
        setThreads(threads);
        applied = threads;
    }
}

namespace
{

class CpuSession final : public BackendSession
{
public:
    StatusOr<std::unique_ptr<Kernel>> createKernel(KernelSetup const& setup) override
    {
        PlanNode const& node = *setup.node;
        KernelFactory const factory = cpuKernelFactory(node.kind);
        if (factory == nullptr)
        {
            return unsupported(std::string("the CPU backend does not implement ") + layerKindName(node.kind) + " layers");
        }
        KILN_RETURN_IF_ERROR(checkKernelFormats(setup));
        KILN_ASSIGN_OR_RETURN(std::unique_ptr<Kernel> kernel, factory(setup));
        if (kernel == nullptr)
        {
            return internalError(std::string("the CPU kernel factory of ") + layerKindName(node.kind) + " returned no kernel");
        }
        return kernel;
    }

    void beginRun() override { applyCpuOpenMpThreads(); }
};

class CpuBackend final : public HostMemoryBackend
{
public:
    char const* name() const override { return "cpu"; }
    BackendCapabilities const& capabilities() const override
    {
        static BackendCapabilities const caps = [] {
            BackendCapabilities c;
            c.runsLoops = true;
            c.hostPlugins = true;
            c.workspaceFreeTactic = "reference";
            c.forcedTacticVariable = "KILN_CPU_TACTIC";
            // Convolution, deconvolution and matrix multiply epilogues run as oneDNN post-ops (oneDnnEpilogue.h).
            // Pointwise programs stay off: the CPU interpreter measured no clear gain over the separate kernels
            // (docs/fusion.md). Exported erf GELUs become one activation, which the epilogue then takes into the
            // matrix multiply before it (oneDNN's gelu_erf post-op).
            c.fusions = static_cast<uint32_t>(Fusion::kEPILOGUE) | static_cast<uint32_t>(Fusion::kGELU);
            // Q/DQ convolutions run as oneDNN INT8 convolutions (convolutionInt8.cpp) where oneDNN is built in.
            if (oneDnnBuilt())
            {
                c.fusions |= static_cast<uint32_t>(Fusion::kINT8_CONVOLUTION);
            }
            // A residual convolution writes into its residual's memory when the residual dies there: oneDNN's sum
            // post-op then finds it in the destination instead of copying it there first (convolution.cpp).
            c.addsInPlace = true;
            // FP32 (and BF16, below) convolution and pooling keep their activations in the layout oneDNN's
            // convolution picks (kHWC with oneDNN 2.6 on AVX-512): oneDNN would otherwise reorder NCHW data to it and
            // back around every call. Activations, unary and same-shape elementwise layers compute element by element in any format
            // without padding channels; a global average pool's reduction reads the format and writes kLINEAR.
            nvinfer1::TensorFormat const region = cpuRegionFormat();
            if (region != nvinfer1::TensorFormat::kLINEAR)
            {
                using nvinfer1::LayerType;
                c.region.kinds = RegionFormat::bit(LayerType::kCONVOLUTION) | RegionFormat::bit(LayerType::kPOOLING);
                c.region.format = region;
                c.region.types = 1U << static_cast<uint32_t>(nvinfer1::DataType::kFLOAT);
                if (cpuRegionHoldsBf16())
                {
                    // BF16 (lowered under kBF16) where oneDNN's native BF16 convolution picks the same layout: without
                    // it every BF16 convolution reordered its input to that layout and its output back (ResNet-50
                    // batch 1, one thread: 10 of 27 ms).
                    c.region.types |= 1U << static_cast<uint32_t>(nvinfer1::DataType::kBF16);
                }
                c.region.wholeVectors = false;
                c.region.agnosticKinds = RegionFormat::bit(LayerType::kACTIVATION) | RegionFormat::bit(LayerType::kUNARY)
                    | RegionFormat::bit(LayerType::kELEMENTWISE);
                c.region.readerKinds = RegionFormat::bit(LayerType::kREDUCE);
                c.region.loneLayers = false;
            }
            return c;
        }();
        return caps;
    }
    std::string deviceName() const override { return "host CPU"; }

    bool implements(nvinfer1::LayerType kind) const override
    {
        return isPluginKind(kind) || cpuKernelFactory(kind) != nullptr;
    }
    std::vector<std::string> tactics(KernelSetup const& setup) const override
    {
        if (isPluginKind(setup.node->kind))
        {
            return {"plugin"};
        }
        CpuTacticsFn const fn = cpuKernelTactics(setup.node->kind);
        return fn == nullptr || cpuKernelFactory(setup.node->kind) == nullptr ? std::vector<std::string>{} : fn(setup);
    }
    StatusOr<std::unique_ptr<BackendSession>> createSession() const override
    {
        return std::unique_ptr<BackendSession>(std::make_unique<CpuSession>());
    }

};

} // namespace

Backend const& cpuBackend()
{
    static CpuBackend const backend;
    return backend;
}

} // namespace kiln
