// MatrixMultiplyLayerTest: IMatrixMultiplyLayer end to end (oneDNN and reference tactics) and the matrix-multiply
// kernel objects directly, against a naive double-precision oracle written here.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include "backends/cpu/kernels/convolutionCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "common/kernelRun.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;
using kiln::test::ScopedTactic;

struct MatCase
{
    MatrixOperation op0{MatrixOperation::kNONE};
    MatrixOperation op1{MatrixOperation::kNONE};
    std::vector<int64_t> batchA;
    std::vector<int64_t> batchB;
    int64_t m{1};
    int64_t n{1};
    int64_t k{1};

    std::vector<int64_t> dimsA() const
    {
        std::vector<int64_t> d = batchA;
        switch (op0)
        {
        case MatrixOperation::kNONE: d.insert(d.end(), {m, k}); break;
        case MatrixOperation::kTRANSPOSE: d.insert(d.end(), {k, m}); break;
        case MatrixOperation::kVECTOR: d.push_back(k); break;
        }
        return d;
    }
    std::vector<int64_t> dimsB() const
    {
        std::vector<int64_t> d = batchB;
        switch (op1)
        {
        case MatrixOperation::kNONE: d.insert(d.end(), {k, n}); break;
        case MatrixOperation::kTRANSPOSE: d.insert(d.end(), {n, k}); break;
        case MatrixOperation::kVECTOR: d.push_back(k); break;
        }
        return d;
    }
    std::string str() const
    {
        auto v = [](std::vector<int64_t> const& x) {
            std::string s;
            for (auto e : x)
            {
                s += std::to_string(e) + ",";
            }
            return s;
        };
        return "op0=" + std::to_string(static_cast<int>(op0)) + " op1=" + std::to_string(static_cast<int>(op1))
            + " batchA=" + v(batchA) + " batchB=" + v(batchB) + " m=" + std::to_string(m) + " n=" + std::to_string(n)
            + " k=" + std::to_string(k);
    }
};

int64_t prod(std::vector<int64_t> const& v)
{
    int64_t p = 1;
    for (auto x : v)
    {
        p *= x;
    }
    return p;
}

//! Oracle: element (m, k) of op(A) and (k, n) of op(B) read straight from the row-major inputs; batch indices of an
//! extent-1 dimension are clamped to 0 (broadcast). Output dims: batch, then M if A is a matrix, N if B is.
std::vector<double> oracleMatmul(MatCase const& mc, std::vector<double> const& a, std::vector<double> const& b,
    std::vector<int64_t>& outDims)
{
    size_t const nb = mc.batchA.size();
    std::vector<int64_t> batch(nb);
    for (size_t j = 0; j < nb; ++j)
    {
        batch[j] = std::max(mc.batchA[j], mc.batchB[j]);
    }
    outDims = batch;
    if (mc.op0 != MatrixOperation::kVECTOR)
    {
        outDims.push_back(mc.m);
    }
    if (mc.op1 != MatrixOperation::kVECTOR)
    {
        outDims.push_back(mc.n);
    }
    std::vector<double> y;
    int64_t const matA = prod(mc.dimsA()) / std::max<int64_t>(prod(mc.batchA), 1);
    int64_t const matB = prod(mc.dimsB()) / std::max<int64_t>(prod(mc.batchB), 1);
    for (int64_t bf = 0; bf < prod(batch); ++bf)
    {
        // Batch multi-index, then the linear batch index of each operand with broadcasting.
        std::vector<int64_t> idx(nb);
        int64_t rest = bf;
        for (size_t j = nb; j-- > 0;)
        {
            idx[j] = rest % batch[j];
            rest /= batch[j];
        }
        int64_t ia = 0;
        int64_t ib = 0;
        for (size_t j = 0; j < nb; ++j)
        {
            ia = ia * mc.batchA[j] + (mc.batchA[j] == 1 ? 0 : idx[j]);
            ib = ib * mc.batchB[j] + (mc.batchB[j] == 1 ? 0 : idx[j]);
        }
        for (int64_t i = 0; i < mc.m; ++i)
        {
            for (int64_t jn = 0; jn < mc.n; ++jn)
            {
                double acc = 0.0;
                for (int64_t kk = 0; kk < mc.k; ++kk)
                {
                    double const av = mc.op0 == MatrixOperation::kNONE ? a[ia * matA + i * mc.k + kk]
                        : mc.op0 == MatrixOperation::kTRANSPOSE        ? a[ia * matA + kk * mc.m + i]
                                                                       : a[ia * matA + kk];
                    double const bv = mc.op1 == MatrixOperation::kNONE ? b[ib * matB + kk * mc.n + jn]
                        : mc.op1 == MatrixOperation::kTRANSPOSE        ? b[ib * matB + jn * mc.k + kk]
                                                                       : b[ib * matB + kk];
                    acc += av * bv;
                }
                y.push_back(acc);
            }
        }
    }
    return y;
}

