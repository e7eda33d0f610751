// The attention fusion on causal masks known at build time (builder/passes/fusion/causalMask.cpp): ONNX models of
// one attention (query, key and value [b, 2, 6, 8] split from one input, dynamic batch, sequence static) whose mask
// is the causal band in the forms exporters write — a constant additive [1, 1, s, s] expanded to [b, 1, s, s], the
// band computed from Range / LessOrEqual / Expand / Where as transformers 5.x exports GPT-2, Where(band sliced from a
// constant BOOL buffer, scores, lowest) as older transformers export it, and Where(Not(band), lowest, scores) —
// become one attention node with "causal" = 1 and no mask input on the CPU with KILN_FUSE=1, and match the unfused
// engine at two batch sizes. Masks that are not exactly causal (one element changed, the diagonal moved by one, a
// mask given at run time, a Where over a band with one element changed) stay masks or stay unfused, and still match.
#include "common/builtPlan.h"
#include "common/scopedEnv.h"
#include "onnx/onnxTestModels.h"

#include <gtest/gtest.h>

#include <limits>
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

constexpr int64_t kSEQ = 6;
constexpr int64_t kBUFFER = 10; //!< the BOOL buffer older GPT-2 slices its band from ([1, 1, 10, 10])

enum class MaskForm
{
    kCONSTANT_EXPANDED, //!< Add(scores, Expand(constant [1, 1, s, s], [b, 1, s, s]))
    kCOMPUTED,          //!< Add(scores, Where(Expand(LessOrEqual(range_k, range_q)), 0, lowest)), from Shape(q)
    kWHERE_SLICED,      //!< Where(Slice(BOOL buffer, k - q : k, : k), scores, lowest)
    kWHERE_NOT,         //!< Where(Not(band), lowest, scores)
    kONE_WRONG,         //!< as kCONSTANT_EXPANDED with one attended element masked: stays a mask
    kSHIFTED,           //!< as kCONSTANT_EXPANDED with j <= i + 1 attended: stays a mask
    kRUNTIME,           //!< a network input [1, 1, s, s]: stays a mask
    kWHERE_ONE_WRONG,   //!< as kWHERE_SLICED with one band element cleared: stays unfused
};

bool isCausalForm(MaskForm f)
{
    return f == MaskForm::kCONSTANT_EXPANDED || f == MaskForm::kCOMPUTED || f == MaskForm::kWHERE_SLICED
        || f == MaskForm::kWHERE_NOT;
}

//! The band [rows, cols] as 0/1: 1 where j <= i + shift.
std::vector<double> band(int64_t rows, int64_t cols, int64_t shift)
{
    std::vector<double> v;
    for (int64_t i = 0; i < rows; ++i)
    {
        for (int64_t j = 0; j < cols; ++j)
        {
            v.push_back(j <= i + shift ? 1.0 : 0.0);
        }
    }
    return v;
}

//! Batch of `t` as a 1-D shape tensor [b] ("<t>_b").
void batchOf(OnnxModelBuilder& m, std::string const& t)
{
    m.addNode("Shape", {t}, {t + "_b"}, {intAttr("start", 0), intAttr("end", 1)});
}

