// The CPU kernels of fused nodes, built by hand: pointwise programs (backends/common/pointwiseProgram.h) through the
// elementwise kernel factory, compared with the same computation written out here in double (broadcast inputs,
// constants, HALF rounding of intermediates, HALF/BF16 storage); the matrix multiply's fused epilogue (an addition,
// a bias with a residual, an activation) against a double reference; and every error path of the program validator
// and of the kernels.
#include "backends/common/fusedEpilogue.h"
#include "backends/common/pointwiseProgram.h"
#include "backends/cpu/cpuKernel.h"
#include "backends/cpu/kernels/oneDnnEpilogue.h"
#include "common/networkRunner.h"
#include "core/dataType.h"
#include "common/kernelRun.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace kiln::test
{
namespace
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::LayerType;
using nvinfer1::UnaryOperation;

KernelSetup setupFor(PlanNode const& node, std::vector<HostTensor> const& inputs, DataType outType, int32_t outRank)
{
    KernelSetup setup;
    setup.node = &node;
    for (HostTensor const& h : inputs)
    {
        setup.inputTypes.push_back(h.type);
        setup.inputPresent.push_back(true);
        setup.inputRanks.push_back(h.dims.nbDims);
    }
    setup.outputTypes = {outType};
    setup.outputRanks = {outRank};
    return setup;
}

//! Creates the node's CPU kernel and runs it into a poisoned output.
HostTensor runNode(PlanNode const& node, std::vector<HostTensor> inputs, DataType outType, nvinfer1::Dims outDims)
{
    HostTensor out(outType, outDims);
    std::memset(out.data(), 0x7F, out.bytes.size());
    auto kernel = cpuKernelFactory(node.kind)(setupFor(node, inputs, outType, outDims.nbDims));
    EXPECT_TRUE(kernel.isOk()) << kernel.status().message();
    if (!kernel.isOk())
    {
        return out;
    }
    std::vector<TensorView> views;
    for (HostTensor& h : inputs)
    {
        views.push_back(viewOf(h));
    }
    Status const st = kiln::test::reshapeAndRun(*(*kernel), views, {viewOf(out)});
    EXPECT_TRUE(st.isOk()) << st.message();
    return out;
}

//! Instruction helper: {op, code, a, b}.
std::vector<int64_t> ins(PwOp op, int64_t code, int64_t a, int64_t b)
{
    return {static_cast<int64_t>(op), code, a, b};
}

std::vector<int64_t> concat(std::vector<std::vector<int64_t>> const& parts)
{
    std::vector<int64_t> all;
    for (auto const& p : parts)
    {
        all.insert(all.end(), p.begin(), p.end());
    }
    return all;
}

PlanNode programNode(std::vector<int64_t> program, std::vector<double> consts, size_t nbInputs)
{
    PlanNode node;
    node.kind = LayerType::kELEMENTWISE;
    node.name = "p + q";
    node.attrs.setInts("pw.program", std::move(program));
    if (!consts.empty())
    {
        node.attrs.setFloats("pw.consts", std::move(consts));
    }
    for (size_t i = 0; i < nbInputs; ++i)
    {
        node.inputs.push_back(static_cast<int32_t>(i));
    }
    node.outputs = {static_cast<int32_t>(nbInputs)};
    return node;
}

double roundHalf(double v)
{
    return halfToFloat(floatToHalf(static_cast<float>(v)));
}

//! x [2,3,4] FLOAT, y [1,3,1] HALF: r0 = x * 1.5; r1 = r0 - y; r2 = half(r1); r3 = clip(r2, -1, 0.75);
//! r4 = exp(r3); r5 = max(r4, x); result in `outType`.
void checkProgram(DataType outType, double tol)
{
    std::mt19937 rng(31);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, 3, 4}), rng, -2.0, 2.0);
    HostTensor const y = HostTensor::random(DataType::kHALF, makeDims({1, 3, 1}), rng, -2.0, 2.0);
    auto const program = concat({ins(PwOp::kBINARY, static_cast<int64_t>(ElementWiseOperation::kPROD), 0, -1),
        ins(PwOp::kBINARY, static_cast<int64_t>(ElementWiseOperation::kSUB), 2, 1),
        ins(PwOp::kROUND, static_cast<int64_t>(DataType::kHALF), 3, -1),
        ins(PwOp::kACTIVATION, static_cast<int64_t>(ActivationType::kCLIP), 4, 1),
        ins(PwOp::kUNARY, static_cast<int64_t>(UnaryOperation::kEXP), 5, -1),
        ins(PwOp::kBINARY, static_cast<int64_t>(ElementWiseOperation::kMAX), 6, 0)});
    PlanNode const node = programNode(program, {1.5, -1.0, 0.75}, 2);
    HostTensor const out = runNode(node, {x, y}, outType, makeDims({2, 3, 4}));
    for (int64_t i = 0; i < out.volume(); ++i)
    {
        float const r1 = static_cast<float>(x.at(i)) * 1.5F - static_cast<float>(y.at((i / 4) % 3));
        double const r3 = std::min(std::max(roundHalf(r1), -1.0), 0.75);
        double const e = std::max(std::exp(r3), x.at(i));
        double const stored = outType == DataType::kFLOAT ? e : (outType == DataType::kHALF ? roundHalf(e)
            : bf16ToFloat(floatToBf16(static_cast<float>(e))));
        ASSERT_NEAR(out.at(i), stored, tol * (1.0 + std::fabs(stored))) << "element " << i;
    }
}