std::vector<double> values(HostTensor const& t)
{
    std::vector<double> v(static_cast<size_t>(t.volume()));
    for (int64_t i = 0; i < t.volume(); ++i)
    {
        v[static_cast<size_t>(i)] = t.at(i);
    }
    return v;
}

struct Tolerance
{
    double atol;
    double rtol;
};

Tolerance toleranceFor(DataType t)
{
    switch (t)
    {
    case DataType::kHALF: return {2e-2, 1e-2};
    case DataType::kBF16: return {1e-1, 3e-2};
    default: return {1e-4, 1e-4};
    }
}

MatCase randomCase(std::mt19937& rng, MatrixOperation op0, MatrixOperation op1, size_t nbBatch, int64_t maxExtent = 9)
{
    auto uni = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    MatCase mc;
    mc.op0 = op0;
    mc.op1 = op1;
    mc.m = op0 == MatrixOperation::kVECTOR ? 1 : uni(1, maxExtent);
    mc.n = op1 == MatrixOperation::kVECTOR ? 1 : uni(1, maxExtent);
    mc.k = uni(1, maxExtent);
    for (size_t j = 0; j < nbBatch; ++j)
    {
        int64_t const e = uni(1, 3);
        int64_t const pattern = uni(0, 2); // equal, A broadcast, B broadcast
        mc.batchA.push_back(pattern == 1 ? 1 : e);
        mc.batchB.push_back(pattern == 2 ? 1 : e);
    }
    return mc;
}

HostTensor runNetwork(MatCase const& mc, DataType type, HostTensor const& a, HostTensor const& b, bool reference)
{
    ScopedTactic tactic(reference);
    NetworkRunner r;
    ITensor* ta = r.addInput("a", type, mc.dimsA());
    ITensor* tb = r.addInput("b", type, mc.dimsB());
    IMatrixMultiplyLayer* mm = r.network().addMatrixMultiply(*ta, mc.op0, *tb, mc.op1);
    EXPECT_NE(mm, nullptr) << r.logger().allErrors();
    if (mm == nullptr)
    {
        return {};
    }
    EXPECT_EQ(mm->getOperation(0), mc.op0);
    EXPECT_EQ(mm->getOperation(1), mc.op1);
    r.markOutput(mm->getOutput(0), "y");
    EXPECT_TRUE(r.build()) << r.logger().allErrors();
    auto out = r.run({{"a", a}, {"b", b}});
    return out["y"];
}

void checkEndToEnd(MatCase const& mc, DataType type, std::mt19937& rng)
{
    SCOPED_TRACE(mc.str() + " type=" + std::to_string(static_cast<int>(type)));
    HostTensor const a = HostTensor::random(type, makeDims(mc.dimsA()), rng);
    HostTensor const b = HostTensor::random(type, makeDims(mc.dimsB()), rng);
    std::vector<int64_t> outDims;
    std::vector<double> const y = oracleMatmul(mc, values(a), values(b), outDims);
    HostTensor const expected = HostTensor::fromValues(type, makeDims(outDims), y);
    Tolerance const tol = toleranceFor(type);
    // The CPU backend runs its default tactic (oneDNN where it applies) and its reference tactic; another backend
    // runs its own kernels once. Each result must match the oracle.
    bool const onCpu = kiln::test::currentTestBackend() == kiln::BackendKind::kCPU;
    uint64_t const before = kiln::oneDnnRunCount(LayerType::kMATRIX_MULTIPLY);
    HostTensor const fast = runNetwork(mc, type, a, b, false);
    if (onCpu && kiln::oneDnnBuilt() && type == DataType::kFLOAT)
    {
        EXPECT_GT(kiln::oneDnnRunCount(LayerType::kMATRIX_MULTIPLY), before) << "the default build did not run oneDNN";
    }
    EXPECT_TRUE(kiln::test::allClose(fast, expected, tol.atol, tol.rtol));
    if (!onCpu)
    {
        return;
    }
    uint64_t const beforeRef = kiln::oneDnnRunCount(LayerType::kMATRIX_MULTIPLY);
    HostTensor const ref = runNetwork(mc, type, a, b, true);
    EXPECT_EQ(kiln::oneDnnRunCount(LayerType::kMATRIX_MULTIPLY), beforeRef);
    EXPECT_TRUE(kiln::test::allClose(ref, expected, tol.atol, tol.rtol));
}

