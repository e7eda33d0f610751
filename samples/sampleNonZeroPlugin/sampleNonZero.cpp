// sampleNonZero.cpp — SampleNonZeroPlugin (see sampleNonZero.h): build, then inference with application-sized
// output buffers and no IOutputAllocator, checked against a plain C++ NonZero.
#include "sampleNonZero.h"

#include "samplePluginUtils.h"
#include "samplePlugins.h"

#include <kiln/KilnBackend.h>

#if KILN_SAMPLE_PLUGINS_CUDA
#include <cuda_runtime_api.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <utility>

namespace samples
{
namespace
{

using namespace nvinfer1;

char const* const kINPUT = "Input";
char const* const kINDICES = "Indices";
char const* const kCOUNT = "Count";

//! One I/O buffer: host bytes, mirrored in device memory on SampleDevice::kCUDA (like the samples' BufferManager).
class SampleBuffer
{
public:
    SampleBuffer(SampleDevice device, size_t bytes)
        : mCuda(device == SampleDevice::kCUDA)
        , mHost(bytes == 0 ? 1 : bytes)
    {
#if KILN_SAMPLE_PLUGINS_CUDA
        if (mCuda && cudaMalloc(&mDeviceMemory, mHost.size()) != cudaSuccess)
        {
            mDeviceMemory = nullptr;
        }
#endif
    }
    ~SampleBuffer()
    {
#if KILN_SAMPLE_PLUGINS_CUDA
        if (mDeviceMemory != nullptr)
        {
            cudaFree(mDeviceMemory);
        }
#endif
    }
    SampleBuffer(SampleBuffer const&) = delete;
    SampleBuffer& operator=(SampleBuffer const&) = delete;

    bool valid() const { return !mCuda || mDeviceMemory != nullptr; }
    //! The address bound with setTensorAddress.
    void* binding() { return mCuda ? mDeviceMemory : mHost.data(); }
    template <typename T>
    T* host()
    {
        return reinterpret_cast<T*>(mHost.data());
    }
    size_t bytes() const { return mHost.size(); }
    //! Host -> device (nothing to do on the CPU).
    bool upload(cudaStream_t stream) { return transfer(true, stream); }
    //! Device -> host (nothing to do on the CPU).
    bool download(cudaStream_t stream) { return transfer(false, stream); }

private:
    bool transfer(bool toDevice, cudaStream_t stream)
    {
        if (!mCuda)
        {
            return true;
        }
#if KILN_SAMPLE_PLUGINS_CUDA
        cudaMemcpyKind const kind = toDevice ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
        void* dst = toDevice ? mDeviceMemory : static_cast<void*>(mHost.data());
        void const* src = toDevice ? static_cast<void const*>(mHost.data()) : mDeviceMemory;
        return cudaMemcpyAsync(dst, src, mHost.size(), kind, stream) == cudaSuccess && cudaStreamSynchronize(stream) == cudaSuccess;
#else
        (void) toDevice;
        (void) stream;
        return false;
#endif
    }

    bool mCuda;
    std::vector<uint8_t> mHost;
    void* mDeviceMemory{nullptr};
};

std::string dimsText(Dims const& d)
{
    std::string text = "[";
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        text += (i > 0 ? "," : "") + std::to_string(d.d[i]);
    }
    return text + "]";
}

} // namespace

SampleNonZeroPlugin::SampleNonZeroPlugin(SampleNonZeroParams params, ILogger& logger)
    : mParams(std::move(params))
    , mLogger(logger)
{
}

SampleNonZeroPlugin::~SampleNonZeroPlugin() = default;

bool SampleNonZeroPlugin::fail(std::string message)
{
    mError = std::move(message);
    return false;
}

bool SampleNonZeroPlugin::build()
{
    if (!registerSamplePlugins())
    {
        return fail("registerSamplePlugins failed");
    }
#if !KILN_SAMPLE_PLUGINS_CUDA
    if (mParams.device == SampleDevice::kCUDA)
    {
        return fail("the sample plugins were built without their CUDA path (no CUDA toolkit)");
    }
#endif
    std::unique_ptr<IBuilder> builder(createInferBuilder(mLogger));
    if (builder == nullptr)
    {
        return fail("createInferBuilder failed");
    }
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    auto* creator = dynamic_cast<IPluginCreatorV3One*>(getPluginRegistry()->getCreator("NonZeroPlugin", "1", kSAMPLE_NAMESPACE));
    if (network == nullptr || config == nullptr || creator == nullptr)
    {
        return fail("no network, builder config or NonZeroPlugin creator");
    }
    PluginFieldCollection none{0, nullptr};
    std::unique_ptr<IPluginV3> plugin(creator->createPlugin("NonZeroPlugin", &none, TensorRTPhase::kBUILD));
    ITensor* input = network->addInput(kINPUT, DataType::kFLOAT, dims2(-1, mParams.cols));
    IPluginV3Layer* layer = plugin == nullptr || input == nullptr ? nullptr : network->addPluginV3(&input, 1, nullptr, 0, *plugin);
    if (layer == nullptr)
    {
        return fail("addPluginV3 failed");
    }
    layer->setName("NonZero");
    layer->getOutput(0)->setName(kINDICES);
    layer->getOutput(1)->setName(kCOUNT);
    network->markOutput(*layer->getOutput(0));
    network->markOutput(*layer->getOutput(1));

    IOptimizationProfile* profile = builder->createOptimizationProfile();
    profile->setDimensions(kINPUT, OptProfileSelector::kMIN, dims2(1, mParams.cols));
    profile->setDimensions(kINPUT, OptProfileSelector::kOPT, dims2(std::max<int64_t>(1, mParams.maxRows / 2), mParams.cols));
    profile->setDimensions(kINPUT, OptProfileSelector::kMAX, dims2(mParams.maxRows, mParams.cols));
    config->addOptimizationProfile(profile);
    kiln::setBuilderBackend(
        config.get(), mParams.device == SampleDevice::kCUDA ? kiln::BackendKind::kCUDA : kiln::BackendKind::kCPU);

    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    if (plan == nullptr)
    {
        return fail("buildSerializedNetwork failed");
    }
    mRuntime.reset(createInferRuntime(mLogger));
    mEngine.reset(mRuntime == nullptr ? nullptr : mRuntime->deserializeCudaEngine(plan->data(), plan->size()));
    return mEngine != nullptr || fail("deserializeCudaEngine failed");
}

