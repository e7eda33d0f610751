// channelLastPass on null backends (backends/null) that claim channel-last convolution and pooling: which nodes get
// kCHANNEL_LAST_ATTRIBUTE, which tensors are stored kHWC8, and where reformat nodes go (network input, a layer that
// stays linear, a network output). The CUDA kernels that run such plans are checked in tests/gpu.
#include "NvInfer.h"
#include "backends/null/nullBackend.h"
#include "builder/builder.h"
#include "builder/builderConfig.h"
#include "common/networkRunner.h"
#include "core/tensorFormat.h"
#include "engine/engineReader.h"
#include "network/networkDefinition.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace
{
using namespace nvinfer1;

kiln::BackendCapabilities channelLastCaps()
{
    kiln::BackendCapabilities caps;
    caps.fusions = static_cast<uint32_t>(kiln::Fusion::kEPILOGUE);
    caps.reducedPrecisions = 1U << static_cast<uint32_t>(DataType::kHALF);
    caps.region.kinds = kiln::RegionFormat::bit(LayerType::kCONVOLUTION) | kiln::RegionFormat::bit(LayerType::kPOOLING);
    caps.region.format = TensorFormat::kHWC8;
    caps.region.types = (1U << static_cast<uint32_t>(DataType::kHALF)) | (1U << static_cast<uint32_t>(DataType::kBF16));
    return caps;
}

//! Builds `network` with kFP16 for a null backend with `caps` and reads the plan back; on failure an empty plan,
//! with the logged errors and the failure in `errors`.
kiln::Plan buildFp16Plan(IBuilder& builder, INetworkDefinition& network, kiln::BackendCapabilities const& caps,
    kiln::test::CapturingLogger const& logger, std::string& errors)
{
    std::unique_ptr<IBuilderConfig> config(builder.createBuilderConfig());
    config->setFlag(BuilderFlag::kFP16);
    std::unique_ptr<kiln::Backend> backend = kiln::createNullBackend(caps);
    auto bytes = static_cast<kiln::Builder&>(builder).buildEngineBytes(
        static_cast<kiln::NetworkDefinition&>(network), static_cast<kiln::BuilderConfig&>(*config), *backend);
    errors = logger.allErrors();
    if (!bytes.isOk())
    {
        errors += bytes.status().message();
        return {};
    }
    auto plan = kiln::readEngine(bytes.value().data(), bytes.value().size());
    if (!plan.isOk())
    {
        errors += plan.status().message();
        return {};
    }
    return std::move(plan).value();
}

//! x[2, cIn, 16, 16] → conv "c1" (`maps` maps, 3x3, pad 1) + ReLU → max pool "pool" 2x2 → conv "c2" (`maps` maps) +
//! the pool's output + ReLU → output "y"; and the pool's output through a sigmoid → output "s".
kiln::Plan build(kiln::BackendCapabilities const& caps, int32_t cIn, std::string& errors, int32_t maps = 16)
{
    kiln::test::CapturingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> dist(-1.F, 1.F);
    std::vector<float> k1(static_cast<size_t>(maps * cIn * 9));
    std::vector<float> k2(static_cast<size_t>(maps * maps * 9));
    for (float& v : k1)
    {
        v = dist(rng);
    }
    for (float& v : k2)
    {
        v = dist(rng);
    }
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims4{2, cIn, 16, 16});
    auto* c1 = network->addConvolutionNd(*x, maps, Dims2{3, 3}, Weights{DataType::kFLOAT, k1.data(), static_cast<int64_t>(k1.size())},
        Weights{DataType::kFLOAT, nullptr, 0});
    c1->setPaddingNd(Dims2{1, 1});
    c1->setName("c1");
    auto* r1 = network->addActivation(*c1->getOutput(0), ActivationType::kRELU);
    auto* pool = network->addPoolingNd(*r1->getOutput(0), PoolingType::kMAX, Dims2{2, 2});
    pool->setStrideNd(Dims2{2, 2});
    pool->setName("pool");
    auto* c2 = network->addConvolutionNd(*pool->getOutput(0), maps, Dims2{3, 3},
        Weights{DataType::kFLOAT, k2.data(), static_cast<int64_t>(k2.size())}, Weights{DataType::kFLOAT, nullptr, 0});
    c2->setPaddingNd(Dims2{1, 1});
    c2->setName("c2");
    auto* add = network->addElementWise(*c2->getOutput(0), *pool->getOutput(0), ElementWiseOperation::kSUM);
    auto* r2 = network->addActivation(*add->getOutput(0), ActivationType::kRELU);
    r2->getOutput(0)->setName("y");
    network->markOutput(*r2->getOutput(0));
    auto* sig = network->addActivation(*pool->getOutput(0), ActivationType::kSIGMOID);
    sig->getOutput(0)->setName("s");
    network->markOutput(*sig->getOutput(0));
    return buildFp16Plan(*builder, *network, caps, logger, errors);
}