constexpr MatrixOperation kOPS[] = {MatrixOperation::kNONE, MatrixOperation::kTRANSPOSE, MatrixOperation::kVECTOR};

class MatrixMultiplyLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(MatrixMultiplyLayerTest);

TEST_P(MatrixMultiplyLayerTest, EveryOperationPair)
{
    std::mt19937 rng(1);
    for (MatrixOperation op0 : kOPS)
    {
        for (MatrixOperation op1 : kOPS)
        {
            checkEndToEnd(randomCase(rng, op0, op1, 0), DataType::kFLOAT, rng);
            checkEndToEnd(randomCase(rng, op0, op1, 2), DataType::kFLOAT, rng);
        }
    }
}

TEST_P(MatrixMultiplyLayerTest, BatchBroadcasting)
{
    std::mt19937 rng(2);
    MatCase mc;
    mc.batchA = {2, 1, 3};
    mc.batchB = {1, 4, 3};
    mc.m = 5;
    mc.n = 6;
    mc.k = 7;
    checkEndToEnd(mc, DataType::kFLOAT, rng);
    mc.op0 = MatrixOperation::kTRANSPOSE;
    mc.op1 = MatrixOperation::kVECTOR;
    mc.n = 1;
    checkEndToEnd(mc, DataType::kFLOAT, rng);
    for (int i = 0; i < 3; ++i)
    {
        checkEndToEnd(randomCase(rng, MatrixOperation::kNONE, MatrixOperation::kTRANSPOSE, 4, 5), DataType::kFLOAT, rng);
    }
}

TEST_P(MatrixMultiplyLayerTest, VectorTimesVectorGivesScalar)
{
    std::mt19937 rng(3);
    MatCase mc;
    mc.op0 = MatrixOperation::kVECTOR;
    mc.op1 = MatrixOperation::kVECTOR;
    mc.k = 11;
    checkEndToEnd(mc, DataType::kFLOAT, rng); // rank-0 output
    mc.batchA = {3};
    mc.batchB = {1};
    checkEndToEnd(mc, DataType::kFLOAT, rng);
}

TEST_P(MatrixMultiplyLayerTest, HalfAndBFloat16)
{
    std::mt19937 rng(4);
    for (DataType type : {DataType::kHALF, DataType::kBF16})
    {
        checkEndToEnd(randomCase(rng, MatrixOperation::kNONE, MatrixOperation::kNONE, 1, 16), type, rng);
        checkEndToEnd(randomCase(rng, MatrixOperation::kTRANSPOSE, MatrixOperation::kTRANSPOSE, 2, 16), type, rng);
        checkEndToEnd(randomCase(rng, MatrixOperation::kVECTOR, MatrixOperation::kNONE, 1, 16), type, rng);
    }
}

