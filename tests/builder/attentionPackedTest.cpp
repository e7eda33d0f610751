// The attention fusion on GPT-2's exported form (transformers GPT2Model through torch.onnx): one QKV projection [b, s,
// 3·h·d] (MatMul + bias), Split in three along the last axis, each part reshaped to [b, s, h, d] and transposed to
// heads-first (the key to [b, h, d, s]), the scaled, masked softmax attention, the merge transpose and reshape. On the
// CPU with KILN_FUSE=1 the built plan has one attention node reading the packed projection (layout.* = 2, packed.* =
// [offset, heads, dim]) and no Slice left, and its outputs match the unfused engine at two shapes of one dynamic
// profile, with a padding mask [b, 1, 1, s], a causal one [1, 1, s, s], and the head reshapes' shape computed from
// Shape(x) as torch.onnx's dynamo exporter writes it, and the projection as GPT-2's Conv1D exports (Reshape to [b·s,
// e], Gemm, Reshape back), and as transformers' eager attention exports through dynamo (opset 18's Split(num_outputs),
// the key transposed twice), and with the head count inferred (-1, as GPT-2's view writes it), and with a static
// sequence whose reshapes are constants that infer the batch (-1, the dynamo export of the bench's GPT-2); a slice
// with a second reader stays a layer, its part read through the reshape as before.
#include "common/builtPlan.h"
#include "common/scopedEnv.h"
#include "onnx/onnxTestModels.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace kiln::test
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::LayerType;

constexpr int64_t kEMBED = 16;
constexpr int64_t kHEADS = 2;
constexpr int64_t kDIM = 8;
constexpr int64_t kWIDTH = kHEADS * kDIM;
constexpr int64_t kSTATIC_SEQ = 5; //!< the sequence of GptCase::staticSequence

struct GptCase
{
    bool causalMask{false};   //!< the mask [1, 1, s, s] (GPT-2's causal band as an additive tensor), else [b, 1, 1, s]
    bool keyReadTwice{false}; //!< the key's Split output also feeds a Neg whose result is a network output
    bool computedShape{false}; //!< the head reshapes' shape computed from Shape(x) (as torch.onnx dynamo writes it)
    //! The projection as GPT-2's Conv1D exports: x to [b·s, e], Gemm with the bias, back to [b, s, 3·h·d].
    bool gemm{false};
    bool eager{false}; //!< as transformers' eager attention exports through dynamo (opset 18): Split by num_outputs,
                       //!< the key transposed to heads first, then its last two axes swapped (a second Transpose)
    //! The computed head shape asks for [b, s, -1, d] (transformers' GPT-2 writes view(*shape[:-1], -1, head_dim)):
    //! the head count is then inferred, an expression of the dynamic batch rather than a constant.
    bool inferredHeads{false};
    //! x [-1, 5, e] and every reshape shape a constant whose batch is inferred (-1), as torch.onnx's dynamo exporter
    //! writes GPT-2 for a fixed sequence: the batch extent is then volume / (the other extents), never the input's.
    bool staticSequence{false};
};

