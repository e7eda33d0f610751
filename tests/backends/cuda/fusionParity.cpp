// Parity of the CUDA kernels of fused nodes with the CPU kernels of the same nodes: the networks are built with
// KILN_FUSE=1, so their plans hold the fusion pass's nodes (matrix multiply + bias / residual / broadcast addition +
// activation epilogues, bias and residual together, cuBLASLt's GELU epilogue against the CPU's erf and tanh GELU,
// pointwise programs in FP32/FP16/BF16, BERT's erf-GELU chain, convolution + bias + relu), and
// every node runs on both backends. A CPU-only check first confirms that each network really fused (fewer layers).
#include "autotuneCheck.h"
#include "cudaParity.h"

#include "backends/common/pointwiseProgram.h"
#include "backends/cuda/cudaKernel.h"
#include "backends/cuda/kernels/pointwiseCodegen.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>

namespace kiln::test::cuda
{
namespace
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::INetworkDefinition;
using nvinfer1::ITensor;
using nvinfer1::MatrixOperation;
using nvinfer1::UnaryOperation;
using nvinfer1::Weights;

//! KILN_FUSE=1 for the scope (restores the previous value).
class ScopedFuse
{
public:
    ScopedFuse()
    {
        if (char const* old = std::getenv("KILN_FUSE"))
        {
            mOld = old;
        }
        ::setenv("KILN_FUSE", "1", 1);
    }
    ~ScopedFuse()
    {
        if (mOld)
        {
            ::setenv("KILN_FUSE", mOld->c_str(), 1);
        }
        else
        {
            ::unsetenv("KILN_FUSE");
        }
    }
    ScopedFuse(ScopedFuse const&) = delete;
    ScopedFuse& operator=(ScopedFuse const&) = delete;

private:
    std::optional<std::string> mOld;
};

struct WeightStore
{
    std::vector<std::unique_ptr<HostTensor>> tensors;
    Weights add(DataType t, std::vector<int64_t> const& d, std::mt19937& rng, double lo = -1.0, double hi = 1.0)
    {
        tensors.push_back(std::make_unique<HostTensor>(HostTensor::random(t, dims(d), rng, lo, hi)));
        return Weights{t, tensors.back()->data(), tensors.back()->volume()};
    }
    Weights scalar(DataType t, double v, int32_t rank)
    {
        tensors.push_back(std::make_unique<HostTensor>(
            HostTensor::fromValues(t, dims(std::vector<int64_t>(static_cast<size_t>(rank), 1)), {v})));
        return Weights{t, tensors.back()->data(), 1};
    }
};

ITensor* constant(INetworkDefinition& n, Weights w, std::vector<int64_t> const& d)
{
    return n.addConstant(dims(d), w)->getOutput(0);
}

//! CPU-only: the network built with KILN_FUSE=1 has `layers` layers.
void expectLayers(NetworkFn const& build, int32_t layers)
{
    NetworkRunner r(1U << static_cast<uint32_t>(nvinfer1::NetworkDefinitionCreationFlag::kSTRONGLY_TYPED));
    build(r.network());
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    EXPECT_EQ(r.engine().getNbLayers(), layers);
}

void fusedParity(NetworkFn const& build, int32_t layers, ParityOptions const& options)
{
    ScopedFuse fuse;
    expectLayers(build, layers);
    checkParity(build, options);
}

//! FP32 products accumulate in another order than the CPU's double reference (as in matrixMultiplyParity.cpp).
Tolerance matmulTolerance()
{
    Tolerance t;
    t.fp32Atol = 1e-4;
    t.fp32Rtol = 1e-4;
    t.fp16Atol = 2e-2;
    t.fp16Rtol = 4e-3;
    t.bf16Atol = 1e-1;
    t.bf16Rtol = 2e-2;
    return t;
}

//! Products' tolerance (matmulTolerance) on inputs in [-1, 1].
ParityOptions matmulOptions()
{
    ParityOptions o;
    o.tolerance = matmulTolerance();
    o.lo = -1.0;
    o.hi = 1.0;
    return o;
}

//! Where a residual input "r" [2, 16, 32] is added: not at all, after the addition, or before it.
enum class Residual
{
    kNONE,
    kAFTER,
    kBEFORE,
};

//! a [2, 16, 24] x b (transposed [2, 32, 24]) + add (and + the residual input, in the given order), then act: one
//! fused node.
void matmulEpilogue(DataType t, std::vector<int64_t> const& addDims, std::optional<ActivationType> act,
    Residual residual = Residual::kNONE)
{
    SCOPED_TRACE("type " + std::to_string(static_cast<int>(t)) + " add rank " + std::to_string(addDims.size())
        + " act " + std::to_string(act ? static_cast<int>(*act) : -1) + " residual "
        + std::to_string(static_cast<int>(residual)));
    std::mt19937 rng(41);
    WeightStore w;
    Weights const addW = w.add(t, addDims, rng);
    auto const build = [&](INetworkDefinition& n) {
        auto* a = n.addInput("a", t, dims({2, 16, 24}));
        auto* b = n.addInput("b", t, dims({2, 32, 24}));
        auto* r = residual == Residual::kNONE ? nullptr : n.addInput("r", t, dims({2, 16, 32}));
        auto* mm = n.addMatrixMultiply(*a, MatrixOperation::kNONE, *b, MatrixOperation::kTRANSPOSE);
        ITensor* y = mm->getOutput(0);
        if (residual == Residual::kBEFORE)
        {
            y = n.addElementWise(*y, *r, ElementWiseOperation::kSUM)->getOutput(0);
        }
        if (!addDims.empty())
        {
            y = n.addElementWise(*y, *constant(n, addW, addDims), ElementWiseOperation::kSUM)->getOutput(0);
        }
        if (residual == Residual::kAFTER)
        {
            y = n.addElementWise(*r, *y, ElementWiseOperation::kSUM)->getOutput(0);
        }
        if (act)
        {
            auto* l = n.addActivation(*y, *act);
            l->setAlpha(0.2F);
            l->setBeta(0.9F);
            y = l->getOutput(0);
        }
        n.markOutput(*y);
    };
    fusedParity(build, 1, matmulOptions());
}

TEST(CudaParity, FusedMatrixMultiplyEpilogues)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        matmulEpilogue(t, {1, 1, 32}, std::nullopt);               // cuBLASLt BIAS
        matmulEpilogue(t, {1, 1, 32}, ActivationType::kRELU);      // RELU_BIAS
        matmulEpilogue(t, {2, 16, 32}, ActivationType::kRELU);     // beta * C, RELU
        matmulEpilogue(t, {2, 16, 32}, ActivationType::kGELU_ERF); // beta * C, activation kernel
        matmulEpilogue(t, {2, 16, 1}, ActivationType::kTANH);      // broadcast add: epilogue kernel
        matmulEpilogue(t, {}, ActivationType::kRELU);              // RELU alone
        matmulEpilogue(t, {}, ActivationType::kGELU_TANH);         // activation kernel alone
        matmulEpilogue(t, {1, 1, 32}, ActivationType::kCLIP);      // BIAS, then the activation kernel
    }
}

