// The CPU kernels' create → reshape → run lifecycle (backends/kernel.h), against references computed here on random
// data: a kernel reshaped once runs again with new data at new addresses; reshaped to other shapes (and back) it
// still computes the reference; run() makes no heap allocation; shapes that do not fit fail in reshape with a message
// naming the node, and a run without a successful reshape fails instead of computing anything.
#include "backends/cpu/cpuKernel.h"
#include "backends/cpu/kernels/convolutionCommon.h"
#include "common/allocationCounter.h"
#include "common/kernelRun.h"
#include "common/networkRunner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <random>

namespace kiln::test
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::LayerType;

//! A layer case: the node, and per shape set the inputs' and outputs' dims, and the reference.
struct Case
{
    std::string name;
    PlanNode node;
    std::vector<DataType> inputTypes;
    std::vector<DataType> outputTypes;
    std::vector<std::vector<Dims>> inputDims;  //!< [shape set][input]
    std::vector<std::vector<Dims>> outputDims; //!< [shape set][output]
    std::function<std::vector<HostTensor>(std::vector<HostTensor> const& inputs, std::vector<Dims> const& outDims)>
        reference;
};

KernelSetup setupOf(Case const& c)
{
    KernelSetup setup;
    setup.node = &c.node;
    setup.inputTypes = c.inputTypes;
    setup.inputPresent.assign(c.inputTypes.size(), true);
    for (Dims const& d : c.inputDims[0])
    {
        setup.inputRanks.push_back(d.nbDims);
    }
    setup.outputTypes = c.outputTypes;
    for (Dims const& d : c.outputDims[0])
    {
        setup.outputRanks.push_back(d.nbDims);
    }
    return setup;
}

//! Row-major coordinates of flat index i in d.
std::vector<int64_t> unravel(int64_t i, Dims const& d)
{
    std::vector<int64_t> c(static_cast<size_t>(d.nbDims));
    for (int32_t k = d.nbDims - 1; k >= 0; --k)
    {
        c[static_cast<size_t>(k)] = i % d.d[k];
        i /= d.d[k];
    }
    return c;
}

//! Flat index of coordinates c in d; extent-1 dimensions of d broadcast.
int64_t ravel(std::vector<int64_t> const& c, Dims const& d)
{
    int64_t i = 0;
    for (int32_t k = 0; k < d.nbDims; ++k)
    {
        i = i * d.d[k] + (d.d[k] == 1 ? 0 : c[static_cast<size_t>(k)]);
    }
    return i;
}

//! A case of `kind` named `name` (its node `nodeName`), FLOAT inputs and outputs unless given.
Case makeCase(std::string name, LayerType kind, std::string nodeName, size_t nbInputs,
    std::vector<DataType> inputTypes = {})
{
    Case c;
    c.name = std::move(name);
    c.node.kind = kind;
    c.node.name = std::move(nodeName);
    c.inputTypes = inputTypes.empty() ? std::vector<DataType>(nbInputs, DataType::kFLOAT) : std::move(inputTypes);
    c.outputTypes = {DataType::kFLOAT};
    return c;
}

Case elementWiseSum()
{
    Case c = makeCase("ElementWise kSUM", LayerType::kELEMENTWISE, "sum", 2);
    c.node.attrs.setInt("operation", static_cast<int64_t>(nvinfer1::ElementWiseOperation::kSUM));
    // Broadcasting both ways, then no broadcasting (the kernel's direct FP32 path).
    c.inputDims = {{makeDims({2, 3, 4}), makeDims({1, 3, 1})}, {makeDims({5, 1, 6}), makeDims({5, 7, 1})},
        {makeDims({4, 8}), makeDims({4, 8})}};
    c.outputDims = {{makeDims({2, 3, 4})}, {makeDims({5, 7, 6})}, {makeDims({4, 8})}};
    c.reference = [](std::vector<HostTensor> const& in, std::vector<Dims> const& outDims) {
        HostTensor out(DataType::kFLOAT, outDims[0]);
        for (int64_t i = 0; i < out.volume(); ++i)
        {
            std::vector<int64_t> const co = unravel(i, out.dims);
            out.set(i, in[0].at(ravel(co, in[0].dims)) + in[1].at(ravel(co, in[1].dims)));
        }
        return std::vector<HostTensor>{out};
    };
    return c;
}