TEST(PointwiseProgramCpu, ComputesProgramWithBroadcastConstantsAndRounding)
{
    checkProgram(DataType::kFLOAT, 1e-6);
}

TEST(PointwiseProgramCpu, StoresHalfAndBf16Outputs)
{
    checkProgram(DataType::kHALF, 1e-3);
    checkProgram(DataType::kBF16, 8e-3);
}

TEST(PointwiseProgramCpu, SameInputInTwoSlotsAndLongRows)
{
    std::mt19937 rng(32);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({3, 700}), rng, -3.0, 3.0); // rows > one chunk
    auto const program = concat({ins(PwOp::kBINARY, static_cast<int64_t>(ElementWiseOperation::kPROD), 0, 0),
        ins(PwOp::kACTIVATION, static_cast<int64_t>(ActivationType::kGELU_ERF), 1, 0),
        ins(PwOp::kBINARY, static_cast<int64_t>(ElementWiseOperation::kDIV), 2, -3)});
    PlanNode const node = programNode(program, {0.0, 0.0, 4.0}, 1);
    HostTensor const out = runNode(node, {x}, DataType::kFLOAT, makeDims({3, 700}));
    for (int64_t i = 0; i < out.volume(); ++i)
    {
        double const s = x.at(i) * x.at(i);
        double const e = 0.5 * s * (1.0 + std::erf(s / std::sqrt(2.0))) / 4.0;
        ASSERT_NEAR(out.at(i), e, 1e-5 * (1.0 + std::fabs(e))) << "element " << i;
    }
}

//! Creating the kernel of `node` fails with a message containing `text` and the node's name.
void expectRejected(PlanNode const& node, std::vector<HostTensor> const& inputs, DataType outType, std::string const& text)
{
    auto kernel = cpuKernelFactory(node.kind)(setupFor(node, inputs, outType, inputs.empty() ? 1 : inputs[0].dims.nbDims));
    ASSERT_FALSE(kernel.isOk()) << "accepted: " << text;
    EXPECT_NE(kernel.status().message().find(text), std::string::npos) << kernel.status().message();
    EXPECT_NE(kernel.status().message().find(node.name), std::string::npos) << kernel.status().message();
}

