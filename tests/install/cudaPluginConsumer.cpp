// cudaPluginConsumer.cpp — runs the separately built CUDA plugin library (tests/install/cudaPluginLibrary) the way
// a TensorRT application does, against an installed Kiln:
//     kilnCudaPluginConsumer <libkilnCudaPlugins.so>
// It loadLibrary()s the library into the global plugin registry and checks that both creators are there (KilnSwish,
// an IPluginCreator; KilnBiasGelu, an IPluginCreatorV3One). Without a usable CUDA backend it then prints
// "SKIP: no CUDA GPU" and exits 0. With one, it builds x [2, 16, 64] -> KilnSwish(beta) -> KilnBiasGelu(bias) -> y
// for kiln::BackendKind::kCUDA, serializes and deserializes the engine, runs it twice on device buffers and a stream
// of its own (two input sets), and compares y with a float64 host reference. Exit status 0 on success.
#include <NvInfer.h>
#include <cuda_runtime_api.h>
#include <kiln/KilnBackend.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace
{

float const kBETA = 1.5F;
int64_t const kDIMS[3] = {2, 16, 64};
int64_t const kCOUNT = 2 * 16 * 64;
int64_t const kCHANNELS = 64;

class Logger : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            std::fprintf(stderr, "[kiln] %s\n", msg);
        }
        if (severity <= Severity::kERROR)
        {
            mErrors += msg;
            mErrors += "\n";
        }
    }
    std::string const& errors() const
    {
        return mErrors;
    }

private:
    std::string mErrors;
};

int fail(std::string const& what)
{
    std::fprintf(stderr, "kilnCudaPluginConsumer: FAILED: %s\n", what.c_str());
    return 1;
}

std::string cudaText(cudaError_t status)
{
    return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
}

//! Device memory freed on scope exit.
struct DeviceMemory
{
    void* data{nullptr};
    ~DeviceMemory()
    {
        if (data != nullptr)
        {
            cudaFree(data);
        }
    }
};

double reference(float x, float bias)
{
    double const s = static_cast<double>(x) / (1.0 + std::exp(-static_cast<double>(kBETA) * x));
    double const t = s + bias;
    return 0.5 * t * (1.0 + std::erf(t / std::sqrt(2.0)));
}

