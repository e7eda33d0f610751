// The CUDA kernels' choices by timing recorded in the engine (backends/cuda/kernels/autotune.h): a small network of
// 1x1 and 3x3 convolutions and a matrix multiply with a bias, built with kFP16 / kBF16 and compared with the CPU
// backend's FP32 result on random data. On the CUDA backend, the nodes whose cuDNN plan or cuBLASLt algorithm was
// chosen among several by timing keep the choice in their "autotune" attribute (entries "c\t..." / "l\t...").
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

std::vector<float> randomValues(std::mt19937& rng, size_t count)
{
    std::uniform_real_distribution<float> dist(-0.2F, 0.2F);
    std::vector<float> v(count);
    for (float& x : v)
    {
        x = dist(rng);
    }
    return v;
}

Weights weightsOf(std::vector<float> const& v)
{
    return Weights{DataType::kFLOAT, v.data(), static_cast<int64_t>(v.size())};
}

struct NetWeights
{
    std::vector<float> expand, expandBias, conv, convBias, fc, fcBias;
};

//! x[N, 48, 14, 14] → 1x1 (96) + bias + ReLU → 3x3 (48) + bias → average over H, W → [N, 48] x [48, 64] + bias → "y".
void buildNet(NetworkRunner& r, NetWeights const& w)
{
    INetworkDefinition& n = r.network();
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 48, 14, 14});
    auto* e = n.addConvolutionNd(*x, 96, Dims2{1, 1}, weightsOf(w.expand), weightsOf(w.expandBias));
    auto* re = n.addActivation(*e->getOutput(0), ActivationType::kRELU);
    auto* c = n.addConvolutionNd(*re->getOutput(0), 48, Dims2{3, 3}, weightsOf(w.conv), weightsOf(w.convBias));
    c->setPaddingNd(Dims2{1, 1});
    auto* pool = n.addReduce(*c->getOutput(0), ReduceOperation::kAVG, 0b1100U, false);
    auto* fc = n.addConstant(Dims2{48, 64}, weightsOf(w.fc));
    auto* mm = n.addMatrixMultiply(*pool->getOutput(0), MatrixOperation::kNONE, *fc->getOutput(0), MatrixOperation::kNONE);
    auto* bias = n.addConstant(Dims2{1, 64}, weightsOf(w.fcBias));
    auto* y = n.addElementWise(*mm->getOutput(0), *bias->getOutput(0), ElementWiseOperation::kSUM);
    r.markOutput(y->getOutput(0), "y");
    r.setProfileDims("x", {1, 48, 14, 14}, {4, 48, 14, 14}, {8, 48, 14, 14});
}

class AutotuneLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(AutotuneLayerTest);

TEST_P(AutotuneLayerTest, ChoicesRecordedInTheEngineAndResultsMatchFp32)
{
    std::mt19937 rng(2311);
    NetWeights w;
    w.expand = randomValues(rng, 96 * 48);
    w.expandBias = randomValues(rng, 96);
    w.conv = randomValues(rng, 48 * 96 * 9);
    w.convBias = randomValues(rng, 48);
    w.fc = randomValues(rng, 48 * 64);
    w.fcBias = randomValues(rng, 64);
    kiln::test::ReducedPrecisionCheck c;
    c.build = [&](NetworkRunner& r) { buildNet(r, w); };
    c.input = "x";
    c.inputDims = {48, 14, 14};
    c.outputs = {"y"};
    c.batches = {4, 1, 8};
    c.fp16Tolerance = 3e-2;
    c.bf16Tolerance = 1e-1;
    c.checkPlan = [&](kiln::Plan const& plan, BuilderFlag) {
        int32_t recorded = 0;
        int32_t libraryNodes = 0;
        for (kiln::PlanNode const& node : plan.nodes)
        {
            bool const library = node.tactic == "cudnn" || node.tactic == "cublaslt";
            libraryNodes += library ? 1 : 0;
            std::string const entries = node.attrs.getString("autotune");
            if (entries.empty())
            {
                continue;
            }
            SCOPED_TRACE("node '" + node.name + "': " + entries);
            ++recorded;
            EXPECT_TRUE(library) << node.tactic; // only the chosen library tactic's choices are kept
            char const kind = node.tactic == "cudnn" ? 'c' : 'l';
            EXPECT_EQ(entries[0], kind);
            EXPECT_EQ(entries[1], '\t');
        }
        if (onCuda() && libraryNodes > 0)
        {
            EXPECT_GE(recorded, 1) << "no node recorded a choice made by timing";
        }
        if (!onCuda())
        {
            EXPECT_EQ(recorded, 0); // the CPU backend times nothing inside its kernels
        }
    };
    kiln::test::checkReducedPrecisionMatchesFp32(c, rng);
}

} // namespace