kiln::PlanNode const* nodeStartingWith(kiln::Plan const& plan, std::string const& prefix)
{
    for (kiln::PlanNode const& n : plan.nodes)
    {
        if (n.name.rfind(prefix, 0) == 0)
        {
            return &n;
        }
    }
    return nullptr;
}

bool channelLast(kiln::PlanNode const* n)
{
    return n != nullptr && n->attrs.getInt(kiln::kCHANNEL_LAST_ATTRIBUTE, 0) != 0;
}

TensorFormat formatOf(kiln::Plan const& plan, int32_t t)
{
    return plan.tensors[static_cast<size_t>(t)].format;
}

//! Reformat nodes as (input format, output format) pairs in plan order.
std::vector<std::pair<TensorFormat, TensorFormat>> reformats(kiln::Plan const& plan)
{
    std::vector<std::pair<TensorFormat, TensorFormat>> r;
    for (kiln::PlanNode const& n : plan.nodes)
    {
        if (n.kind == LayerType::kIDENTITY && n.attrs.getInt("reformat", 0) == 1)
        {
            r.emplace_back(formatOf(plan, n.inputs[0]), formatOf(plan, n.outputs[0]));
        }
    }
    return r;
}

TEST(ChannelLastPass, ConvolutionsAndPoolingKeepChannelLastBetweenThem)
{
    std::string errors;
    kiln::Plan const plan = build(channelLastCaps(), 8, errors);
    ASSERT_TRUE(errors.empty()) << errors;
    kiln::PlanNode const* c1 = nodeStartingWith(plan, "c1");
    kiln::PlanNode const* pool = nodeStartingWith(plan, "pool");
    kiln::PlanNode const* c2 = nodeStartingWith(plan, "c2");
    ASSERT_TRUE(c1 && pool && c2);
    EXPECT_TRUE(channelLast(c1) && channelLast(pool) && channelLast(c2));
    ASSERT_EQ(c2->inputs.size(), 2U) << "the residual addition is fused into c2";
    // Between chosen layers the tensors are channel-last and no reformat runs.
    EXPECT_EQ(formatOf(plan, c1->outputs[0]), TensorFormat::kHWC8);
    EXPECT_EQ(pool->inputs[0], c1->outputs[0]);
    EXPECT_EQ(c2->inputs[0], pool->outputs[0]);
    EXPECT_EQ(c2->inputs[1], pool->outputs[0]);
    EXPECT_EQ(formatOf(plan, c2->outputs[0]), TensorFormat::kHWC8);
    // x enters through a reformat; the pool's output has a linear reader (the sigmoid) and "y" is a network output:
    // one reformat each back to linear. I/O tensors keep their linear format.
    auto const r = reformats(plan);
    ASSERT_EQ(r.size(), 3U);
    EXPECT_EQ(r[0], std::make_pair(TensorFormat::kLINEAR, TensorFormat::kHWC8));
    EXPECT_EQ(r[1], std::make_pair(TensorFormat::kHWC8, TensorFormat::kLINEAR));
    EXPECT_EQ(r[2], std::make_pair(TensorFormat::kHWC8, TensorFormat::kLINEAR));
    for (int32_t io : plan.ioTensors)
    {
        EXPECT_EQ(formatOf(plan, io), TensorFormat::kLINEAR) << plan.tensors[static_cast<size_t>(io)].name;
    }
    // Every tensor is written before it is read (the reformats sit after their producers).
    std::vector<bool> ready(plan.tensors.size(), false);
    for (int32_t io : plan.ioTensors)
    {
        ready[static_cast<size_t>(io)] = plan.tensors[static_cast<size_t>(io)].ioMode == TensorIOMode::kINPUT;
    }
    for (size_t t = 0; t < plan.tensors.size(); ++t)
    {
        ready[t] = ready[t] || plan.tensors[t].constant >= 0;
    }
    for (kiln::PlanNode const& n : plan.nodes)
    {
        for (int32_t in : n.inputs)
        {
            EXPECT_TRUE(in < 0 || ready[static_cast<size_t>(in)]) << n.name << " reads a tensor not yet written";
        }
        for (int32_t out : n.outputs)
        {
            ready[static_cast<size_t>(out)] = true;
        }
    }
}

