// A pre-norm residual stream end to end (GPT-2's shape without its matrix multiplies, which would take the residual
// additions into their epilogues): h0 = x + a position table [1, S, C], then two blocks h_{i+1} = h_i + f(LN_i(h_i))
// and a final LN, built with kFP16 / kBF16 and a dynamic batch, run on each backend and compared with the CPU
// backend's FP32 result on random data. On the CUDA backend (the residual-norm fusion on by default) every addition
// joins the norm that reads it: the first two write the sum as a second output (the next block reads it), the last
// does not; on the CPU backend (fusion off by default) the layers stay as written.
#include "backends/common/normalizationParams.h"
#include "common/backendTest.h"
#include "common/networkRunner.h"
#include "common/reducedPrecision.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace
{
using namespace nvinfer1;
using kiln::test::NetworkRunner;

constexpr int64_t kS = 8;
constexpr int64_t kC = 256;

struct StreamWeights
{
    std::vector<float> position;
    std::vector<std::vector<float>> scales;
    std::vector<std::vector<float>> shifts;
};

StreamWeights randomWeights(std::mt19937& rng)
{
    std::uniform_real_distribution<float> dist(-1.F, 1.F);
    StreamWeights w;
    w.position.resize(kS * kC);
    for (float& v : w.position)
    {
        v = dist(rng);
    }
    for (int32_t i = 0; i < 3; ++i)
    {
        std::vector<float> scale(kC);
        std::vector<float> shift(kC);
        for (int64_t c = 0; c < kC; ++c)
        {
            scale[static_cast<size_t>(c)] = 1.F + 0.5F * dist(rng);
            shift[static_cast<size_t>(c)] = dist(rng);
        }
        w.scales.push_back(std::move(scale));
        w.shifts.push_back(std::move(shift));
    }
    return w;
}

ITensor* constant(INetworkDefinition& n, std::vector<float> const& v, Dims const& d)
{
    return n.addConstant(d, Weights{DataType::kFLOAT, v.data(), static_cast<int64_t>(v.size())})->getOutput(0);
}

ITensor* layerNorm(INetworkDefinition& n, ITensor& h, StreamWeights const& w, size_t i)
{
    return n.addNormalizationV2(h, *constant(n, w.scales[i], Dims3{1, 1, kC}), *constant(n, w.shifts[i], Dims3{1, 1, kC}),
        1U << 2)->getOutput(0);
}

void buildStream(NetworkRunner& r, StreamWeights const& w)
{
    INetworkDefinition& n = r.network();
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, kS, kC});
    ITensor* h = n.addElementWise(*x, *constant(n, w.position, Dims3{1, kS, kC}), ElementWiseOperation::kSUM)->getOutput(0);
    for (size_t block = 0; block < 2; ++block)
    {
        ITensor* f = n.addActivation(*layerNorm(n, *h, w, block), ActivationType::kGELU_TANH)->getOutput(0);
        h = n.addElementWise(*h, *f, ElementWiseOperation::kSUM)->getOutput(0);
    }
    r.markOutput(layerNorm(n, *h, w, 2), "y");
    r.setProfileDims("x", {1, kS, kC}, {2, kS, kC}, {4, kS, kC});
}

class ResidualNormLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(ResidualNormLayerTest);

TEST_P(ResidualNormLayerTest, PreNormStreamInReducedPrecisionMatchesFp32)
{
    std::mt19937 rng(2043);
    StreamWeights const w = randomWeights(rng);
    kiln::test::ReducedPrecisionCheck c;
    c.build = [&](NetworkRunner& r) { buildStream(r, w); };
    c.input = "x";
    c.inputDims = {kS, kC};
    c.outputs = {"y"};
    c.fp16Tolerance = 3e-2;
    c.bf16Tolerance = 1.5e-1;
    c.checkPlan = [&](kiln::Plan const& plan, BuilderFlag) {
        int32_t norms = 0;
        int32_t fused = 0;
        int32_t withSum = 0;
        for (kiln::PlanNode const& node : plan.nodes)
        {
            if (node.kind != LayerType::kNORMALIZATION)
            {
                continue;
            }
            ++norms;
            if (node.attrs.getInt(kiln::kRESIDUAL_NORM_ATTR, 0) != 0)
            {
                ++fused;
                withSum += node.outputs.size() == 2 ? 1 : 0;
            }
        }
        EXPECT_EQ(norms, 3);
        EXPECT_EQ(fused, onCuda() ? 3 : 0);
        EXPECT_EQ(withSum, onCuda() ? 2 : 0);
    };
    kiln::test::checkReducedPrecisionMatchesFp32(c, rng);
}

} // namespace