//! The exported GPT-2 attention block as an ONNX model: inputs x [b, s, 16] and mask, output y [b, s, 16].
OnnxModelBuilder gptModel(GptCase const& c, std::mt19937& rng)
{
    OnnxModelBuilder m(c.eager ? 18 : 17);
    int64_t const seq = c.staticSequence ? kSTATIC_SEQ : -1;
    m.addInput("x", DataType::kFLOAT, {-1, seq, kEMBED});
    m.addInput("mask", DataType::kFLOAT,
        c.causalMask ? std::vector<int64_t>{1, 1, seq, seq} : std::vector<int64_t>{-1, 1, 1, seq});
    m.addInitializer("w", toConstant(HostTensor::random(DataType::kFLOAT, makeDims({kEMBED, 3 * kWIDTH}), rng, -0.5, 0.5)));
    m.addInitializer("bias", toConstant(HostTensor::random(DataType::kFLOAT, makeDims({3 * kWIDTH}), rng, -0.5, 0.5)));
    m.addInitializer("split", OnnxConstant::fromInt64({kWIDTH, kWIDTH, kWIDTH}, {3}));
    m.addInitializer("merged", OnnxConstant::fromInt64({0, 0, kWIDTH}, {3}));
    m.addInitializer("scale", OnnxConstant::fromFloat({0.35F}, {}));
    if (c.gemm)
    {
        m.addInitializer("rows", OnnxConstant::fromInt64({-1, kEMBED}, {2}));
        m.addInitializer("width3", OnnxConstant::fromInt64({3 * kWIDTH}, {1}));
        m.addNode("Reshape", {"x", "rows"}, {"x2"});
        m.addNode("Gemm", {"x2", "w", "bias"}, {"xw2"});
        if (c.staticSequence)
        {
            m.addInitializer("qkvShape", OnnxConstant::fromInt64({-1, kSTATIC_SEQ, 3 * kWIDTH}, {3}));
        }
        else
        {
            m.addNode("Shape", {"x"}, {"xbs"}, {intAttr("start", 0), intAttr("end", 2)});
            m.addNode("Concat", {"xbs", "width3"}, {"qkvShape"}, {intAttr("axis", 0)});
        }
        m.addNode("Reshape", {"xw2", "qkvShape"}, {"qkv"});
    }
    else
    {
        m.addNode("MatMul", {"x", "w"}, {"xw"});
        m.addNode("Add", {"xw", "bias"}, {"qkv"});
    }
    if (c.staticSequence)
    {
        m.addInitializer("heads", OnnxConstant::fromInt64({-1, kSTATIC_SEQ, kHEADS, kDIM}, {4}));
    }
    else if (c.computedShape)
    {
        m.addInitializer("hd", OnnxConstant::fromInt64({c.inferredHeads ? -1 : kHEADS, kDIM}, {2}));
        m.addNode("Shape", {c.gemm ? "qkv" : "x"}, {"bs"}, {intAttr("start", 0), intAttr("end", 2)});
        m.addNode("Concat", {"bs", "hd"}, {"heads"}, {intAttr("axis", 0)});
    }
    else
    {
        m.addInitializer("heads", OnnxConstant::fromInt64({0, 0, kHEADS, kDIM}, {4}));
    }
    if (c.eager)
    {
        m.addNode("Split", {"qkv"}, {"q", "k", "v"}, {intAttr("axis", 2), intAttr("num_outputs", 3)});
    }
    else
    {
        m.addNode("Split", {"qkv", "split"}, {"q", "k", "v"}, {intAttr("axis", 2)});
    }
    std::map<std::string, std::vector<int64_t>> const perms{
        {"q", {0, 2, 1, 3}}, {"k", {0, 2, 3, 1}}, {"v", {0, 2, 1, 3}}};
    for (auto const& [name, perm] : perms)
    {
        m.addNode("Reshape", {name, "heads"}, {name + "4"});
        if (c.eager && name == "k")
        {
            m.addNode("Transpose", {"k4"}, {"kh"}, {intsAttr("perm", {0, 2, 1, 3})});
            m.addNode("Transpose", {"kh"}, {"kt"}, {intsAttr("perm", {0, 1, 3, 2})});
            continue;
        }
        m.addNode("Transpose", {name + "4"}, {name + "t"}, {intsAttr("perm", perm)});
    }
    m.addNode("MatMul", {"qt", "kt"}, {"scores"});
    m.addNode("Mul", {"scores", "scale"}, {"scaled"});
    m.addNode("Add", {"scaled", "mask"}, {"masked"});
    m.addNode("Softmax", {"masked"}, {"probs"}, {intAttr("axis", -1)});
    m.addNode("MatMul", {"probs", "vt"}, {"o"});
    m.addNode("Transpose", {"o"}, {"ot"}, {intsAttr("perm", {0, 2, 1, 3})});
    m.addNode("Reshape", {"ot", "merged"}, {"y"});
    m.addOutput("y", DataType::kFLOAT);
    if (c.keyReadTwice)
    {
        m.addNode("Neg", {"k"}, {"kneg"});
        m.addOutput("kneg", DataType::kFLOAT);
    }
    return m;
}