TEST_P(MatrixMultiplyLayerTest, DynamicShapes)
{
    std::mt19937 rng(5);
    for (bool reference : {false, true})
    {
        ScopedTactic tactic(reference);
        NetworkRunner r;
        ITensor* a = r.addInput("a", DataType::kFLOAT, {-1, -1, 6});
        ITensor* b = r.addInput("b", DataType::kFLOAT, {1, 6, -1});
        IMatrixMultiplyLayer* mm = r.network().addMatrixMultiply(*a, MatrixOperation::kNONE, *b, MatrixOperation::kNONE);
        ASSERT_NE(mm, nullptr);
        r.markOutput(mm->getOutput(0), "y");
        r.setProfileDims("a", {1, 1, 6}, {2, 4, 6}, {4, 16, 6});
        r.setProfileDims("b", {1, 6, 1}, {1, 6, 4}, {1, 6, 16});
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        for (auto const& s : std::vector<std::vector<int64_t>>{{1, 3, 5}, {4, 16, 2}, {1, 3, 5}})
        {
            MatCase mc;
            mc.batchA = {s[0]};
            mc.batchB = {1};
            mc.m = s[1];
            mc.k = 6;
            mc.n = s[2];
            HostTensor const ha = HostTensor::random(DataType::kFLOAT, makeDims(mc.dimsA()), rng);
            HostTensor const hb = HostTensor::random(DataType::kFLOAT, makeDims(mc.dimsB()), rng);
            std::vector<int64_t> outDims;
            HostTensor const expected = HostTensor::fromValues(
                DataType::kFLOAT, makeDims(outDims), oracleMatmul(mc, values(ha), values(hb), outDims));
            auto out = r.run({{"a", ha}, {"b", hb}});
            EXPECT_TRUE(kiln::test::allClose(out["y"], expected, 1e-4, 1e-4)) << mc.str();
        }
    }
}

TEST_P(MatrixMultiplyLayerTest, RuntimeReductionMismatchFails)
{
    NetworkRunner r;
    ITensor* a = r.addInput("a", DataType::kFLOAT, {2, -1});
    ITensor* b = r.addInput("b", DataType::kFLOAT, {-1, 3});
    IMatrixMultiplyLayer* mm = r.network().addMatrixMultiply(*a, MatrixOperation::kNONE, *b, MatrixOperation::kNONE);
    ASSERT_NE(mm, nullptr);
    mm->setName("mm");
    r.markOutput(mm->getOutput(0), "y");
    r.setProfileDims("a", {2, 1}, {2, 4}, {2, 8});
    r.setProfileDims("b", {1, 3}, {4, 3}, {8, 3});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::unique_ptr<IExecutionContext> ctx(r.engine().createExecutionContext());
    ASSERT_NE(ctx, nullptr);
    // K is 4 for 'a' and 5 for 'b': the shapes cannot be resolved, and the error names the layer's constraint.
    bool const shapesAccepted = ctx->setInputShape("a", makeDims({2, 4})) && ctx->setInputShape("b", makeDims({5, 3}));
    if (shapesAccepted)
    {
        EXPECT_LT(ctx->getTensorShape("y").nbDims, 0);
    }
    EXPECT_TRUE(r.logger().hasError("reduction extents")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("mm")) << r.logger().allErrors();
}