TEST(ChannelLastPass, AConvolutionReadsPaddedChannels)
{
    std::string errors;
    kiln::Plan const plan = build(channelLastCaps(), 3, errors);
    ASSERT_TRUE(errors.empty()) << errors;
    // c1 reads x's 3 channels from a kHWC8 copy padded to 8 (the stem of a CNN).
    kiln::PlanNode const* c1 = nodeStartingWith(plan, "c1");
    ASSERT_NE(c1, nullptr);
    EXPECT_TRUE(channelLast(c1));
    EXPECT_EQ(formatOf(plan, c1->inputs[0]), TensorFormat::kHWC8);
    EXPECT_TRUE(channelLast(nodeStartingWith(plan, "pool")));
    auto const r = reformats(plan);
    ASSERT_FALSE(r.empty());
    EXPECT_EQ(r[0], std::make_pair(TensorFormat::kLINEAR, TensorFormat::kHWC8));
}

TEST(ChannelLastPass, OutputsThatNeedPaddingStayLinear)
{
    std::string errors;
    kiln::Plan const plan = build(channelLastCaps(), 8, errors, 12);
    ASSERT_TRUE(errors.empty()) << errors;
    // 12 output channels would need padding channels: every layer stays linear and nothing is reformatted.
    EXPECT_FALSE(channelLast(nodeStartingWith(plan, "c1")));
    EXPECT_FALSE(channelLast(nodeStartingWith(plan, "pool")));
    EXPECT_FALSE(channelLast(nodeStartingWith(plan, "c2")));
    EXPECT_TRUE(reformats(plan).empty());
    // The inspector's attributes say why.
    kiln::PlanNode const* c1 = nodeStartingWith(plan, "c1");
    ASSERT_NE(c1, nullptr);
    EXPECT_EQ(c1->attrs.getString(kiln::kCHANNEL_LAST_REFUSAL_ATTRIBUTE), "12 channels would need kHWC8 padding channels");
}

TEST(ChannelLastPass, OffWithoutTheCapabilityOrWhenDisabled)
{
    std::string errors;
    kiln::BackendCapabilities caps = channelLastCaps();
    caps.region.kinds = 0;
    kiln::Plan const plain = build(caps, 8, errors);
    ASSERT_TRUE(errors.empty()) << errors;
    EXPECT_TRUE(reformats(plain).empty());
    EXPECT_FALSE(channelLast(nodeStartingWith(plain, "c1")));

    setenv("KILN_CHANNEL_LAST", "0", 1);
    kiln::Plan const disabled = build(channelLastCaps(), 8, errors);
    unsetenv("KILN_CHANNEL_LAST");
    ASSERT_TRUE(errors.empty()) << errors;
    EXPECT_TRUE(reformats(disabled).empty());
    for (kiln::PlanTensor const& t : disabled.tensors)
    {
        EXPECT_EQ(t.format, TensorFormat::kLINEAR) << t.name;
    }
}

} // namespace

