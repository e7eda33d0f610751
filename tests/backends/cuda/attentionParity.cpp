// Parity of the CUDA attention kernel (cuDNN flash attention, kATTENTION_OUTPUT) with the CPU kernel of the same node
// on random FP16/BF16 data: no mask, additive masks broadcast over heads and queries (BERT's [b, 1, 1, skv]), a full
// additive mask, BOOL masks, causal attention, a key stored transposed, grouped-query attention, head sizes 64 to 256
// and a 1,500-token sequence. Also: the kernel refuses FP32 and normOp kNONE at creation (the builder then leaves the
// layers unfused), query, key and value read in place from one packed QKV tensor (layout 2: GPT-2's c_attn output,
// grouped-query heads, FP16 and BF16) with the output stored [b, s, h, d], packed views cuDNN cannot read aligned
// refused at creation and reshape, and the builder fuses an FP16 attention network for the CUDA backend while the CPU
// and CUDA plans agree (checkParity).
#include "cudaParity.h"

#include "backends/cuda/cudaKernel.h"
#include "core/layerKinds.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <optional>

namespace kiln::test::cuda
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::LayerType;

struct AttentionCase
{
    DataType type;
    int64_t b, hq, hkv, sq, skv, d;
    enum Mask
    {
        kNONE,
        kBERT,  //!< additive [b, 1, 1, skv]
        kFULL,  //!< additive [b, hq, sq, skv]
        kBOOL,  //!< BOOL [1, 1, sq, skv]
    } mask;
    bool causal;
    bool keyTransposed;
};

PlanNode attentionNode(AttentionCase const& c, float scale)
{
    PlanNode node;
    node.kind = LayerType::kATTENTION_OUTPUT;
    node.name = "attention";
    node.attrs.setInt("normOp", 1);
    node.attrs.setInt("causal", c.causal ? 1 : 0);
    node.attrs.setFloat("scale", scale);
    node.attrs.setInt("keyTransposed", c.keyTransposed ? 1 : 0);
    return node;
}

Tolerance attentionTolerance()
{
    // The flash kernel rounds the probabilities to the storage type before the second product.
    Tolerance t;
    t.fp16Atol = 2e-3;
    t.fp16Rtol = 1e-2;
    t.bf16Atol = 1.6e-2;
    t.bf16Rtol = 2e-2;
    return t;
}

