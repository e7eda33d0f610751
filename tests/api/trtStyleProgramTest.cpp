// A program written in plain TensorRT 10 style — explicit nvinfer1:: calls, a logger subclass, name-based I/O
// and enqueueV3 — must compile unchanged against Kiln's headers and run on the CPU backend.
#include <NvInfer.h>
#include <NvInferRuntime.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <memory>
#include <random>
#include <vector>

namespace
{

class Logger : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            std::cerr << "[TRT] " << msg << std::endl;
        }
    }
};

TEST(TrtStyleProgramTest, BuildSerializeDeserializeEnqueue)
{
    Logger gLogger;
    auto builder = std::unique_ptr<nvinfer1::IBuilder>(nvinfer1::createInferBuilder(gLogger));
    ASSERT_NE(builder, nullptr);
    uint32_t const flags = 0;
    auto network = std::unique_ptr<nvinfer1::INetworkDefinition>(builder->createNetworkV2(flags));
    ASSERT_NE(network, nullptr);

    nvinfer1::ITensor* input = network->addInput("input", nvinfer1::DataType::kFLOAT, nvinfer1::Dims2{-1, 4});
    ASSERT_NE(input, nullptr);
    std::vector<float> weights{0.5F, -1.0F, 2.0F, 0.25F};
    nvinfer1::Weights w{nvinfer1::DataType::kFLOAT, weights.data(), static_cast<int64_t>(weights.size())};
    nvinfer1::IConstantLayer* scale = network->addConstant(nvinfer1::Dims2{1, 4}, w);
    nvinfer1::IElementWiseLayer* mul
        = network->addElementWise(*input, *scale->getOutput(0), nvinfer1::ElementWiseOperation::kPROD);
    nvinfer1::IActivationLayer* relu = network->addActivation(*mul->getOutput(0), nvinfer1::ActivationType::kRELU);
    relu->getOutput(0)->setName("output");
    network->markOutput(*relu->getOutput(0));

    auto config = std::unique_ptr<nvinfer1::IBuilderConfig>(builder->createBuilderConfig());
    config->setMemoryPoolLimit(nvinfer1::MemoryPoolType::kWORKSPACE, 1U << 20);
    nvinfer1::IOptimizationProfile* profile = builder->createOptimizationProfile();
    profile->setDimensions("input", nvinfer1::OptProfileSelector::kMIN, nvinfer1::Dims2{1, 4});
    profile->setDimensions("input", nvinfer1::OptProfileSelector::kOPT, nvinfer1::Dims2{4, 4});
    profile->setDimensions("input", nvinfer1::OptProfileSelector::kMAX, nvinfer1::Dims2{8, 4});
    config->addOptimizationProfile(profile);

    auto plan = std::unique_ptr<nvinfer1::IHostMemory>(builder->buildSerializedNetwork(*network, *config));
    ASSERT_NE(plan, nullptr);

    auto runtime = std::unique_ptr<nvinfer1::IRuntime>(nvinfer1::createInferRuntime(gLogger));
    auto engine = std::unique_ptr<nvinfer1::ICudaEngine>(runtime->deserializeCudaEngine(plan->data(), plan->size()));
    ASSERT_NE(engine, nullptr);
    ASSERT_EQ(engine->getNbIOTensors(), 2);
    EXPECT_STREQ(engine->getIOTensorName(0), "input");
    EXPECT_EQ(engine->getTensorIOMode("output"), nvinfer1::TensorIOMode::kOUTPUT);

    auto context = std::unique_ptr<nvinfer1::IExecutionContext>(engine->createExecutionContext());
    ASSERT_NE(context, nullptr);
    int64_t const batch = 3;
    ASSERT_TRUE(context->setInputShape("input", nvinfer1::Dims2{batch, 4}));
    ASSERT_TRUE(context->allInputDimensionsSpecified());
    nvinfer1::Dims const outDims = context->getTensorShape("output");
    ASSERT_EQ(outDims.nbDims, 2);
    EXPECT_EQ(outDims.d[0], batch);

    std::mt19937 rng(11);
    std::uniform_real_distribution<float> dist(-3.F, 3.F);
    std::vector<float> in(batch * 4);
    for (auto& v : in)
    {
        v = dist(rng);
    }
    std::vector<float> out(batch * 4, std::nanf(""));
    context->setTensorAddress("input", in.data());
    context->setTensorAddress("output", out.data());
    cudaStream_t stream = nullptr;
    ASSERT_TRUE(context->enqueueV3(stream));
    for (size_t i = 0; i < in.size(); ++i)
    {
        float const expected = std::max(0.F, in[i] * weights[i % 4]);
        EXPECT_EQ(out[i], expected) << i;
    }
}

} // namespace
