// attentionGpuTest.cpp — the attention fusion on the CUDA backend: a strongly typed FP16 network with BERT's attention
// (matmul with the transposed key, division by a constant, a [b, 1, 1, s] mask addition, softmax, matmul with the
// value) builds into one fused attention layer (cuDNN flash attention) for kCUDA, and its outputs match the CPU
// backend's unfused layers at two batch sizes of one dynamic profile. The same network in FP32 stays unfused on
// kCUDA (the CUDA attention kernel refuses FP32) and still matches. The exported form, with the head split and merge
// transposes around the attention ([b, s, h, d] inputs and output), fuses with those transposes absorbed. GPT-2's
// form, one QKV projection sliced in three along the last axis and each part reshaped to [b, s, h, d], fuses with the
// slices and reshapes absorbed too (cuDNN reads the projection in place); with the projection's parts at offsets cuDNN
// cannot read aligned, the slices stay and the rest still fuses. With GPT-2's causal mask as a constant [1, 1, s, s]
// bias (0 on and below the diagonal, FP16's lowest above) expanded to [b, 1, s, s], the fused node runs cuDNN's causal
// mode without the bias (builder/passes/fusion/causalMask.cpp) and still matches the CPU backend's unfused layers.
#include "gpuTestUtils.h"

#include <cmath>
#include <memory>
#include <random>

