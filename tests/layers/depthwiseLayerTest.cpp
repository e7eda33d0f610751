// Depthwise convolutions end to end: a MobileNetV3/EfficientNet-like inverted-residual block (1x1 expansion + ReLU,
// depthwise 3x3 + SiLU, depthwise 3x3 + residual + ReLU, depthwise 5x5 stride 2 + hard-swish, 1x1 projection) built
// with kFP16 / kBF16 and a dynamic batch, run on each backend and compared with the CPU backend's FP32 result on
// random data. On the CUDA backend the depthwise layers run channel-last (kHWC8) inside one channel-last region with
// reformats only at the block's input and output; the SiLU (v * sigmoid(v)) and the hard-swish (v * hard_sigmoid(v))
// are gated activations in the depthwise tactic's epilogue ("fuse.gate", the only tactic that applies one), and the
// builder timed the "depthwise" tactic against cuDNN for the other one (the plan records the timings and the chosen
// tactic, which the engine inspector shows).
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

constexpr int64_t kIN = 16;
constexpr int64_t kWIDE = 32;
constexpr int64_t kOUT = 24;

struct BlockWeights
{
    std::vector<float> expand, expandBias, dw1, dw1Bias, dw2, dw2Bias, dw3, dw3Bias, project;
};

BlockWeights randomWeights(std::mt19937& rng)
{
    std::uniform_real_distribution<float> dist(-0.3F, 0.3F);
    BlockWeights w;
    w.expand.resize(kWIDE * kIN);
    w.dw1.resize(kWIDE * 9);
    w.dw2.resize(kWIDE * 9);
    w.dw3.resize(kWIDE * 25);
    w.project.resize(kOUT * kWIDE);
    for (auto* b : {&w.expandBias, &w.dw1Bias, &w.dw2Bias, &w.dw3Bias})
    {
        b->resize(kWIDE);
    }
    for (auto* v : {&w.expand, &w.expandBias, &w.dw1, &w.dw1Bias, &w.dw2, &w.dw2Bias, &w.dw3, &w.dw3Bias, &w.project})
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

//! A depthwise convolution of `x` (kWIDE channels) with a bias.
IConvolutionLayer* depthwise(INetworkDefinition& n, ITensor& x, std::vector<float> const& k, std::vector<float> const& b,
    int64_t size, int64_t stride)
{
    auto* c = n.addConvolutionNd(x, kWIDE, Dims2{size, size}, weightsOf(k), weightsOf(b));
    c->setNbGroups(kWIDE);
    c->setStrideNd(Dims2{stride, stride});
    c->setPaddingNd(Dims2{size / 2, size / 2});
    return c;
}

//! x[N, 16, 20, 20] → 1x1 (32) + ReLU → a: depthwise 3x3 + SiLU (v * sigmoid(v)) → depthwise 3x3 + a + ReLU →
//! depthwise 5x5 stride 2 → hard-swish (v * hard-sigmoid(v)) → 1x1 (24) → "y" [N, 24, 10, 10].
void buildBlock(NetworkRunner& r, BlockWeights const& w)
{
    INetworkDefinition& n = r.network();
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, kIN, 20, 20});
    auto* e = n.addConvolutionNd(*x, kWIDE, Dims2{1, 1}, weightsOf(w.expand), weightsOf(w.expandBias));
    auto* re = n.addActivation(*e->getOutput(0), ActivationType::kRELU);
    auto* d1 = depthwise(n, *re->getOutput(0), w.dw1, w.dw1Bias, 3, 1);
    auto* sigmoid = n.addActivation(*d1->getOutput(0), ActivationType::kSIGMOID);
    auto* a = n.addElementWise(*sigmoid->getOutput(0), *d1->getOutput(0), ElementWiseOperation::kPROD);
    auto* d2 = depthwise(n, *a->getOutput(0), w.dw2, w.dw2Bias, 3, 1);
    auto* sum = n.addElementWise(*d2->getOutput(0), *a->getOutput(0), ElementWiseOperation::kSUM);
    auto* r2 = n.addActivation(*sum->getOutput(0), ActivationType::kRELU);
    auto* d3 = depthwise(n, *r2->getOutput(0), w.dw3, w.dw3Bias, 5, 2);
    auto* gate = n.addActivation(*d3->getOutput(0), ActivationType::kHARD_SIGMOID);
    gate->setAlpha(1.F / 6.F);
    gate->setBeta(0.5F);
    auto* swish = n.addElementWise(*d3->getOutput(0), *gate->getOutput(0), ElementWiseOperation::kPROD);
    auto* p = n.addConvolutionNd(*swish->getOutput(0), kOUT, Dims2{1, 1}, weightsOf(w.project), Weights{DataType::kFLOAT, nullptr, 0});
    r.markOutput(p->getOutput(0), "y");
    r.setProfileDims("x", {1, kIN, 20, 20}, {2, kIN, 20, 20}, {4, kIN, 20, 20});
}

class DepthwiseLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(DepthwiseLayerTest);

TEST_P(DepthwiseLayerTest, InvertedResidualBlockInReducedPrecisionMatchesFp32)
{
    std::mt19937 rng(2041);
    BlockWeights const w = randomWeights(rng);
    kiln::test::ReducedPrecisionCheck c;
    c.build = [&](NetworkRunner& r) { buildBlock(r, w); };
    c.input = "x";
    c.inputDims = {kIN, 20, 20};
    c.outputs = {"y"};
    c.fp16Tolerance = 3e-2;
    c.bf16Tolerance = 1e-1;
    c.checkPlan = [&](kiln::Plan const& plan, BuilderFlag) {
        int32_t depthwiseNodes = 0;
        int32_t gatedNodes = 0;
        int32_t reformats = 0;
        for (kiln::PlanNode const& node : plan.nodes)
        {
            reformats += node.kind == LayerType::kIDENTITY && node.attrs.getInt("reformat", 0) != 0 ? 1 : 0;
            if (node.kind != LayerType::kCONVOLUTION || node.attrs.getInt("nbGroups", 1) != kWIDE)
            {
                continue;
            }
            ++depthwiseNodes;
            bool const gated = node.attrs.getInt("fuse.gate", 0) != 0;
            gatedNodes += gated ? 1 : 0;
            if (onCuda())
            {
                SCOPED_TRACE("node '" + node.name + "'");
                EXPECT_NE(node.attrs.getInt(kiln::kCHANNEL_LAST_ATTRIBUTE, 0), 0);
                // 3x3 and 5x5 kernels at strides 1 and 2: the builder timed every kHWC8 layout of the tactic.
                std::string const layouts = node.attrs.getString("tactic.timing");
                EXPECT_NE(layouts.find("depthwise.pixel "), std::string::npos) << layouts;
                EXPECT_NE(layouts.find("depthwise.strip "), std::string::npos) << layouts;
                if (gated)
                {
                    // Only the depthwise layouts take a gated activation; the builder timed them against each other.
                    EXPECT_EQ(node.tactic.rfind("depthwise", 0), 0U) << node.tactic;
                    continue;
                }
                // The depthwise tactic was timed (and ran) against cuDNN; the faster one was kept.
                std::string const timing = node.attrs.getString("tactic.timing");
                EXPECT_NE(timing.find("depthwise "), std::string::npos) << timing;
                EXPECT_EQ(timing.find("depthwise failed"), std::string::npos) << timing;
                EXPECT_TRUE(node.tactic.rfind("depthwise", 0) == 0 || node.tactic == "cudnn") << node.tactic;
            }
        }
        EXPECT_EQ(depthwiseNodes, 3);
        // CUDA's depthwise tactic takes the SiLU and the hard-swish; the CPU's convolution applies no gate.
        EXPECT_EQ(gatedNodes, onCuda() ? 2 : 0);
        if (onCuda())
        {
            // One kHWC8 region from the first convolution to the last: the activations, the residual sum and the
            // hard-swish (a pointwise program) run in it, so the only reformats are at the block's input and output.
            EXPECT_LE(reformats, 2);
        }
    };
    kiln::test::checkReducedPrecisionMatchesFp32(c, rng);
}

} // namespace