struct GptRun
{
    std::optional<Plan> plan;
    std::vector<std::map<std::string, HostTensor>> outputs; //!< per shape of `inputs`
};

//! Builds `model` on the CPU with KILN_FUSE=`fuse` and runs it on each input set.
GptRun buildAndRun(GptCase const& c, OnnxModelBuilder const& model, char const* fuse,
    std::vector<std::map<std::string, HostTensor>> const& inputs)
{
    ScopedEnv env("KILN_FUSE", fuse);
    GptRun run;
    OnnxRunner r;
    if (!r.parse(model))
    {
        return run;
    }
    if (c.staticSequence)
    {
        r.runner().setProfileDims("x", {1, kSTATIC_SEQ, kEMBED}, {2, kSTATIC_SEQ, kEMBED}, {3, kSTATIC_SEQ, kEMBED});
        r.runner().setProfileDims("mask", {1, 1, 1, kSTATIC_SEQ}, {2, 1, 1, kSTATIC_SEQ}, {3, 1, 1, kSTATIC_SEQ});
    }
    else if (c.causalMask)
    {
        r.runner().setProfileDims("x", {1, 1, kEMBED}, {2, 5, kEMBED}, {3, 9, kEMBED});
        r.runner().setProfileDims("mask", {1, 1, 1, 1}, {1, 1, 5, 5}, {1, 1, 9, 9});
    }
    else
    {
        r.runner().setProfileDims("x", {1, 1, kEMBED}, {2, 5, kEMBED}, {3, 9, kEMBED});
        r.runner().setProfileDims("mask", {1, 1, 1, 1}, {2, 1, 1, 5}, {3, 1, 1, 9});
    }
    if (!r.build())
    {
        return run;
    }
    run.plan = builtPlan(r.runner());
    for (auto const& in : inputs)
    {
        run.outputs.push_back(r.run(in));
    }
    return run;
}

std::vector<std::map<std::string, HostTensor>> gptInputs(GptCase const& c, std::mt19937& rng)
{
    std::vector<std::map<std::string, HostTensor>> sets;
    for (auto [batch, seq] : {std::pair<int64_t, int64_t>{2, 5}, {3, 9}})
    {
        seq = c.staticSequence ? kSTATIC_SEQ : seq;
        std::map<std::string, HostTensor> in;
        in["x"] = HostTensor::random(DataType::kFLOAT, makeDims({batch, seq, kEMBED}), rng, -1.0, 1.0);
        in["mask"] = HostTensor::random(DataType::kFLOAT,
            c.causalMask ? makeDims({1, 1, seq, seq}) : makeDims({batch, 1, 1, seq}), rng, -4.0, 0.0);
        sets.push_back(std::move(in));
    }
    return sets;
}

//! Expects the attention node's layout.q, layout.k, layout.v and layout.out to be `layouts`.
void expectLayouts(PlanNode const& node, std::vector<int64_t> const& layouts)
{
    char const* const names[4]{"layout.q", "layout.k", "layout.v", "layout.out"};
    for (size_t i = 0; i < 4; ++i)
    {
        EXPECT_EQ(node.attrs.getInt(names[i], -1), layouts[i]) << names[i];
    }
}