TEST(PointwiseProgramCpu, RejectsMalformedPrograms)
{
    std::mt19937 rng(33);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({4}), rng);
    auto const sum = static_cast<int64_t>(ElementWiseOperation::kSUM);
    auto const bin = [&](int64_t a, int64_t b) { return ins(PwOp::kBINARY, sum, a, b); };
    expectRejected(programNode({}, {}, 1), {x}, DataType::kFLOAT, "instructions");
    expectRejected(programNode({0, 0, 0}, {}, 1), {x}, DataType::kFLOAT, "instructions");
    expectRejected(programNode(bin(0, 1), {}, 1), {x}, DataType::kFLOAT, "operand 1"); // forward reference
    expectRejected(programNode(bin(0, -2), {1.0}, 1), {x}, DataType::kFLOAT, "operand -2");
    expectRejected(programNode(bin(5, 0), {}, 1), {x}, DataType::kFLOAT, "operand 5");
    expectRejected(programNode(ins(static_cast<PwOp>(9), 0, 0, -1), {}, 1), {x}, DataType::kFLOAT, "unknown opcode");
    expectRejected(programNode(ins(PwOp::kBINARY, static_cast<int64_t>(ElementWiseOperation::kEQUAL), 0, 0), {}, 1),
        {x}, DataType::kFLOAT, "not supported in programs");
    expectRejected(programNode(ins(PwOp::kBINARY, 99, 0, 0), {}, 1), {x}, DataType::kFLOAT, "not supported in programs");
    expectRejected(programNode(ins(PwOp::kUNARY, static_cast<int64_t>(UnaryOperation::kISNAN), 0, -1), {}, 1), {x},
        DataType::kFLOAT, "not supported in programs");
    expectRejected(programNode(ins(PwOp::kUNARY, static_cast<int64_t>(UnaryOperation::kEXP), 0, 0), {}, 1), {x},
        DataType::kFLOAT, "no second operand");
    expectRejected(programNode(ins(PwOp::kACTIVATION, 99, 0, 0), {0.0, 0.0}, 1), {x}, DataType::kFLOAT, "unknown");
    expectRejected(programNode(ins(PwOp::kACTIVATION, 0, 0, 1), {0.0, 0.0}, 1), {x}, DataType::kFLOAT, "alpha/beta");
    expectRejected(programNode(ins(PwOp::kROUND, static_cast<int64_t>(DataType::kINT8), 0, -1), {}, 1), {x},
        DataType::kFLOAT, "rounding");
    expectRejected(programNode(ins(PwOp::kROUND, static_cast<int64_t>(DataType::kHALF), 0, 0), {}, 1), {x},
        DataType::kFLOAT, "no second operand");
    expectRejected(programNode(bin(0, 0), std::vector<double>(kPW_MAX_CONSTS + 1, 1.0), 1), {x}, DataType::kFLOAT,
        "pw.consts");
    std::vector<int64_t> tooLong;
    for (int32_t i = 0; i <= kPW_MAX_INSTRUCTIONS; ++i)
    {
        auto const one = bin(i, 0);
        tooLong.insert(tooLong.end(), one.begin(), one.end());
    }
    expectRejected(programNode(tooLong, {}, 1), {x}, DataType::kFLOAT, "instructions");
    std::vector<HostTensor> many(static_cast<size_t>(kPW_MAX_INPUTS + 1), x);
    expectRejected(programNode(bin(0, 1), {}, many.size()), many, DataType::kFLOAT, "inputs");
    PlanNode missing = programNode(bin(0, 1), {}, 2);
    missing.inputs[1] = -1;
    expectRejected(missing, {x, x}, DataType::kFLOAT, "input 1 is missing");
    // Kernel-level type checks: integer inputs or outputs.
    HostTensor const xi = HostTensor::random(DataType::kINT32, makeDims({4}), rng, -5, 5);
    expectRejected(programNode(bin(0, 0), {}, 1), {xi}, DataType::kFLOAT, "FLOAT, HALF or BF16");
    expectRejected(programNode(bin(0, 0), {}, 1), {x}, DataType::kINT32, "FLOAT, HALF or BF16");
    expectRejected(programNode(bin(0, 1), {}, 2), {x}, DataType::kFLOAT, "expected 2 input(s)");
}

