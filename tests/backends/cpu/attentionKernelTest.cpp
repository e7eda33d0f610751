// The CPU attention kernel (kind kATTENTION_OUTPUT, backends/common/attentionParams.h) against a naive double-precision
// attention written here: additive and boolean masks that broadcast, causal attention, grouped-query heads, the key
// given transposed, a scale, no normalisation, FP16 and BF16 storage; query, key and value viewed inside one packed
// QKV tensor [b, s, r] (layout 2, packed.*) and the output stored [b, s, h, d] (layout 1); and the errors for shapes
// and packed views that do not fit.
#include "backends/cpu/cpuKernel.h"
#include "common/kernelRun.h"
#include "common/networkRunner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace kiln::test
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::LayerType;

struct AttentionCase
{
    int64_t b{2}, hq{2}, hkv{2}, sq{3}, skv{5}, d{4}, dv{3};
    bool keyTransposed{false};
    bool causal{false};
    bool softmax{true};
    float scale{1.F};
    int32_t mask{0}; //!< 0 none, 1 additive [b, 1, 1, skv], 2 boolean [1, 1, sq, skv]
    DataType type{DataType::kFLOAT};
    bool packed{false};      //!< q, k, v read from one [b, s, r] tensor (sq == skv): [pad | q | k | v | pad]
    int64_t pad{0};          //!< elements before q and after v in each packed row
    bool outSeqMajor{false}; //!< the output stored [b, sq, hq, dv]
    int64_t row() const { return 2 * pad + hq * d + hkv * d + hkv * dv; }
};

PlanNode attentionNode(AttentionCase const& c)
{
    PlanNode node;
    node.kind = LayerType::kATTENTION_OUTPUT;
    node.name = "attention";
    node.attrs.setInt("normOp", c.softmax ? 1 : 0);
    node.attrs.setInt("causal", c.causal ? 1 : 0);
    node.attrs.setFloat("scale", c.scale);
    node.attrs.setInt("keyTransposed", c.keyTransposed ? 1 : 0);
    if (c.packed)
    {
        node.attrs.setInt("layout.q", 2);
        node.attrs.setInt("layout.k", 2);
        node.attrs.setInt("layout.v", 2);
        node.attrs.setInts("packed.q", {c.pad, c.hq, c.d});
        node.attrs.setInts("packed.k", {c.pad + c.hq * c.d, c.hkv, c.d});
        node.attrs.setInts("packed.v", {c.pad + c.hq * c.d + c.hkv * c.d, c.hkv, c.dv});
    }
    node.attrs.setInt("layout.out", c.outSeqMajor ? 1 : 0);
    return node;
}

//! [b, h, s, e] of the part of `packed` ([b, s, r]) that starts at `offset` of each row.
HostTensor unpack(HostTensor const& packed, int64_t offset, int64_t heads, int64_t e)
{
    int64_t const b = packed.dims.d[0];
    int64_t const s = packed.dims.d[1];
    int64_t const r = packed.dims.d[2];
    HostTensor out(packed.type, makeDims({b, heads, s, e}));
    for (int64_t i = 0; i < out.volume(); ++i)
    {
        int64_t const x = i % e;
        int64_t const seq = (i / e) % s;
        int64_t const h = (i / (e * s)) % heads;
        int64_t const n = i / (e * s * heads);
        out.set(i, packed.at((n * s + seq) * r + offset + h * e + x));
    }
    return out;
}

//! out[b, h, i, :] in double, straight from the definition.
std::vector<double> naive(AttentionCase const& c, HostTensor const& q, HostTensor const& k, HostTensor const& v,
    HostTensor const* mask)
{
    std::vector<double> out(static_cast<size_t>(c.b * c.hq * c.sq * c.dv));
    int64_t const group = c.hq / c.hkv;
    for (int64_t b = 0; b < c.b; ++b)
    {
        for (int64_t h = 0; h < c.hq; ++h)
        {
            int64_t const g = h / group;
            for (int64_t i = 0; i < c.sq; ++i)
            {
                std::vector<double> s(static_cast<size_t>(c.skv));
                double maxScore = -std::numeric_limits<double>::infinity();
                for (int64_t j = 0; j < c.skv; ++j)
                {
                    double dot = 0.0;
                    for (int64_t x = 0; x < c.d; ++x)
                    {
                        int64_t const kAt = c.keyTransposed ? ((b * c.hkv + g) * c.d + x) * c.skv + j
                                                            : ((b * c.hkv + g) * c.skv + j) * c.d + x;
                        dot += q.at(((b * c.hq + h) * c.sq + i) * c.d + x) * k.at(kAt);
                    }
                    double score = dot * c.scale;
                    if (c.mask == 1)
                    {
                        score += mask->at(b * c.skv + j);
                    }
                    if ((c.mask == 2 && mask->at(i * c.skv + j) == 0.0) || (c.causal && j > i))
                    {
                        score = -std::numeric_limits<double>::infinity();
                    }
                    s[static_cast<size_t>(j)] = score;
                    maxScore = std::max(maxScore, score);
                }
                if (c.softmax)
                {
                    double sum = 0.0;
                    for (double& x : s)
                    {
                        x = std::exp(x - maxScore);
                        sum += x;
                    }
                    for (double& x : s)
                    {
                        x /= sum;
                    }
                }
                for (int64_t y = 0; y < c.dv; ++y)
                {
                    double acc = 0.0;
                    for (int64_t j = 0; j < c.skv; ++j)
                    {
                        acc += s[static_cast<size_t>(j)] * v.at(((b * c.hkv + g) * c.skv + j) * c.dv + y);
                    }
                    out[static_cast<size_t>(((b * c.hq + h) * c.sq + i) * c.dv + y)] = acc;
                }
            }
        }
    }
    return out;
}