//! cuBLASLt algorithms chosen by timing: every timed algorithm (forced one by one) of a bias + GELU product gives the
//! CPU reference's result, and the same problem built again is answered from the process's earlier choice.
TEST(CudaParity, MatrixMultiplyAutotuneEveryAlgorithm)
{
    KILN_REQUIRE_GPU();
    int64_t const forced = checkEveryCandidate(
        false, [](int32_t) { matmulEpilogue(DataType::kHALF, {1, 1, 32}, ActivationType::kGELU_TANH); });
    EXPECT_GE(forced, 1) << "no cuBLASLt algorithms were timed";
    ::kiln::cuda::AutotuneSettings settings;
    settings.candidates = 6; // this test's own settings key
    ::kiln::cuda::setAutotuneOverride(settings);
    ::kiln::cuda::AutotuneCounters const a0 = ::kiln::cuda::autotuneCounters();
    matmulEpilogue(DataType::kHALF, {1, 1, 32}, ActivationType::kRELU);
    ::kiln::cuda::AutotuneCounters const a1 = ::kiln::cuda::autotuneCounters();
    matmulEpilogue(DataType::kHALF, {1, 1, 32}, ActivationType::kRELU);
    ::kiln::cuda::AutotuneCounters const a2 = ::kiln::cuda::autotuneCounters();
    ::kiln::cuda::setAutotuneOverride(std::nullopt);
    EXPECT_GE(a1.ltProblems - a0.ltProblems, 1);
    EXPECT_EQ(a2.ltProblems, a1.ltProblems);
    EXPECT_GT(a2.ltCacheHits, a1.ltCacheHits);
}