Case softMax()
{
    Case c = makeCase("SoftMax", LayerType::kSOFTMAX, "softmax", 1);
    c.node.attrs.setInt("axes", 1 << 1);
    c.inputDims = {{makeDims({2, 5, 3})}, {makeDims({3, 4, 2})}};
    c.outputDims = {{makeDims({2, 5, 3})}, {makeDims({3, 4, 2})}};
    c.reference = [](std::vector<HostTensor> const& in, std::vector<Dims> const& outDims) {
        HostTensor out(DataType::kFLOAT, outDims[0]);
        Dims const& d = in[0].dims;
        for (int64_t o = 0; o < d.d[0]; ++o)
        {
            for (int64_t i = 0; i < d.d[2]; ++i)
            {
                double sum = 0.0;
                for (int64_t j = 0; j < d.d[1]; ++j)
                {
                    sum += std::exp(in[0].at((o * d.d[1] + j) * d.d[2] + i));
                }
                for (int64_t j = 0; j < d.d[1]; ++j)
                {
                    int64_t const at = (o * d.d[1] + j) * d.d[2] + i;
                    out.set(at, std::exp(in[0].at(at)) / sum);
                }
            }
        }
        return std::vector<HostTensor>{out};
    };
    return c;
}

Case reduceSum()
{
    Case c = makeCase("Reduce kSUM", LayerType::kREDUCE, "reduce", 1);
    c.node.attrs.setInt("operation", static_cast<int64_t>(nvinfer1::ReduceOperation::kSUM));
    c.node.attrs.setInt("axes", 1 << 1);
    c.node.attrs.setInt("keepDims", 1);
    c.inputDims = {{makeDims({2, 5, 3})}, {makeDims({4, 2, 6})}};
    c.outputDims = {{makeDims({2, 1, 3})}, {makeDims({4, 1, 6})}};
    c.reference = [](std::vector<HostTensor> const& in, std::vector<Dims> const& outDims) {
        HostTensor out(DataType::kFLOAT, outDims[0]);
        for (int64_t i = 0; i < out.volume(); ++i)
        {
            out.set(i, 0.0);
        }
        for (int64_t i = 0; i < in[0].volume(); ++i)
        {
            int64_t const o = ravel(unravel(i, in[0].dims), out.dims);
            out.set(o, out.at(o) + in[0].at(i));
        }
        return std::vector<HostTensor>{out};
    };
    return c;
}

//! Batched [.., M, K] x [.., K, N] with batch broadcasting; `tactic`: the node's recorded tactic.
Case matrixMultiply(std::string const& tactic)
{
    std::string const name = "MatrixMultiply " + (tactic.empty() ? std::string("default") : tactic);
    Case c = makeCase(name, LayerType::kMATRIX_MULTIPLY, "matmul", 2);
    c.node.tactic = tactic;
    c.node.attrs.setInt("op0", static_cast<int64_t>(nvinfer1::MatrixOperation::kNONE));
    c.node.attrs.setInt("op1", static_cast<int64_t>(nvinfer1::MatrixOperation::kNONE));
    c.inputDims = {{makeDims({2, 3, 4}), makeDims({2, 4, 5})}, {makeDims({1, 6, 2}), makeDims({3, 2, 7})}};
    c.outputDims = {{makeDims({2, 3, 5})}, {makeDims({3, 6, 7})}};
    c.reference = [](std::vector<HostTensor> const& in, std::vector<Dims> const& outDims) {
        HostTensor out(DataType::kFLOAT, outDims[0]);
        Dims const& a = in[0].dims;
        Dims const& b = in[1].dims;
        int64_t const m = a.d[1];
        int64_t const k = a.d[2];
        int64_t const n = b.d[2];
        for (int64_t bi = 0; bi < out.dims.d[0]; ++bi)
        {
            int64_t const ba = a.d[0] == 1 ? 0 : bi;
            int64_t const bb = b.d[0] == 1 ? 0 : bi;
            for (int64_t i = 0; i < m; ++i)
            {
                for (int64_t j = 0; j < n; ++j)
                {
                    double acc = 0.0;
                    for (int64_t kk = 0; kk < k; ++kk)
                    {
                        acc += in[0].at((ba * m + i) * k + kk) * in[1].at((bb * k + kk) * n + j);
                    }
                    out.set((bi * m + i) * n + j, acc);
                }
            }
        }
        return std::vector<HostTensor>{out};
    };
    return c;
}