bool SampleNonZeroPlugin::infer()
{
    if (mEngine == nullptr)
    {
        return fail("infer() before a successful build()");
    }
    std::unique_ptr<IExecutionContext> context(mEngine->createExecutionContext());
    if (context == nullptr)
    {
        return fail("createExecutionContext failed");
    }
    uint32_t seed = mParams.seed;
    for (auto const& [rows, density] : mParams.runs)
    {
        if (!inferOnce(*context, rows, density, seed++))
        {
            return false;
        }
    }
    return true;
}

bool SampleNonZeroPlugin::inferOnce(IExecutionContext& context, int64_t rows, double density, uint32_t seed)
{
    std::string const run = "rows " + std::to_string(rows) + ": ";
    int64_t const cols = mParams.cols;
    if (!context.setInputShape(kINPUT, dims2(rows, cols)))
    {
        return fail(run + "setInputShape failed");
    }
    // The application sizes the outputs itself: at most rows * cols non-zero elements, two indices each.
    size_t const indicesBytes = static_cast<size_t>(2 * rows * cols) * sizeof(int32_t);
    int64_t const maxOutputSize = context.getMaxOutputSize(kINDICES);
    if (maxOutputSize < 0 || static_cast<size_t>(maxOutputSize) > indicesBytes)
    {
        return fail(run + "getMaxOutputSize(Indices) = " + std::to_string(maxOutputSize) + " exceeds the "
            + std::to_string(indicesBytes) + " bytes the application reserved");
    }
    SampleBuffer input(mParams.device, static_cast<size_t>(rows * cols) * sizeof(float));
    SampleBuffer indices(mParams.device, indicesBytes);
    SampleBuffer count(mParams.device, sizeof(int32_t));
    if (!input.valid() || !indices.valid() || !count.valid())
    {
        return fail(run + "out of memory for the I/O buffers");
    }

    // Random input with about `density` non-zero values; the reference NonZero in row-major order.
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> value(0.25F, 4.0F);
    std::bernoulli_distribution keep(density);
    std::vector<int32_t> refRows;
    std::vector<int32_t> refCols;
    for (int64_t i = 0; i < rows * cols; ++i)
    {
        float const v = keep(rng) ? (i % 2 == 0 ? value(rng) : -value(rng)) : 0.0F;
        input.host<float>()[i] = v;
        if (v != 0.0F)
        {
            refRows.push_back(static_cast<int32_t>(i / cols));
            refCols.push_back(static_cast<int32_t>(i % cols));
        }
    }
    auto const k = static_cast<int64_t>(refRows.size());
    std::memset(indices.host<uint8_t>(), 0xA5, indices.bytes()); // poison: stale values must not pass the check
    *count.host<int32_t>() = -1;

    cudaStream_t stream = nullptr;
#if KILN_SAMPLE_PLUGINS_CUDA
    if (mParams.device == SampleDevice::kCUDA && cudaStreamCreate(&stream) != cudaSuccess)
    {
        return fail(run + "cudaStreamCreate failed");
    }
#endif
    bool const ran = input.upload(stream) && indices.upload(stream) && count.upload(stream)
        && context.setTensorAddress(kINPUT, input.binding()) && context.setTensorAddress(kINDICES, indices.binding())
        && context.setTensorAddress(kCOUNT, count.binding()) && context.enqueueV3(stream)
        && indices.download(stream) && count.download(stream); // download synchronizes the stream
#if KILN_SAMPLE_PLUGINS_CUDA
    if (stream != nullptr)
    {
        cudaStreamDestroy(stream);
    }
#endif
    if (!ran)
    {
        return fail(run + "binding, enqueueV3 or a copy failed");
    }

    // After the stream completed: the real shape of Indices, and K from the size tensor.
    Dims const shape = context.getTensorShape(kINDICES);
    int32_t const counted = *count.host<int32_t>();
    std::printf("  %s%lld x %lld input, %lld non-zero: Count = %d, getTensorShape(Indices) = %s\n", run.c_str(),
        static_cast<long long>(rows), static_cast<long long>(cols), static_cast<long long>(k), counted,
        dimsText(shape).c_str());
    if (counted != k)
    {
        return fail(run + "Count is " + std::to_string(counted) + ", expected " + std::to_string(k));
    }
    if (shape.nbDims != 2 || shape.d[0] != 2 || shape.d[1] != k)
    {
        return fail(run + "getTensorShape(Indices) is " + dimsText(shape) + ", expected [2," + std::to_string(k) + "]");
    }
    int32_t const* got = indices.host<int32_t>();
    for (int64_t i = 0; i < k; ++i)
    {
        if (got[i] != refRows[static_cast<size_t>(i)] || got[k + i] != refCols[static_cast<size_t>(i)])
        {
            return fail(run + "index pair " + std::to_string(i) + " is (" + std::to_string(got[i]) + ", "
                + std::to_string(got[k + i]) + "), expected (" + std::to_string(refRows[static_cast<size_t>(i)]) + ", "
                + std::to_string(refCols[static_cast<size_t>(i)]) + ")");
        }
    }
    return true;
}

} // namespace samples