//! Hand-built fused nodes on both tactics and K = 7 / 0 (K = 0: the whole epilogue after a zero product): + a per-row
//! addition then sigmoid, and + a bias + a residual then relu ("fuse.residual"); and the residual node with a batch
//! broadcast per dimension (one cuBLASLt call per output matrix, C offset with D), FP32 and FP16.
TEST(CudaParity, FusedMatrixMultiplyKilnTacticAndEmptyReduction)
{
    std::mt19937 rng(42);
    Tolerance const tol = matmulTolerance();
    for (bool residual : {false, true})
    {
        PlanNode node;
        node.kind = nvinfer1::LayerType::kMATRIX_MULTIPLY;
        node.name = residual ? "mm + bias + res + relu" : "mm + bias + sigmoid";
        node.attrs.setInt("op0", static_cast<int64_t>(MatrixOperation::kNONE));
        node.attrs.setInt("op1", static_cast<int64_t>(MatrixOperation::kNONE));
        node.attrs.setInt("fuse.add", 1);
        ActivationType const act = residual ? ActivationType::kRELU : ActivationType::kSIGMOID;
        node.attrs.setInt("fuse.act", static_cast<int64_t>(act) + 1);
        node.inputs = {0, 1, 2};
        if (residual)
        {
            node.attrs.setInt("fuse.residual", 1);
            node.inputs.push_back(3);
        }
        node.outputs = {static_cast<int32_t>(node.inputs.size())};
        std::vector<int64_t> const addDims = residual ? std::vector<int64_t>{1, 1, 4} : std::vector<int64_t>{1, 5, 1};
        for (std::string const tactic : {"kiln", "cublaslt"})
        {
            node.tactic = tactic;
            for (int64_t k : {int64_t{7}, int64_t{0}})
            {
                SCOPED_TRACE(node.name + ", " + tactic + " K=" + std::to_string(k));
                std::vector<HostTensor> inputs{HostTensor::random(DataType::kFLOAT, dims({3, 5, k}), rng),
                    HostTensor::random(DataType::kFLOAT, dims({3, k, 4}), rng),
                    HostTensor::random(DataType::kFLOAT, dims(addDims), rng)};
                if (residual)
                {
                    inputs.push_back(HostTensor::random(DataType::kFLOAT, dims({3, 5, 4}), rng));
                }
                checkKernel(node, inputs, {HostTensor(DataType::kFLOAT, dims({3, 5, 4}))}, {}, tol);
            }
            for (DataType t : {DataType::kFLOAT, DataType::kHALF})
            {
                if (!residual)
                {
                    break;
                }
                SCOPED_TRACE(tactic + " broadcast batch, type " + std::to_string(static_cast<int>(t)));
                HostTensor const a = HostTensor::random(t, dims({2, 1, 8, 16}), rng);
                HostTensor const b = HostTensor::random(t, dims({1, 3, 16, 24}), rng);
                HostTensor const c = HostTensor::random(t, dims({24}), rng);
                HostTensor const r = HostTensor::random(t, dims({2, 3, 8, 24}), rng);
                checkKernel(node, {a, b, c, r}, {HostTensor(t, dims({2, 3, 8, 24}))}, {}, tol);
            }
        }
    }
}

