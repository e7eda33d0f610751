// Parity of the CUDA kernels of fused nodes with the CPU kernels of the same nodes: the networks are built with
// KILN_FUSE=1, so their plans hold the fusion pass's nodes (matrix multiply + bias / residual / broadcast addition +
// activation epilogues, bias and residual together, cuBLASLt's GELU epilogue against the CPU's erf and tanh GELU,
// pointwise programs in FP32/FP16/BF16, BERT's erf-GELU chain, convolution + bias + relu), and
// every node runs on both backends. A CPU-only check first confirms that each network really fused (fewer layers).
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

//! a [2, 16, 24] x b (transposed [2, 32, 24]) + add, then act: one fused node.
void matmulEpilogue(DataType t, std::vector<int64_t> const& addDims, std::optional<ActivationType> act)
{
    SCOPED_TRACE("type " + std::to_string(static_cast<int>(t)) + " add rank " + std::to_string(addDims.size())
        + " act " + std::to_string(act ? static_cast<int>(*act) : -1));
    std::mt19937 rng(41);
    WeightStore w;
    Weights const addW = w.add(t, addDims, rng);
    auto const build = [&](INetworkDefinition& n) {
        auto* a = n.addInput("a", t, dims({2, 16, 24}));
        auto* b = n.addInput("b", t, dims({2, 32, 24}));
        auto* mm = n.addMatrixMultiply(*a, MatrixOperation::kNONE, *b, MatrixOperation::kTRANSPOSE);
        ITensor* y = mm->getOutput(0);
        if (!addDims.empty())
        {
            y = n.addElementWise(*y, *constant(n, addW, addDims), ElementWiseOperation::kSUM)->getOutput(0);
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
    ParityOptions o;
    o.tolerance = matmulTolerance();
    o.lo = -1.0;
    o.hi = 1.0;
    fusedParity(build, 1, o);
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

TEST(CudaParity, FusedMatrixMultiplyKilnTacticAndEmptyReduction)
{
    std::mt19937 rng(42);
    PlanNode node;
    node.kind = nvinfer1::LayerType::kMATRIX_MULTIPLY;
    node.name = "mm + bias + sigmoid";
    node.attrs.setInt("op0", static_cast<int64_t>(MatrixOperation::kNONE));
    node.attrs.setInt("op1", static_cast<int64_t>(MatrixOperation::kNONE));
    node.attrs.setInt("fuse.add", 1);
    node.attrs.setInt("fuse.act", static_cast<int64_t>(ActivationType::kSIGMOID) + 1);
    node.inputs = {0, 1, 2};
    node.outputs = {3};
    Tolerance const tol = matmulTolerance();
    for (std::string const tactic : {"kiln", "cublaslt"})
    {
        node.tactic = tactic;
        for (int64_t k : {int64_t{7}, int64_t{0}})
        {
            SCOPED_TRACE(tactic + " K=" + std::to_string(k));
            HostTensor const a = HostTensor::random(DataType::kFLOAT, dims({3, 5, k}), rng);
            HostTensor const b = HostTensor::random(DataType::kFLOAT, dims({3, k, 4}), rng);
            HostTensor const c = HostTensor::random(DataType::kFLOAT, dims({1, 5, 1}), rng);
            checkKernel(node, {a, b, c}, {HostTensor(DataType::kFLOAT, dims({3, 5, 4}))}, {}, tol);
        }
    }
}

//! a [2, 16, 24] x b (transposed [2, 32, 24]), + the bias constant (`biasDims`) and + the residual input "r"
//! [2, 16, 32] in either order, then act: one fused node ("fuse.residual").
void matmulBiasResidual(DataType t, std::vector<int64_t> const& biasDims, bool residualFirst,
    std::optional<ActivationType> act)
{
    SCOPED_TRACE("type " + std::to_string(static_cast<int>(t)) + " bias rank " + std::to_string(biasDims.size())
        + (residualFirst ? " residual first" : " bias first") + " act "
        + std::to_string(act ? static_cast<int>(*act) : -1));
    std::mt19937 rng(44);
    WeightStore w;
    Weights const biasW = w.add(t, biasDims, rng);
    auto const build = [&](INetworkDefinition& n) {
        auto* a = n.addInput("a", t, dims({2, 16, 24}));
        auto* b = n.addInput("b", t, dims({2, 32, 24}));
        auto* r = n.addInput("r", t, dims({2, 16, 32}));
        auto* mm = n.addMatrixMultiply(*a, MatrixOperation::kNONE, *b, MatrixOperation::kTRANSPOSE);
        ITensor* bias = constant(n, biasW, biasDims);
        ITensor* y = mm->getOutput(0);
        y = n.addElementWise(*y, residualFirst ? *r : *bias, ElementWiseOperation::kSUM)->getOutput(0);
        y = n.addElementWise(residualFirst ? *bias : *r, *y, ElementWiseOperation::kSUM)->getOutput(0);
        if (act)
        {
            y = n.addActivation(*y, *act)->getOutput(0);
        }
        n.markOutput(*y);
    };
    ParityOptions o;
    o.tolerance = matmulTolerance();
    o.lo = -1.0;
    o.hi = 1.0;
    fusedParity(build, 1, o);
}

TEST(CudaParity, FusedMatrixMultiplyBiasAndResidual)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        matmulBiasResidual(t, {1, 1, 32}, false, std::nullopt);               // BIAS, C = residual
        matmulBiasResidual(t, {1, 1, 32}, true, std::nullopt);                // the same, residual added first
        matmulBiasResidual(t, {1, 1, 32}, false, ActivationType::kRELU);      // RELU_BIAS, C = residual
        matmulBiasResidual(t, {1, 1, 32}, false, ActivationType::kGELU_ERF);  // GELU_BIAS (FP16/BF16) or after (FP32)
        matmulBiasResidual(t, {1, 1, 32}, true, ActivationType::kGELU_TANH);  // GELU_BIAS, C = residual
        matmulBiasResidual(t, {2, 16, 1}, false, ActivationType::kRELU);      // C = residual, bias and relu after
        matmulBiasResidual(t, {1, 1, 32}, false, ActivationType::kSIGMOID);   // BIAS + C, sigmoid after
        matmulBiasResidual(t, {2, 16, 32}, true, std::nullopt);               // two full-shape addends
    }
}

//! The residual node built by hand: the "kiln" tactic and K = 0 (the whole epilogue after the product), and a
//! non-uniform batch (one cuBLASLt call per output matrix, C offset with D).
TEST(CudaParity, FusedMatrixMultiplyResidualKilnTacticAndBatches)
{
    std::mt19937 rng(45);
    PlanNode node;
    node.kind = nvinfer1::LayerType::kMATRIX_MULTIPLY;
    node.name = "mm + bias + res + relu";
    node.attrs.setInt("op0", static_cast<int64_t>(MatrixOperation::kNONE));
    node.attrs.setInt("op1", static_cast<int64_t>(MatrixOperation::kNONE));
    node.attrs.setInt("fuse.add", 1);
    node.attrs.setInt("fuse.residual", 1);
    node.attrs.setInt("fuse.act", static_cast<int64_t>(ActivationType::kRELU) + 1);
    node.inputs = {0, 1, 2, 3};
    node.outputs = {4};
    Tolerance const tol = matmulTolerance();
    for (std::string const tactic : {"kiln", "cublaslt"})
    {
        node.tactic = tactic;
        for (int64_t k : {int64_t{7}, int64_t{0}})
        {
            SCOPED_TRACE(tactic + " K=" + std::to_string(k));
            HostTensor const a = HostTensor::random(DataType::kFLOAT, dims({3, 5, k}), rng);
            HostTensor const b = HostTensor::random(DataType::kFLOAT, dims({3, k, 4}), rng);
            HostTensor const c = HostTensor::random(DataType::kFLOAT, dims({1, 1, 4}), rng);
            HostTensor const r = HostTensor::random(DataType::kFLOAT, dims({3, 5, 4}), rng);
            checkKernel(node, {a, b, c, r}, {HostTensor(DataType::kFLOAT, dims({3, 5, 4}))}, {}, tol);
        }
        for (DataType t : {DataType::kFLOAT, DataType::kHALF})
        {
            SCOPED_TRACE(tactic + " broadcast batch, type " + std::to_string(static_cast<int>(t)));
            HostTensor const a = HostTensor::random(t, dims({2, 1, 8, 16}), rng);
            HostTensor const b = HostTensor::random(t, dims({1, 3, 16, 24}), rng);
            HostTensor const c = HostTensor::random(t, dims({24}), rng);
            HostTensor const r = HostTensor::random(t, dims({2, 3, 8, 24}), rng);
            checkKernel(node, {a, b, c, r}, {HostTensor(t, dims({2, 3, 8, 24}))}, {}, tol);
        }
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