Case concatenation()
{
    Case c = makeCase("Concatenation", LayerType::kCONCATENATION, "concat", 2);
    c.node.attrs.setInt("axis", 1);
    c.inputDims = {{makeDims({2, 3, 4}), makeDims({2, 1, 4})}, {makeDims({3, 2, 5}), makeDims({3, 4, 5})}};
    c.outputDims = {{makeDims({2, 4, 4})}, {makeDims({3, 6, 5})}};
    c.reference = [](std::vector<HostTensor> const& in, std::vector<Dims> const& outDims) {
        HostTensor out(DataType::kFLOAT, outDims[0]);
        for (int64_t i = 0; i < out.volume(); ++i)
        {
            std::vector<int64_t> co = unravel(i, out.dims);
            size_t const which = co[1] < in[0].dims.d[1] ? 0 : 1;
            co[1] -= which == 0 ? 0 : in[0].dims.d[1];
            out.set(i, in[which].at(ravel(co, in[which].dims)));
        }
        return std::vector<HostTensor>{out};
    };
    return c;
}

Case transpose()
{
    Case c = makeCase("Shuffle transpose", LayerType::kSHUFFLE, "transpose", 1);
    c.node.attrs.setInts("first_transpose", {0, 2, 1, 3, 4, 5, 6, 7});
    c.node.attrs.setInts("second_transpose", {0, 1, 2, 3, 4, 5, 6, 7});
    c.inputDims = {{makeDims({2, 3, 4})}, {makeDims({3, 5, 2})}};
    c.outputDims = {{makeDims({2, 4, 3})}, {makeDims({3, 2, 5})}};
    c.reference = [](std::vector<HostTensor> const& in, std::vector<Dims> const& outDims) {
        HostTensor out(DataType::kFLOAT, outDims[0]);
        for (int64_t i = 0; i < out.volume(); ++i)
        {
            std::vector<int64_t> const co = unravel(i, out.dims);
            out.set(i, in[0].at(ravel({co[0], co[2], co[1]}, in[0].dims)));
        }
        return std::vector<HostTensor>{out};
    };
    return c;
}

Case gather()
{
    Case c = makeCase("Gather", LayerType::kGATHER, "gather", 2, {DataType::kFLOAT, DataType::kINT32});
    c.node.attrs.setInt("mode", static_cast<int64_t>(nvinfer1::GatherMode::kDEFAULT));
    c.node.attrs.setInt("axis", 0);
    c.node.attrs.setInt("nbElementWiseDims", 0);
    c.inputDims = {{makeDims({5, 3}), makeDims({4})}, {makeDims({6, 2}), makeDims({2, 3})}};
    c.outputDims = {{makeDims({4, 3})}, {makeDims({2, 3, 2})}};
    c.reference = [](std::vector<HostTensor> const& in, std::vector<Dims> const& outDims) {
        HostTensor out(DataType::kFLOAT, outDims[0]);
        int64_t const row = in[0].dims.d[1];
        for (int64_t j = 0; j < in[1].volume(); ++j)
        {
            auto const index = static_cast<int64_t>(in[1].at(j));
            for (int64_t x = 0; x < row; ++x)
            {
                out.set(j * row + x, in[0].at(index * row + x));
            }
        }
        return std::vector<HostTensor>{out};
    };
    return c;
}

Case slice()
{
    Case c = makeCase("Slice", LayerType::kSLICE, "slice", 1);
    c.node.attrs.setInt("mode", static_cast<int64_t>(nvinfer1::SampleMode::kSTRICT_BOUNDS));
    c.node.attrs.setInts("start", {1, 0});
    c.node.attrs.setInts("stride", {1, 2});
    c.inputDims = {{makeDims({4, 6})}, {makeDims({6, 9})}};
    c.outputDims = {{makeDims({3, 3})}, {makeDims({5, 4})}};
    c.reference = [](std::vector<HostTensor> const& in, std::vector<Dims> const& outDims) {
        HostTensor out(DataType::kFLOAT, outDims[0]);
        for (int64_t i = 0; i < out.volume(); ++i)
        {
            std::vector<int64_t> const co = unravel(i, out.dims);
            out.set(i, in[0].at(ravel({1 + co[0], 2 * co[1]}, in[0].dims)));
        }
        return std::vector<HostTensor>{out};
    };
    return c;
}

std::vector<Case> referenceCases()
{
    return {elementWiseSum(), softMax(), reduceSum(), matrixMultiply(kTACTIC_REFERENCE), matrixMultiply(""),
        concatenation(), transpose(), gather(), slice()};
}