TEST(CudaParity, FusedMatrixMultiplyBiasAndResidual)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        matmulEpilogue(t, {1, 1, 32}, std::nullopt, Residual::kAFTER);                // BIAS, C = residual
        matmulEpilogue(t, {1, 1, 32}, std::nullopt, Residual::kBEFORE);               // the same, residual added first
        matmulEpilogue(t, {1, 1, 32}, ActivationType::kRELU, Residual::kAFTER);       // RELU_BIAS, C = residual
        matmulEpilogue(t, {1, 1, 32}, ActivationType::kGELU_ERF, Residual::kAFTER);   // GELU_BIAS, or after in FP32
        matmulEpilogue(t, {1, 1, 32}, ActivationType::kGELU_TANH, Residual::kBEFORE); // GELU_BIAS, C = residual
        matmulEpilogue(t, {2, 16, 1}, ActivationType::kRELU, Residual::kAFTER);       // C = residual, bias and relu after
        matmulEpilogue(t, {1, 1, 32}, ActivationType::kSIGMOID, Residual::kAFTER);    // BIAS + C, sigmoid after
        matmulEpilogue(t, {2, 16, 32}, std::nullopt, Residual::kBEFORE);              // two full-shape addends
    }
}

//! cuBLASLt's GELU epilogue (the tanh form) against the CPU kernel's GELU (erf or tanh, computed in float and
//! rounded once) with the output type's own tolerance (Tolerance's defaults: about one unit in the last place, and
//! 1e-3 absolute for FP16, which covers erf vs tanh: at most 4.7e-4 apart). Small K keeps the product's own rounding
//! differences below that. FP32 kGELU_ERF stays the exact post-pass; FP32 kGELU_TANH uses cuBLASLt's GELU.
TEST(CudaParity, CublasLtGeluEpilogueAgainstTheCpuGelu)
{
    std::mt19937 rng(46);
    for (ActivationType act : {ActivationType::kGELU_ERF, ActivationType::kGELU_TANH})
    {
        for (bool withBias : {true, false})
        {
            PlanNode node;
            node.kind = nvinfer1::LayerType::kMATRIX_MULTIPLY;
            node.name = withBias ? "mm + bias + gelu" : "mm + gelu";
            node.tactic = "cublaslt";
            node.attrs.setInt("op0", static_cast<int64_t>(MatrixOperation::kNONE));
            node.attrs.setInt("op1", static_cast<int64_t>(MatrixOperation::kNONE));
            node.attrs.setInt("fuse.act", static_cast<int64_t>(act) + 1);
            node.inputs = {0, 1};
            if (withBias)
            {
                node.attrs.setInt("fuse.add", 1);
                node.inputs.push_back(2);
            }
            node.outputs = {static_cast<int32_t>(node.inputs.size())};
            for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
            {
                SCOPED_TRACE(node.name + " act " + std::to_string(static_cast<int>(act)) + " type "
                    + std::to_string(static_cast<int>(t)));
                // Products spread over [-4, 4], GELU's curved range, from exactly representable inputs.
                HostTensor const a = HostTensor::random(t, dims({64, 4}), rng, -1.0, 1.0);
                HostTensor const b = HostTensor::random(t, dims({4, 40}), rng, -1.0, 1.0);
                std::vector<HostTensor> inputs{a, b};
                if (withBias)
                {
                    inputs.push_back(HostTensor::random(t, dims({1, 40}), rng, -1.0, 1.0));
                }
                Tolerance tol;
                tol.fp32Atol = 1e-4;
                tol.fp32Rtol = 1e-4;
                checkKernel(node, inputs, {HostTensor(t, dims({64, 40}))}, {}, tol);
            }
        }
    }
}