TEST(PointwiseProgramCpu, RejectsInputsThatDoNotBroadcast)
{
    std::mt19937 rng(34);
    HostTensor x = HostTensor::random(DataType::kFLOAT, makeDims({2, 3}), rng);
    HostTensor y = HostTensor::random(DataType::kFLOAT, makeDims({2, 2}), rng);
    PlanNode const node = programNode(ins(PwOp::kBINARY, static_cast<int64_t>(ElementWiseOperation::kSUM), 0, 1), {}, 2);
    auto kernel = cpuKernelFactory(node.kind)(setupFor(node, {x, y}, DataType::kFLOAT, 2));
    ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
    HostTensor out(DataType::kFLOAT, makeDims({2, 3}));
    Status const st = kiln::test::reshapeAndRun(*(*kernel), {viewOf(x), viewOf(y)}, {viewOf(out)});
    ASSERT_FALSE(st.isOk());
    EXPECT_NE(st.message().find("do not broadcast"), std::string::npos) << st.message();
    HostTensor r3 = HostTensor::random(DataType::kFLOAT, makeDims({1, 2, 3}), rng);
    Status const rank = kiln::test::reshapeAndRun(*(*kernel), {viewOf(x), viewOf(r3)}, {viewOf(out)});
    EXPECT_FALSE(rank.isOk());
    Status const count = kiln::test::reshapeAndRun(*(*kernel), {viewOf(x)}, {viewOf(out)});
    EXPECT_FALSE(count.isOk());
}

// ---------------------------------------------------------------------------------------------------------------
// Matrix multiply epilogue
// ---------------------------------------------------------------------------------------------------------------

//! `residual` (with `add`): a fourth input, "fuse.residual".
PlanNode matmulNode(bool add, int64_t act, bool residual = false)
{
    PlanNode node;
    node.kind = LayerType::kMATRIX_MULTIPLY;
    node.name = "mm + bias + act";
    node.attrs.setInt("op0", static_cast<int64_t>(nvinfer1::MatrixOperation::kNONE));
    node.attrs.setInt("op1", static_cast<int64_t>(nvinfer1::MatrixOperation::kTRANSPOSE));
    node.inputs = add ? std::vector<int32_t>{0, 1, 2} : std::vector<int32_t>{0, 1};
    if (add && residual)
    {
        node.inputs.push_back(3);
        node.attrs.setInt("fuse.residual", 1);
    }
    node.outputs = {static_cast<int32_t>(node.inputs.size())};
    node.tactic = "reference";
    if (add)
    {
        node.attrs.setInt("fuse.add", 1);
    }
    if (act != 0)
    {
        node.attrs.setInt("fuse.act", act);
        node.attrs.setFloat("fuse.alpha", 0.5);
        node.attrs.setFloat("fuse.beta", 1.5);
    }
    return node;
}

//! Element i of the batched product A Bᵀ (A [batch, m, k], B [batch, n, k]) in double.
double productTransposedAt(HostTensor const& a, HostTensor const& b, int64_t i, int64_t m, int64_t n, int64_t k)
{
    int64_t const bi = i / (m * n);
    int64_t const row = (i / n) % m;
    int64_t const col = i % n;
    double v = 0.0;
    for (int64_t kk = 0; kk < k; ++kk)
    {
        v += a.at((bi * m + row) * k + kk) * b.at((bi * n + col) * k + kk);
    }
    return v;
}