OnnxModelBuilder causalModel(MaskForm form)
{
    OnnxModelBuilder m(17);
    // One input split in three, so that query, key and value share their batch extent (the fusion needs that).
    m.addInput("x", DataType::kFLOAT, {-1, 2, kSEQ, 24});
    m.addInitializer("parts", OnnxConstant::fromInt64({8, 8, 8}, {3}));
    m.addNode("Split", {"x", "parts"}, {"q", "k", "v"}, {intAttr("axis", 3)});
    float const lowest = std::numeric_limits<float>::lowest();
    m.addInitializer("scale", OnnxConstant::fromFloat({0.35F}, {}));
    m.addInitializer("lowest", OnnxConstant::fromFloat({lowest}, {}));
    m.addInitializer("zero", OnnxConstant::fromFloat({0.F}, {}));
    m.addNode("Transpose", {"k"}, {"kt"}, {intsAttr("perm", {0, 1, 3, 2})});
    m.addNode("MatMul", {"q", "kt"}, {"scores"});
    m.addNode("Mul", {"scores", "scale"}, {"scaled"});
    std::string probsIn = "masked";
    switch (form)
    {
    case MaskForm::kCONSTANT_EXPANDED:
    case MaskForm::kONE_WRONG:
    case MaskForm::kSHIFTED:
    {
        std::vector<double> keep = band(kSEQ, kSEQ, form == MaskForm::kSHIFTED ? 1 : 0);
        if (form == MaskForm::kONE_WRONG)
        {
            keep[static_cast<size_t>(3 * kSEQ + 1)] = 0.0; // (3, 1) is attended in the band
        }
        std::vector<float> bias;
        for (double x : keep)
        {
            bias.push_back(x != 0.0 ? 0.F : -1.0e9F);
        }
        m.addInitializer("bias", OnnxConstant::fromFloat(bias, {1, 1, kSEQ, kSEQ}));
        m.addInitializer("tail", OnnxConstant::fromInt64({1, kSEQ, kSEQ}, {3}));
        batchOf(m, "q");
        m.addNode("Concat", {"q_b", "tail"}, {"maskShape"}, {intAttr("axis", 0)});
        m.addNode("Expand", {"bias", "maskShape"}, {"mask"});
        m.addNode("Add", {"scaled", "mask"}, {"masked"});
        break;
    }
    case MaskForm::kCOMPUTED:
    {
        // transformers 5.x: kv_arange[None, None, None, :] <= q_arange[None, None, :, None], expanded to the batch,
        // then torch.where(mask, 0, finfo.min).
        m.addInitializer("i0", OnnxConstant::fromInt64({0}, {}));
        m.addInitializer("i1", OnnxConstant::fromInt64({1}, {}));
        m.addInitializer("ax0", OnnxConstant::fromInt64({0}, {1}));
        m.addInitializer("axq", OnnxConstant::fromInt64({0, 1, 3}, {3}));
        m.addInitializer("axk", OnnxConstant::fromInt64({0, 1, 2}, {3}));
        m.addInitializer("one1", OnnxConstant::fromInt64({1}, {1}));
        m.addNode("Shape", {"q"}, {"qshape"});
        m.addInitializer("i2", OnnxConstant::fromInt64({2}, {}));
        m.addNode("Gather", {"qshape", "i2"}, {"s"}, {intAttr("axis", 0)});
        m.addNode("Range", {"i0", "s", "i1"}, {"r"});
        m.addNode("Unsqueeze", {"r", "axq"}, {"rq"});
        m.addNode("Unsqueeze", {"r", "axk"}, {"rk"});
        m.addNode("LessOrEqual", {"rk", "rq"}, {"allowed"});
        m.addNode("Unsqueeze", {"s", "ax0"}, {"s1"});
        batchOf(m, "q");
        m.addNode("Concat", {"q_b", "one1", "s1", "s1"}, {"maskShape"}, {intAttr("axis", 0)});
        m.addNode("Expand", {"allowed", "maskShape"}, {"allowedB"});
        m.addNode("Where", {"allowedB", "zero", "lowest"}, {"mask"});
        m.addNode("Add", {"scaled", "mask"}, {"masked"});
        break;
    }
    case MaskForm::kWHERE_SLICED:
    case MaskForm::kWHERE_NOT:
    case MaskForm::kWHERE_ONE_WRONG:
    {
        std::vector<double> keep = band(kBUFFER, kBUFFER, 0);
        if (form == MaskForm::kWHERE_ONE_WRONG)
        {
            keep[static_cast<size_t>(5 * kBUFFER + 2)] = 0.0; // (5, 2): inside the slice [0, 6) x [0, 6)
        }
        m.addInitializer("buffer", toConstant(HostTensor::fromValues(DataType::kBOOL,
            makeDims({1, 1, kBUFFER, kBUFFER}), keep)));
        // bias[:, :, k - q : k, :k] with q and k from the shapes, as older GPT-2 writes it.
        m.addInitializer("i2", OnnxConstant::fromInt64({2}, {1}));
        m.addInitializer("i3", OnnxConstant::fromInt64({3}, {1}));
        m.addInitializer("z1", OnnxConstant::fromInt64({0}, {1}));
        m.addNode("Shape", {"q"}, {"qshape"});
        m.addNode("Shape", {"k"}, {"kshape"});
        m.addNode("Gather", {"qshape", "i2"}, {"qlen"}, {intAttr("axis", 0)});
        m.addNode("Gather", {"kshape", "i2"}, {"klen"}, {intAttr("axis", 0)});
        m.addNode("Sub", {"klen", "qlen"}, {"first"});
        m.addNode("Slice", {"buffer", "first", "klen", "i2"}, {"rows"});
        m.addNode("Slice", {"rows", "z1", "klen", "i3"}, {"allowed"});
        if (form == MaskForm::kWHERE_NOT)
        {
            m.addNode("Not", {"allowed"}, {"outside"});
            m.addNode("Where", {"outside", "lowest", "scaled"}, {"selected"});
        }
        else
        {
            m.addNode("Where", {"allowed", "scaled", "lowest"}, {"selected"});
        }
        probsIn = "selected";
        break;
    }
    case MaskForm::kRUNTIME:
        m.addInput("mask", DataType::kFLOAT, {1, 1, kSEQ, kSEQ});
        m.addNode("Add", {"scaled", "mask"}, {"masked"});
        break;
    }
    m.addNode("Softmax", {probsIn}, {"probs"}, {intAttr("axis", -1)});
    m.addNode("MatMul", {"probs", "v"}, {"o"});
    m.addOutput("o", DataType::kFLOAT);
    return m;
}

struct CausalRun
{
    std::optional<Plan> plan;
    std::vector<std::map<std::string, HostTensor>> outputs;
};