TEST(CudaAttentionParity, MatchesCpuKernel)
{
    using M = AttentionCase;
    std::vector<AttentionCase> const cases{
        {DataType::kHALF, 2, 4, 4, 64, 64, 64, M::kNONE, false, false},
        {DataType::kHALF, 3, 12, 12, 128, 128, 64, M::kBERT, false, false}, // BERT-base's attention
        {DataType::kHALF, 2, 4, 4, 37, 53, 64, M::kFULL, false, false},     // ragged extents
        {DataType::kHALF, 1, 4, 4, 96, 96, 64, M::kBOOL, false, false},
        {DataType::kHALF, 2, 8, 8, 77, 77, 64, M::kNONE, true, false},      // causal
        {DataType::kHALF, 2, 4, 4, 64, 80, 64, M::kBERT, false, true},      // key stored [b, h, d, s]
        {DataType::kHALF, 2, 8, 2, 50, 50, 128, M::kNONE, true, false},     // grouped-query attention
        {DataType::kBF16, 2, 4, 4, 64, 64, 128, M::kBERT, false, false},
        {DataType::kHALF, 1, 2, 2, 40, 40, 256, M::kNONE, false, false},    // the largest head size
        {DataType::kHALF, 1, 6, 6, 1500, 1500, 64, M::kNONE, false, false}, // Whisper's encoder length
    };
    std::mt19937 rng(97);
    int32_t index = 0;
    for (AttentionCase const& c : cases)
    {
        SCOPED_TRACE("attention case " + std::to_string(index++));
        float const scale = 1.F / std::sqrt(static_cast<float>(c.d));
        PlanNode const node = attentionNode(c, scale);
        std::vector<HostTensor> inputs;
        inputs.push_back(HostTensor::random(c.type, dims({c.b, c.hq, c.sq, c.d}), rng, -1.0, 1.0));
        inputs.push_back(HostTensor::random(c.type,
            dims(c.keyTransposed ? std::vector<int64_t>{c.b, c.hkv, c.d, c.skv} : std::vector<int64_t>{c.b, c.hkv, c.skv, c.d}),
            rng, -1.0, 1.0));
        inputs.push_back(HostTensor::random(c.type, dims({c.b, c.hkv, c.skv, c.d}), rng, -1.0, 1.0));
        switch (c.mask)
        {
        case M::kNONE: inputs.emplace_back(); break;
        case M::kBERT: inputs.push_back(HostTensor::random(c.type, dims({c.b, 1, 1, c.skv}), rng, -3.0, 0.0)); break;
        case M::kFULL: inputs.push_back(HostTensor::random(c.type, dims({c.b, c.hq, c.sq, c.skv}), rng, -3.0, 1.0)); break;
        case M::kBOOL:
        {
            HostTensor m = HostTensor::random(DataType::kBOOL, dims({1, 1, c.sq, c.skv}), rng);
            for (int64_t i = 0; i < c.sq; ++i)
            {
                m.set(i * c.skv + i % c.skv, 1.0); // no row entirely masked
            }
            inputs.push_back(std::move(m));
            break;
        }
        }
        checkKernel(node, inputs, {HostTensor(c.type, dims({c.b, c.hq, c.sq, c.d}))}, {}, attentionTolerance());
    }
}

struct PackedCase
{
    DataType type;
    int64_t b, hq, hkv, s, d;
    AttentionCase::Mask mask;
    bool causal;
};

//! The attention node reading q, k and v from one [b, s, hq·d + 2·hkv·d] tensor, its output [b, s, hq, d].
PlanNode packedNode(PackedCase const& c, int64_t qOffset)
{
    PlanNode node = attentionNode({c.type, c.b, c.hq, c.hkv, c.s, c.s, c.d, c.mask, c.causal, false},
        1.F / std::sqrt(static_cast<float>(c.d)));
    node.attrs.setInt("layout.q", 2);
    node.attrs.setInt("layout.k", 2);
    node.attrs.setInt("layout.v", 2);
    node.attrs.setInt("layout.out", 1);
    node.attrs.setInts("packed.q", {qOffset, c.hq, c.d});
    node.attrs.setInts("packed.k", {c.hq * c.d, c.hkv, c.d});
    node.attrs.setInts("packed.v", {c.hq * c.d + c.hkv * c.d, c.hkv, c.d});
    return node;
}

TEST(CudaAttentionParity, ReadsPackedQkvInPlace)
{
    using M = AttentionCase;
    std::vector<PackedCase> const cases{
        {DataType::kHALF, 2, 12, 12, 128, 64, M::kNONE, true},  // GPT-2's c_attn split, causal
        {DataType::kHALF, 3, 12, 12, 77, 64, M::kBERT, false},  // a padding mask, ragged sequence
        {DataType::kHALF, 2, 8, 2, 64, 128, M::kNONE, true},    // grouped-query heads
        {DataType::kBF16, 2, 12, 12, 128, 64, M::kFULL, false}, // BF16, a full additive mask
    };
    std::mt19937 rng(131);
    int32_t index = 0;
    for (PackedCase const& c : cases)
    {
        SCOPED_TRACE("packed case " + std::to_string(index++));
        PlanNode const node = packedNode(c, 0);
        int64_t const row = (c.hq + 2 * c.hkv) * c.d;
        HostTensor const qkv = HostTensor::random(c.type, dims({c.b, c.s, row}), rng, -1.0, 1.0);
        std::vector<HostTensor> inputs{qkv, qkv, qkv};
        switch (c.mask)
        {
        case M::kBERT: inputs.push_back(HostTensor::random(c.type, dims({c.b, 1, 1, c.s}), rng, -3.0, 0.0)); break;
        case M::kFULL: inputs.push_back(HostTensor::random(c.type, dims({c.b, c.hq, c.s, c.s}), rng, -3.0, 1.0)); break;
        default: inputs.emplace_back(); break;
        }
        checkKernel(node, inputs, {HostTensor(c.type, dims({c.b, c.s, c.hq, c.d}))}, {}, attentionTolerance());
    }
}