//! Fresh random inputs of shape set `s` (INT32 inputs are gather indices: within the data's first extent).
std::vector<HostTensor> randomInputs(Case const& c, size_t s, std::mt19937& rng)
{
    std::vector<HostTensor> inputs;
    for (size_t i = 0; i < c.inputTypes.size(); ++i)
    {
        Dims const& d = c.inputDims[s][i];
        if (c.inputTypes[i] == DataType::kINT32)
        {
            double const last = static_cast<double>(c.inputDims[s][0].d[0] - 1);
            inputs.push_back(HostTensor::random(DataType::kINT32, d, rng, 0.0, last));
        }
        else
        {
            inputs.push_back(HostTensor::random(c.inputTypes[i], d, rng));
        }
    }
    return inputs;
}

//! Poisoned outputs of shape set `s`.
std::vector<HostTensor> poisonedOutputs(Case const& c, size_t s)
{
    std::vector<HostTensor> outputs;
    for (size_t i = 0; i < c.outputTypes.size(); ++i)
    {
        outputs.emplace_back(c.outputTypes[i], c.outputDims[s][i]);
        std::memset(outputs.back().data(), 0x7F, outputs.back().bytes.size());
    }
    return outputs;
}

void expectNear(std::vector<HostTensor> const& actual, std::vector<HostTensor> const& expected, std::string const& where)
{
    ASSERT_EQ(actual.size(), expected.size()) << where;
    for (size_t t = 0; t < actual.size(); ++t)
    {
        ASSERT_EQ(actual[t].volume(), expected[t].volume()) << where;
        for (int64_t i = 0; i < actual[t].volume(); ++i)
        {
            double const e = expected[t].at(i);
            ASSERT_NEAR(actual[t].at(i), e, 1e-5 * (1.0 + std::fabs(e))) << where << ", output " << t << ", element " << i;
        }
    }
}

std::vector<TensorView> viewsOf(std::vector<HostTensor>& tensors)
{
    std::vector<TensorView> views;
    for (HostTensor& h : tensors)
    {
        views.push_back(viewOf(h));
    }
    return views;
}

TEST(CpuKernelLifecycle, ReshapeOnceRunTwiceThenReshapeAgain)
{
    std::mt19937 rng(20260);
    for (Case const& c : referenceCases())
    {
        auto kernel = cpuKernelFactory(c.node.kind)(setupOf(c));
        ASSERT_TRUE(kernel.isOk()) << c.name << ": " << kernel.status().message();
        // Shape sets 0, 1, ..., then 0 again (a kernel may keep per-shape state such as oneDNN primitives).
        std::vector<size_t> order;
        for (size_t s = 0; s < c.inputDims.size(); ++s)
        {
            order.push_back(s);
        }
        order.push_back(0);
        for (size_t s : order)
        {
            std::string const where = c.name + ", shape set " + std::to_string(s);
            std::vector<HostTensor> inputs = randomInputs(c, s, rng);
            std::vector<HostTensor> outputs = poisonedOutputs(c, s);
            Status const shaped = (*kernel)->reshape(viewsOf(inputs), viewsOf(outputs));
            ASSERT_TRUE(shaped.isOk()) << where << ": " << shaped.message();
            // Two runs at these shapes: the second with new data at new addresses (the first buffers are freed).
            for (int32_t rep = 0; rep < 2; ++rep)
            {
                if (rep == 1)
                {
                    std::vector<HostTensor> moved = randomInputs(c, s, rng);
                    inputs.swap(moved);
                    std::vector<HostTensor> freshOut = poisonedOutputs(c, s);
                    outputs.swap(freshOut);
                    ASSERT_NE(inputs[0].data(), moved[0].data());
                }
                std::vector<TensorView> const ins = viewsOf(inputs);
                std::vector<TensorView> const outs = viewsOf(outputs);
                Status const ran = (*kernel)->run(ins, outs, RunContext{});
                ASSERT_TRUE(ran.isOk()) << where << ", run " << rep << ": " << ran.message();
                expectNear(outputs, c.reference(inputs, c.outputDims[s]), where + ", run " + std::to_string(rep));
            }
        }
    }
}