namespace
{
//! The CUDA backend's region capabilities (cudaBackend.cpp) on a null backend: convolution and pooling in kHWC8,
//! format-agnostic pointwise layers, the H x W reduction as a reader whose pooled output may stay in the region, and
//! per-channel broadcasts in elementwise layers.
kiln::BackendCapabilities cudaLikeCaps()
{
    kiln::BackendCapabilities caps = channelLastCaps();
    caps.fusions = static_cast<uint32_t>(kiln::Fusion::kEPILOGUE) | static_cast<uint32_t>(kiln::Fusion::kPOINTWISE_PROGRAM);
    caps.reducedPrecisions |= 1U << static_cast<uint32_t>(DataType::kBF16);
    caps.region.agnosticKinds = kiln::RegionFormat::bit(LayerType::kACTIVATION) | kiln::RegionFormat::bit(LayerType::kUNARY)
        | kiln::RegionFormat::bit(LayerType::kELEMENTWISE);
    caps.region.readerKinds = kiln::RegionFormat::bit(LayerType::kREDUCE);
    caps.region.readerOutputs = true;
    caps.region.channelBroadcast = true;
    return caps;
}

//! x * sigmoid(x) as two layers (the ONNX export of SiLU; the fusion pass makes it one pointwise program).
ITensor* silu(INetworkDefinition& network, ITensor& x)
{
    auto* s = network.addActivation(x, ActivationType::kSIGMOID);
    return network.addElementWise(x, *s->getOutput(0), ElementWiseOperation::kPROD)->getOutput(0);
}

//! EfficientNet's block: x[2, 16, 8, 8] → conv "expand" (32 maps, 1x1) + SiLU → depthwise 3x3 "dw" + SiLU → mean over H,
//! W "gap" → conv "fc1" (`squeeze` maps, 1x1) + SiLU → conv "fc2" (32 maps) + sigmoid → "scale" = dw * s → conv "proj"
//! (16 maps, 1x1) → "y". With `direct`, s = sigmoid(gap) (no fc1, fc2: the sigmoid and the scaling fuse into one
//! pointwise program with a broadcast input).
kiln::Plan buildSqueezeExcitation(kiln::BackendCapabilities const& caps, int32_t squeeze, bool direct, std::string& errors)
{
    kiln::test::CapturingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    std::mt19937 rng(21);
    std::uniform_real_distribution<float> dist(-0.5F, 0.5F);
    std::vector<std::vector<float>> store;
    auto weights = [&](int64_t count) {
        store.emplace_back(static_cast<size_t>(count));
        for (float& v : store.back())
        {
            v = dist(rng);
        }
        return Weights{DataType::kFLOAT, store.back().data(), count};
    };
    Weights const none{DataType::kFLOAT, nullptr, 0};
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims4{2, 16, 8, 8});
    auto* expand = network->addConvolutionNd(*x, 32, Dims2{1, 1}, weights(32 * 16), weights(32));
    expand->setName("expand");
    auto* dw = network->addConvolutionNd(*silu(*network, *expand->getOutput(0)), 32, Dims2{3, 3}, weights(32 * 9), weights(32));
    dw->setNbGroups(32);
    dw->setPaddingNd(Dims2{1, 1});
    dw->setName("dw");
    ITensor* act = silu(*network, *dw->getOutput(0));
    auto* gap = network->addReduce(*act, ReduceOperation::kAVG, 0b1100, true);
    gap->setName("gap");
    ITensor* s = nullptr;
    if (direct)
    {
        s = network->addActivation(*gap->getOutput(0), ActivationType::kSIGMOID)->getOutput(0);
    }
    else
    {
        auto* fc1 = network->addConvolutionNd(*gap->getOutput(0), squeeze, Dims2{1, 1}, weights(squeeze * 32), weights(squeeze));
        fc1->setName("fc1");
        auto* fc2 = network->addConvolutionNd(*silu(*network, *fc1->getOutput(0)), 32, Dims2{1, 1}, weights(32 * squeeze), weights(32));
        fc2->setName("fc2");
        s = network->addActivation(*fc2->getOutput(0), ActivationType::kSIGMOID)->getOutput(0);
    }
    auto* scale = network->addElementWise(*act, *s, ElementWiseOperation::kPROD);
    scale->setName("scale");
    auto* proj = network->addConvolutionNd(*scale->getOutput(0), 16, Dims2{1, 1}, weights(16 * 32), none);
    proj->setName("proj");
    proj->getOutput(0)->setName("y");
    network->markOutput(*proj->getOutput(0));
    return buildFp16Plan(*builder, *network, caps, logger, errors);
}