//! a + b (broadcast), tanh, * a, abs, max with a scalar constant (as in fusionPassTest.cpp).
void pointwiseChain(DataType t)
{
    SCOPED_TRACE("type " + std::to_string(static_cast<int>(t)));
    WeightStore w;
    Weights const quarter = w.scalar(t, 0.25, 3);
    auto const build = [&](INetworkDefinition& n) {
        auto* a = n.addInput("a", t, dims({4, 33, 17}));
        auto* b = n.addInput("b", t, dims({1, 33, 1}));
        auto* s = n.addElementWise(*a, *b, ElementWiseOperation::kSUM);
        auto* th = n.addActivation(*s->getOutput(0), ActivationType::kTANH);
        auto* m = n.addElementWise(*th->getOutput(0), *a, ElementWiseOperation::kPROD);
        auto* ab = n.addUnary(*m->getOutput(0), UnaryOperation::kABS);
        auto* mx = n.addElementWise(*ab->getOutput(0), *constant(n, quarter, {1, 1, 1}), ElementWiseOperation::kMAX);
        n.markOutput(*mx->getOutput(0));
    };
    fusedParity(build, 1, {});
}

TEST(CudaParity, FusedPointwiseChains)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        pointwiseChain(t);
    }
}

//! Generated pointwise code (pointwiseCodegen.h): a row broadcast (bias over the last extent), a scalar constant and
//! a full input, with a volume that is a multiple of 4 (vectorised kernel) and one that is not (one element per
//! thread).
TEST(CudaParity, FusedPointwiseGeneratedRowAndScalar)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        for (std::vector<int64_t> const& shape : {std::vector<int64_t>{4, 33, 16}, std::vector<int64_t>{3, 5, 7}})
        {
            SCOPED_TRACE("type " + std::to_string(static_cast<int>(t)) + " volume " + std::to_string(shape[0] * shape[1] * shape[2]));
            WeightStore w;
            Weights const third = w.scalar(t, 1.0 / 3.0, 3);
            auto const build = [&](INetworkDefinition& n) {
                auto* a = n.addInput("a", t, dims(shape));
                auto* b = n.addInput("b", t, dims({1, 1, shape[2]}));
                auto* s = n.addElementWise(*a, *b, ElementWiseOperation::kSUM);
                auto* g = n.addActivation(*s->getOutput(0), ActivationType::kGELU_ERF);
                auto* m = n.addElementWise(*g->getOutput(0), *constant(n, third, {1, 1, 1}), ElementWiseOperation::kSUB);
                auto* e = n.addUnary(*m->getOutput(0), UnaryOperation::kEXP);
                auto* d = n.addElementWise(*e->getOutput(0), *a, ElementWiseOperation::kDIV);
                n.markOutput(*d->getOutput(0));
            };
            fusedParity(build, 1, {});
        }
    }
}

//! Every operation a program may hold compiles with NVRTC, in two programs (the instruction limit): the elementwise
//! and unary operations, then the activations and roundings. The generated source is checked on any machine; the
//! compilation needs the GPU.
TEST(CudaParity, FusedPointwiseGeneratedEveryOperation)
{
    using ::kiln::cuda::PwCodegenSpec;
    using ::kiln::cuda::PwIndexing;
    std::vector<PwCodegenSpec> specs(2);
    for (size_t i = 0; i < specs.size(); ++i)
    {
        PwCodegenSpec& spec = specs[i];
        spec.program.nbInputs = 2;
        spec.program.consts = {0.5F, 2.0F};
        int32_t last = 1;
        auto push = [&](PwOp op, int32_t code, int32_t b) {
            spec.program.code.push_back(PwInstruction{op, code, last, b});
            last = spec.program.nbInputs + static_cast<int32_t>(spec.program.code.size()) - 1;
        };
        if (i == 0)
        {
            for (int32_t op = 0; op <= static_cast<int32_t>(ElementWiseOperation::kPOW); ++op)
            {
                push(PwOp::kBINARY, op, 0);
            }
            for (int32_t op = 0; op <= static_cast<int32_t>(UnaryOperation::kROUND); ++op)
            {
                if (isPointwiseUnary(static_cast<UnaryOperation>(op)))
                {
                    push(PwOp::kUNARY, op, -1);
                }
            }
        }
        else
        {
            for (int32_t act = 0; act <= static_cast<int32_t>(ActivationType::kGELU_TANH); ++act)
            {
                push(PwOp::kACTIVATION, act, 0);
            }
            push(PwOp::kROUND, static_cast<int32_t>(DataType::kHALF), -1);
            push(PwOp::kROUND, static_cast<int32_t>(DataType::kBF16), -1);
        }
        ASSERT_LE(spec.program.code.size(), static_cast<size_t>(kPW_MAX_INSTRUCTIONS));
        spec.inTypes = {DataType::kHALF, DataType::kFLOAT};
        spec.indexing = {PwIndexing::kFULL, PwIndexing::kROW};
        spec.outType = DataType::kBF16;
        auto source = ::kiln::cuda::PwGeneratedKernel::source(spec);
        ASSERT_TRUE(source.isOk()) << source.status().message();
        EXPECT_NE(source->find("kiln_pw_vector"), std::string::npos);
    }
    KILN_REQUIRE_GPU();
    for (PwCodegenSpec const& spec : specs)
    {
        auto kernel = ::kiln::cuda::PwGeneratedKernel::get(spec);
        auto source = ::kiln::cuda::PwGeneratedKernel::source(spec);
        EXPECT_TRUE(kernel.isOk()) << kernel.status().message() << "\n" << (source.isOk() ? source.value() : "");
    }
}

