// 1x1 convolutions end to end: an EfficientNet-like block (1x1 expansion + bias + ReLU, a squeeze-excitation gate:
// global average pool → 1x1 + SiLU → 1x1 + sigmoid → product, then a 1x1 projection + residual + ReLU and a last 1x1
// of 12 maps with a GELU) built with kFP16 / kBF16 and a dynamic batch, run on each backend and compared with the CPU
// backend's FP32 result on random data. On the CUDA backend every 1x1 convolution is offered the "gemm" tactic
// (one cuBLASLt product with its epilogue; kHWC8 inside the channel-last region, linear [N, C, 1, 1] for the
// squeeze-excitation pair), and the builder timed it without a failure for each (the plan's tactic.timing).
#include "common/backendTest.h"
#include "common/networkRunner.h"
#include "common/reducedPrecision.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace
{
using namespace nvinfer1;
using kiln::test::NetworkRunner;

constexpr int64_t kIN = 16;
constexpr int64_t kWIDE = 40;
constexpr int64_t kSQUEEZE = 12;
constexpr int64_t kLAST = 12;

//! Kernel and bias values of the five 1x1 convolutions (uniform in [-0.3, 0.3]).
struct GemmBlockWeights
{
    std::vector<float> expand, expandBias, reduce, reduceBias, gate, gateBias, project, projectBias, last;
};

GemmBlockWeights randomGemmWeights(std::mt19937& rng)
{
    std::uniform_real_distribution<float> dist(-0.3F, 0.3F);
    GemmBlockWeights w;
    w.expand.resize(kWIDE * kIN);
    w.expandBias.resize(kWIDE);
    w.reduce.resize(kSQUEEZE * kWIDE);
    w.reduceBias.resize(kSQUEEZE);
    w.gate.resize(kWIDE * kSQUEEZE);
    w.gateBias.resize(kWIDE);
    w.project.resize(kIN * kWIDE);
    w.projectBias.resize(kIN);
    w.last.resize(kLAST * kIN);
    for (auto* v : {&w.expand, &w.expandBias, &w.reduce, &w.reduceBias, &w.gate, &w.gateBias, &w.project,
             &w.projectBias, &w.last})
    {
        for (float& x : *v)
        {
            x = dist(rng);
        }
    }
    return w;
}

Weights floats(std::vector<float> const& v)
{
    return Weights{DataType::kFLOAT, v.data(), static_cast<int64_t>(v.size())};
}

//! A 1x1 convolution of `x` to `maps` maps.
ITensor* pointwise(INetworkDefinition& n, ITensor& x, int64_t maps, std::vector<float> const& k, std::vector<float> const& b)
{
    return n.addConvolutionNd(x, maps, Dims2{1, 1}, floats(k), floats(b))->getOutput(0);
}

//! x[N, 16, 6, 6] → 1x1 (40) + ReLU → e; gate = sigmoid(1x1 (40) of ReLU(1x1 (12) of mean_HW(e))); 1x1 (16) of
//! e * gate, + x, ReLU → 1x1 (12, no bias) → GELU → "y" [N, 12, 6, 6].
void buildGemmBlock(NetworkRunner& r, GemmBlockWeights const& w)
{
    INetworkDefinition& n = r.network();
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, kIN, 6, 6});
    ITensor* e = n.addActivation(*pointwise(n, *x, kWIDE, w.expand, w.expandBias), ActivationType::kRELU)->getOutput(0);
    ITensor* mean = n.addReduce(*e, ReduceOperation::kAVG, (1U << 2) | (1U << 3), true)->getOutput(0);
    // EfficientNet's squeeze: SiLU, v * sigmoid(v) (a gated activation in the gemm tactic's epilogue on CUDA).
    ITensor* v = pointwise(n, *mean, kSQUEEZE, w.reduce, w.reduceBias);
    ITensor* s1 = n.addElementWise(*v, *n.addActivation(*v, ActivationType::kSIGMOID)->getOutput(0),
                       ElementWiseOperation::kPROD)
                      ->getOutput(0);
    ITensor* s2 = n.addActivation(*pointwise(n, *s1, kWIDE, w.gate, w.gateBias), ActivationType::kSIGMOID)->getOutput(0);
    ITensor* gated = n.addElementWise(*e, *s2, ElementWiseOperation::kPROD)->getOutput(0);
    ITensor* p = pointwise(n, *gated, kIN, w.project, w.projectBias);
    ITensor* sum = n.addElementWise(*p, *x, ElementWiseOperation::kSUM)->getOutput(0);
    ITensor* res = n.addActivation(*sum, ActivationType::kRELU)->getOutput(0);
    ITensor* last = n.addConvolutionNd(*res, kLAST, Dims2{1, 1}, floats(w.last), Weights{DataType::kFLOAT, nullptr, 0})
                        ->getOutput(0);
    ITensor* y = n.addActivation(*last, ActivationType::kGELU_ERF)->getOutput(0);
    r.markOutput(y, "y");
    r.setProfileDims("x", {1, kIN, 6, 6}, {2, kIN, 6, 6}, {4, kIN, 6, 6});
}

class GemmConvolutionLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(GemmConvolutionLayerTest);

TEST_P(GemmConvolutionLayerTest, SqueezeExcitationBlockInReducedPrecisionMatchesFp32)
{
    std::mt19937 rng(2077);
    GemmBlockWeights const w = randomGemmWeights(rng);
    kiln::test::ReducedPrecisionCheck c;
    c.build = [&](NetworkRunner& r) { buildGemmBlock(r, w); };
    c.input = "x";
    c.inputDims = {kIN, 6, 6};
    c.outputs = {"y"};
    c.fp16Tolerance = 3e-2;
    c.bf16Tolerance = 1e-1;
    c.checkPlan = [&](kiln::Plan const& plan, BuilderFlag) {
        int32_t pointwiseNodes = 0;
        int32_t candidates = 0;
        int32_t gatedNodes = 0;
        for (kiln::PlanNode const& node : plan.nodes)
        {
            if (node.kind != LayerType::kCONVOLUTION || node.attrs.getInts("kernelSize") != std::vector<int64_t>{1, 1})
            {
                continue;
            }
            ++pointwiseNodes;
            // The tactic's types: data, fused addition and output all FP16 or all BF16.
            DataType const t = plan.tensors[static_cast<size_t>(node.inputs[0])].type;
            bool sameType = t == DataType::kHALF || t == DataType::kBF16;
            for (int32_t id : node.outputs)
            {
                sameType = sameType && plan.tensors[static_cast<size_t>(id)].type == t;
            }
            if (node.attrs.getInt("fuse.add", 0) != 0)
            {
                sameType = sameType && plan.tensors[static_cast<size_t>(node.inputs.back())].type == t;
            }
            bool const gated = node.attrs.getInt("fuse.gate", 0) != 0;
            gatedNodes += gated ? 1 : 0;
            if (onCuda() && sameType && gated)
            {
                // With depthwise and the kHWC8 pointwise tactics, the only tactics applying a gate.
                EXPECT_TRUE(node.tactic == "gemm" || node.tactic.rfind("pointwise", 0) == 0)
                    << node.name << ": " << node.tactic;
                ++candidates;
            }
            else if (onCuda() && sameType)
            {
                // The gemm tactic was offered, timed and ran; the fastest tactic was kept.
                ++candidates;
                SCOPED_TRACE("node '" + node.name + "'");
                std::string const timing = node.attrs.getString("tactic.timing");
                EXPECT_NE(timing.find("gemm "), std::string::npos) << timing;
                EXPECT_EQ(timing.find("gemm failed"), std::string::npos) << timing;
            }
        }
        EXPECT_EQ(pointwiseNodes, 5);
        // CUDA's gemm tactic takes the squeeze's SiLU; the CPU's convolution applies no gate.
        EXPECT_EQ(gatedNodes, onCuda() ? 1 : 0);
        if (onCuda())
        {
            EXPECT_GE(candidates, 1);
        }
    };
    kiln::test::checkReducedPrecisionMatchesFp32(c, rng);
}

} // namespace
