// The run path of every CPU kernel kind makes no heap allocation (backends/kernel.h: run computes only): each kernel
// is reshaped to one shape set, then another, and run on random data with the allocations of the run counted; its
// outputs must equal, bit for bit, those of a kernel created and reshaped for these shapes alone (so that state kept
// from the earlier shapes cannot leak into the result). The oneDNN tactics are excluded: oneDNN allocates inside its
// own primitive execution.
#include "backends/cpu/cpuKernel.h"
#include "backends/cpu/kernels/convolutionCommon.h"
#include "common/allocationCounter.h"
#include "common/kernelRun.h"
#include "common/networkRunner.h"
#include "core/layerKinds.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace kiln::test
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::LayerType;

//! One tensor of a case: its type and, per shape set, its dims; integer inputs draw from [lo, hi]; inputs with
//! `values` carry them as evaluated shape-tensor values too.
struct Tensor
{
    DataType type{DataType::kFLOAT};
    std::vector<Dims> dims; //!< per shape set
    double lo{-1.0};
    double hi{1.0};
    std::vector<int64_t> values;
};

struct Case
{
    PlanNode node;
    std::vector<Tensor> inputs;
    std::vector<Tensor> outputs;
    std::vector<float> weights; //!< FLOAT weights per slot (slot i: weightCounts[i] values, 0 = absent)
    std::vector<int64_t> weightCounts;
};

Tensor tensor(DataType type, std::vector<Dims> dims, double lo = -1.0, double hi = 1.0)
{
    Tensor t;
    t.type = type;
    t.dims = std::move(dims);
    t.lo = lo;
    t.hi = hi;
    return t;
}

Case makeCase(LayerType kind, std::string name)
{
    Case c;
    c.node.kind = kind;
    c.node.name = std::move(name);
    return c;
}