TEST(CpuKernelLifecycle, RunMakesNoHeapAllocation)
{
    {
        AllocationCounter counter; // the counter sees allocations
        auto const probe = std::make_unique<std::vector<int32_t>>(4, 1);
        EXPECT_EQ(counter.count(), 2);
    }
    std::mt19937 rng(20261);
    for (Case const& c : referenceCases())
    {
        if (c.node.kind == LayerType::kMATRIX_MULTIPLY && c.node.tactic.empty() && oneDnnBuilt())
        {
            continue; // oneDNN allocates inside dnnl_primitive_execute (its execution context), out of Kiln's reach
        }
        auto kernel = cpuKernelFactory(c.node.kind)(setupOf(c));
        ASSERT_TRUE(kernel.isOk()) << c.name << ": " << kernel.status().message();
        for (size_t s = 0; s < c.inputDims.size(); ++s)
        {
            std::vector<HostTensor> inputs = randomInputs(c, s, rng);
            std::vector<HostTensor> outputs = poisonedOutputs(c, s);
            std::vector<TensorView> const ins = viewsOf(inputs);
            std::vector<TensorView> const outs = viewsOf(outputs);
            ASSERT_TRUE((*kernel)->reshape(ins, outs).isOk()) << c.name;
            RunContext const ctx{};
            AllocationCounter counter;
            Status const ran = (*kernel)->run(ins, outs, ctx);
            int64_t const allocations = counter.count();
            ASSERT_TRUE(ran.isOk()) << c.name << ": " << ran.message();
            EXPECT_EQ(allocations, 0) << c.name << ", shape set " << s;
        }
    }
}

TEST(CpuKernelLifecycle, BadShapesFailInReshapeAndRunRefusesToRun)
{
    std::mt19937 rng(20262);
    struct Bad
    {
        Case c;
        std::vector<Dims> inputs;
        std::vector<Dims> outputs;
        char const* message;
        bool namesNode; //!< the message names the node (the runtime adds the node to the others)
    };
    std::vector<Bad> const bad{
        {elementWiseSum(), {makeDims({2, 3}), makeDims({4, 3})}, {makeDims({4, 3})}, "do not broadcast to the output", true},
        {reduceSum(), {makeDims({2, 5, 3})}, {makeDims({2, 5, 3})}, "does not match the expected", true},
        {matrixMultiply(kTACTIC_REFERENCE), {makeDims({2, 3, 4}), makeDims({2, 5, 6})}, {makeDims({2, 3, 6})},
            "reduction extents differ (4 vs 5)", true},
        {concatenation(), {makeDims({2, 3, 4}), makeDims({2, 1, 5})}, {makeDims({2, 4, 4})}, "in dimension 2", true},
        {slice(), {makeDims({4, 6})}, {makeDims({5, 3})}, "is outside the input extent", false},
    };
    for (Bad const& b : bad)
    {
        auto kernel = cpuKernelFactory(b.c.node.kind)(setupOf(b.c));
        ASSERT_TRUE(kernel.isOk()) << b.c.name << ": " << kernel.status().message();
        // Before any reshape, a run is refused.
        std::vector<HostTensor> goodIn = randomInputs(b.c, 0, rng);
        std::vector<HostTensor> goodOut = poisonedOutputs(b.c, 0);
        Status const early = (*kernel)->run(viewsOf(goodIn), viewsOf(goodOut), RunContext{});
        ASSERT_FALSE(early.isOk()) << b.c.name;
        EXPECT_NE(early.message().find("without a successful reshape"), std::string::npos) << early.message();
        // A good reshape, then a bad one: the views carry dims only (no data), as reshape allows.
        ASSERT_TRUE((*kernel)->reshape(viewsOf(goodIn), viewsOf(goodOut)).isOk()) << b.c.name;
        std::vector<TensorView> badIn;
        for (size_t i = 0; i < b.inputs.size(); ++i)
        {
            TensorView v;
            v.type = b.c.inputTypes[i];
            v.dims = b.inputs[i];
            badIn.push_back(v);
        }
        std::vector<TensorView> badOut;
        for (size_t i = 0; i < b.outputs.size(); ++i)
        {
            TensorView v;
            v.type = b.c.outputTypes[i];
            v.dims = b.outputs[i];
            badOut.push_back(v);
        }
        Status const shaped = (*kernel)->reshape(badIn, badOut);
        ASSERT_FALSE(shaped.isOk()) << b.c.name;
        EXPECT_NE(shaped.message().find(b.message), std::string::npos) << b.c.name << ": " << shaped.message();
        if (b.namesNode)
        {
            EXPECT_NE(shaped.message().find("'" + b.c.node.name + "'"), std::string::npos) << shaped.message();
        }
        // The failed reshape left nothing to run with.
        Status const after = (*kernel)->run(viewsOf(goodIn), viewsOf(goodOut), RunContext{});
        ASSERT_FALSE(after.isOk()) << b.c.name;
        EXPECT_NE(after.message().find("without a successful reshape"), std::string::npos) << after.message();
    }
}

} // namespace
} // namespace kiln::test
