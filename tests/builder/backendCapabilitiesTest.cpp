// The builder follows backend capabilities, not backend names: the same networks are built for null backends
// (backends/null) that claim different capabilities, and the plans must differ exactly as the capabilities say:
// fusions (epilogues, pointwise programs), reduced precisions under kFP16, and the recorded tactics.
#include "NvInfer.h"
#include "backends/null/nullBackend.h"
#include "builder/builder.h"
#include "builder/builderConfig.h"
#include "engine/engineReader.h"
#include "network/networkDefinition.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

namespace
{
using namespace nvinfer1;

class Logger : public ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= Severity::kERROR)
        {
            errors += std::string(msg) + "\n";
        }
    }
    std::string errors;
};

struct Built
{
    kiln::Plan plan;
    std::string errors;
};

//! conv(3→4, 3x3) + bias add + ReLU, then exp → × 2 → sigmoid: an epilogue and a pointwise chain.
Built build(kiln::BackendCapabilities const& caps, bool fp16)
{
    Logger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> dist(-1.F, 1.F);
    std::vector<float> kernel(4 * 3 * 3 * 3);
    std::vector<float> bias(4);
    std::vector<float> two(1, 2.F);
    for (float& v : kernel)
    {
        v = dist(rng);
    }
    for (float& v : bias)
    {
        v = dist(rng);
    }
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims4{1, 3, 8, 8});
    auto* conv = network->addConvolutionNd(*x, 4, Dims2{3, 3},
        Weights{DataType::kFLOAT, kernel.data(), static_cast<int64_t>(kernel.size())}, Weights{DataType::kFLOAT, nullptr, 0});
    auto* b = network->addConstant(Dims4{1, 4, 1, 1}, Weights{DataType::kFLOAT, bias.data(), 4});
    auto* add = network->addElementWise(*conv->getOutput(0), *b->getOutput(0), ElementWiseOperation::kSUM);
    auto* relu = network->addActivation(*add->getOutput(0), ActivationType::kRELU);
    auto* ex = network->addUnary(*relu->getOutput(0), UnaryOperation::kEXP);
    auto* c2 = network->addConstant(Dims4{1, 1, 1, 1}, Weights{DataType::kFLOAT, two.data(), 1});
    auto* mul = network->addElementWise(*ex->getOutput(0), *c2->getOutput(0), ElementWiseOperation::kPROD);
    auto* sig = network->addActivation(*mul->getOutput(0), ActivationType::kSIGMOID);
    sig->getOutput(0)->setName("y");
    network->markOutput(*sig->getOutput(0));
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    if (fp16)
    {
        config->setFlag(BuilderFlag::kFP16);
    }
    std::unique_ptr<kiln::Backend> backend = kiln::createNullBackend(caps);
    auto bytes = static_cast<kiln::Builder&>(*builder).buildEngineBytes(static_cast<kiln::NetworkDefinition&>(*network),
        static_cast<kiln::BuilderConfig&>(*config), *backend);
    Built built;
    built.errors = logger.errors;
    if (!bytes.isOk())
    {
        built.errors += bytes.status().message();
        return built;
    }
    auto plan = kiln::readEngine(bytes.value().data(), bytes.value().size());
    if (!plan.isOk())
    {
        built.errors += plan.status().message();
        return built;
    }
    built.plan = std::move(plan).value();
    return built;
}

int32_t countNodes(kiln::Plan const& plan, LayerType kind)
{
    int32_t n = 0;
    for (auto const& node : plan.nodes)
    {
        n += node.kind == kind ? 1 : 0;
    }
    return n;
}

bool hasAttr(kiln::Plan const& plan, char const* key)
{
    for (auto const& node : plan.nodes)
    {
        if (node.attrs.has(key))
        {
            return true;
        }
    }
    return false;
}

TEST(BackendCapabilities, NoFusionsNoFusedNodes)
{
    Built const b = build(kiln::BackendCapabilities{}, false);
    ASSERT_TRUE(b.errors.empty()) << b.errors;
    EXPECT_EQ(b.plan.backend, "null");
    EXPECT_FALSE(hasAttr(b.plan, "fuse.names"));
    EXPECT_EQ(countNodes(b.plan, LayerType::kACTIVATION), 2);
    EXPECT_EQ(countNodes(b.plan, LayerType::kUNARY), 1);
    for (auto const& node : b.plan.nodes)
    {
        EXPECT_EQ(node.tactic, node.kind == LayerType::kCONSTANT ? node.tactic : std::string("null")) << node.name;
    }
}

TEST(BackendCapabilities, EpilogueFusionOnly)
{
    kiln::BackendCapabilities caps;
    caps.fusions = static_cast<uint32_t>(kiln::Fusion::kEPILOGUE);
    Built const b = build(caps, false);
    ASSERT_TRUE(b.errors.empty()) << b.errors;
    ASSERT_EQ(countNodes(b.plan, LayerType::kCONVOLUTION), 1);
    bool convFused = false;
    for (auto const& node : b.plan.nodes)
    {
        convFused = convFused || (node.kind == LayerType::kCONVOLUTION && node.attrs.has("fuse.act"));
    }
    EXPECT_TRUE(convFused) << "the convolution should carry the bias add and the ReLU";
    EXPECT_EQ(countNodes(b.plan, LayerType::kACTIVATION), 1) << "only the sigmoid stays a layer";
    EXPECT_EQ(countNodes(b.plan, LayerType::kUNARY), 1) << "pointwise programs were not offered";
}

TEST(BackendCapabilities, PointwiseProgramsOnly)
{
    kiln::BackendCapabilities caps;
    caps.fusions = static_cast<uint32_t>(kiln::Fusion::kPOINTWISE_PROGRAM);
    Built const b = build(caps, false);
    ASSERT_TRUE(b.errors.empty()) << b.errors;
    EXPECT_TRUE(hasAttr(b.plan, "pw.program"));
    EXPECT_EQ(countNodes(b.plan, LayerType::kUNARY), 0) << "exp joined a pointwise program";
    for (auto const& node : b.plan.nodes)
    {
        EXPECT_FALSE(node.kind == LayerType::kCONVOLUTION && node.attrs.has("fuse.act")) << "epilogues were not offered";
    }
}

bool anyHalf(kiln::Plan const& plan)
{
    for (auto const& t : plan.tensors)
    {
        if (t.type == DataType::kHALF)
        {
            return true;
        }
    }
    return false;
}

TEST(BackendCapabilities, ReducedPrecisionFollowsTheCapability)
{
    Built const fp32Only = build(kiln::BackendCapabilities{}, true);
    ASSERT_TRUE(fp32Only.errors.empty()) << fp32Only.errors;
    EXPECT_FALSE(anyHalf(fp32Only.plan)) << "a backend without reduced precisions computes in FP32 under kFP16";

    kiln::BackendCapabilities caps;
    caps.reducedPrecisions = 1U << static_cast<uint32_t>(DataType::kHALF);
    Built const half = build(caps, true);
    ASSERT_TRUE(half.errors.empty()) << half.errors;
    EXPECT_TRUE(anyHalf(half.plan)) << "kFP16 on a backend that lowers to FP16 runs some layers in FP16";
    Built const noFlag = build(caps, false);
    ASSERT_TRUE(noFlag.errors.empty()) << noFlag.errors;
    EXPECT_FALSE(anyHalf(noFlag.plan)) << "without kFP16 nothing is lowered";
}

} // namespace