//! `postOps`: the oneDNN tactic must run the epilogue as post-ops (false: it may, or may leave it to the CPU).
void checkMatmulEpilogue(
    std::vector<int64_t> const& addDims, ActivationType act, std::string const& tactic, bool postOps = true)
{
    SCOPED_TRACE("tactic " + tactic + ", add rank " + std::to_string(addDims.size()));
    std::mt19937 rng(35);
    HostTensor const a = HostTensor::random(DataType::kFLOAT, makeDims({2, 3, 4}), rng);
    HostTensor const b = HostTensor::random(DataType::kFLOAT, makeDims({2, 5, 4}), rng); // transposed: [N, K]
    HostTensor const c = HostTensor::random(DataType::kFLOAT, makeDims(addDims), rng);
    PlanNode node = matmulNode(true, static_cast<int64_t>(act) + 1);
    node.tactic = tactic;
    uint64_t const postOpsBefore = oneDnnPostOpRunCount();
    HostTensor const out = runNode(node, {a, b, c}, DataType::kFLOAT, makeDims({2, 3, 5}));
    // The oneDNN tactic runs the addition (binary post-op) and these activations as post-ops.
    uint64_t const postOpRuns = oneDnnPostOpRunCount() - postOpsBefore;
    if (tactic != "onednn" || !oneDnnBuilt())
    {
        EXPECT_EQ(postOpRuns, 0U);
    }
    else if (postOps)
    {
        EXPECT_EQ(postOpRuns, 1U) << "the epilogue did not run as oneDNN post-ops";
    }
    int32_t const lead = 3 - c.dims.nbDims;
    for (int64_t i = 0; i < out.volume(); ++i)
    {
        int64_t const bi = i / 15;
        int64_t const row = (i / 5) % 3;
        int64_t const col = i % 5;
        double v = productTransposedAt(a, b, i, 3, 5, 4);
        int64_t const coord[3] = {bi, row, col};
        int64_t off = 0;
        for (int32_t d = 0; d < c.dims.nbDims; ++d)
        {
            off = off * c.dims.d[d] + (c.dims.d[d] == 1 ? 0 : coord[d + lead]);
        }
        v += c.at(off);
        double const e = act == ActivationType::kTANH ? std::tanh(v) : std::max(0.5, std::min(1.5, v)); // kCLIP
        ASSERT_NEAR(out.at(i), e, 1e-5 * (1.0 + std::fabs(e))) << "element " << i;
    }
}

TEST(MatrixMultiplyEpilogueCpu, BiasResidualAndBroadcastAdditions)
{
    for (std::string const tactic : {"reference", "onednn"})
    {
        checkMatmulEpilogue({1, 1, 5}, ActivationType::kTANH, tactic);
        checkMatmulEpilogue({2, 3, 5}, ActivationType::kCLIP, tactic);
        // A per-row addition: oneDNN 2.6's matmul rejects that broadcast as a post-op; the CPU epilogue runs it.
        checkMatmulEpilogue({2, 3, 1}, ActivationType::kTANH, tactic, false);
        checkMatmulEpilogue({5}, ActivationType::kCLIP, tactic); // lower rank: left-padded with 1s
    }
}

//! The activations the residual tests use, in double.
double fusedActivationReference(ActivationType act, double v)
{
    switch (act)
    {
    case ActivationType::kRELU: return std::max(v, 0.0);
    case ActivationType::kGELU_ERF: return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    case ActivationType::kGELU_TANH:
        return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
    case ActivationType::kSOFTSIGN: return v / (1.0 + std::fabs(v));
    default: break;
    }
    ADD_FAILURE() << "no reference for activation " << static_cast<int32_t>(act);
    return 0.0;
}

//! act(A Bᵀ + bias + residual) of type `t` against the same in double from the rounded inputs; `postOps`: the oneDNN
//! tactic must run the whole epilogue as post-ops (the bias and the residual as binary adds).
void checkResidualEpilogue(std::vector<int64_t> const& biasDims, ActivationType act, DataType t,
    std::string const& tactic, bool postOps)
{
    SCOPED_TRACE("tactic " + tactic + ", bias rank " + std::to_string(biasDims.size()) + ", type "
        + dataTypeName(t) + ", activation " + std::to_string(static_cast<int32_t>(act)));
    std::mt19937 rng(37);
    HostTensor const a = HostTensor::random(t, makeDims({2, 3, 8}), rng);
    HostTensor const b = HostTensor::random(t, makeDims({2, 5, 8}), rng); // transposed: [N, K]
    HostTensor const bias = HostTensor::random(t, makeDims(biasDims), rng);
    HostTensor const res = HostTensor::random(t, makeDims({2, 3, 5}), rng, -2.0, 2.0);
    PlanNode node = matmulNode(true, static_cast<int64_t>(act) + 1, true);
    node.tactic = tactic;
    uint64_t const postOpsBefore = oneDnnPostOpRunCount();
    HostTensor const out = runNode(node, {a, b, bias, res}, t, makeDims({2, 3, 5}));
    uint64_t const postOpRuns = oneDnnPostOpRunCount() - postOpsBefore;
    if (tactic == "onednn" && oneDnnBuilt() && postOps)
    {
        EXPECT_EQ(postOpRuns, 1U) << "the epilogue did not run as oneDNN post-ops";
    }
    double const tol = t == DataType::kFLOAT ? 1e-5 : (t == DataType::kHALF ? 4e-3 : 2e-2);
    for (int64_t i = 0; i < out.volume(); ++i)
    {
        double const v = productTransposedAt(a, b, i, 3, 5, 8) + bias.at(i % 5) + res.at(i);
        double const e = fusedActivationReference(act, v);
        ASSERT_NEAR(out.at(i), e, tol * (1.0 + std::fabs(e))) << "element " << i;
    }
}