//! Builds fused and unfused, checks the outputs agree at every shape, and returns the fused plan.
std::optional<Plan> fusedPlanMatchingUnfused(GptCase const& c, uint32_t seed)
{
    std::mt19937 rng(seed);
    OnnxModelBuilder const model = gptModel(c, rng);
    auto const inputs = gptInputs(c, rng);
    GptRun const plain = buildAndRun(c, model, "0", inputs);
    GptRun fused = buildAndRun(c, model, "1", inputs);
    if (!plain.plan || !fused.plan || plain.outputs.size() != inputs.size() || fused.outputs.size() != inputs.size())
    {
        ADD_FAILURE() << "a build or run failed";
        return std::nullopt;
    }
    EXPECT_EQ(countKind(*plain.plan, LayerType::kATTENTION_OUTPUT), 0);
    EXPECT_EQ(countKind(*plain.plan, LayerType::kSLICE), 3);
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        SCOPED_TRACE("shape " + std::to_string(i));
        for (auto const& [name, expected] : plain.outputs[i])
        {
            auto it = fused.outputs[i].find(name);
            if (it == fused.outputs[i].end())
            {
                ADD_FAILURE() << "the fused engine lacks output " << name;
                continue;
            }
            EXPECT_TRUE(allClose(it->second, expected, 1e-5, 1e-5)) << name;
        }
    }
    return std::move(fused.plan);
}

TEST(AttentionPackedFusion, Gpt2SplitIsReadInPlace)
{
    for (int32_t variant = 0; variant < 7; ++variant)
    {
        SCOPED_TRACE("variant " + std::to_string(variant));
        GptCase c;
        c.causalMask = variant == 1 || variant == 4 || variant == 6;
        c.computedShape = variant >= 2;
        c.gemm = variant >= 3;
        c.eager = variant == 4 || variant == 6;
        c.inferredHeads = variant >= 5;
        std::optional<Plan> const plan = fusedPlanMatchingUnfused(c, 41 + static_cast<uint32_t>(variant));
        ASSERT_TRUE(plan.has_value());
        EXPECT_EQ(countKind(*plan, LayerType::kSLICE), 0);
        EXPECT_EQ(countKind(*plan, LayerType::kSOFTMAX), 0);
        PlanNode const* node = firstNodeOfKind(*plan, LayerType::kATTENTION_OUTPUT);
        ASSERT_NE(node, nullptr);
        expectLayouts(*node, {2, 2, 2, 1});
        EXPECT_EQ(node->attrs.getInts("packed.q"), (std::vector<int64_t>{0, kHEADS, kDIM}));
        EXPECT_EQ(node->attrs.getInts("packed.k"), (std::vector<int64_t>{kWIDTH, kHEADS, kDIM}));
        EXPECT_EQ(node->attrs.getInts("packed.v"), (std::vector<int64_t>{2 * kWIDTH, kHEADS, kDIM}));
        // The three inputs are one tensor: the projection.
        ASSERT_GE(node->inputs.size(), 3U);
        EXPECT_EQ(node->inputs[0], node->inputs[1]);
        EXPECT_EQ(node->inputs[0], node->inputs[2]);
    }
}

TEST(AttentionPackedFusion, Gpt2DynamoExportWithAStaticSequenceIsReadInPlace)
{
    GptCase c;
    c.gemm = true;
    c.staticSequence = true;
    std::optional<Plan> const plan = fusedPlanMatchingUnfused(c, 47);
    ASSERT_TRUE(plan.has_value());
    EXPECT_EQ(countKind(*plan, LayerType::kSLICE), 0);
    PlanNode const* node = firstNodeOfKind(*plan, LayerType::kATTENTION_OUTPUT);
    ASSERT_NE(node, nullptr);
    expectLayouts(*node, {2, 2, 2, 1});
    ASSERT_GE(node->inputs.size(), 3U);
    EXPECT_EQ(node->inputs[0], node->inputs[1]);
    EXPECT_EQ(node->inputs[0], node->inputs[2]);
}

TEST(AttentionPackedFusion, SliceWithASecondReaderStays)
{
    GptCase c;
    c.keyReadTwice = true;
    std::optional<Plan> const plan = fusedPlanMatchingUnfused(c, 43);
    ASSERT_TRUE(plan.has_value());
    EXPECT_EQ(countKind(*plan, LayerType::kSLICE), 1);
    PlanNode const* node = firstNodeOfKind(*plan, LayerType::kATTENTION_OUTPUT);
    ASSERT_NE(node, nullptr);
    expectLayouts(*node, {2, 1, 2, 1});
    EXPECT_FALSE(node->attrs.has("packed.k"));
}

} // namespace
} // namespace kiln::test