//! The node that writes tensor `t`, or nullptr.
kiln::PlanNode const* producerOf(kiln::Plan const& plan, int32_t t)
{
    for (kiln::PlanNode const& n : plan.nodes)
    {
        if (!n.outputs.empty() && n.outputs[0] == t)
        {
            return &n;
        }
    }
    return nullptr;
}

//! The extents of the reformatted tensors (the reformat nodes' inputs), in plan order.
std::vector<std::vector<int64_t>> reformattedExtents(kiln::Plan const& plan)
{
    std::vector<std::vector<int64_t>> r;
    for (kiln::PlanNode const& n : plan.nodes)
    {
        if (n.kind == LayerType::kIDENTITY && n.attrs.getInt("reformat", 0) == 1)
        {
            std::vector<int64_t> e;
            for (kiln::ExprId d : plan.tensors[static_cast<size_t>(n.inputs[0])].dims)
            {
                e.push_back(plan.shapes.valueOrUnknown(d));
            }
            r.push_back(e);
        }
    }
    return r;
}

TEST(ChannelLastPass, SqueezeExcitationBlockStaysInTheRegion)
{
    std::string errors;
    kiln::Plan const plan = buildSqueezeExcitation(cudaLikeCaps(), 8, false, errors);
    ASSERT_TRUE(errors.empty()) << errors;
    kiln::PlanNode const* gap = nodeStartingWith(plan, "gap");
    kiln::PlanNode const* fc1 = nodeStartingWith(plan, "fc1");
    kiln::PlanNode const* scale = nodeStartingWith(plan, "scale");
    kiln::PlanNode const* proj = nodeStartingWith(plan, "proj");
    ASSERT_TRUE(gap && fc1 && scale && proj);
    // The reduction reads the kHWC8 activation and, as fc1 (8 maps) runs in the region too, writes its pooled
    // [2, 32, 1, 1] mean in kHWC8; the scaling multiplies the kHWC8 activation by the kHWC8 [2, 32, 1, 1] scale.
    EXPECT_TRUE(channelLast(gap) && channelLast(fc1) && channelLast(scale) && channelLast(proj));
    EXPECT_EQ(gap->attrs.getInt(kiln::kREGION_OUTPUT_ATTRIBUTE, 0), 1);
    EXPECT_EQ(formatOf(plan, gap->inputs[0]), TensorFormat::kHWC8);
    EXPECT_EQ(formatOf(plan, gap->outputs[0]), TensorFormat::kHWC8);
    EXPECT_EQ(fc1->inputs[0], gap->outputs[0]);
    ASSERT_EQ(scale->inputs.size(), 2U);
    EXPECT_EQ(scale->attrs.getInt("operation", -1), static_cast<int64_t>(ElementWiseOperation::kPROD));
    EXPECT_EQ(formatOf(plan, scale->inputs[0]), TensorFormat::kHWC8);
    EXPECT_EQ(formatOf(plan, scale->inputs[1]), TensorFormat::kHWC8);
    EXPECT_EQ(scale->inputs[0], gap->inputs[0]) << "the scaling and the reduction read the same kHWC8 tensor";
    EXPECT_EQ(proj->inputs[0], scale->outputs[0]);
    // Reformats only where x enters and y leaves.
    auto const r = reformats(plan);
    ASSERT_EQ(r.size(), 2U);
    EXPECT_EQ(r[0], std::make_pair(TensorFormat::kLINEAR, TensorFormat::kHWC8));
    EXPECT_EQ(r[1], std::make_pair(TensorFormat::kHWC8, TensorFormat::kLINEAR));
}