TEST(MatrixMultiplyEpilogueCpu, BiasAndResidual)
{
    for (std::string const tactic : {"reference", "onednn"})
    {
        for (ActivationType act : {ActivationType::kRELU, ActivationType::kGELU_ERF, ActivationType::kGELU_TANH})
        {
            checkResidualEpilogue({1, 1, 5}, act, DataType::kFLOAT, tactic, true);
            checkResidualEpilogue({5}, act, DataType::kFLOAT, tactic, true);
        }
        // An activation oneDNN has no eltwise for: the additions as post-ops, the activation after.
        checkResidualEpilogue({1, 1, 5}, ActivationType::kSOFTSIGN, DataType::kFLOAT, tactic, true);
        checkResidualEpilogue({1, 5}, ActivationType::kGELU_ERF, DataType::kHALF, tactic, false);
        checkResidualEpilogue({1, 1, 5}, ActivationType::kRELU, DataType::kBF16, tactic, false);
    }
}

TEST(FusedEpilogueAttributes, GateIsRefusedUnlessTheKernelAppliesIt)
{
    // A gated activation (fuse.gate: v * act(v)) on a matrix multiply, as a crafted engine could carry it: the CPU's
    // matrix multiply applies no gate, so its kernel refuses the node instead of computing act(v).
    std::mt19937 rng(39);
    HostTensor const a = HostTensor::random(DataType::kFLOAT, makeDims({3, 4}), rng);
    HostTensor const b = HostTensor::random(DataType::kFLOAT, makeDims({5, 4}), rng);
    PlanNode gated = matmulNode(false, static_cast<int64_t>(ActivationType::kSIGMOID) + 1);
    gated.attrs.setInt("fuse.gate", 1);
    expectRejected(gated, {a, b}, DataType::kFLOAT, "fuse.gate");
    // Allowed by the caller: parsed; without an activation: refused.
    StatusOr<FusedEpilogue> const allowed = readFusedEpilogue(gated, 2, false, true);
    ASSERT_TRUE(allowed.isOk()) << allowed.status().message();
    EXPECT_TRUE(allowed.value().gated);
    EXPECT_EQ(allowed.value().activation, ActivationType::kSIGMOID);
    PlanNode noAct = matmulNode(false, 0);
    noAct.attrs.setInt("fuse.gate", 1);
    StatusOr<FusedEpilogue> const refused = readFusedEpilogue(noAct, 2, false, true);
    ASSERT_FALSE(refused.isOk());
    EXPECT_NE(refused.status().message().find("fuse.act"), std::string::npos) << refused.status().message();
}