TEST(CudaParity, FusedBertGelu)
{
    std::mt19937 rng(43);
    WeightStore w;
    Weights const weight = w.add(DataType::kFLOAT, {1, 64, 96}, rng, -0.2, 0.2);
    Weights const bias = w.add(DataType::kFLOAT, {1, 1, 96}, rng);
    Weights const half = w.scalar(DataType::kFLOAT, 0.5, 3);
    Weights const root2 = w.scalar(DataType::kFLOAT, std::sqrt(2.0), 3);
    Weights const one = w.scalar(DataType::kFLOAT, 1.0, 3);
    auto const build = [&](INetworkDefinition& n) {
        auto* x = n.addInput("x", DataType::kFLOAT, dims({2, 10, 64}));
        auto* mm = n.addMatrixMultiply(*x, MatrixOperation::kNONE, *constant(n, weight, {1, 64, 96}), MatrixOperation::kNONE);
        ITensor* h = n.addElementWise(*mm->getOutput(0), *constant(n, bias, {1, 1, 96}), ElementWiseOperation::kSUM)
                         ->getOutput(0);
        auto* l = n.addElementWise(*h, *constant(n, half, {1, 1, 1}), ElementWiseOperation::kPROD);
        auto* d = n.addElementWise(*h, *constant(n, root2, {1, 1, 1}), ElementWiseOperation::kDIV);
        auto* e = n.addUnary(*d->getOutput(0), UnaryOperation::kERF);
        auto* p = n.addElementWise(*e->getOutput(0), *constant(n, one, {1, 1, 1}), ElementWiseOperation::kSUM);
        auto* g = n.addElementWise(*l->getOutput(0), *p->getOutput(0), ElementWiseOperation::kPROD);
        n.markOutput(*g->getOutput(0));
    };
    ParityOptions o;
    o.tolerance = matmulTolerance();
    // KILN_FUSE=1 includes the GELU rewrite (fusion/gelu.cpp): the five GELU layers become one kGELU_ERF activation,
    // which the epilogue takes into the matrix multiply's node.
    fusedParity(build, 1, o);
}