std::vector<Case> cases()
{
    using E = std::vector<Dims>;
    std::vector<Case> all;
    {
        Case c = makeCase(LayerType::kUNARY, "exp");
        c.node.attrs.setInt("operation", static_cast<int64_t>(nvinfer1::UnaryOperation::kEXP));
        c.inputs = {tensor(DataType::kFLOAT, E{makeDims({2, 3}), makeDims({4, 5})})};
        c.outputs = {tensor(DataType::kFLOAT, E{makeDims({2, 3}), makeDims({4, 5})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kACTIVATION, "sigmoid");
        c.node.attrs.setInt("type", static_cast<int64_t>(nvinfer1::ActivationType::kSIGMOID));
        c.node.attrs.setFloat("alpha", 0.0);
        c.node.attrs.setFloat("beta", 0.0);
        c.inputs = {tensor(DataType::kFLOAT, E{makeDims({2, 3}), makeDims({4, 5})})};
        c.outputs = {tensor(DataType::kHALF, E{makeDims({2, 3}), makeDims({4, 5})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kCAST, "cast");
        c.node.attrs.setInt("toType", static_cast<int64_t>(DataType::kINT32));
        c.inputs = {tensor(DataType::kFLOAT, E{makeDims({2, 3}), makeDims({4, 5})}, -50.0, 50.0)};
        c.outputs = {tensor(DataType::kINT32, E{makeDims({2, 3}), makeDims({4, 5})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kSELECT, "select");
        c.inputs = {tensor(DataType::kBOOL, E{makeDims({2, 1}), makeDims({1, 5})}, 0.0, 1.0),
            tensor(DataType::kFLOAT, E{makeDims({2, 3}), makeDims({4, 5})}),
            tensor(DataType::kFLOAT, E{makeDims({1, 3}), makeDims({4, 1})})};
        c.outputs = {tensor(DataType::kFLOAT, E{makeDims({2, 3}), makeDims({4, 5})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kPARAMETRIC_RELU, "prelu");
        c.inputs = {tensor(DataType::kFLOAT, E{makeDims({2, 3, 4}), makeDims({3, 2, 2})}),
            tensor(DataType::kFLOAT, E{makeDims({1, 3, 1}), makeDims({1, 2, 1})})};
        c.outputs = {tensor(DataType::kFLOAT, E{makeDims({2, 3, 4}), makeDims({3, 2, 2})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kSCALE, "scale");
        c.node.attrs.setInt("mode", static_cast<int64_t>(nvinfer1::ScaleMode::kCHANNEL));
        c.node.attrs.setInt("channelAxis", 1);
        c.inputs = {tensor(DataType::kFLOAT, E{makeDims({1, 3, 2, 2}), makeDims({2, 3, 4, 1})})};
        c.outputs = {tensor(DataType::kFLOAT, E{makeDims({1, 3, 2, 2}), makeDims({2, 3, 4, 1})})};
        c.weights = {0.5F, -1.F, 2.F, 1.5F, 0.25F, -0.5F};
        c.weightCounts = {3, 3, 0};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kCONSTANT, "constant");
        c.outputs = {tensor(DataType::kHALF, E{makeDims({2, 6}), makeDims({3, 4})})};
        c.weights = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
        c.weightCounts = {12};
        all.push_back(c);
    }
    {
        // Attention with the key transposed and an additive mask; the FP16 one converts into its scratch.
        for (DataType t : {DataType::kFLOAT, DataType::kHALF})
        {
            Case c = makeCase(LayerType::kATTENTION_OUTPUT, "attention");
            c.node.attrs.setInt("keyTransposed", 1);
            c.node.attrs.setFloat("scale", 0.5);
            c.inputs = {tensor(t, E{makeDims({1, 2, 3, 4}), makeDims({2, 2, 5, 4})}),
                tensor(t, E{makeDims({1, 2, 4, 6}), makeDims({2, 2, 4, 3})}),
                tensor(t, E{makeDims({1, 2, 6, 2}), makeDims({2, 2, 3, 2})}),
                tensor(t, E{makeDims({1, 1, 1, 6}), makeDims({2, 1, 1, 3})})};
            c.outputs = {tensor(t, E{makeDims({1, 2, 3, 2}), makeDims({2, 2, 5, 2})})};
            all.push_back(c);
        }
    }
    {
        Case c = makeCase(LayerType::kLRN, "lrn");
        c.node.attrs.setInt("window", 3);
        c.node.attrs.setFloat("alpha", 0.1);
        c.node.attrs.setFloat("beta", 0.75);
        c.node.attrs.setFloat("k", 1.0);
        c.inputs = {tensor(DataType::kFLOAT, E{makeDims({1, 4, 2, 2}), makeDims({2, 5, 3, 1})})};
        c.outputs = {tensor(DataType::kFLOAT, E{makeDims({1, 4, 2, 2}), makeDims({2, 5, 3, 1})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kNORMALIZATION, "norm");
        c.node.attrs.setFloat("epsilon", 1e-5);
        c.node.attrs.setInt("axes", 1 << 2);
        c.node.attrs.setInt("nbGroups", 1);
        c.inputs = {tensor(DataType::kFLOAT, E{makeDims({2, 3, 4}), makeDims({3, 2, 4})}),
            tensor(DataType::kFLOAT, E{makeDims({1, 1, 4}), makeDims({1, 1, 4})}),
            tensor(DataType::kFLOAT, E{makeDims({1, 1, 4}), makeDims({1, 1, 4})})};
        c.outputs = {tensor(DataType::kFLOAT, E{makeDims({2, 3, 4}), makeDims({3, 2, 4})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kTOPK, "topk");
        c.node.attrs.setInt("operation", static_cast<int64_t>(nvinfer1::TopKOperation::kMAX));
        c.node.attrs.setInt("axes", 1 << 1);
        c.inputs = {tensor(DataType::kFLOAT, E{makeDims({2, 5}), makeDims({3, 6})})};
        c.outputs = {tensor(DataType::kFLOAT, E{makeDims({2, 3}), makeDims({3, 2})}),
            tensor(DataType::kINT32, E{makeDims({2, 3}), makeDims({3, 2})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kCUMULATIVE, "cumsum");
        c.node.attrs.setInt("operation", static_cast<int64_t>(nvinfer1::CumulativeOperation::kSUM));
        c.node.attrs.setInt("exclusive", 0);
        c.node.attrs.setInt("reverse", 1);
        Tensor axis = tensor(DataType::kINT32, E{makeDims({}), makeDims({})}, 1.0, 1.0);
        axis.values = {1};
        c.inputs = {tensor(DataType::kFLOAT, E{makeDims({3, 4}), makeDims({2, 6})}), axis};
        c.outputs = {tensor(DataType::kFLOAT, E{makeDims({3, 4}), makeDims({2, 6})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kPADDING, "pad");
        c.node.attrs.setInts("pre_padding", {1, 0});
        c.node.attrs.setInts("post_padding", {0, 2});
        c.inputs = {tensor(DataType::kFLOAT, E{makeDims({2, 3, 4}), makeDims({1, 2, 2})})};
        c.outputs = {tensor(DataType::kFLOAT, E{makeDims({2, 4, 6}), makeDims({1, 3, 4})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kRESIZE, "resize");
        c.node.attrs.setInt("mode", static_cast<int64_t>(nvinfer1::InterpolationMode::kLINEAR));
        c.node.attrs.setInt("coord_transform", 0);
        c.node.attrs.setInt("selector", 0);
        c.node.attrs.setInt("nearest_rounding", 0);
        c.node.attrs.setFloat("cubic_coeff", -0.75);
        c.node.attrs.setInt("exclude_outside", 0);
        c.inputs = {tensor(DataType::kFLOAT, E{makeDims({1, 1, 3, 4}), makeDims({1, 2, 2, 2})})};
        c.outputs = {tensor(DataType::kFLOAT, E{makeDims({1, 1, 6, 8}), makeDims({1, 2, 5, 3})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kNON_ZERO, "nonzero");
        c.inputs = {tensor(DataType::kINT32, E{makeDims({3, 4}), makeDims({2, 5})}, -1.0, 1.0)};
        c.outputs = {tensor(DataType::kINT32, E{makeDims({2, 12}), makeDims({2, 10})}),
            tensor(DataType::kINT32, E{makeDims({}), makeDims({})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kEINSUM, "einsum");
        c.node.attrs.setString("equation", "ij,jk->ik");
        c.inputs = {tensor(DataType::kFLOAT, E{makeDims({2, 3}), makeDims({3, 2})}),
            tensor(DataType::kFLOAT, E{makeDims({3, 4}), makeDims({2, 5})})};
        c.outputs = {tensor(DataType::kFLOAT, E{makeDims({2, 4}), makeDims({3, 5})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kGRID_SAMPLE, "gridsample");
        c.node.attrs.setInt("interpolationMode", static_cast<int64_t>(nvinfer1::InterpolationMode::kLINEAR));
        c.node.attrs.setInt("sampleMode", static_cast<int64_t>(nvinfer1::SampleMode::kFILL));
        c.node.attrs.setInt("alignCorners", 0);
        c.inputs = {tensor(DataType::kFLOAT, E{makeDims({1, 2, 3, 3}), makeDims({2, 1, 4, 2})}),
            tensor(DataType::kFLOAT, E{makeDims({1, 2, 2, 2}), makeDims({2, 3, 1, 2})})};
        c.outputs = {tensor(DataType::kFLOAT, E{makeDims({1, 2, 2, 2}), makeDims({2, 1, 3, 1})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kFILL, "linspace");
        c.node.attrs.setInt("op", static_cast<int64_t>(nvinfer1::FillOperation::kLINSPACE));
        c.node.attrs.setInt("seed", 0);
        c.node.attrs.setFloat("alpha", 1.5);
        c.node.attrs.setFloat("beta", 0.5);
        c.outputs = {tensor(DataType::kFLOAT, E{makeDims({2, 3}), makeDims({4, 2})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kONE_HOT, "onehot");
        c.node.attrs.setInt("axis", -1);
        Tensor depth = tensor(DataType::kINT32, E{makeDims({}), makeDims({})}, 4.0, 4.0);
        depth.values = {4};
        c.inputs = {tensor(DataType::kINT32, E{makeDims({2, 3}), makeDims({1, 5})}, -4.0, 3.0),
            tensor(DataType::kFLOAT, E{makeDims({2}), makeDims({2})}), depth};
        c.outputs = {tensor(DataType::kFLOAT, E{makeDims({2, 3, 4}), makeDims({1, 5, 4})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kREVERSE_SEQUENCE, "reverse");
        c.node.attrs.setInt("batchAxis", 1);
        c.node.attrs.setInt("sequenceAxis", 0);
        c.inputs = {tensor(DataType::kFLOAT, E{makeDims({4, 2, 3}), makeDims({3, 3, 2})}),
            tensor(DataType::kINT32, E{makeDims({2}), makeDims({3})}, 0.0, 3.0)};
        c.outputs = {tensor(DataType::kFLOAT, E{makeDims({4, 2, 3}), makeDims({3, 3, 2})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kSCATTER, "scatter");
        c.node.attrs.setInt("mode", static_cast<int64_t>(nvinfer1::ScatterMode::kELEMENT));
        c.node.attrs.setInt("axis", 0);
        c.inputs = {tensor(DataType::kFLOAT, E{makeDims({3, 4}), makeDims({4, 2})}),
            tensor(DataType::kINT32, E{makeDims({2, 4}), makeDims({1, 2})}, 0.0, 2.0),
            tensor(DataType::kFLOAT, E{makeDims({2, 4}), makeDims({1, 2})})};
        c.outputs = {tensor(DataType::kFLOAT, E{makeDims({3, 4}), makeDims({4, 2})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kSHAPE, "shape");
        c.inputs = {tensor(DataType::kFLOAT, E{makeDims({2, 3, 4}), makeDims({5, 1, 2})})};
        c.outputs = {tensor(DataType::kINT64, E{makeDims({3}), makeDims({3})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kSQUEEZE, "squeeze");
        c.inputs = {tensor(DataType::kFLOAT, E{makeDims({2, 1, 3}), makeDims({4, 1, 1})})};
        c.outputs = {tensor(DataType::kFLOAT, E{makeDims({2, 3}), makeDims({4, 1})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kIDENTITY, "identity");
        c.inputs = {tensor(DataType::kFLOAT, E{makeDims({2, 3}), makeDims({4, 5})})};
        c.outputs = {tensor(DataType::kBF16, E{makeDims({2, 3}), makeDims({4, 5})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kPOOLING, "pool");
        c.node.tactic = kTACTIC_REFERENCE;
        c.node.attrs.setInt("poolingType", static_cast<int64_t>(nvinfer1::PoolingType::kAVERAGE));
        c.node.attrs.setInts("windowSize", {2, 2});
        c.node.attrs.setInts("stride", {2, 2});
        c.node.attrs.setInts("prePadding", {0, 0});
        c.node.attrs.setInts("postPadding", {0, 0});
        c.node.attrs.setInt("paddingMode", 0);
        c.node.attrs.setFloat("blendFactor", 0.0);
        c.node.attrs.setInt("averageCountExcludesPadding", 1);
        c.inputs = {tensor(DataType::kFLOAT, E{makeDims({1, 2, 4, 4}), makeDims({2, 1, 6, 2})})};
        c.outputs = {tensor(DataType::kFLOAT, E{makeDims({1, 2, 2, 2}), makeDims({2, 1, 3, 1})})};
        all.push_back(c);
    }
    {
        Case c = makeCase(LayerType::kCONVOLUTION, "conv");
        c.node.tactic = kTACTIC_REFERENCE;
        c.node.attrs.setInt("nbOutputMaps", 2);
        c.node.attrs.setInt("nbGroups", 1);
        c.node.attrs.setInts("kernelSize", {3, 3});
        c.node.attrs.setInts("stride", {1, 1});
        c.node.attrs.setInts("dilation", {1, 1});
        c.node.attrs.setInts("prePadding", {1, 1});
        c.node.attrs.setInts("postPadding", {1, 1});
        c.node.attrs.setInt("paddingMode", 0);
        c.inputs = {tensor(DataType::kFLOAT, E{makeDims({1, 1, 4, 4}), makeDims({2, 1, 3, 5})})};
        c.outputs = {tensor(DataType::kFLOAT, E{makeDims({1, 2, 4, 4}), makeDims({2, 2, 3, 5})})};
        for (int32_t i = 0; i < 20; ++i)
        {
            c.weights.push_back(0.1F * static_cast<float>(i % 7) - 0.3F);
        }
        c.weightCounts = {18, 2};
        all.push_back(c);
    }
    return all;
}

//! The case's setup; `weights` holds the weights slots' views into c.weights.
KernelSetup setupOf(Case const& c)
{
    KernelSetup setup;
    setup.node = &c.node;
    for (Tensor const& t : c.inputs)
    {
        setup.inputTypes.push_back(t.type);
        setup.inputPresent.push_back(true);
        setup.inputRanks.push_back(t.dims[0].nbDims);
    }
    for (Tensor const& t : c.outputs)
    {
        setup.outputTypes.push_back(t.type);
        setup.outputRanks.push_back(t.dims[0].nbDims);
    }
    int64_t offset = 0;
    for (int64_t count : c.weightCounts)
    {
        WeightsView w;
        w.type = DataType::kFLOAT;
        w.count = count;
        w.data = count > 0 ? c.weights.data() + offset : nullptr;
        setup.weights.push_back(w);
        offset += count;
    }
    return setup;
}

//! Views of `tensors` (shape-tensor values from `specs`).
std::vector<TensorView> viewsOf(std::vector<HostTensor>& tensors, std::vector<Tensor> const& specs)
{
    std::vector<TensorView> views;
    for (size_t i = 0; i < tensors.size(); ++i)
    {
        TensorView v;
        v.data = tensors[i].data();
        v.type = tensors[i].type;
        v.dims = tensors[i].dims;
        v.values = specs[i].values.empty() ? nullptr : specs[i].values.data();
        views.push_back(v);
    }
    return views;
}

std::vector<HostTensor> outputsOf(Case const& c, size_t s)
{
    std::vector<HostTensor> outputs;
    for (Tensor const& t : c.outputs)
    {
        outputs.emplace_back(t.type, t.dims[s]);
        std::memset(outputs.back().data(), 0x5A, outputs.back().bytes.size());
    }
    return outputs;
}

TEST(CpuKernelRun, EveryKindRunsWithoutHeapAllocation)
{
    std::mt19937 rng(777);
    for (Case const& c : cases())
    {
        std::string const name = std::string(layerKindName(c.node.kind)) + " '" + c.node.name + "'";
        KernelSetup const setup = setupOf(c);
        auto kernel = cpuKernelFactory(c.node.kind)(setup);
        ASSERT_TRUE(kernel.isOk()) << name << ": " << kernel.status().message();
        for (size_t s : {size_t{0}, size_t{1}})
        {
            std::vector<HostTensor> inputs;
            for (Tensor const& t : c.inputs)
            {
                inputs.push_back(HostTensor::random(t.type, t.dims[s], rng, t.lo, t.hi));
            }
            std::vector<HostTensor> outputs = outputsOf(c, s);
            std::vector<TensorView> const ins = viewsOf(inputs, c.inputs);
            std::vector<TensorView> const outs = viewsOf(outputs, c.outputs);
            Status const shaped = (*kernel)->reshape(ins, outs);
            ASSERT_TRUE(shaped.isOk()) << name << ", shape set " << s << ": " << shaped.message();
            RunContext const ctx{};
            int64_t allocations = 0;
            Status ran;
            {
                AllocationCounter counter;
                ran = (*kernel)->run(ins, outs, ctx);
                allocations = counter.count();
            }
            ASSERT_TRUE(ran.isOk()) << name << ", shape set " << s << ": " << ran.message();
            EXPECT_EQ(allocations, 0) << name << ", shape set " << s;
            // A kernel made for these shapes alone computes the same bits.
            auto fresh = cpuKernelFactory(c.node.kind)(setup);
            ASSERT_TRUE(fresh.isOk()) << name;
            std::vector<HostTensor> expected = outputsOf(c, s);
            ASSERT_TRUE(reshapeAndRun(**fresh, ins, viewsOf(expected, c.outputs)).isOk()) << name;
            for (size_t o = 0; o < outputs.size(); ++o)
            {
                EXPECT_EQ(outputs[o].bytes, expected[o].bytes) << name << ", shape set " << s << ", output " << o;
            }
        }
    }
}

} // namespace
} // namespace kiln::test
