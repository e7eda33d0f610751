// Channel-last (kHWC8) activations end to end: a ResNet-like block (convolution + bias + ReLU, max pooling, a
// convolution with the residual addition and ReLU fused, a 1x1 convolution, an average-pooling branch that is a
// network output) built with kFP16 / kBF16 and dynamic batch, run on each backend and compared with the CPU backend's
// FP32 result on random data. On the CUDA backend the builder's channelLastPass stores the activations between the
// convolutions and poolings channel-last (checked in the plan); the CPU backend, which computes them in FP32, keeps
// them in its region format where it has one.
#include "backends/backend.h"
#include "common/backendTest.h"
#include "common/networkRunner.h"
#include "common/reducedPrecision.h"
#include "core/tensorFormat.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace
{
using namespace nvinfer1;
using kiln::test::NetworkRunner;

struct BlockWeights
{
    std::vector<float> ka, ba, kb, kc;
};

BlockWeights randomWeights(std::mt19937& rng)
{
    std::uniform_real_distribution<float> dist(-0.15F, 0.15F);
    BlockWeights w;
    w.ka.resize(32 * 3 * 9);
    w.ba.resize(32);
    w.kb.resize(32 * 32 * 9);
    w.kc.resize(16 * 32);
    for (auto* v : {&w.ka, &w.ba, &w.kb, &w.kc})
    {
        for (float& x : *v)
        {
            x = dist(rng);
        }
    }
    return w;
}

Weights weightsOf(std::vector<float> const& v)
{
    return Weights{DataType::kFLOAT, v.data(), static_cast<int64_t>(v.size())};
}

//! x[N, 3, 16, 16] → conv a (32 maps, 3x3, pad 1, bias; its 3 input channels padded to 8 channel-last) + ReLU → max pool 2x2/2 → conv b (32 maps, 3x3, pad 1) + the
//! pool's output + ReLU → conv c (16 maps, 1x1) → "y"; the pool's output → average pool 2x2/2 → "z".
void buildBlock(NetworkRunner& r, BlockWeights const& w)
{
    INetworkDefinition& n = r.network();
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 3, 16, 16});
    auto* a = n.addConvolutionNd(*x, 32, Dims2{3, 3}, weightsOf(w.ka), weightsOf(w.ba));
    a->setPaddingNd(Dims2{1, 1});
    auto* ra = n.addActivation(*a->getOutput(0), ActivationType::kRELU);
    auto* pool = n.addPoolingNd(*ra->getOutput(0), PoolingType::kMAX, Dims2{2, 2});
    pool->setStrideNd(Dims2{2, 2});
    auto* b = n.addConvolutionNd(*pool->getOutput(0), 32, Dims2{3, 3}, weightsOf(w.kb), Weights{DataType::kFLOAT, nullptr, 0});
    b->setPaddingNd(Dims2{1, 1});
    auto* sum = n.addElementWise(*b->getOutput(0), *pool->getOutput(0), ElementWiseOperation::kSUM);
    auto* rb = n.addActivation(*sum->getOutput(0), ActivationType::kRELU);
    auto* c = n.addConvolutionNd(*rb->getOutput(0), 16, Dims2{1, 1}, weightsOf(w.kc), Weights{DataType::kFLOAT, nullptr, 0});
    r.markOutput(c->getOutput(0), "y");
    auto* avg = n.addPoolingNd(*pool->getOutput(0), PoolingType::kAVERAGE, Dims2{2, 2});
    avg->setStrideNd(Dims2{2, 2});
    r.markOutput(avg->getOutput(0), "z");
    r.setProfileDims("x", {1, 3, 16, 16}, {2, 3, 16, 16}, {4, 3, 16, 16});
}

class ChannelLastLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(ChannelLastLayerTest);

TEST_P(ChannelLastLayerTest, ResNetBlockInReducedPrecisionMatchesFp32)
{
    std::mt19937 rng(2027);
    BlockWeights const w = randomWeights(rng);
    kiln::test::ReducedPrecisionCheck c;
    c.build = [&](NetworkRunner& r) { buildBlock(r, w); };
    c.input = "x";
    c.inputDims = {3, 16, 16};
    c.outputs = {"y", "z"};
    c.checkPlan = [&](kiln::Plan const& plan, BuilderFlag) {
        int32_t channelLastNodes = 0;
        for (kiln::PlanNode const& node : plan.nodes)
        {
            channelLastNodes += node.attrs.getInt(kiln::kCHANNEL_LAST_ATTRIBUTE, 0) != 0 ? 1 : 0;
        }
        // conv a, max pool, conv b (with the residual), conv c, average pool: kHWC8 on CUDA, and on the CPU (which
        // computes these FP32) its region format where it has one (oneDNN's layout, tests/builder/cpuRegionFormatTest).
        if (onCuda() || kiln::cpuBackend().capabilities().region.kinds != 0)
        {
            EXPECT_EQ(channelLastNodes, 5);
        }
        else
        {
            EXPECT_EQ(channelLastNodes, 0);
        }
    };
    kiln::test::checkReducedPrecisionMatchesFp32(c, rng);
}

} // namespace