TEST(MatrixMultiplyEpilogueCpu, RejectsMalformedResiduals)
{
    std::mt19937 rng(38);
    HostTensor const a = HostTensor::random(DataType::kFLOAT, makeDims({3, 4}), rng);
    HostTensor const b = HostTensor::random(DataType::kFLOAT, makeDims({5, 4}), rng);
    HostTensor const bias = HostTensor::random(DataType::kFLOAT, makeDims({1, 5}), rng);
    HostTensor const res = HostTensor::random(DataType::kFLOAT, makeDims({3, 5}), rng);
    // A residual without the addition before it, and a residual whose input is missing.
    PlanNode noAdd = matmulNode(false, 0);
    noAdd.attrs.setInt("fuse.residual", 1);
    noAdd.inputs = {0, 1, 2};
    expectRejected(noAdd, {a, b, res}, DataType::kFLOAT, "fuse.residual");
    PlanNode missing = matmulNode(true, 0, true);
    missing.inputs.pop_back();
    expectRejected(missing, {a, b, bias}, DataType::kFLOAT, "fuse.residual");
    // Convolutions take no residual: readFusedEpilogue refuses it unless the caller allows it.
    PlanNode conv = matmulNode(true, 0, true);
    conv.kind = LayerType::kCONVOLUTION;
    StatusOr<FusedEpilogue> const convEpilogue = readFusedEpilogue(conv, 2);
    ASSERT_FALSE(convEpilogue.isOk());
    EXPECT_NE(convEpilogue.status().message().find("matrix multiply nodes only"), std::string::npos);
    // Execute-time: a residual that is not of the output's shape (a broadcast) is refused at reshape.
    PlanNode const node = matmulNode(true, 0, true);
    HostTensor row = HostTensor::random(DataType::kFLOAT, makeDims({1, 5}), rng);
    HostTensor out(DataType::kFLOAT, makeDims({3, 5}));
    HostTensor ac = a;
    HostTensor bc = b;
    HostTensor biasc = bias;
    auto kernel = cpuKernelFactory(node.kind)(setupFor(node, {a, b, bias, row}, DataType::kFLOAT, 2));
    ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
    Status const st =
        kiln::test::reshapeAndRun(*(*kernel), {viewOf(ac), viewOf(bc), viewOf(biasc), viewOf(row)}, {viewOf(out)});
    ASSERT_FALSE(st.isOk());
    EXPECT_NE(st.message().find("residual"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find(node.name), std::string::npos) << st.message();
}

TEST(MatrixMultiplyEpilogueCpu, RejectsMalformedEpilogues)
{
    std::mt19937 rng(36);
    HostTensor const a = HostTensor::random(DataType::kFLOAT, makeDims({3, 4}), rng);
    HostTensor const b = HostTensor::random(DataType::kFLOAT, makeDims({5, 4}), rng);
    HostTensor const ci = HostTensor::random(DataType::kINT32, makeDims({3, 5}), rng, -3, 3);
    PlanNode addMissing = matmulNode(true, 0);
    addMissing.inputs = {0, 1};
    expectRejected(addMissing, {a, b}, DataType::kFLOAT, "fuse.add");
    PlanNode badAct = matmulNode(false, 99);
    expectRejected(badAct, {a, b}, DataType::kFLOAT, "fuse.act");
    PlanNode intAdd = matmulNode(true, 0);
    expectRejected(intAdd, {a, b, ci}, DataType::kFLOAT, "FLOAT, HALF or BF16");
    // Execute-time: an added tensor that does not broadcast.
    PlanNode const node = matmulNode(true, 0);
    HostTensor c = HostTensor::random(DataType::kFLOAT, makeDims({3, 4}), rng);
    HostTensor out(DataType::kFLOAT, makeDims({3, 5}));
    HostTensor ac = a;
    HostTensor bc = b;
    auto kernel = cpuKernelFactory(node.kind)(setupFor(node, {a, b, c}, DataType::kFLOAT, 2));
    ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
    Status const st = kiln::test::reshapeAndRun(*(*kernel), {viewOf(ac), viewOf(bc), viewOf(c)}, {viewOf(out)});
    ASSERT_FALSE(st.isOk());
    EXPECT_NE(st.message().find("broadcast"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find(node.name), std::string::npos) << st.message();
    Status const count = kiln::test::reshapeAndRun(*(*kernel), {viewOf(ac), viewOf(bc)}, {viewOf(out)});
    EXPECT_FALSE(count.isOk());
}

} // namespace
} // namespace kiln::test