//! One BERT encoder layer's linear part in `t`: x [2, 16, 64] -> attention-output linear + bias + residual x ->
//! layer norm -> FFN1 linear + bias + erf GELU (written as five layers) -> FFN2 linear + bias + residual -> layer
//! norm. With fusion: two linear + bias + residual nodes, one linear + bias + GELU node and the two layer norms; every
//! node against the CPU kernels (in FP16/BF16 the GELU is cuBLASLt's tanh form, the CPU's erf).
void bertLayer(DataType t)
{
    SCOPED_TRACE("type " + std::to_string(static_cast<int>(t)));
    std::mt19937 rng(47);
    WeightStore w;
    Weights const wo = w.add(t, {1, 64, 64}, rng, -0.15, 0.15);
    Weights const bo = w.add(t, {1, 1, 64}, rng, -0.1, 0.1);
    Weights const w1 = w.add(t, {1, 64, 128}, rng, -0.15, 0.15);
    Weights const b1 = w.add(t, {1, 1, 128}, rng, -0.1, 0.1);
    Weights const w2 = w.add(t, {1, 128, 64}, rng, -0.1, 0.1);
    Weights const b2 = w.add(t, {1, 1, 64}, rng, -0.1, 0.1);
    Weights const gamma = w.add(t, {1, 1, 64}, rng, 0.5, 1.5);
    Weights const beta = w.add(t, {1, 1, 64}, rng, -0.2, 0.2);
    Weights const half = w.scalar(t, 0.5, 3);
    Weights const root2 = w.scalar(t, std::sqrt(2.0), 3);
    Weights const one = w.scalar(t, 1.0, 3);
    auto const build = [&](INetworkDefinition& n) {
        auto const linear = [&](ITensor* v, Weights wt, Weights bt, int64_t fin, int64_t fout) {
            auto* mm = n.addMatrixMultiply(*v, MatrixOperation::kNONE, *constant(n, wt, {1, fin, fout}),
                MatrixOperation::kNONE);
            return n.addElementWise(*mm->getOutput(0), *constant(n, bt, {1, 1, fout}), ElementWiseOperation::kSUM)
                ->getOutput(0);
        };
        auto const norm = [&](ITensor* v) {
            return n.addNormalizationV2(*v, *constant(n, gamma, {1, 1, 64}), *constant(n, beta, {1, 1, 64}), 1U << 2)
                ->getOutput(0);
        };
        auto const sum = [&](ITensor* a, ITensor* b) {
            return n.addElementWise(*a, *b, ElementWiseOperation::kSUM)->getOutput(0);
        };
        auto const scalarOp = [&](ITensor* v, Weights c, ElementWiseOperation op) {
            return n.addElementWise(*v, *constant(n, c, {1, 1, 1}), op)->getOutput(0);
        };
        ITensor* x = n.addInput("x", t, dims({2, 16, 64}));
        ITensor* h = norm(sum(x, linear(x, wo, bo, 64, 64)));
        ITensor* f = linear(h, w1, b1, 64, 128);
        ITensor* erf = n.addUnary(*scalarOp(f, root2, ElementWiseOperation::kDIV), UnaryOperation::kERF)->getOutput(0);
        ITensor* gelu = n.addElementWise(*scalarOp(f, half, ElementWiseOperation::kPROD),
                             *scalarOp(erf, one, ElementWiseOperation::kSUM), ElementWiseOperation::kPROD)
                            ->getOutput(0);
        n.markOutput(*norm(sum(linear(gelu, w2, b2, 128, 64), h)));
    };
    fusedParity(build, 5, matmulOptions());
}

TEST(CudaParity, FusedBertLayerBiasResidualGelu)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        bertLayer(t);
    }
}

TEST(CudaParity, FusedConvolutionBiasRelu)
{
    std::mt19937 rng(44);
    WeightStore w;
    Weights const kernel = w.add(DataType::kFLOAT, {8, 4, 3, 3}, rng, -0.3, 0.3);
    Weights const bias = w.add(DataType::kFLOAT, {1, 8, 1, 1}, rng);
    auto const build = [&](INetworkDefinition& n) {
        auto* x = n.addInput("x", DataType::kFLOAT, dims({2, 4, 10, 10}));
        auto* conv = n.addConvolutionNd(*x, 8, dims({3, 3}), kernel, Weights{DataType::kFLOAT, nullptr, 0});
        conv->setPaddingNd(dims({1, 1}));
        auto* add = n.addElementWise(*conv->getOutput(0), *constant(n, bias, {1, 8, 1, 1}), ElementWiseOperation::kSUM);
        auto* relu = n.addActivation(*add->getOutput(0), ActivationType::kRELU);
        n.markOutput(*relu->getOutput(0));
    };
    ParityOptions o;
    o.tolerance = matmulTolerance();
    fusedParity(build, 1, o);
}

} // namespace
} // namespace kiln::test::cuda