TEST(ChannelLastPass, SqueezeExcitationWithAnUnalignedSqueezeReformatsOnlyPooledVectors)
{
    std::string errors;
    kiln::Plan const plan = buildSqueezeExcitation(cudaLikeCaps(), 4, false, errors);
    ASSERT_TRUE(errors.empty()) << errors;
    // fc1's 4 maps would need padding channels: it stays linear, so the reduction writes its mean linear (no
    // reformat), and fc2 reads fc1's SiLU through a padded [2, 4, 1, 1] copy. The 8x8 activations never leave kHWC8.
    kiln::PlanNode const* gap = nodeStartingWith(plan, "gap");
    kiln::PlanNode const* fc1 = nodeStartingWith(plan, "fc1");
    kiln::PlanNode const* scale = nodeStartingWith(plan, "scale");
    ASSERT_TRUE(gap && fc1 && scale);
    EXPECT_TRUE(channelLast(gap) && channelLast(scale));
    EXPECT_FALSE(channelLast(fc1));
    EXPECT_FALSE(gap->attrs.has(kiln::kREGION_OUTPUT_ATTRIBUTE));
    EXPECT_EQ(formatOf(plan, gap->inputs[0]), TensorFormat::kHWC8);
    EXPECT_EQ(formatOf(plan, gap->outputs[0]), TensorFormat::kLINEAR);
    EXPECT_EQ(fc1->inputs[0], gap->outputs[0]);
    auto const extents = reformattedExtents(plan);
    ASSERT_EQ(extents.size(), 3U);
    EXPECT_EQ(extents[0], (std::vector<int64_t>{2, 16, 8, 8}));
    EXPECT_EQ(extents[1], (std::vector<int64_t>{2, 4, 1, 1}));
    EXPECT_EQ(extents[2], (std::vector<int64_t>{2, 16, 8, 8}));
}

TEST(ChannelLastPass, SqueezeExcitationScaleFusedIntoAPointwiseProgramBroadcasts)
{
    std::string errors;
    kiln::Plan const plan = buildSqueezeExcitation(cudaLikeCaps(), 8, true, errors);
    ASSERT_TRUE(errors.empty()) << errors;
    // sigmoid(gap) and the scaling fuse into one pointwise program reading the kHWC8 activation and the pooled mean,
    // which the reduction writes in kHWC8.
    kiln::PlanNode const* gap = nodeStartingWith(plan, "gap");
    ASSERT_NE(gap, nullptr);
    kiln::PlanNode const* program = nullptr;
    for (kiln::PlanNode const& n : plan.nodes)
    {
        bool const readsGap = std::find(n.inputs.begin(), n.inputs.end(), gap->outputs[0]) != n.inputs.end();
        program = readsGap && n.attrs.has("pw.program") ? &n : program;
    }
    ASSERT_NE(program, nullptr);
    EXPECT_TRUE(channelLast(gap) && channelLast(program));
    EXPECT_EQ(formatOf(plan, gap->outputs[0]), TensorFormat::kHWC8);
    for (int32_t in : program->inputs)
    {
        EXPECT_EQ(formatOf(plan, in), TensorFormat::kHWC8);
    }
    EXPECT_EQ(reformats(plan).size(), 2U);
}

TEST(ChannelLastPass, BroadcastsStayLinearWithoutTheCapability)
{
    std::string errors;
    kiln::BackendCapabilities caps = cudaLikeCaps();
    caps.region.channelBroadcast = false;
    caps.region.readerOutputs = false;
    kiln::Plan const plan = buildSqueezeExcitation(caps, 8, false, errors);
    ASSERT_TRUE(errors.empty()) << errors;
    // The CPU's rules: the scaling broadcasts, so it stays linear; the reduction writes a linear mean.
    kiln::PlanNode const* scale = nodeStartingWith(plan, "scale");
    kiln::PlanNode const* gap = nodeStartingWith(plan, "gap");
    ASSERT_TRUE(scale && gap);
    EXPECT_FALSE(channelLast(scale));
    EXPECT_EQ(formatOf(plan, gap->outputs[0]), TensorFormat::kLINEAR);
    EXPECT_GT(reformats(plan).size(), 2U);
    EXPECT_EQ(producerOf(plan, scale->inputs[0])->kind, LayerType::kIDENTITY) << "x leaves the region for the scaling";
}

} // namespace
