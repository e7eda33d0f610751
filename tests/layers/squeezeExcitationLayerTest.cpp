// Squeeze-excitation blocks end to end: EfficientNet's (1x1 expansion + SiLU, depthwise 3x3 + SiLU, the mean over H
// and W, 1x1 convolution + SiLU, 1x1 convolution + sigmoid, the activation scaled by it, 1x1 projection) and a
// variant whose scale is the sigmoid of the mean itself (the sigmoid and the scaling fuse into one pointwise program
// with a broadcast input), built with kFP16 / kBF16 and a dynamic batch, run on each backend and compared with the CPU
// backend's FP32 result on random data. On the CUDA backend the block's H x W activations never leave kHWC8: the only
// reformats of tensors with more than one pixel are the block's input and output (the reduction reads kHWC8 and the
// scaling broadcasts the [N, C, 1, 1] scale in kHWC8).
#include "common/backendTest.h"
#include "common/networkRunner.h"
#include "common/reducedPrecision.h"
#include "core/tensorFormat.h"

#include <gtest/gtest.h>

#include <list>
#include <random>
#include <string>
#include <vector>

namespace
{
using namespace nvinfer1;
using kiln::test::NetworkRunner;

constexpr int32_t kIN = 16;
constexpr int32_t kWIDE = 32;
constexpr int32_t kSQUEEZE = 8;

//! Random weights, kept alive for the builds.
struct WeightStore
{
    std::mt19937 rng;
    std::vector<std::vector<float>> blocks;
    Weights next(int64_t count)
    {
        std::uniform_real_distribution<float> dist(-0.3F, 0.3F);
        blocks.emplace_back(static_cast<size_t>(count));
        for (float& v : blocks.back())
        {
            v = dist(rng);
        }
        return Weights{DataType::kFLOAT, blocks.back().data(), count};
    }
};

ITensor* silu(INetworkDefinition& n, ITensor& x)
{
    return n.addElementWise(x, *n.addActivation(x, ActivationType::kSIGMOID)->getOutput(0), ElementWiseOperation::kPROD)
        ->getOutput(0);
}

//! x[N, 16, 12, 12] → the block → "y" [N, 16, 12, 12], with weights from `w` (which must outlive the build, as
//! TensorRT requires of weights given to a network). A fresh store of the same seed draws the same weights.
void buildBlock(NetworkRunner& r, WeightStore& w, bool direct)
{
    INetworkDefinition& n = r.network();
    Weights const none{DataType::kFLOAT, nullptr, 0};
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, kIN, 12, 12});
    auto* expand = n.addConvolutionNd(*x, kWIDE, Dims2{1, 1}, w.next(kWIDE * kIN), w.next(kWIDE));
    auto* dw = n.addConvolutionNd(*silu(n, *expand->getOutput(0)), kWIDE, Dims2{3, 3}, w.next(kWIDE * 9), w.next(kWIDE));
    dw->setNbGroups(kWIDE);
    dw->setPaddingNd(Dims2{1, 1});
    ITensor* act = silu(n, *dw->getOutput(0));
    ITensor* mean = n.addReduce(*act, ReduceOperation::kAVG, 0b1100, true)->getOutput(0);
    ITensor* s = nullptr;
    if (direct)
    {
        s = n.addActivation(*mean, ActivationType::kSIGMOID)->getOutput(0);
    }
    else
    {
        auto* fc1 = n.addConvolutionNd(*mean, kSQUEEZE, Dims2{1, 1}, w.next(kSQUEEZE * kWIDE), w.next(kSQUEEZE));
        auto* fc2 = n.addConvolutionNd(*silu(n, *fc1->getOutput(0)), kWIDE, Dims2{1, 1}, w.next(kWIDE * kSQUEEZE), w.next(kWIDE));
        s = n.addActivation(*fc2->getOutput(0), ActivationType::kSIGMOID)->getOutput(0);
    }
    ITensor* scaled = n.addElementWise(*act, *s, ElementWiseOperation::kPROD)->getOutput(0);
    auto* proj = n.addConvolutionNd(*scaled, kIN, Dims2{1, 1}, w.next(kIN * kWIDE), none);
    r.markOutput(proj->getOutput(0), "y");
    r.setProfileDims("x", {1, kIN, 12, 12}, {2, kIN, 12, 12}, {4, kIN, 12, 12});
}

class SqueezeExcitationLayerTest : public kiln::test::BackendTest
{
protected:
    void check(bool direct)
    {
        std::mt19937 rng(direct ? 77 : 78);
        kiln::test::ReducedPrecisionCheck c;
        std::list<WeightStore> stores; // one per build, alive until the check is done
        c.build = [&](NetworkRunner& r) { buildBlock(r, stores.emplace_back(WeightStore{std::mt19937(5), {}}), direct); };
        c.input = "x";
        c.inputDims = {kIN, 12, 12};
        c.outputs = {"y"};
        c.checkPlan = [&](kiln::Plan const& plan, BuilderFlag) {
            if (!onCuda())
            {
                return;
            }
            int32_t wideReformats = 0;
            bool reduceInRegion = false;
            bool scaleInRegion = false;
            for (kiln::PlanNode const& node : plan.nodes)
            {
                bool const region = node.attrs.getInt(kiln::kCHANNEL_LAST_ATTRIBUTE, 0) != 0;
                if (node.kind == LayerType::kIDENTITY && node.attrs.getInt("reformat", 0) == 1)
                {
                    kiln::PlanTensor const& t = plan.tensors[static_cast<size_t>(node.inputs[0])];
                    wideReformats += plan.shapes.valueOrUnknown(t.dims[2]) != 1 ? 1 : 0;
                }
                reduceInRegion = reduceInRegion || (node.kind == LayerType::kREDUCE && region);
                // The scaling: a plain product or a pointwise program, one of whose inputs is [N, 32, 1, 1].
                if (node.kind == LayerType::kELEMENTWISE && node.inputs.size() == 2)
                {
                    for (int32_t in : node.inputs)
                    {
                        kiln::PlanTensor const& t = plan.tensors[static_cast<size_t>(in)];
                        scaleInRegion = scaleInRegion || (region && plan.shapes.valueOrUnknown(t.dims[2]) == 1);
                    }
                }
            }
            EXPECT_TRUE(reduceInRegion);
            EXPECT_TRUE(scaleInRegion);
            EXPECT_EQ(wideReformats, 2) << "only the block's input and output are reformatted";
        };
        kiln::test::checkReducedPrecisionMatchesFp32(c, rng);
    }
};
KILN_INSTANTIATE_BACKEND_TESTS(SqueezeExcitationLayerTest);

TEST_P(SqueezeExcitationLayerTest, EfficientNetBlockInReducedPrecisionMatchesFp32)
{
    check(false);
}

TEST_P(SqueezeExcitationLayerTest, FusedScaleInReducedPrecisionMatchesFp32)
{
    check(true);
}

} // namespace