TEST_P(MatrixMultiplyLayerTest, SettersAndInvalidArguments)
{
    NetworkRunner r;
    ITensor* a = r.addInput("a", DataType::kFLOAT, {3, 4});
    ITensor* b = r.addInput("b", DataType::kFLOAT, {3, 4});
    EXPECT_EQ(r.network().addMatrixMultiply(*a, static_cast<MatrixOperation>(3), *b, MatrixOperation::kNONE), nullptr);
    EXPECT_TRUE(r.logger().hasError("MatrixOperation")) << r.logger().allErrors();
    IMatrixMultiplyLayer* mm = r.network().addMatrixMultiply(*a, MatrixOperation::kNONE, *b, MatrixOperation::kNONE);
    ASSERT_NE(mm, nullptr);
    EXPECT_EQ(mm->getType(), LayerType::kMATRIX_MULTIPLY);
    mm->setName("mm1");
    r.logger().clear();
    mm->setOperation(2, MatrixOperation::kTRANSPOSE);
    EXPECT_TRUE(r.logger().hasError("mm1")) << r.logger().allErrors();
    mm->setOperation(1, static_cast<MatrixOperation>(-1));
    EXPECT_EQ(mm->getOperation(1), MatrixOperation::kNONE);
    mm->setOperation(1, MatrixOperation::kTRANSPOSE); // [3, 4] x [3, 4]^T = [3, 3]
    EXPECT_EQ(mm->getOperation(1), MatrixOperation::kTRANSPOSE);
    r.markOutput(mm->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    EXPECT_EQ(kiln::test::dimsString(r.network().getOutput(0)->getDimensions()), kiln::test::dimsString(makeDims({3, 3})));
}

TEST_P(MatrixMultiplyLayerTest, InvalidNetworksFailToBuild)
{
    auto expectFailure = [](DataType ta, std::vector<int64_t> const& da, MatrixOperation op0, DataType tb,
                             std::vector<int64_t> const& db, MatrixOperation op1, std::string const& message) {
        NetworkRunner r;
        ITensor* a = r.addInput("a", ta, da);
        ITensor* b = r.addInput("b", tb, db);
        IMatrixMultiplyLayer* mm = r.network().addMatrixMultiply(*a, op0, *b, op1);
        ASSERT_NE(mm, nullptr);
        mm->setName("badMatmul");
        r.markOutput(mm->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError(message)) << "expected '" << message << "' in: " << r.logger().allErrors();
        EXPECT_TRUE(r.logger().hasError("badMatmul")) << r.logger().allErrors();
    };
    auto const none = MatrixOperation::kNONE;
    auto const vec = MatrixOperation::kVECTOR;
    expectFailure(DataType::kFLOAT, {2, 3}, none, DataType::kFLOAT, {4, 5}, none, "reduction extents differ");
    expectFailure(DataType::kINT8, {2, 3}, none, DataType::kINT8, {3, 5}, none, "INT8");
    expectFailure(DataType::kINT32, {2, 3}, none, DataType::kINT32, {3, 5}, none, "INT32");
    expectFailure(DataType::kFLOAT, {2, 3}, none, DataType::kHALF, {3, 5}, none, "same type");
    expectFailure(DataType::kFLOAT, {7, 2, 3}, none, DataType::kFLOAT, {3, 5}, none, "batch dimensions");
    expectFailure(DataType::kFLOAT, {3}, none, DataType::kFLOAT, {3, 5}, none, "rank >= 2");
    expectFailure(DataType::kFLOAT, {2, 2, 3}, none, DataType::kFLOAT, {3, 3, 5}, none, "cannot be broadcast");
    expectFailure(DataType::kFLOAT, {2, 3}, vec, DataType::kFLOAT, {3, 5}, none, "batch dimensions");
}

// ---- Kernel-level tests ----

kiln::Attributes matAttrs(MatCase const& mc)
{
    kiln::Attributes attrs;
    attrs.setInt("op0", static_cast<int64_t>(mc.op0));
    attrs.setInt("op1", static_cast<int64_t>(mc.op1));
    return attrs;
}

HostTensor runKernel(MatCase const& mc, DataType type, HostTensor const& a, HostTensor const& b,
    std::vector<int64_t> const& outDims, char const* tactic)
{
    kiln::PlanNode node;
    node.kind = LayerType::kMATRIX_MULTIPLY;
    node.name = "mm";
    node.attrs = matAttrs(mc);
    node.tactic = tactic;
    kiln::KernelSetup setup;
    setup.node = &node;
    setup.inputTypes = {type, type};
    setup.inputPresent = {true, true};
    setup.inputRanks = {a.dims.nbDims, b.dims.nbDims};
    setup.outputTypes = {type};
    setup.outputRanks = {static_cast<int32_t>(outDims.size())};
    auto kernel = kiln::createMatrixMultiplyKernel(setup);
    EXPECT_TRUE(kernel.isOk()) << kernel.status().message();
    HostTensor out(type, makeDims(outDims));
    for (int64_t i = 0; i < out.volume(); ++i)
    {
        out.set(i, 4321.0);
    }
    if (!kernel.isOk())
    {
        return out;
    }
    kiln::Status st = kiln::test::reshapeAndRun(*kernel.value(), 
        {{const_cast<void*>(a.data()), type, a.dims}, {const_cast<void*>(b.data()), type, b.dims}},
        {{out.data(), type, out.dims}});
    EXPECT_TRUE(st.isOk()) << st.message();
    return out;
}

void checkKernels(MatCase const& mc, DataType type, std::mt19937& rng)
{
    SCOPED_TRACE(mc.str() + " type=" + std::to_string(static_cast<int>(type)));
    HostTensor const a = HostTensor::random(type, makeDims(mc.dimsA()), rng);
    HostTensor const b = HostTensor::random(type, makeDims(mc.dimsB()), rng);
    std::vector<int64_t> outDims;
    HostTensor const expected
        = HostTensor::fromValues(type, makeDims(outDims), oracleMatmul(mc, values(a), values(b), outDims));
    Tolerance const tol = toleranceFor(type);
    uint64_t const before = kiln::oneDnnRunCount(LayerType::kMATRIX_MULTIPLY);
    HostTensor const fast = runKernel(mc, type, a, b, outDims, "onednn");
    if (kiln::oneDnnBuilt() && type == DataType::kFLOAT)
    {
        EXPECT_GT(kiln::oneDnnRunCount(LayerType::kMATRIX_MULTIPLY), before) << "oneDNN did not run";
    }
    HostTensor const ref = runKernel(mc, type, a, b, outDims, "reference");
    EXPECT_TRUE(kiln::test::allClose(ref, expected, tol.atol, tol.rtol)) << "reference vs oracle";
    EXPECT_TRUE(kiln::test::allClose(fast, expected, tol.atol, tol.rtol)) << "onednn vs oracle";
    EXPECT_TRUE(kiln::test::allClose(fast, ref, tol.atol, tol.rtol)) << "onednn vs reference";
}

TEST_P(MatrixMultiplyLayerTest, KernelsRandomSweep)
{
    KILN_CPU_BACKEND_ONLY("the CPU backend's kernels, called directly");
    std::mt19937 rng(7);
    for (MatrixOperation op0 : kOPS)
    {
        for (MatrixOperation op1 : kOPS)
        {
            for (size_t nbBatch : {size_t{0}, size_t{1}, size_t{3}})
            {
                checkKernels(randomCase(rng, op0, op1, nbBatch, 40), DataType::kFLOAT, rng);
            }
            checkKernels(randomCase(rng, op0, op1, 1, 40), DataType::kBF16, rng);
            checkKernels(randomCase(rng, op0, op1, 1, 20), DataType::kHALF, rng);
        }
    }
}

TEST_P(MatrixMultiplyLayerTest, KernelsLargerProblemAndEmptyReduction)
{
    KILN_CPU_BACKEND_ONLY("the CPU backend's kernels, called directly");
    std::mt19937 rng(8);
    MatCase mc;
    mc.m = 96;
    mc.n = 80;
    mc.k = 130;
    checkKernels(mc, DataType::kFLOAT, rng);
    // K = 0: the product is all zeros.
    mc.k = 0;
    mc.m = 3;
    mc.n = 2;
    HostTensor const a(DataType::kFLOAT, makeDims(mc.dimsA()));
    HostTensor const b(DataType::kFLOAT, makeDims(mc.dimsB()));
    for (char const* tactic : {"onednn", "reference"})
    {
        HostTensor const out = runKernel(mc, DataType::kFLOAT, a, b, {3, 2}, tactic);
        for (int64_t i = 0; i < out.volume(); ++i)
        {
            EXPECT_EQ(out.at(i), 0.0);
        }
    }
}

TEST_P(MatrixMultiplyLayerTest, TacticsList)
{
    KILN_CPU_BACKEND_ONLY("the CPU backend's tactics list");
    kiln::PlanNode node;
    node.kind = LayerType::kMATRIX_MULTIPLY;
    node.name = "mm";
    node.attrs = matAttrs(MatCase{});
    kiln::KernelSetup setup;
    setup.node = &node;
    setup.inputTypes = {DataType::kFLOAT, DataType::kFLOAT};
    setup.inputPresent = {true, true};
    setup.inputRanks = {2, 2};
    setup.outputTypes = {DataType::kFLOAT};
    setup.outputRanks = {2};
    std::vector<std::string> const expected
        = kiln::oneDnnBuilt() ? std::vector<std::string>{"onednn", "reference"} : std::vector<std::string>{"reference"};
    EXPECT_EQ(kiln::matrixMultiplyTactics(setup), expected);
    node.attrs.setInt("op0", 9);
    EXPECT_FALSE(kiln::createMatrixMultiplyKernel(setup).isOk());
}

} // namespace