CausalRun buildAndRun(OnnxModelBuilder const& model, char const* fuse,
    std::vector<std::map<std::string, HostTensor>> const& inputs)
{
    ScopedEnv env("KILN_FUSE", fuse);
    CausalRun run;
    OnnxRunner r;
    if (!r.parse(model))
    {
        return run;
    }
    r.runner().setProfileDims("x", {1, 2, kSEQ, 24}, {2, 2, kSEQ, 24}, {3, 2, kSEQ, 24});
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

//! Builds `form` fused and unfused, checks both agree at batch 1 and 3, and returns the fused plan.
std::optional<Plan> fusedMatchingUnfused(MaskForm form, uint32_t seed)
{
    std::mt19937 rng(seed);
    OnnxModelBuilder const model = causalModel(form);
    std::vector<std::map<std::string, HostTensor>> inputs;
    for (int64_t batch : {1, 3})
    {
        std::map<std::string, HostTensor> in;
        in["x"] = HostTensor::random(DataType::kFLOAT, makeDims({batch, 2, kSEQ, 24}), rng, -2.0, 2.0);
        if (form == MaskForm::kRUNTIME)
        {
            in["mask"] = HostTensor::random(DataType::kFLOAT, makeDims({1, 1, kSEQ, kSEQ}), rng, -4.0, 0.0);
        }
        inputs.push_back(std::move(in));
    }
    CausalRun const plain = buildAndRun(model, "0", inputs);
    CausalRun fused = buildAndRun(model, "1", inputs);
    if (!plain.plan || !fused.plan || plain.outputs.size() != inputs.size() || fused.outputs.size() != inputs.size())
    {
        ADD_FAILURE() << "a build or run failed";
        return std::nullopt;
    }
    EXPECT_EQ(firstNodeOfKind(*plain.plan, LayerType::kATTENTION_OUTPUT), nullptr);
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        SCOPED_TRACE("batch set " + std::to_string(i));
        if (plain.outputs[i].count("o") != 1 || fused.outputs[i].count("o") != 1)
        {
            ADD_FAILURE() << "output o missing";
            continue;
        }
        EXPECT_TRUE(allClose(fused.outputs[i].at("o"), plain.outputs[i].at("o"), 1e-5, 1e-5));
    }
    return std::move(fused.plan);
}

TEST(AttentionCausalFusion, CausalMasksBecomeTheCausalMode)
{
    for (MaskForm form : {MaskForm::kCONSTANT_EXPANDED, MaskForm::kCOMPUTED, MaskForm::kWHERE_SLICED, MaskForm::kWHERE_NOT})
    {
        SCOPED_TRACE("form " + std::to_string(static_cast<int32_t>(form)));
        ASSERT_TRUE(isCausalForm(form));
        std::optional<Plan> const plan = fusedMatchingUnfused(form, 70 + static_cast<uint32_t>(form));
        ASSERT_TRUE(plan.has_value());
        PlanNode const* node = firstNodeOfKind(*plan, LayerType::kATTENTION_OUTPUT);
        ASSERT_NE(node, nullptr);
        EXPECT_EQ(node->attrs.getInt("causal", -1), 1);
        EXPECT_TRUE(node->inputs.size() < 4 || node->inputs[3] < 0) << "the causal node reads no mask";
        EXPECT_EQ(countKind(*plan, LayerType::kSOFTMAX), 0);
        // The layers that computed the mask had no other reader: they are gone.
        EXPECT_EQ(countKind(*plan, LayerType::kSELECT), 0);
        EXPECT_EQ(countKind(*plan, LayerType::kFILL), 0);
        EXPECT_EQ(countKind(*plan, LayerType::kSLICE), 3); // the input's split in three, no mask slice
        EXPECT_EQ(countKind(*plan, LayerType::kELEMENTWISE), 0);
    }
}

TEST(AttentionCausalFusion, MasksThatAreNotExactlyCausalStayMasks)
{
    for (MaskForm form : {MaskForm::kONE_WRONG, MaskForm::kSHIFTED, MaskForm::kRUNTIME})
    {
        SCOPED_TRACE("form " + std::to_string(static_cast<int32_t>(form)));
        ASSERT_FALSE(isCausalForm(form));
        std::optional<Plan> const plan = fusedMatchingUnfused(form, 80 + static_cast<uint32_t>(form));
        ASSERT_TRUE(plan.has_value());
        PlanNode const* node = firstNodeOfKind(*plan, LayerType::kATTENTION_OUTPUT);
        ASSERT_NE(node, nullptr);
        EXPECT_EQ(node->attrs.getInt("causal", -1), 0);
        ASSERT_GE(node->inputs.size(), 4U);
        EXPECT_GE(node->inputs[3], 0) << "the mask stays an input";
    }
}

TEST(AttentionCausalFusion, WhereOverABandThatIsNotCausalStaysUnfused)
{
    std::optional<Plan> const plan = fusedMatchingUnfused(MaskForm::kWHERE_ONE_WRONG, 91);
    ASSERT_TRUE(plan.has_value());
    EXPECT_EQ(firstNodeOfKind(*plan, LayerType::kATTENTION_OUTPUT), nullptr);
    EXPECT_EQ(countKind(*plan, LayerType::kSELECT), 1);
}

} // namespace
} // namespace kiln::test
