// 8 threads × 8 contexts run one engine with oneDNN-backed layers (convolution, matrix multiply) at random
// batch sizes. Every result must equal an independent oracle within FP32 tolerance, and must be bit-identical
// to a single-threaded run of the same input (no interference between contexts).
#include "common/networkRunner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace kiln::test
{
namespace
{
using namespace nvinfer1;

constexpr int64_t kC = 3;
constexpr int64_t kK = 4;
constexpr int64_t kHW = 6;
constexpr int64_t kOUT = 5;

struct Model
{
    std::vector<float> convW, convB, fcW;
};

//! x[N,3,6,6] → conv3x3 pad1 (4 maps) + bias → ReLU → flatten [N,144] → matmul [144,5].
HostTensor oracle(Model const& m, HostTensor const& x)
{
    int64_t const n = x.dims.d[0];
    HostTensor y(DataType::kFLOAT, makeDims({n, kOUT}));
    std::vector<double> hidden(static_cast<size_t>(kK * kHW * kHW));
    for (int64_t b = 0; b < n; ++b)
    {
        for (int64_t k = 0; k < kK; ++k)
        {
            for (int64_t i = 0; i < kHW; ++i)
            {
                for (int64_t j = 0; j < kHW; ++j)
                {
                    double acc = m.convB[static_cast<size_t>(k)];
                    for (int64_t c = 0; c < kC; ++c)
                    {
                        for (int64_t di = -1; di <= 1; ++di)
                        {
                            for (int64_t dj = -1; dj <= 1; ++dj)
                            {
                                int64_t const ii = i + di;
                                int64_t const jj = j + dj;
                                if (ii < 0 || jj < 0 || ii >= kHW || jj >= kHW)
                                {
                                    continue;
                                }
                                double const w = m.convW[static_cast<size_t>(((k * kC + c) * 3 + di + 1) * 3 + dj + 1)];
                                acc += w * x.at(((b * kC + c) * kHW + ii) * kHW + jj);
                            }
                        }
                    }
                    hidden[static_cast<size_t>((k * kHW + i) * kHW + j)] = std::max(acc, 0.0);
                }
            }
        }
        for (int64_t o = 0; o < kOUT; ++o)
        {
            double acc = 0;
            for (size_t h = 0; h < hidden.size(); ++h)
            {
                acc += hidden[h] * m.fcW[h * kOUT + static_cast<size_t>(o)];
            }
            y.set(b * kOUT + o, acc);
        }
    }
    return y;
}

TEST(ConcurrencyTest, EightThreadsTimesEightContextsWithConvAndMatmul)
{
    std::mt19937 rng(99);
    std::uniform_real_distribution<float> dist(-1.F, 1.F);
    Model m;
    for (auto* v : {&m.convW, &m.convB, &m.fcW})
    {
        size_t const n = v == &m.convW ? kK * kC * 9 : (v == &m.convB ? kK : kK * kHW * kHW * kOUT);
        for (size_t i = 0; i < n; ++i)
        {
            v->push_back(dist(rng));
        }
    }
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, kC, kHW, kHW});
    auto* conv = r.network().addConvolutionNd(*x, kK, makeDims({3, 3}),
        Weights{DataType::kFLOAT, m.convW.data(), static_cast<int64_t>(m.convW.size())},
        Weights{DataType::kFLOAT, m.convB.data(), kK});
    conv->setPaddingNd(makeDims({1, 1}));
    auto* relu = r.network().addActivation(*conv->getOutput(0), ActivationType::kRELU);
    auto* flat = r.network().addShuffle(*relu->getOutput(0));
    flat->setReshapeDimensions(makeDims({0, -1}));
    auto* fcW = r.network().addConstant(
        makeDims({kK * kHW * kHW, kOUT}), Weights{DataType::kFLOAT, m.fcW.data(), static_cast<int64_t>(m.fcW.size())});
    auto* fc = r.network().addMatrixMultiply(
        *flat->getOutput(0), MatrixOperation::kNONE, *fcW->getOutput(0), MatrixOperation::kNONE);
    r.markOutput(fc->getOutput(0), "y");
    r.setProfileDims("x", {1, kC, kHW, kHW}, {4, kC, kHW, kHW}, {9, kC, kHW, kHW});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();

    // Inputs and single-threaded reference results first.
    constexpr int kTHREADS = 8;
    constexpr int kCONTEXTS = 8;
    constexpr int kRUNS = 4;
    std::vector<HostTensor> inputs;
    std::vector<HostTensor> sequential;
    for (int i = 0; i < kTHREADS * kCONTEXTS * kRUNS; ++i)
    {
        int64_t const n = 1 + static_cast<int64_t>(rng() % 9);
        inputs.push_back(HostTensor::random(DataType::kFLOAT, makeDims({n, kC, kHW, kHW}), rng));
    }
    for (size_t i = 0; i < inputs.size(); i += 17)
    {
        std::map<std::string, HostTensor> out;
        ASSERT_TRUE(r.tryRun({{"x", inputs[i]}}, out)) << r.logger().allErrors();
        ASSERT_TRUE(allClose(out["y"], oracle(m, inputs[i]), 1e-4, 1e-4));
    }
    for (auto const& in : inputs)
    {
        std::map<std::string, HostTensor> out;
        ASSERT_TRUE(r.tryRun({{"x", in}}, out));
        sequential.push_back(out["y"]);
    }

    std::atomic<int> mismatches{0};
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kTHREADS; ++t)
    {
        threads.emplace_back([&, t] {
            std::vector<std::unique_ptr<IExecutionContext>> contexts;
            for (int c = 0; c < kCONTEXTS; ++c)
            {
                contexts.emplace_back(r.engine().createExecutionContext());
                if (contexts.back() == nullptr)
                {
                    ++failures;
                    return;
                }
            }
            for (int run = 0; run < kRUNS; ++run)
            {
                for (int c = 0; c < kCONTEXTS; ++c)
                {
                    size_t const i = static_cast<size_t>((t * kCONTEXTS + c) * kRUNS + run);
                    HostTensor const& in = inputs[i];
                    HostTensor out(DataType::kFLOAT, makeDims({in.dims.d[0], kOUT}));
                    IExecutionContext& ctx = *contexts[static_cast<size_t>(c)];
                    bool const ok = ctx.setInputShape("x", in.dims) && ctx.setInputTensorAddress("x", in.data())
                        && ctx.setTensorAddress("y", out.data()) && ctx.enqueueV3(nullptr);
                    if (!ok)
                    {
                        ++failures;
                    }
                    else if (out.bytes != sequential[i].bytes)
                    {
                        ++mismatches;
                    }
                }
            }
        });
    }
    for (auto& th : threads)
    {
        th.join();
    }
    EXPECT_EQ(failures.load(), 0) << r.logger().allErrors();
    EXPECT_EQ(mismatches.load(), 0);
}

} // namespace
} // namespace kiln::test
