// The CPU matrix multiply with a constant second operand (Linear layers): built through the public API with the
// weights as a constant layer, the kernel packs them once into oneDNN's layout and folds A's batch dims into rows.
// Each case is compared with a double-precision product computed here on random data, at several batch sizes of one
// engine (reshapes reuse the packed weights), on a second execution context of the same engine, and against the
// reference tactic. Cases: plain and transposed weights, 2-D and batched activations, bias + ReLU and residual
// epilogues, broadcasts that do not fold (kept on the unpacked path), and FP16 storage.
#include "backends/cpu/kernels/convolutionCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "common/networkRunner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>

namespace kiln::test
{
namespace
{
using namespace nvinfer1;

struct PackedCase
{
    int64_t rows{5};          //!< M
    int64_t depth{7};         //!< K
    int64_t cols{9};          //!< N
    int32_t batchRank{1};     //!< batch dims of A (0: A is 2-D); the batch extent varies per run
    bool transposeB{false};   //!< B stored [N, K], multiplied with kTRANSPOSE
    bool bias{false};         //!< + bias [.., 1, N]
    bool relu{false};
    bool residual{false};     //!< + a second input of the output's shape
    bool rowBias{false};      //!< + bias [.., M, 1] (a broadcast the folded product cannot take)
    DataType type{DataType::kFLOAT};
};

//! A case of the given extents (the rest as declared above).
PackedCase extents(int64_t rows, int64_t depth, int64_t cols)
{
    PackedCase c;
    c.rows = rows;
    c.depth = depth;
    c.cols = cols;
    return c;
}

struct Built
{
    std::unique_ptr<NetworkRunner> runner;
    std::vector<float> weights; //!< as stored ([K, N], or [N, K] when transposed)
    std::vector<float> bias;
};

//! A's dims at batch extent `batch`.
std::vector<int64_t> inputDims(PackedCase const& c, int64_t batch)
{
    std::vector<int64_t> d(static_cast<size_t>(c.batchRank), batch);
    d.push_back(c.rows);
    d.push_back(c.depth);
    return d;
}

std::vector<int64_t> outputDims(PackedCase const& c, int64_t batch)
{
    std::vector<int64_t> d(static_cast<size_t>(c.batchRank), batch);
    d.push_back(c.rows);
    d.push_back(c.cols);
    return d;
}

//! dims with the batch dims as 1s (constants of the network, rank-aligned with A).
std::vector<int64_t> unitBatch(PackedCase const& c, int64_t a, int64_t b)
{
    std::vector<int64_t> d(static_cast<size_t>(c.batchRank), 1);
    d.push_back(a);
    d.push_back(b);
    return d;
}

Built build(PackedCase const& c, std::mt19937& rng, bool reference)
{
    ScopedTactic tactic(reference);
    Built b;
    b.runner = std::make_unique<NetworkRunner>();
    NetworkRunner& r = *b.runner;
    std::uniform_real_distribution<float> dist(-1.F, 1.F);
    b.weights.resize(static_cast<size_t>(c.depth * c.cols));
    for (float& v : b.weights)
    {
        v = dist(rng);
    }
    int64_t const biasCount = c.rowBias ? c.rows : c.cols;
    b.bias.resize(static_cast<size_t>(biasCount));
    for (float& v : b.bias)
    {
        v = dist(rng);
    }
    auto& net = r.network();
    ITensor* a = r.addInput("a", c.type, inputDims(c, -1));
    if (c.batchRank > 0)
    {
        r.setProfileDims("a", inputDims(c, 1), inputDims(c, 3), inputDims(c, 6));
    }
    std::vector<int64_t> const wDims = c.transposeB ? unitBatch(c, c.cols, c.depth) : unitBatch(c, c.depth, c.cols);
    auto* w = net.addConstant(
        makeDims(wDims), Weights{DataType::kFLOAT, b.weights.data(), static_cast<int64_t>(b.weights.size())});
    ITensor* wt = w->getOutput(0);
    if (c.type != DataType::kFLOAT)
    {
        auto* cast = net.addCast(*wt, c.type);
        wt = cast->getOutput(0);
    }
    auto* mm = net.addMatrixMultiply(*a, MatrixOperation::kNONE, *wt,
        c.transposeB ? MatrixOperation::kTRANSPOSE : MatrixOperation::kNONE);
    ITensor* y = mm->getOutput(0);
    if (c.bias || c.rowBias)
    {
        std::vector<int64_t> const biasDims = c.rowBias ? unitBatch(c, c.rows, 1) : unitBatch(c, 1, c.cols);
        auto* bc = net.addConstant(makeDims(biasDims), Weights{DataType::kFLOAT, b.bias.data(), biasCount});
        ITensor* bt = bc->getOutput(0);
        if (c.type != DataType::kFLOAT)
        {
            bt = net.addCast(*bt, c.type)->getOutput(0);
        }
        y = net.addElementWise(*y, *bt, ElementWiseOperation::kSUM)->getOutput(0);
    }
    if (c.residual)
    {
        ITensor* res = r.addInput("res", c.type, outputDims(c, -1));
        if (c.batchRank > 0)
        {
            r.setProfileDims("res", outputDims(c, 1), outputDims(c, 3), outputDims(c, 6));
        }
        y = net.addElementWise(*y, *res, ElementWiseOperation::kSUM)->getOutput(0);
    }
    if (c.relu)
    {
        y = net.addActivation(*y, ActivationType::kRELU)->getOutput(0);
    }
    r.markOutput(y, "y");
    EXPECT_TRUE(r.build()) << r.logger().allErrors();
    return b;
}

//! The expected output in double from the inputs and the stored weights.
HostTensor expected(PackedCase const& c, Built const& b, std::map<std::string, HostTensor> const& in, int64_t batch)
{
    HostTensor const& a = in.at("a");
    HostTensor out(DataType::kFLOAT, makeDims(outputDims(c, batch)));
    int64_t const planes = out.volume() / (c.rows * c.cols);
    for (int64_t p = 0; p < planes; ++p)
    {
        for (int64_t i = 0; i < c.rows; ++i)
        {
            for (int64_t j = 0; j < c.cols; ++j)
            {
                double acc = 0.0;
                for (int64_t k = 0; k < c.depth; ++k)
                {
                    double const w = c.transposeB ? b.weights[static_cast<size_t>(j * c.depth + k)]
                                                  : b.weights[static_cast<size_t>(k * c.cols + j)];
                    acc += a.at((p * c.rows + i) * c.depth + k) * w;
                }
                int64_t const o = (p * c.rows + i) * c.cols + j;
                acc += c.bias ? b.bias[static_cast<size_t>(j)] : 0.0;
                acc += c.rowBias ? b.bias[static_cast<size_t>(i)] : 0.0;
                acc += c.residual ? in.at("res").at(o) : 0.0;
                out.set(o, c.relu ? std::max(acc, 0.0) : acc);
            }
        }
    }
    return out;
}

std::map<std::string, HostTensor> inputs(PackedCase const& c, int64_t batch, std::mt19937& rng)
{
    std::map<std::string, HostTensor> in{{"a", HostTensor::random(c.type, makeDims(inputDims(c, batch)), rng)}};
    if (c.residual)
    {
        in.emplace("res", HostTensor::random(c.type, makeDims(outputDims(c, batch)), rng));
    }
    return in;
}

//! Runs `c` at batches 3, 1 and 6 on the runner's context, then batch 2 on a second context of the same engine and on
//! a reference-tactic engine, each against the double product; `expectPacked`: the kernel must have packed weights.
void checkCase(PackedCase const& c, bool expectPacked, uint32_t seed)
{
    std::mt19937 rng(seed);
    uint64_t const packsBefore = matrixMultiplyPackCount();
    Built const b = build(c, rng, false);
    if (::testing::Test::HasFailure())
    {
        return;
    }
    double const tol = c.type == DataType::kFLOAT ? 2e-5 : 2e-2;
    for (int64_t batch : {3, 1, 6})
    {
        auto const in = inputs(c, batch, rng);
        HostTensor const want = expected(c, b, in, batch);
        auto const out = b.runner->run(in);
        ASSERT_EQ(out.count("y"), 1U);
        EXPECT_TRUE(allClose(out.at("y"), want, tol, tol)) << "batch " << batch;
    }
    // A second context of the same engine packs its own copy and gives the same results.
    auto const in = inputs(c, 2, rng);
    HostTensor const want = expected(c, b, in, 2);
    std::map<std::string, HostTensor> second;
    ASSERT_TRUE(NetworkRunner::runEngine(b.runner->engine(), in, second));
    EXPECT_TRUE(allClose(second.at("y"), want, tol, tol)) << "second context";
    if (oneDnnBuilt() && c.type == DataType::kFLOAT)
    {
        if (expectPacked)
        {
            EXPECT_GE(matrixMultiplyPackCount(), packsBefore + 2) << "each context packs the weights once";
        }
        else
        {
            EXPECT_EQ(matrixMultiplyPackCount(), packsBefore) << "this product does not fold: nothing to pack";
        }
    }
    // The reference tactic on the same weights and inputs (the oracle kernel, never packed).
    std::mt19937 same(seed);
    Built const ref = build(c, same, true);
    std::map<std::string, HostTensor> refOut;
    ASSERT_TRUE(NetworkRunner::runEngine(ref.runner->engine(), in, refOut));
    EXPECT_TRUE(allClose(second.at("y"), refOut.at("y"), tol, tol)) << "against the reference tactic";
}

TEST(MatrixMultiplyPackedCpu, BatchedLinearWithBiasRelu)
{
    PackedCase c;
    c.bias = true;
    c.relu = true;
    checkCase(c, true, 101);
}

TEST(MatrixMultiplyPackedCpu, TransposedWeightsTwoBatchDims)
{
    PackedCase c = extents(4, 33, 17);
    c.batchRank = 2;
    c.transposeB = true;
    c.bias = true;
    checkCase(c, true, 102);
}

TEST(MatrixMultiplyPackedCpu, TwoDimensionalLinear)
{
    PackedCase c = extents(1, 64, 48);
    c.batchRank = 0;
    checkCase(c, true, 103);
}

TEST(MatrixMultiplyPackedCpu, ResidualAdd)
{
    PackedCase c = extents(8, 20, 12);
    c.residual = true;
    checkCase(c, true, 104);
}

TEST(MatrixMultiplyPackedCpu, LargerLinearTransposed)
{
    PackedCase c = extents(16, 256, 96);
    c.transposeB = true;
    c.bias = true;
    c.relu = true;
    checkCase(c, true, 105);
}

TEST(MatrixMultiplyPackedCpu, RowBroadcastStaysUnpacked)
{
    PackedCase c;
    c.rowBias = true;
    checkCase(c, false, 106);
}

TEST(MatrixMultiplyPackedCpu, HalfStorage)
{
    PackedCase c;
    c.type = DataType::kHALF;
    c.bias = true;
    checkCase(c, false, 107);
}

} // namespace
} // namespace kiln::test