TEST(CudaAttentionParity, RefusesPackedViewsCudnnCannotReadAligned)
{
    PackedCase const c{DataType::kHALF, 1, 2, 2, 16, 64, AttentionCase::kNONE, false};
    KernelSetup setup;
    setup.inputTypes = {c.type, c.type, c.type, DataType::kFLOAT};
    setup.inputPresent = {true, true, true, false};
    setup.inputRanks = {3, 3, 3, 0};
    setup.outputTypes = {c.type};
    setup.outputRanks = {4};
    // A query 4 elements (8 bytes) into the rows: refused at creation (the builder keeps the slices).
    PlanNode const shifted = packedNode(c, 4);
    setup.node = &shifted;
    auto refused = ::kiln::cuda::cudaKernelFactory(LayerType::kATTENTION_OUTPUT)(setup);
    ASSERT_FALSE(refused.isOk());
    EXPECT_NE(refused.status().message().find("16-byte"), std::string::npos) << refused.status().message();
    // Rows of 6·64 + 4 elements: the sequence stride is not a multiple of 16 bytes, refused at reshape (before any
    // device work).
    PlanNode const aligned = packedNode(c, 0);
    setup.node = &aligned;
    auto kernel = ::kiln::cuda::cudaKernelFactory(LayerType::kATTENTION_OUTPUT)(setup);
    ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
    auto view = [](std::vector<int64_t> const& d) {
        TensorView t;
        t.type = DataType::kHALF;
        t.dims = dims(d);
        return t;
    };
    int64_t const row = (c.hq + 2 * c.hkv) * c.d + 4;
    TensorView absent;
    absent.dims = dims({1, 1, 1, 1});
    Status const st = (*kernel)->reshape({view({1, c.s, row}), view({1, c.s, row}), view({1, c.s, row}), absent},
        {view({1, c.s, c.hq, c.d})});
    ASSERT_FALSE(st.isOk());
    EXPECT_NE(st.message().find("multiple of 16 bytes"), std::string::npos) << st.message();
}

TEST(CudaAttentionParity, RefusesWhatCudnnDoesNotRun)
{
    // Created without a GPU: the refusals come from create, before any device work.
    for (bool const fp32 : {true, false})
    {
        PlanNode node = attentionNode({DataType::kHALF, 1, 1, 1, 8, 8, 64, AttentionCase::kNONE, false, false}, 1.F);
        if (!fp32)
        {
            node.attrs.setInt("normOp", 0);
        }
        DataType const t = fp32 ? DataType::kFLOAT : DataType::kHALF;
        KernelSetup setup;
        setup.node = &node;
        setup.inputTypes = {t, t, t, DataType::kFLOAT};
        setup.inputPresent = {true, true, true, false};
        setup.inputRanks = {4, 4, 4, 0};
        setup.outputTypes = {t};
        setup.outputRanks = {4};
        auto kernel = ::kiln::cuda::cudaKernelFactory(LayerType::kATTENTION_OUTPUT)(setup);
        ASSERT_FALSE(kernel.isOk());
        EXPECT_NE(kernel.status().message().find(fp32 ? "FP32" : "normOp"), std::string::npos)
            << kernel.status().message();
    }
}

} // namespace
} // namespace kiln::test::cuda
