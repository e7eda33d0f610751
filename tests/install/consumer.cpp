// consumer.cpp — the smallest TensorRT-style application, built against an installed Kiln (CMake package or
// pkg-config): an identity network is built, serialized, deserialized and run on the CPU backend.
#include <NvInfer.h>

#include <cstdint>
#include <cstdio>
#include <memory>

namespace
{

class ConsoleLogger : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            std::fprintf(stderr, "[kiln] %s\n", msg);
        }
    }
};

template <typename T>
using Owned = std::unique_ptr<T>;

int fail(char const* what)
{
    std::fprintf(stderr, "consumer: FAILED at %s\n", what);
    return 1;
}

} // namespace

int main()
{
    ConsoleLogger logger;
    std::printf("consumer: linked against library version %d\n", static_cast<int>(getInferLibVersion()));

    Owned<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger)};
    if (!builder)
    {
        return fail("createInferBuilder");
    }
    Owned<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    if (!network)
    {
        return fail("createNetworkV2");
    }
    nvinfer1::Dims dims{};
    dims.nbDims = 2;
    dims.d[0] = 2;
    dims.d[1] = 3;
    nvinfer1::ITensor* input = network->addInput("input", nvinfer1::DataType::kFLOAT, dims);
    if (input == nullptr)
    {
        return fail("addInput");
    }
    nvinfer1::IIdentityLayer* identity = network->addIdentity(*input);
    if (identity == nullptr)
    {
        return fail("addIdentity");
    }
    nvinfer1::ITensor* output = identity->getOutput(0);
    output->setName("output");
    network->markOutput(*output);

    Owned<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
    if (!config)
    {
        return fail("createBuilderConfig");
    }
    Owned<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    if (!plan || plan->size() == 0)
    {
        return fail("buildSerializedNetwork");
    }

    Owned<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger)};
    if (!runtime)
    {
        return fail("createInferRuntime");
    }
    Owned<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    if (!engine)
    {
        return fail("deserializeCudaEngine");
    }
    Owned<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    if (!context)
    {
        return fail("createExecutionContext");
    }

    float in[6] = {1.5F, -2.0F, 3.25F, 0.0F, -0.5F, 42.0F};
    float out[6] = {-7.0F, -7.0F, -7.0F, -7.0F, -7.0F, -7.0F};
    // On Kiln's CPU backend "device" memory is host memory and a null stream runs synchronously.
    if (!context->setTensorAddress("input", in) || !context->setTensorAddress("output", out))
    {
        return fail("setTensorAddress");
    }
    if (!context->enqueueV3(nullptr))
    {
        return fail("enqueueV3");
    }
    for (int i = 0; i < 6; ++i)
    {
        if (out[i] != in[i])
        {
            std::fprintf(stderr, "consumer: output[%d] = %g, expected %g\n", i, out[i], in[i]);
            return fail("output check");
        }
    }
    std::printf("consumer: PASSED\n");
    return 0;
}
