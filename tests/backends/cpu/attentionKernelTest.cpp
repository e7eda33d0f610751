// The CPU attention kernel (kind kATTENTION_OUTPUT, backends/common/attentionParams.h) against a naive double-precision
// attention written here: additive and boolean masks that broadcast, causal attention, grouped-query heads, the key
// given transposed, a scale, no normalisation, FP16 and BF16 storage; and the errors for shapes that do not fit.
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
    return node;
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
    HostTensor const q = HostTensor::random(c.type, makeDims({c.b, c.hq, c.sq, c.d}), rng, -1.0, 1.0);
    HostTensor const k = HostTensor::random(
        c.type, c.keyTransposed ? makeDims({c.b, c.hkv, c.d, c.skv}) : makeDims({c.b, c.hkv, c.skv, c.d}), rng, -1.0, 1.0);
    HostTensor const v = HostTensor::random(c.type, makeDims({c.b, c.hkv, c.skv, c.dv}), rng, -1.0, 1.0);
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
    setup.inputRanks = {4, 4, 4, 4};
    setup.outputTypes = {c.type};
    setup.outputRanks = {4};
    auto kernel = cpuKernelFactory(LayerType::kATTENTION_OUTPUT)(setup);
    ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
    HostTensor out(c.type, makeDims({c.b, c.hq, c.sq, c.dv}));
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
    std::vector<TensorView> const ins{view(q), view(k), view(v), c.mask == 0 ? absent : view(mask)};
    Status const st = reshapeAndRun(**kernel, ins, {view(out)});
    ASSERT_TRUE(st.isOk()) << st.message();
    std::vector<double> const expected = naive(c, q, k, v, c.mask == 0 ? nullptr : &mask);
    double const tol = c.type == DataType::kFLOAT ? 1e-5 : (c.type == DataType::kHALF ? 4e-3 : 3e-2);
    for (size_t i = 0; i < expected.size(); ++i)
    {
        ASSERT_NEAR(out.at(static_cast<int64_t>(i)), expected[i], tol * (1.0 + std::fabs(expected[i]))) << "element " << i;
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

TEST(CpuAttentionKernel, ShapesThatDoNotFitAreRejected)
{
    AttentionCase c;
    PlanNode const node = attentionNode(c);
    KernelSetup setup;
    setup.node = &node;
    setup.inputTypes = {DataType::kFLOAT, DataType::kFLOAT, DataType::kFLOAT, DataType::kFLOAT};
    setup.inputPresent = {true, true, true, false};
    setup.inputRanks = {4, 4, 4, 4};
    setup.outputTypes = {DataType::kFLOAT};
    setup.outputRanks = {4};
    auto kernel = cpuKernelFactory(LayerType::kATTENTION_OUTPUT)(setup);
    ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
    auto view = [](std::vector<int64_t> const& d) {
        TensorView t;
        t.dims = makeDims(d);
        return t;
    };
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
