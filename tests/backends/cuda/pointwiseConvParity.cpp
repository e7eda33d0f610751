// Parity of the CUDA convolution's "pointwise" tactics (tensor-core "pointwise", CUDA-core "pointwise.fma"): 1x1
// convolutions with stride 1, no padding and groups 1 on kHWC8 FP16/BF16 tensors of at most 64 (padded) input
// channels, with the whole fused epilogue in the kernel. Random shapes (input channels 3-64, output channels 8-144,
// some not multiples of 8, odd spatial extents, batch 1-3), with and without bias and residual, every activation the
// conv epilogue fusion can give them (none, ReLU, the gated SiLU and hard-swish, and others), against the CPU reference
// on NCHW copies with the output poisoned and its padding channels checked zero (runHwc8). Also which nodes get the
// tactics and the creation errors where they do not apply (no GPU needed).
#include "convolutionCheck.h"
#include "cudaParity.h"

#include "backends/cuda/cudaKernel.h"
#include "core/dataType.h"
#include "core/tensorFormat.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace kiln::test::cuda
{
namespace
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;
using nvinfer1::LayerType;

//! The epilogues of the cases, taken in turn: activation (0: none), gated, alpha, beta.
struct EpilogueCase
{
    int32_t act{0};
    bool gate{false};
    float alpha{0.F};
    float beta{0.F};
};

std::vector<EpilogueCase> epilogues()
{
    return {
        {0, false, 0.F, 0.F},
        {act(ActivationType::kSIGMOID), true, 0.F, 0.F},               // SiLU (EfficientNet)
        {act(ActivationType::kRELU), false, 0.F, 0.F},                 // MobileNetV3's early blocks
        {act(ActivationType::kHARD_SIGMOID), true, 1.F / 6.F, 0.5F},   // hard-swish (MobileNetV3)
        {act(ActivationType::kSIGMOID), false, 0.F, 0.F},              // plain sigmoid
        {act(ActivationType::kCLIP), false, 0.F, 6.F},                 // ReLU6
        {act(ActivationType::kGELU_ERF), false, 0.F, 0.F},
        {act(ActivationType::kLEAKY_RELU), false, 0.1F, 0.F},
        {act(ActivationType::kHARD_SIGMOID), false, 0.2F, 0.5F},
        {act(ActivationType::kTANH), false, 0.F, 0.F},
    };
}

//! Every input channel count of {3, 8, 16, 24, 40, 64} with every output count of {8, 24, 96, 144} and a few odd ones
//! (20, 57 in, 20 out: padding channels on both sides), on random odd spatial extents and batches 1-3, the epilogues
//! in turn, bias and residual alternating; plus the model shapes EfficientNet-B0 / MobileNetV3 expand.
std::vector<ConvSpec> pointwiseCases(DataType t)
{
    std::mt19937 rng(1234);
    std::uniform_int_distribution<int64_t> batch(1, 3);
    std::uniform_int_distribution<int64_t> extent(1, 9);
    std::vector<EpilogueCase> const epi = epilogues();
    std::vector<ConvSpec> cases;
    auto const add = [&](int64_t n, int64_t c, int64_t k, int64_t h, int64_t w) {
        ConvSpec s = typed({}, t);
        s.in = {n, c, h, w};
        s.k = k;
        s.kernel = {1, 1};
        EpilogueCase const& e = epi[cases.size() % epi.size()];
        s.fuseAct = e.act;
        s.gate = e.gate;
        s.alpha = e.alpha;
        s.beta = e.beta;
        s.bias = cases.size() % 3 != 2;
        s.fuseAdd = cases.size() % 4 == 1 || cases.size() % 7 == 3;
        cases.push_back(s);
    };
    for (int64_t c : {3, 8, 16, 20, 24, 40, 57, 64})
    {
        for (int64_t k : {8, 20, 24, 96, 144})
        {
            add(batch(rng), c, k, 2 * extent(rng) + 1, 2 * extent(rng) + 1);
        }
    }
    add(2, 16, 96, 29, 27);  // EfficientNet-B0's 16 -> 96 expansion (112x112 in the model)
    add(1, 24, 144, 15, 17); // 24 -> 144
    add(3, 40, 240, 7, 9);   // 40 -> 240: more than two chunks of 64 output channels
    add(2, 16, 64, 19, 21);  // MobileNetV3's 16 -> 64
    add(1, 40, 120, 13, 11); // 40 -> 120
    return cases;
}

TEST(CudaParity, PointwiseConvHwc8)
{
    for (char const* tactic : {"pointwise", "pointwise.fma"})
    {
        uint32_t seed = 900;
        for (DataType t : {DataType::kHALF, DataType::kBF16})
        {
            SCOPED_TRACE(dataTypeName(t));
            for (ConvSpec const& s : pointwiseCases(t))
            {
                runHwc8(s, seed++, tactic);
            }
            ConvSpec wide = pointwiseCases(t)[11]; // FP32 weights for FP16/BF16 tensors
            wide.weightsType = DataType::kFLOAT;
            runHwc8(wide, seed++, tactic);
        }
    }
}

//! Which nodes get the pointwise tactics (channel-last 1x1, stride 1, unpadded, ungrouped, FP16/BF16, at most 64
//! padded input channels; after cudnn and gemm) and the creation errors where they do not apply.
TEST(CudaKernelTable, PointwiseConvTactics)
{
    auto const tactics = ::kiln::cuda::cudaKernelTactics(LayerType::kCONVOLUTION);
    ASSERT_NE(tactics, nullptr);
    std::vector<float> values(144 * 72 * 9, 0.25F);
    auto const setupOf = [&](PlanNode const& node, DataType t, int64_t kernelCount) {
        KernelSetup s = tableSetup(node, t, node.inputs.size());
        s.weights.resize(2);
        s.weights[0].data = values.data();
        s.weights[0].count = kernelCount;
        bool const cl = node.attrs.getInt(kCHANNEL_LAST_ATTRIBUTE, 0) != 0;
        auto const f = cl ? nvinfer1::TensorFormat::kHWC8 : nvinfer1::TensorFormat::kLINEAR;
        s.inputFormats.assign(node.inputs.size(), f);
        s.outputFormats = {f};
        return s;
    };
    auto const nodeOf = [](ConvSpec const& s, bool channelLast, std::string const& tactic) {
        PlanNode node = convNode(s, tactic);
        if (channelLast)
        {
            node.attrs.setInt(kCHANNEL_LAST_ATTRIBUTE, 1);
            node.attrs.setInt(kREGION_FORMAT_ATTRIBUTE, static_cast<int64_t>(nvinfer1::TensorFormat::kHWC8));
        }
        return node;
    };
    auto const weightCount = [](ConvSpec const& s) {
        int64_t n = s.k * s.in[1] / s.groups;
        for (int64_t e : s.kernel)
        {
            n *= e;
        }
        return n;
    };
    auto const list = [&](ConvSpec const& s, bool cl, DataType t) {
        return tactics(setupOf(nodeOf(s, cl, ""), t, weightCount(s)));
    };
    auto const offered = [&](ConvSpec const& s, bool cl, DataType t) {
        std::vector<std::string> const v = list(s, cl, t);
        return std::count(v.begin(), v.end(), "pointwise") + std::count(v.begin(), v.end(), "pointwise.fma");
    };
    ConvSpec base = typed({}, DataType::kHALF);
    base.in = {2, 16, 9, 7};
    base.k = 96;
    base.kernel = {1, 1};
    for (DataType t : {DataType::kHALF, DataType::kBF16})
    {
        std::vector<std::string> const v = list(base, true, t);
        auto const at = std::find(v.begin(), v.end(), "pointwise");
        ASSERT_NE(at, v.end());
        ASSERT_NE(at + 1, v.end());
        EXPECT_EQ(*(at + 1), "pointwise.fma");
        EXPECT_NE(v.front(), "pointwise"); // the channel-last pass keeps probing cudnn (or gemm)
        auto const gemm = std::find(v.begin(), v.end(), "gemm");
        EXPECT_TRUE(gemm != v.end() && gemm < at);
        // The gated epilogue (SiLU) and the residual are the tactic's own: offered with both.
        ConvSpec silu = base;
        silu.fuseAct = act(ActivationType::kSIGMOID);
        silu.gate = true;
        silu.fuseAdd = true;
        std::vector<std::string> const g = list(silu, true, t);
        EXPECT_EQ(std::count(g.begin(), g.end(), "pointwise"), 1);
        EXPECT_EQ(std::count(g.begin(), g.end(), "pointwise.fma"), 1);
        EXPECT_EQ(g.front(), "gemm");
        // 64 padded input channels are the most: 57 and 64 are taken, 65 and 72 are not.
        for (int64_t c : {3, 57, 64})
        {
            ConvSpec s = base;
            s.in[1] = c;
            EXPECT_EQ(offered(s, true, t), 2) << c << " channels";
        }
        for (int64_t c : {65, 72})
        {
            ConvSpec s = base;
            s.in[1] = c;
            EXPECT_EQ(offered(s, true, t), 0) << c << " channels";
        }
    }
    EXPECT_EQ(offered(base, false, DataType::kHALF), 0); // linear tensors: the gemm tactic's
    EXPECT_EQ(offered(base, true, DataType::kFLOAT), 0);  // FP16/BF16 only
    ConvSpec strided = base;
    strided.stride = {2, 2};
    EXPECT_EQ(offered(strided, true, DataType::kHALF), 0);
    ConvSpec padded = base;
    padded.pre = {1, 1};
    padded.post = {1, 1};
    EXPECT_EQ(offered(padded, true, DataType::kHALF), 0);
    ConvSpec grouped = base;
    grouped.groups = 2;
    EXPECT_EQ(offered(grouped, true, DataType::kHALF), 0);
    ConvSpec wide = base;
    wide.kernel = {3, 3};
    EXPECT_EQ(offered(wide, true, DataType::kHALF), 0);
    ConvSpec fromInput = base;
    fromInput.kernelInput = true;
    PlanNode const input = nodeOf(fromInput, true, "");
    std::vector<std::string> const withInputs = tactics(tableSetup(input, DataType::kHALF, 3));
    EXPECT_EQ(std::count(withInputs.begin(), withInputs.end(), "pointwise"), 0);
    // Forcing the tactic where it does not apply fails with the reason (before any device work).
    auto const forced = [&](ConvSpec const& s, bool cl, DataType t, char const* tactic) {
        PlanNode const node = nodeOf(s, cl, tactic);
        return ::kiln::cuda::cudaKernelFactory(LayerType::kCONVOLUTION)(setupOf(node, t, weightCount(s)));
    };
    ConvSpec many = base;
    many.in[1] = 72;
    for (char const* tactic : {"pointwise", "pointwise.fma"})
    {
        SCOPED_TRACE(tactic);
        auto const refused = [&](ConvSpec const& s, bool cl, DataType t, char const* reason) {
            auto r = forced(s, cl, t, tactic);
            ASSERT_FALSE(r.isOk()) << reason;
            EXPECT_NE(r.status().message().find(reason), std::string::npos) << r.status().message();
        };
        refused(many, true, DataType::kHALF, "at most 64 input channels");
        refused(strided, true, DataType::kHALF, "stride 1 and no padding");
        refused(padded, true, DataType::kHALF, "stride 1 and no padding");
        refused(grouped, true, DataType::kHALF, "ungrouped");
        refused(base, false, DataType::kHALF, "channel-last");
        refused(base, true, DataType::kFLOAT, "FP16 or BF16");
    }
}

} // namespace
} // namespace kiln::test::cuda
