// The CUDA runtime calls of kilnexec (deviceRuntime.h): real calls when built with CUDA, failing stubs otherwise.
#include "deviceRuntime.h"

#if KILNEXEC_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include <cstdio>

namespace kilnexec
{
namespace cuda
{

#if KILNEXEC_HAVE_CUDA

namespace
{

bool check(cudaError_t status, char const* call, std::string& error)
{
    if (status == cudaSuccess)
    {
        return true;
    }
    error = std::string(call) + " failed: " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")";
    return false;
}

} // namespace

bool built()
{
    return true;
}

bool deviceCount(int32_t& count, std::string& error)
{
    int n = 0;
    count = 0;
    if (!check(cudaGetDeviceCount(&n), "cudaGetDeviceCount", error))
    {
        return false;
    }
    count = n;
    return true;
}

bool setDevice(int32_t index, std::string& error)
{
    return check(cudaSetDevice(index), ("cudaSetDevice(" + std::to_string(index) + ")").c_str(), error);
}

std::string deviceDescription(int32_t index)
{
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, index) != cudaSuccess)
    {
        takeLastError();
        return "";
    }
    int driver = 0;
    int runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    char text[512];
    std::snprintf(text, sizeof(text), "%s (device %d, sm_%d%d, %d SMs, %.1f GiB, CUDA driver %d.%d / runtime %d.%d)",
        prop.name, index, prop.major, prop.minor, prop.multiProcessorCount,
        static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0), driver / 1000, (driver % 1000) / 10,
        runtime / 1000, (runtime % 1000) / 10);
    return text;
}

int32_t currentDevice()
{
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess)
    {
        takeLastError();
        return 0;
    }
    return device;
}

std::string takeLastError()
{
    cudaError_t const status = cudaGetLastError();
    return status == cudaSuccess ? std::string() : std::string(cudaGetErrorName(status));
}

std::shared_ptr<void> deviceAlloc(size_t bytes, std::string& error)
{
    void* memory = nullptr;
    if (!check(cudaMalloc(&memory, bytes == 0 ? 1 : bytes), ("cudaMalloc(" + std::to_string(bytes) + ")").c_str(),
            error))
    {
        return nullptr;
    }
    return std::shared_ptr<void>(memory, [](void* p) { cudaFree(p); });
}

std::shared_ptr<void> pinnedAlloc(size_t bytes, std::string& error)
{
    void* memory = nullptr;
    if (!check(cudaMallocHost(&memory, bytes == 0 ? 1 : bytes),
            ("cudaMallocHost(" + std::to_string(bytes) + ")").c_str(), error))
    {
        return nullptr;
    }
    return std::shared_ptr<void>(memory, [](void* p) { cudaFreeHost(p); });
}

bool memsetSync(void* device, int32_t value, size_t bytes, std::string& error)
{
    return check(cudaMemset(device, value, bytes), "cudaMemset", error);
}

bool copyAsync(void* dst, void const* src, size_t bytes, CopyKind kind, cudaStream_t stream, std::string& error)
{
    if (bytes == 0)
    {
        return true;
    }
    cudaMemcpyKind const direction
        = kind == CopyKind::kHOST_TO_DEVICE ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    return check(cudaMemcpyAsync(dst, src, bytes, direction, stream), "cudaMemcpyAsync", error);
}

bool streamSynchronize(cudaStream_t stream, std::string& error)
{
    return check(cudaStreamSynchronize(stream), "cudaStreamSynchronize", error);
}

Stream::~Stream()
{
    if (mStream != nullptr)
    {
        cudaStreamDestroy(mStream);
    }
}