void check(AttentionCase const& c, uint32_t seed)
{
    SCOPED_TRACE("case seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    HostTensor q = HostTensor::random(c.type, makeDims({c.b, c.hq, c.sq, c.d}), rng, -1.0, 1.0);
    HostTensor k = HostTensor::random(
        c.type, c.keyTransposed ? makeDims({c.b, c.hkv, c.d, c.skv}) : makeDims({c.b, c.hkv, c.skv, c.d}), rng, -1.0, 1.0);
    HostTensor v = HostTensor::random(c.type, makeDims({c.b, c.hkv, c.skv, c.dv}), rng, -1.0, 1.0);
    HostTensor packed;
    if (c.packed)
    {
        ASSERT_EQ(c.sq, c.skv);
        packed = HostTensor::random(c.type, makeDims({c.b, c.sq, c.row()}), rng, -1.0, 1.0);
        q = unpack(packed, c.pad, c.hq, c.d);
        k = unpack(packed, c.pad + c.hq * c.d, c.hkv, c.d);
        v = unpack(packed, c.pad + c.hq * c.d + c.hkv * c.d, c.hkv, c.dv);
    }
    HostTensor mask;
    if (c.mask == 1)
    {
        mask = HostTensor::random(c.type, makeDims({c.b, 1, 1, c.skv}), rng, -3.0, 0.0);
    }
    else if (c.mask == 2)
    {
        mask = HostTensor(DataType::kBOOL, makeDims({1, 1, c.sq, c.skv}));
        for (int64_t i = 0; i < c.sq; ++i)
        {
            for (int64_t j = 0; j < c.skv; ++j)
            {
                mask.set(i * c.skv + j, (j == 0 || rng() % 3 != 0) ? 1.0 : 0.0); // every row keeps key 0
            }
        }
    }
    PlanNode const node = attentionNode(c);
    KernelSetup setup;
    setup.node = &node;
    setup.inputTypes = {c.type, c.type, c.type, c.mask == 0 ? DataType::kFLOAT : mask.type};
    setup.inputPresent = {true, true, true, c.mask != 0};
    int32_t const rank = c.packed ? 3 : 4;
    setup.inputRanks = {rank, rank, rank, 4};
    setup.outputTypes = {c.type};
    setup.outputRanks = {4};
    auto kernel = cpuKernelFactory(LayerType::kATTENTION_OUTPUT)(setup);
    ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
    HostTensor out(c.type, c.outSeqMajor ? makeDims({c.b, c.sq, c.hq, c.dv}) : makeDims({c.b, c.hq, c.sq, c.dv}));
    std::memset(out.data(), 0x7F, out.bytes.size()); // poison
    auto view = [](HostTensor const& h) {
        TensorView t;
        t.data = const_cast<void*>(h.data());
        t.type = h.type;
        t.dims = h.dims;
        return t;
    };
    TensorView absent;
    absent.dims = makeDims({1, 1, 1, 1});
    std::vector<TensorView> const ins{view(c.packed ? packed : q), view(c.packed ? packed : k),
        view(c.packed ? packed : v), c.mask == 0 ? absent : view(mask)};
    Status const st = reshapeAndRun(**kernel, ins, {view(out)});
    ASSERT_TRUE(st.isOk()) << st.message();
    std::vector<double> const expected = naive(c, q, k, v, c.mask == 0 ? nullptr : &mask);
    double const tol = c.type == DataType::kFLOAT ? 1e-5 : (c.type == DataType::kHALF ? 4e-3 : 3e-2);
    for (size_t i = 0; i < expected.size(); ++i)
    {
        // Element (b, h, s, e) of the [b, h, s, d] reference; stored at (b, s, h, e) when the output is seq-major.
        auto const n = static_cast<int64_t>(i);
        int64_t const e = n % c.dv;
        int64_t const x = (n / c.dv) % c.sq;
        int64_t const h = (n / (c.dv * c.sq)) % c.hq;
        int64_t const b = n / (c.dv * c.sq * c.hq);
        int64_t const at = c.outSeqMajor ? ((b * c.sq + x) * c.hq + h) * c.dv + e : n;
        ASSERT_NEAR(out.at(at), expected[i], tol * (1.0 + std::fabs(expected[i]))) << "element " << i;
    }
}

TEST(CpuAttentionKernel, MatchesTheDefinition)
{
    AttentionCase plain;
    check(plain, 1);
    AttentionCase masked;
    masked.mask = 1;
    masked.scale = 0.125F;
    masked.keyTransposed = true;
    masked.sq = 7;
    masked.skv = 9;
    check(masked, 2);
    AttentionCase boolMasked;
    boolMasked.mask = 2;
    check(boolMasked, 3);
    AttentionCase causal;
    causal.causal = true;
    causal.sq = 6;
    causal.skv = 6;
    check(causal, 4);
    AttentionCase grouped;
    grouped.hq = 6;
    grouped.hkv = 2;
    grouped.d = 16;
    grouped.dv = 8;
    check(grouped, 5);
    AttentionCase unnormalised;
    unnormalised.softmax = false;
    check(unnormalised, 6);
    for (DataType t : {DataType::kHALF, DataType::kBF16})
    {
        AttentionCase narrow = masked;
        narrow.type = t;
        check(narrow, 7);
    }
    // Head dimension and key count of 16 and more: the planes go through oneDNN's sgemm where Kiln has it.
    for (bool transposed : {false, true})
    {
        AttentionCase large;
        large.d = 32;
        large.dv = 24;
        large.sq = 19;
        large.skv = 40;
        large.hq = 4;
        large.hkv = 2;
        large.mask = 1;
        large.keyTransposed = transposed;
        large.scale = 0.2F;
        check(large, transposed ? 9 : 8);
        large.mask = 0;
        large.causal = true;
        check(large, 10);
        large.type = DataType::kHALF;
        check(large, 11);
    }
}

//! The setup of an FP32 attention node without a mask, query, key and value of rank `rank`.
KernelSetup floatSetup(PlanNode const& node, int32_t rank)
{
    KernelSetup setup;
    setup.node = &node;
    setup.inputTypes = {DataType::kFLOAT, DataType::kFLOAT, DataType::kFLOAT, DataType::kFLOAT};
    setup.inputPresent = {true, true, true, false};
    setup.inputRanks = {rank, rank, rank, 4};
    setup.outputTypes = {DataType::kFLOAT};
    setup.outputRanks = {4};
    return setup;
}

//! A view with extents only (reshape does not look at data).
TensorView shapeOnly(std::vector<int64_t> const& d)
{
    TensorView t;
    t.dims = makeDims(d);
    return t;
}

//! Self-attention over `seq` tokens with q, k and v packed in one tensor, value dimension = head dimension.
AttentionCase packedCase(int64_t seq)
{
    AttentionCase c;
    c.packed = true;
    c.sq = seq;
    c.skv = seq;
    c.dv = c.d;
    return c;
}

TEST(CpuAttentionKernel, ReadsPackedQkvAndWritesSeqMajor)
{
    AttentionCase gpt = packedCase(7);
    gpt.mask = 1;
    gpt.scale = 0.5F;
    check(gpt, 21);
    gpt.outSeqMajor = true;
    check(gpt, 22);
    // Padding around the projections, grouped-query heads, a value dimension of its own, causal.
    AttentionCase grouped = gpt;
    grouped.mask = 0;
    grouped.causal = true;
    grouped.pad = 3;
    grouped.hq = 4;
    grouped.hkv = 2;
    grouped.dv = 5;
    check(grouped, 23);
    // Large enough for oneDNN's sgemm; FP16 and BF16 storage; batch 3.
    AttentionCase large = packedCase(33);
    large.b = 3;
    large.d = large.dv = 16;
    large.mask = 2;
    check(large, 24);
    for (DataType t : {DataType::kHALF, DataType::kBF16})
    {
        large.type = t;
        check(large, 25);
    }
    // The output alone seq-major, with a transposed key.
    AttentionCase outOnly;
    outOnly.outSeqMajor = true;
    outOnly.keyTransposed = true;
    check(outOnly, 26);
}

TEST(CpuAttentionKernel, PackedViewsThatDoNotFitAreRejected)
{
    AttentionCase const c = packedCase(4);
    auto createError = [&](PlanNode const& node, int32_t rank) {
        auto kernel = cpuKernelFactory(LayerType::kATTENTION_OUTPUT)(floatSetup(node, rank));
        return kernel.isOk() ? std::string() : kernel.status().message();
    };
    PlanNode node = attentionNode(c);
    EXPECT_EQ(createError(node, 3), "");
    // Crafted attributes (as an engine file could hold): each refused at creation with the cause.
    PlanNode badCount = node;
    badCount.attrs.setInts("packed.k", {0, 2});
    EXPECT_NE(createError(badCount, 3).find("packed.k must hold [offset, heads, dim]"), std::string::npos);
    PlanNode negative = node;
    negative.attrs.setInts("packed.v", {-8, 2, 3});
    EXPECT_NE(createError(negative, 3).find("packed.v [-8, 2, 3] is out of range"), std::string::npos);
    PlanNode huge = node;
    huge.attrs.setInts("packed.q", {0, int64_t{1} << 40, 4});
    EXPECT_NE(createError(huge, 3).find("out of range"), std::string::npos);
    PlanNode packedOut = node;
    packedOut.attrs.setInt("layout.out", 2);
    EXPECT_NE(createError(packedOut, 3).find("layout.out 2 is not 0"), std::string::npos);
    EXPECT_NE(createError(node, 4).find("3-D where packed"), std::string::npos);
    // At reshape: a view past the end of the rows, and a packed input that is not 3-D.
    auto kernel = cpuKernelFactory(LayerType::kATTENTION_OUTPUT)(floatSetup(node, 3));
    ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
    auto const view = shapeOnly;
    int64_t const r = c.row();
    Status const shortRows = (*kernel)->reshape(
        {view({2, 4, r - 1}), view({2, 4, r - 1}), view({2, 4, r - 1}), view({1, 1, 1, 1})}, {view({2, 2, 4, c.dv})});
    EXPECT_FALSE(shortRows.isOk());
    EXPECT_NE(shortRows.message().find("reaches past the rows"), std::string::npos) << shortRows.message();
    Status const notPacked = (*kernel)->reshape(
        {view({2, 4, 2, r}), view({2, 4, r}), view({2, 4, r}), view({1, 1, 1, 1})}, {view({2, 2, 4, c.dv})});
    EXPECT_FALSE(notPacked.isOk());
    EXPECT_NE(notPacked.message().find("is not 3-D"), std::string::npos) << notPacked.message();
    Status const fits = (*kernel)->reshape(
        {view({2, 4, r}), view({2, 4, r}), view({2, 4, r}), view({1, 1, 1, 1})}, {view({2, 2, 4, c.dv})});
    EXPECT_TRUE(fits.isOk()) << fits.message();
}

TEST(CpuAttentionKernel, ShapesThatDoNotFitAreRejected)
{
    AttentionCase c;
    PlanNode const node = attentionNode(c);
    KernelSetup const setup = floatSetup(node, 4);
    auto kernel = cpuKernelFactory(LayerType::kATTENTION_OUTPUT)(setup);
    ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
    auto const view = shapeOnly;
    // Key head dimension 5 against the query's 4; 3 query heads over 2 key/value heads.
    Status const wrongDim = (*kernel)->reshape(
        {view({1, 2, 3, 4}), view({1, 2, 5, 5}), view({1, 2, 5, 3}), view({1, 1, 1, 1})}, {view({1, 2, 3, 3})});
    EXPECT_FALSE(wrongDim.isOk());
    EXPECT_NE(wrongDim.message().find("do not fit one attention"), std::string::npos) << wrongDim.message();
    Status const wrongHeads = (*kernel)->reshape(
        {view({1, 3, 3, 4}), view({1, 2, 5, 4}), view({1, 2, 5, 3}), view({1, 1, 1, 1})}, {view({1, 3, 3, 3})});
    EXPECT_FALSE(wrongHeads.isOk());
    // A mask with causal is refused at creation.
    PlanNode causalNode = node;
    causalNode.attrs.setInt("causal", 1);
    KernelSetup masked = setup;
    masked.node = &causalNode;
    masked.inputPresent[3] = true;
    EXPECT_FALSE(cpuKernelFactory(LayerType::kATTENTION_OUTPUT)(masked).isOk());
}

} // namespace
} // namespace kiln::test