//! One run on device buffers; "" when every output is within 1e-5 (absolute and relative) of the reference.
std::string runOnce(nvinfer1::ICudaEngine& engine, std::vector<float> const& bias, uint32_t seed)
{
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine.createExecutionContext()};
    if (!context)
    {
        return "createExecutionContext";
    }
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-3.0F, 3.0F);
    std::vector<float> x(static_cast<size_t>(kCOUNT));
    for (float& v : x)
    {
        v = dist(rng);
    }
    size_t const bytes = x.size() * sizeof(float);
    DeviceMemory dx;
    DeviceMemory dy;
    cudaStream_t stream = nullptr;
    cudaError_t status = cudaMalloc(&dx.data, bytes);
    status = status == cudaSuccess ? cudaMalloc(&dy.data, bytes) : status;
    status = status == cudaSuccess ? cudaMemcpy(dx.data, x.data(), bytes, cudaMemcpyHostToDevice) : status;
    status = status == cudaSuccess ? cudaMemset(dy.data, 0xFF, bytes) : status; // NaN poison
    status = status == cudaSuccess ? cudaStreamCreate(&stream) : status;
    if (status != cudaSuccess)
    {
        return "device buffers: " + cudaText(status);
    }
    bool const ok = context->setTensorAddress("x", dx.data) && context->setTensorAddress("y", dy.data)
        && context->enqueueV3(stream);
    status = cudaStreamSynchronize(stream);
    cudaStreamDestroy(stream);
    if (!ok)
    {
        return "setTensorAddress / enqueueV3";
    }
    std::vector<float> y(x.size());
    status = status == cudaSuccess ? cudaMemcpy(y.data(), dy.data, bytes, cudaMemcpyDeviceToHost) : status;
    if (status != cudaSuccess)
    {
        return "after enqueueV3: " + cudaText(status);
    }
    for (int64_t i = 0; i < kCOUNT; ++i)
    {
        double const expect = reference(x[static_cast<size_t>(i)], bias[static_cast<size_t>(i % kCHANNELS)]);
        double const got = y[static_cast<size_t>(i)];
        if (!(std::fabs(got - expect) <= 1e-5 + 1e-5 * std::fabs(expect)))
        {
            return "y[" + std::to_string(i) + "] = " + std::to_string(got) + ", expected " + std::to_string(expect);
        }
    }
    return "";
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2)
    {
        std::fprintf(stderr, "usage: kilnCudaPluginConsumer <libkilnCudaPlugins.so>\n");
        return 2;
    }
    Logger logger;
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger)};
    if (!builder)
    {
        return fail("createInferBuilder");
    }
    // The global registry: the runtime that deserializes the engine below finds the creators there too.
    nvinfer1::IPluginRegistry* registry = getPluginRegistry();
    if (registry == nullptr || registry->loadLibrary(argv[1]) == nullptr)
    {
        return fail(std::string("loadLibrary(") + argv[1] + "): " + logger.errors());
    }
    auto* swishCreator = registry->getCreator("KilnSwish", "1", "kiln_cuda");
    auto* geluCreator = registry->getCreator("KilnBiasGelu", "1", "kiln_cuda");
    if (swishCreator == nullptr || std::strcmp(swishCreator->getInterfaceInfo().kind, "PLUGIN CREATOR_V1") != 0)
    {
        return fail("KilnSwish's IPluginCreator is not registered");
    }
    if (geluCreator == nullptr || std::strcmp(geluCreator->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE") != 0)
    {
        return fail("KilnBiasGelu's IPluginCreatorV3One is not registered");
    }
    std::printf("kilnCudaPluginConsumer: loaded %s (KilnSwish, KilnBiasGelu)\n", argv[1]);
    if (!kiln::isBackendAvailable(kiln::BackendKind::kCUDA))
    {
        std::printf("SKIP: no CUDA GPU (kiln::isBackendAvailable(kCUDA) is false); the library loaded, nothing ran\n");
        return 0;
    }

    nvinfer1::PluginField beta("beta", &kBETA, nvinfer1::PluginFieldType::kFLOAT32, 1);
    nvinfer1::PluginFieldCollection swishFields{};
    swishFields.nbFields = 1;
    swishFields.fields = &beta;
    std::unique_ptr<nvinfer1::IPluginV2, void (*)(nvinfer1::IPluginV2*)> swish(
        static_cast<nvinfer1::IPluginCreator*>(swishCreator)->createPlugin("swish", &swishFields),
        [](nvinfer1::IPluginV2* p) {
            if (p != nullptr)
            {
                p->destroy();
            }
        });
    std::unique_ptr<nvinfer1::IPluginV3> gelu{static_cast<nvinfer1::IPluginCreatorV3One*>(geluCreator)
                                                  ->createPlugin("biasGelu", nullptr, nvinfer1::TensorRTPhase::kBUILD)};
    if (!swish || !gelu)
    {
        return fail("createPlugin: " + logger.errors());
    }

    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-0.5F, 0.5F);
    std::vector<float> bias(static_cast<size_t>(kCHANNELS));
    for (float& v : bias)
    {
        v = dist(rng);
    }
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    nvinfer1::Dims xDims{};
    xDims.nbDims = 3;
    std::memcpy(xDims.d, kDIMS, sizeof(kDIMS));
    nvinfer1::ITensor* x = network->addInput("x", nvinfer1::DataType::kFLOAT, xDims);
    nvinfer1::ITensor* swishInputs[] = {x};
    nvinfer1::IPluginV2Layer* swishLayer = network->addPluginV2(swishInputs, 1, *swish);
    nvinfer1::Dims biasDims{};
    biasDims.nbDims = 1;
    biasDims.d[0] = kCHANNELS;
    nvinfer1::IConstantLayer* biasLayer
        = network->addConstant(biasDims, nvinfer1::Weights{nvinfer1::DataType::kFLOAT, bias.data(), kCHANNELS});
    if (swishLayer == nullptr || biasLayer == nullptr)
    {
        return fail("addPluginV2 / addConstant: " + logger.errors());
    }
    nvinfer1::ITensor* geluInputs[] = {swishLayer->getOutput(0), biasLayer->getOutput(0)};
    nvinfer1::IPluginV3Layer* geluLayer = network->addPluginV3(geluInputs, 2, nullptr, 0, *gelu);
    if (geluLayer == nullptr)
    {
        return fail("addPluginV3: " + logger.errors());
    }
    geluLayer->getOutput(0)->setName("y");
    network->markOutput(*geluLayer->getOutput(0));

    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
    if (!kiln::setBuilderBackend(config.get(), kiln::BackendKind::kCUDA))
    {
        return fail("setBuilderBackend(kCUDA): " + logger.errors());
    }
    std::unique_ptr<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    if (!plan)
    {
        return fail("buildSerializedNetwork for the CUDA backend: " + logger.errors());
    }
    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger)};
    std::unique_ptr<nvinfer1::ICudaEngine> engine{
        runtime ? runtime->deserializeCudaEngine(plan->data(), plan->size()) : nullptr};
    if (!engine)
    {
        return fail("deserializeCudaEngine: " + logger.errors());
    }
    if (kiln::getEngineBackend(engine.get()) != kiln::BackendKind::kCUDA)
    {
        return fail("the engine was not built for the CUDA backend");
    }
    for (uint32_t seed : {11U, 12U})
    {
        std::string const problem = runOnce(*engine, bias, seed);
        if (!problem.empty())
        {
            return fail(problem + "\n" + logger.errors());
        }
    }
    std::printf("kilnCudaPluginConsumer: PASSED (KilnSwish + KilnBiasGelu on the CUDA backend, %lld outputs x 2 runs)\n",
        static_cast<long long>(kCOUNT));
    return 0;
}