bool Stream::create(std::string& error)
{
    return check(cudaStreamCreateWithFlags(&mStream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags", error);
}

bool Stream::synchronize(std::string& error) const
{
    return check(cudaStreamSynchronize(mStream), "cudaStreamSynchronize", error);
}

Event::~Event()
{
    if (mEvent != nullptr)
    {
        cudaEventDestroy(mEvent);
    }
}

bool Event::create(std::string& error)
{
    return check(cudaEventCreate(&mEvent), "cudaEventCreate", error);
}

bool Event::record(cudaStream_t stream, std::string& error)
{
    return check(cudaEventRecord(mEvent, stream), "cudaEventRecord", error);
}

bool Event::synchronize(std::string& error) const
{
    return check(cudaEventSynchronize(mEvent), "cudaEventSynchronize", error);
}

bool Event::elapsedMs(Event const& start, Event const& end, float& ms, std::string& error)
{
    ms = 0.0F;
    return check(cudaEventElapsedTime(&ms, start.mEvent, end.mEvent), "cudaEventElapsedTime", error);
}

Graph::~Graph()
{
    if (mExec != nullptr)
    {
        cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(mExec));
    }
    if (mGraph != nullptr)
    {
        cudaGraphDestroy(static_cast<cudaGraph_t>(mGraph));
    }
}

bool Graph::beginCapture(cudaStream_t stream, std::string& error)
{
    return check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture", error);
}

bool Graph::endCapture(cudaStream_t stream, std::string& error)
{
    cudaGraph_t graph = nullptr;
    bool const ended = check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture", error);
    mGraph = graph;
    if (ended && graph == nullptr)
    {
        error = "cudaStreamEndCapture returned no graph";
        return false;
    }
    return ended;
}

bool Graph::instantiate(std::string& error)
{
    cudaGraphExec_t exec = nullptr;
    bool const ok = check(cudaGraphInstantiate(&exec, static_cast<cudaGraph_t>(mGraph), 0ULL), "cudaGraphInstantiate",
        error);
    mExec = ok ? exec : nullptr;
    return ok;
}

bool Graph::launch(cudaStream_t stream, std::string& error)
{
    return check(cudaGraphLaunch(static_cast<cudaGraphExec_t>(mExec), stream), "cudaGraphLaunch", error);
}

#else // !KILNEXEC_HAVE_CUDA

namespace
{

bool noCuda(std::string& error)
{
    error = "kilnexec was built without CUDA";
    return false;
}

} // namespace

bool built()
{
    return false;
}

bool deviceCount(int32_t& count, std::string& error)
{
    count = 0;
    return noCuda(error);
}

bool setDevice(int32_t /*index*/, std::string& error)
{
    return noCuda(error);
}

std::string deviceDescription(int32_t /*index*/)
{
    return "";
}

int32_t currentDevice()
{
    return 0;
}

std::string takeLastError()
{
    return "";
}

std::shared_ptr<void> deviceAlloc(size_t /*bytes*/, std::string& error)
{
    noCuda(error);
    return nullptr;
}

std::shared_ptr<void> pinnedAlloc(size_t /*bytes*/, std::string& error)
{
    noCuda(error);
    return nullptr;
}

bool memsetSync(void* /*device*/, int32_t /*value*/, size_t /*bytes*/, std::string& error)
{
    return noCuda(error);
}

bool copyAsync(void* /*dst*/, void const* /*src*/, size_t /*bytes*/, CopyKind /*kind*/, cudaStream_t /*stream*/,
    std::string& error)
{
    return noCuda(error);
}

bool streamSynchronize(cudaStream_t /*stream*/, std::string& error)
{
    return noCuda(error);
}

Stream::~Stream() = default;

bool Stream::create(std::string& error)
{
    return noCuda(error);
}

bool Stream::synchronize(std::string& error) const
{
    return noCuda(error);
}

Event::~Event() = default;

bool Event::create(std::string& error)
{
    return noCuda(error);
}

bool Event::record(cudaStream_t /*stream*/, std::string& error)
{
    return noCuda(error);
}

bool Event::synchronize(std::string& error) const
{
    return noCuda(error);
}

bool Event::elapsedMs(Event const& /*start*/, Event const& /*end*/, float& ms, std::string& error)
{
    ms = 0.0F;
    return noCuda(error);
}

Graph::~Graph() = default;

bool Graph::beginCapture(cudaStream_t /*stream*/, std::string& error)
{
    return noCuda(error);
}

bool Graph::endCapture(cudaStream_t /*stream*/, std::string& error)
{
    return noCuda(error);
}

bool Graph::instantiate(std::string& error)
{
    return noCuda(error);
}

bool Graph::launch(cudaStream_t /*stream*/, std::string& error)
{
    return noCuda(error);
}

#endif // KILNEXEC_HAVE_CUDA

} // namespace cuda
} // namespace kilnexec