namespace kiln::test::gpu
{
namespace
{
using namespace nvinfer1;

constexpr int64_t kHEADS = 4;
constexpr int64_t kSEQ = 48;
constexpr int64_t kDIM = 64;

ITensor* transposed(INetworkDefinition& net, ITensor& t, Permutation perm)
{
    auto* shuffle = net.addShuffle(t);
    shuffle->setFirstTranspose(perm);
    return shuffle->getOutput(0);
}

//! softmax(q·k (op `keyOp`) / divisor + mask) · v.
ITensor* scaledAttention(INetworkDefinition& net, ITensor& q, ITensor& k, MatrixOperation keyOp, ITensor& divisor,
    ITensor& mask, ITensor& v)
{
    auto* scores = net.addMatrixMultiply(q, MatrixOperation::kNONE, k, keyOp);
    auto* scaled = net.addElementWise(*scores->getOutput(0), divisor, ElementWiseOperation::kDIV);
    auto* masked = net.addElementWise(*scaled->getOutput(0), mask, ElementWiseOperation::kSUM);
    auto* probs = net.addSoftMax(*masked->getOutput(0));
    probs->setAxes(1U << 3);
    return net.addMatrixMultiply(*probs->getOutput(0), MatrixOperation::kNONE, v, MatrixOperation::kNONE)->getOutput(0);
}

//! `exported`: inputs and output [b, s, h, d] with the transposes an ONNX export has (the key to [b, h, d, s]).
std::function<void(NetworkRunner&)> attentionBody(DataType type, bool exported)
{
    return [type, exported](NetworkRunner& r) {
        INetworkDefinition& net = r.network();
        std::vector<int64_t> const shape
            = exported ? std::vector<int64_t>{-1, kSEQ, kHEADS, kDIM} : std::vector<int64_t>{-1, kHEADS, kSEQ, kDIM};
        ITensor* q = r.addInput("q", type, shape);
        ITensor* k = r.addInput("k", type, shape);
        ITensor* v = r.addInput("v", type, shape);
        ITensor* mask = r.addInput("mask", type, {-1, 1, 1, kSEQ});
        // One batch extent for query, key and value (the fusion needs them equal); the mask keeps its own, as an
        // exported BERT's does, and the kernel checks it at run time.
        for (ITensor* t : {q, k, v})
        {
            t->setDimensionName(0, "batch");
        }
        MatrixOperation keyOp = MatrixOperation::kTRANSPOSE;
        if (exported)
        {
            q = transposed(net, *q, Permutation{{0, 2, 1, 3}});
            k = transposed(net, *k, Permutation{{0, 2, 3, 1}});
            v = transposed(net, *v, Permutation{{0, 2, 1, 3}});
            keyOp = MatrixOperation::kNONE;
        }
        static float const divisorF = 8.F;
        static uint16_t const divisorH = 0x4800; // 8.0 in FP16
        Weights const w = type == DataType::kHALF ? Weights{DataType::kHALF, &divisorH, 1} : Weights{DataType::kFLOAT, &divisorF, 1};
        ITensor* divisor = net.addConstant(makeDims({1, 1, 1, 1}), w)->getOutput(0);
        ITensor* out = scaledAttention(net, *q, *k, keyOp, *divisor, *mask, *v);
        if (exported)
        {
            out = transposed(net, *out, Permutation{{0, 2, 1, 3}});
        }
        r.markOutput(out, "y");
        std::vector<int64_t> lo = shape;
        std::vector<int64_t> mid = shape;
        std::vector<int64_t> hi = shape;
        lo[0] = 1;
        mid[0] = 2;
        hi[0] = 3;
        for (char const* name : {"q", "k", "v"})
        {
            r.setProfileDims(name, lo, mid, hi);
        }
        r.setProfileDims("mask", {1, 1, 1, kSEQ}, {2, 1, 1, kSEQ}, {3, 1, 1, kSEQ});
    };
}

std::map<std::string, HostTensor> attentionInputs(DataType type, bool exported, int64_t batch, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::map<std::string, HostTensor> in;
    for (char const* name : {"q", "k", "v"})
    {
        in[name] = HostTensor::random(type,
            exported ? makeDims({batch, kSEQ, kHEADS, kDIM}) : makeDims({batch, kHEADS, kSEQ, kDIM}), rng, -1.0, 1.0);
    }
    in["mask"] = HostTensor::random(type, makeDims({batch, 1, 1, kSEQ}), rng, -4.0, 0.0);
    return in;
}

//! Builds for both backends, checks whether the CUDA plan fused (and absorbed the transposes), and compares.
void checkAgainstCpu(DataType type, bool exported, char const* expectedFusion)
{
    KILN_REQUIRE_CUDA_BACKEND();
    uint32_t const flags = 1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED);
    auto cpu = buildFor(kiln::BackendKind::kCPU, attentionBody(type, exported), flags);
    auto gpu = buildFor(kiln::BackendKind::kCUDA, attentionBody(type, exported), flags);
    ASSERT_NE(cpu, nullptr);
    ASSERT_NE(gpu, nullptr);
    std::string const fusions = gpu->logger().messagesContaining("fusion: attention");
    if (expectedFusion != nullptr)
    {
        EXPECT_NE(fusions.find(expectedFusion), std::string::npos) << fusions;
    }
    else
    {
        EXPECT_EQ(gpu->logger().countMessages("fusion: attention '"), 0) << fusions;
    }
    for (int64_t batch : {1, 3})
    {
        auto const inputs = attentionInputs(type, exported, batch, 11 + static_cast<uint32_t>(batch));
        std::map<std::string, HostTensor> expected;
        std::map<std::string, HostTensor> actual;
        std::string error;
        ASSERT_TRUE(runEngine(cpu->engine(), kiln::BackendKind::kCPU, inputs, expected, error)) << error;
        ASSERT_TRUE(runEngine(gpu->engine(), kiln::BackendKind::kCUDA, inputs, actual, error)) << error;
        double const tol = type == DataType::kHALF ? 1e-2 : 1e-4;
        EXPECT_TRUE(allClose(actual["y"], expected["y"], tol, tol)) << "batch " << batch;
    }
}

constexpr int64_t kEMBED = 64;

//! The causal band as an FP16 bias [1, 1, s, s] (0 where j <= i, FP16's lowest elsewhere) expanded to x's batch
//! [b, 1, s, s] by a stride-0 slice whose size comes from Shape(x), as an exported GPT-2's Expand imports.
ITensor* expandedCausalBias(INetworkDefinition& net, ITensor& x)
{
    static std::vector<uint16_t> const bias = [] {
        std::vector<uint16_t> v;
        for (int64_t i = 0; i < kSEQ; ++i)
        {
            for (int64_t j = 0; j < kSEQ; ++j)
            {
                v.push_back(j <= i ? uint16_t{0} : uint16_t{0xFBFF}); // 0 and -65504
            }
        }
        return v;
    }();
    static int64_t const tail[3]{1, kSEQ, kSEQ};
    ITensor* constant
        = net.addConstant(makeDims({1, 1, kSEQ, kSEQ}), Weights{DataType::kHALF, bias.data(), kSEQ * kSEQ})->getOutput(0);
    ITensor* shape = net.addShape(x)->getOutput(0);
    ITensor* parts[2]{net.addSlice(*shape, makeDims({0}), makeDims({1}), makeDims({1}))->getOutput(0),
        net.addConstant(makeDims({3}), Weights{DataType::kINT64, tail, 3})->getOutput(0)};
    ITensor* size = net.addConcatenation(parts, 2)->getOutput(0);
    auto* expand = net.addSlice(*constant, makeDims({0, 0, 0, 0}), makeDims({1, 1, kSEQ, kSEQ}), makeDims({0, 1, 1, 1}));
    expand->setInput(2, *size);
    return expand->getOutput(0);
}

//! x [b, kSEQ, kEMBED] · W [1, kEMBED, pad + 3·h·d] (FP16 constant), then Q, K and V sliced from the last axis at
//! pad, pad + h·d and pad + 2·h·d, reshaped to [b, s, h, d], transposed to heads first, the attention with an additive
//! [1, 1, s, s] mask (an input, or with `causalBias` the expanded constant causal bias), the output transposed back
//! and reshaped to [b, s, h·d].
std::function<void(NetworkRunner&)> packedBody(int64_t pad, bool causalBias = false)
{
    int64_t const width = kHEADS * kDIM;
    int64_t const row = pad + 3 * width;
    std::mt19937 rng(29);
    auto weights = std::make_shared<HostTensor>(
        HostTensor::random(DataType::kHALF, makeDims({1, kEMBED, row}), rng, -0.2, 0.2));
    return [weights, pad, width, row, causalBias](NetworkRunner& r) {
        INetworkDefinition& net = r.network();
        ITensor* x = r.addInput("x", DataType::kHALF, {-1, kSEQ, kEMBED});
        ITensor* mask = causalBias ? expandedCausalBias(net, *x) : r.addInput("mask", DataType::kHALF, {1, 1, kSEQ, kSEQ});
        ITensor* w = net.addConstant(makeDims({1, kEMBED, row}), Weights{DataType::kHALF, weights->data(), kEMBED * row})
                         ->getOutput(0);
        ITensor* qkv = net.addMatrixMultiply(*x, MatrixOperation::kNONE, *w, MatrixOperation::kNONE)->getOutput(0);
        auto part = [&](int64_t index, Permutation perm) {
            auto* slice = net.addSlice(*qkv, makeDims({pad + index * width}), makeDims({width}), makeDims({1}));
            slice->setAxes(makeDims({2}));
            auto* heads = net.addShuffle(*slice->getOutput(0));
            heads->setReshapeDimensions(makeDims({0, 0, kHEADS, kDIM}));
            return transposed(net, *heads->getOutput(0), perm);
        };
        ITensor* q = part(0, Permutation{{0, 2, 1, 3}});
        ITensor* k = part(1, Permutation{{0, 2, 3, 1}});
        ITensor* v = part(2, Permutation{{0, 2, 1, 3}});
        static uint16_t const divisor = 0x4800; // 8.0 in FP16
        ITensor* scale = net.addConstant(makeDims({1, 1, 1, 1}), Weights{DataType::kHALF, &divisor, 1})->getOutput(0);
        ITensor* out = scaledAttention(net, *q, *k, MatrixOperation::kNONE, *scale, *mask, *v);
        auto* merged = net.addShuffle(*transposed(net, *out, Permutation{{0, 2, 1, 3}}));
        merged->setReshapeDimensions(makeDims({0, 0, width}));
        r.markOutput(merged->getOutput(0), "y");
        r.setProfileDims("x", {1, kSEQ, kEMBED}, {2, kSEQ, kEMBED}, {4, kSEQ, kEMBED});
    };
}

//! Builds GPT-2's packed form for both backends, checks what the CUDA fusion absorbed, and compares at two batches.
void checkPackedAgainstCpu(int64_t pad, bool expectPacked, bool causalBias = false)
{
    KILN_REQUIRE_CUDA_BACKEND();
    uint32_t const flags = 1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED);
    auto cpu = buildFor(kiln::BackendKind::kCPU, packedBody(pad, causalBias), flags);
    auto gpu = buildFor(kiln::BackendKind::kCUDA, packedBody(pad, causalBias), flags);
    ASSERT_NE(cpu, nullptr);
    ASSERT_NE(gpu, nullptr);
    std::string const fusions = gpu->logger().messagesContaining("fusion: attention");
    EXPECT_EQ(fusions.find("packed QKV slices and head transposes absorbed") != std::string::npos, expectPacked)
        << fusions;
    EXPECT_NE(fusions.find("absorbed)"), std::string::npos) << fusions;
    // The expanded constant causal bias becomes cuDNN's causal mode: no mask input, and its layers are gone.
    EXPECT_EQ(fusions.find(", causal") != std::string::npos, causalBias) << fusions;
    EXPECT_EQ(fusions.find("with a mask") != std::string::npos, !causalBias) << fusions;
    for (int64_t batch : {1, 4})
    {
        std::mt19937 rng(61 + static_cast<uint32_t>(batch));
        std::map<std::string, HostTensor> inputs;
        inputs["x"] = HostTensor::random(DataType::kHALF, makeDims({batch, kSEQ, kEMBED}), rng, -1.0, 1.0);
        if (!causalBias)
        {
            inputs["mask"] = HostTensor::random(DataType::kHALF, makeDims({1, 1, kSEQ, kSEQ}), rng, -4.0, 0.0);
        }
        std::map<std::string, HostTensor> expected;
        std::map<std::string, HostTensor> actual;
        std::string error;
        ASSERT_TRUE(runEngine(cpu->engine(), kiln::BackendKind::kCPU, inputs, expected, error)) << error;
        ASSERT_TRUE(runEngine(gpu->engine(), kiln::BackendKind::kCUDA, inputs, actual, error)) << error;
        EXPECT_TRUE(allClose(actual["y"], expected["y"], 1e-2, 1e-2)) << "batch " << batch;
    }
}

TEST(AttentionGpu, Gpt2PackedQkvIsReadInPlace)
{
    checkPackedAgainstCpu(0, true);
}

TEST(AttentionGpu, Gpt2ExpandedCausalBiasRunsCausal)
{
    checkPackedAgainstCpu(0, true, true);
}

TEST(AttentionGpu, MisalignedPackedQkvKeepsTheSlices)
{
    checkPackedAgainstCpu(4, false);
}

TEST(AttentionGpu, Fp16AttentionFusesAndMatchesCpu)
{
    checkAgainstCpu(DataType::kHALF, false, "(scale 0.125000, with a mask)");
}

TEST(AttentionGpu, ExportedFormFusesWithItsTransposesAbsorbed)
{
    checkAgainstCpu(DataType::kHALF, true, "head transposes absorbed");
}

TEST(AttentionGpu, Fp32AttentionStaysUnfusedAndMatchesCpu)
{
    checkAgainstCpu(DataType::kFLOAT, false, nullptr);
}

} // namespace
} // namespace kiln::test::gpu
