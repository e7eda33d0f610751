// Parity of the CUDA convolution and deconvolution kernels (tactics "cudnn" — cuDNN's graph API first —,
// "cudnn-legacy" and "kiln") with the CPU reference:
// 1-D (as [N, C, 1, W]), 2-D and 3-D, strides, dilations, groups (incl. depthwise), symmetric and asymmetric
// explicit padding, SAME_UPPER/LOWER, ROUND_UP, kernel and bias from weights (also of another type than the
// tensors) or from inputs, FP32/FP16/BF16, an output type other than the input's, and the fused epilogue
// ("fuse.add" of a full or broadcast tensor, "fuse.act" RELU / GELU / sigmoid). Also the kernel table's tactics
// and the creation errors, which need no GPU.
// The "depthwise" tactic (groups == channels == maps) and the "gemm" tactic (1x1 convolutions as one cuBLASLt product)
// run with the others wherever they apply (linear tensors; gemm: spatial extents 1), and on kHWC8 tensors (FP16/BF16,
// channel counts padded to 8) against the CPU reference on NCHW copies, with the output poisoned and its padding
// channels checked to be written as zero.
#include "autotuneCheck.h"
#include "convolutionCheck.h"
#include "cudaParity.h"

#include "backends/cpu/cpuKernel.h"
#include "backends/cuda/cudaKernel.h"
#include "backends/cuda/cudaLibraries.h"
#include "backends/cuda/kernels/convolutionGraph.h"
#include "common/kernelRun.h"
#include "core/dataType.h"
#include "core/tensorFormat.h"
#include "network/layers/convolutionLayer.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace kiln::test::cuda
{
namespace
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;
using nvinfer1::LayerType;
using nvinfer1::PaddingMode;

//! True when the "depthwise" tactic applies to `s` on linear tensors (and must then be offered).
bool isDepthwise(ConvSpec const& s)
{
    return !s.deconv && !s.kernelInput && s.kernel.size() <= 2 && s.groups == s.k && s.in[1] == s.k
        && s.outType == s.type;
}

//! True when the "gemm" tactic applies to `s` (1x1, stride 1, no padding, groups 1, FP16/BF16 throughout, constant
//! weights).
bool isGemm(ConvSpec const& s)
{
    auto const zeros = [](std::vector<int64_t> const& v) { return std::all_of(v.begin(), v.end(), [](int64_t e) { return e == 0; }); };
    auto const ones = [](std::vector<int64_t> const& v) { return std::all_of(v.begin(), v.end(), [](int64_t e) { return e == 1; }); };
    bool const halfType = s.type == DataType::kHALF || s.type == DataType::kBF16;
    return !s.deconv && !s.kernelInput && s.groups == 1 && ones(s.kernel) && ones(s.stride) && zeros(s.pre)
        && zeros(s.post) && halfType && s.outType == s.type;
}

void runConv(ConvSpec const& s, uint32_t seed)
{
    std::vector<char const*> tactics{"cudnn", "cudnn-legacy", "kiln"};
    if (isDepthwise(s))
    {
        tactics.push_back("depthwise");
    }
    if (isGemm(s))
    {
        tactics.push_back("gemm");
    }
    for (char const* tactic : tactics)
    {
        SCOPED_TRACE(std::string(s.deconv ? "deconvolution" : "convolution") + " tactic " + tactic + " seed "
            + std::to_string(seed));
        PlanNode const node = convNode(s, tactic);
        std::vector<int64_t> const out = outputDims(s, node);
        std::mt19937 rng(seed);
        int64_t const c = s.in[1];
        std::vector<int64_t> kShape = s.deconv ? std::vector<int64_t>{c, s.k / s.groups}
                                               : std::vector<int64_t>{s.k, c / s.groups};
        kShape.insert(kShape.end(), s.kernel.begin(), s.kernel.end());
        std::vector<HostTensor> inputs{HostTensor::random(s.type, dims(s.in), rng, -1.0, 1.0)};
        HostTensor const kernel = HostTensor::random(s.kernelInput ? s.type : s.weightsType, dims(kShape), rng, -0.5, 0.5);
        HostTensor const bias = HostTensor::random(s.kernelInput ? s.type : s.weightsType, dims({s.k}), rng, -1.0, 1.0);
        std::vector<WeightsView> weights(2);
        if (s.kernelInput)
        {
            inputs.push_back(kernel);
            if (s.bias)
            {
                inputs.push_back(bias);
            }
        }
        else
        {
            weights[0] = weightsOf(kernel);
            if (s.bias)
            {
                weights[1] = weightsOf(bias);
            }
        }
        if (s.fuseAdd)
        {
            inputs.push_back(HostTensor::random(s.type, dims(s.addDims.empty() ? out : s.addDims), rng, -1.0, 1.0));
        }
        checkKernel(node, inputs, {HostTensor(s.outType, dims(out))}, weights, convTolerance());
    }
}

TEST(CudaParity, Convolution2dTypes)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        ConvSpec s = typed({}, t);
        s.pre = {1, 1};
        s.post = {1, 1};
        runConv(s, 1);
        s.bias = false;
        runConv(s, 2);
    }
}

TEST(CudaParity, Convolution2dGeometry)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF})
    {
        ConvSpec s = typed({}, t);
        s.in = {1, 3, 17, 14};
        s.k = 5;
        s.stride = {2, 3};
        s.dilation = {2, 1};
        s.pre = {0, 2};
        s.post = {1, 0}; // asymmetric: cuDNN runs on a padded copy
        runConv(s, 3);
        s.mode = PaddingMode::kEXPLICIT_ROUND_UP;
        runConv(s, 4);
        s.pre = {2, 2};
        s.post = {2, 2};
        s.kernel = {5, 4};
        runConv(s, 5);
        for (PaddingMode m : {PaddingMode::kSAME_UPPER, PaddingMode::kSAME_LOWER})
        {
            ConvSpec same = typed({}, t);
            same.in = {2, 4, 10, 7};
            same.kernel = {4, 3};
            same.stride = {2, 2};
            same.mode = m;
            runConv(same, 6);
        }
    }
}

TEST(CudaParity, ConvolutionGroups1d3d)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        ConvSpec g = typed({}, t);
        g.in = {2, 8, 12, 9};
        g.k = 12;
        g.groups = 4;
        g.pre = {1, 0};
        g.post = {1, 0};
        runConv(g, 7);
        ConvSpec dw = typed({}, t); // depthwise
        dw.in = {1, 16, 13, 13};
        dw.k = 16;
        dw.groups = 16;
        dw.pre = {1, 1};
        dw.post = {1, 1};
        dw.stride = {2, 2};
        runConv(dw, 8);
        ConvSpec one = typed({}, t); // 1-D as [N, C, 1, W]
        one.in = {3, 5, 1, 40};
        one.k = 7;
        one.kernel = {1, 5};
        one.pre = {0, 2};
        one.post = {0, 2};
        one.dilation = {1, 3};
        runConv(one, 9);
        ConvSpec three = typed({}, t);
        three.in = {1, 3, 7, 8, 9};
        three.k = 4;
        three.kernel = {3, 2, 3};
        three.stride = {1, 2, 2};
        three.pre = {1, 0, 1};
        three.post = {1, 1, 0};
        runConv(three, 10);
    }
}

TEST(CudaParity, ConvolutionKernelInputsAndTypes)
{
    ConvSpec s = typed({}, DataType::kFLOAT);
    s.kernelInput = true;
    s.pre = {1, 1};
    s.post = {1, 1};
    runConv(s, 11);
    s.bias = false;
    runConv(s, 12);
    ConvSpec w = typed({}, DataType::kHALF); // FP32 weights for FP16 tensors: converted at creation
    w.weightsType = DataType::kFLOAT;
    runConv(w, 13);
    ConvSpec o = typed({}, DataType::kHALF); // FP16 in, FP32 out
    o.outType = DataType::kFLOAT;
    runConv(o, 14);
}

TEST(CudaParity, ConvolutionFusedEpilogue)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        ConvSpec s = typed({}, t);
        s.pre = {1, 1};
        s.post = {1, 1};
        s.fuseAdd = true;
        s.fuseAct = static_cast<int32_t>(ActivationType::kRELU) + 1;
        runConv(s, 15); // residual + relu
        s.addDims = {1, 6, 1, 1};
        s.fuseAct = static_cast<int32_t>(ActivationType::kGELU_ERF) + 1;
        runConv(s, 16); // bias vector + gelu
        s.fuseAdd = false;
        s.fuseAct = static_cast<int32_t>(ActivationType::kLEAKY_RELU) + 1;
        s.alpha = 0.1F;
        runConv(s, 17); // activation only
        ConvSpec a = typed({}, t); // asymmetric padding: the pointwise pass after cuDNN on a padded input
        a.pre = {0, 1};
        a.post = {2, 0};
        a.fuseAdd = true;
        a.fuseAct = static_cast<int32_t>(ActivationType::kGELU_TANH) + 1;
        runConv(a, 18);
    }
}

//! The "cudnn" tactic really runs cuDNN's graph API for the usual FP16/BF16 cases (3x3 with bias, residual and ReLU;
//! 1x1; strided 7x7 stem): each new shape builds a plan, fused or bare, and none is refused.
TEST(CudaParity, ConvolutionGraphApiPlans)
{
    if (!::kiln::cuda::convGraphBuilt())
    {
        GTEST_SKIP() << "built without the cuDNN frontend: no graph-API convolutions";
    }
    KILN_REQUIRE_GPU();
    for (DataType t : {DataType::kHALF, DataType::kBF16})
    {
        ConvSpec s = typed({}, t);
        s.in = {2, 16, 14, 14};
        s.k = 32;
        s.pre = {1, 1};
        s.post = {1, 1};
        s.fuseAdd = true;
        s.fuseAct = static_cast<int32_t>(ActivationType::kRELU) + 1;
        ConvSpec pointwise = typed({}, t);
        pointwise.in = {2, 32, 7, 7};
        pointwise.k = 64;
        pointwise.kernel = {1, 1};
        ConvSpec stem = typed({}, t);
        stem.in = {1, 3, 32, 32};
        stem.k = 16;
        stem.kernel = {7, 7};
        stem.stride = {2, 2};
        stem.pre = {3, 3};
        stem.post = {3, 3};
        stem.fuseAct = static_cast<int32_t>(ActivationType::kRELU) + 1;
        for (ConvSpec const& c : {s, pointwise, stem})
        {
            ::kiln::cuda::ConvGraphCounters const before = ::kiln::cuda::convGraphCounters();
            runConv(c, 40);
            ::kiln::cuda::ConvGraphCounters const after = ::kiln::cuda::convGraphCounters();
            std::cout << "graph plans for C=" << c.in[1] << " K=" << c.k << ": fused " << after.fused - before.fused
                      << ", bare " << after.bare - before.bare << ", refused " << after.refused - before.refused
                      << (after.refused > before.refused ? " (" + after.lastRefusal + ")" : std::string()) << std::endl;
            EXPECT_GT(after.fused + after.bare, before.fused + before.bare);
        }
    }
}

//! Autotuning of cuDNN graph plans: every timed candidate (forced one by one through the settings) gives the CPU
//! reference's result, for a 1x1 convolution with bias and a 3x3 one with bias, residual add and ReLU.
TEST(CudaParity, ConvolutionAutotuneEveryCandidate)
{
    if (!::kiln::cuda::convGraphBuilt())
    {
        GTEST_SKIP() << "built without the cuDNN frontend: no graph-API convolutions";
    }
    KILN_REQUIRE_GPU();
    ConvSpec pointwise = typed({}, DataType::kHALF);
    pointwise.in = {4, 48, 14, 14};
    pointwise.k = 96;
    pointwise.kernel = {1, 1};
    ConvSpec fused = typed({}, DataType::kHALF);
    fused.in = {2, 32, 12, 12};
    fused.k = 32;
    fused.pre = {1, 1};
    fused.post = {1, 1};
    fused.fuseAdd = true;
    fused.fuseAct = static_cast<int32_t>(ActivationType::kRELU) + 1;
    for (ConvSpec const& c : {pointwise, fused})
    {
        int64_t const forced
            = checkEveryCandidate(true, [&](int32_t force) { runConv(c, 60 + static_cast<uint32_t>(force)); });
        std::cout << "C=" << c.in[1] << " K=" << c.k << ": " << forced << " cuDNN candidates checked" << std::endl;
        EXPECT_GE(forced, 1) << "no cuDNN candidates were timed";
    }
}

//! Identical convolutions time their candidates once: the second layer of the same description reuses the plan.
TEST(CudaParity, ConvolutionAutotuneOncePerDescription)
{
    if (!::kiln::cuda::convGraphBuilt())
    {
        GTEST_SKIP() << "built without the cuDNN frontend: no graph-API convolutions";
    }
    KILN_REQUIRE_GPU();
    ::kiln::cuda::AutotuneSettings settings;
    settings.candidates = 7; // a settings key of this test's own: nothing cached by earlier tests
    ::kiln::cuda::setAutotuneOverride(settings);
    ConvSpec s = typed({}, DataType::kHALF);
    s.in = {3, 40, 10, 10};
    s.k = 80;
    s.kernel = {1, 1};
    ::kiln::cuda::AutotuneCounters const a0 = ::kiln::cuda::autotuneCounters();
    std::vector<std::string> recorded;
    std::vector<std::string>* const previous = ::kiln::cuda::exchangeTuningRecorder(&recorded);
    runConv(s, 70);
    ::kiln::cuda::exchangeTuningRecorder(previous);
    ::kiln::cuda::AutotuneCounters const a1 = ::kiln::cuda::autotuneCounters();
    ::kiln::cuda::ConvGraphCounters const g1 = ::kiln::cuda::convGraphCounters();
    runConv(s, 71);
    ::kiln::cuda::AutotuneCounters const a2 = ::kiln::cuda::autotuneCounters();
    ::kiln::cuda::ConvGraphCounters const g2 = ::kiln::cuda::convGraphCounters();
    EXPECT_GE(a1.cudnnProblems - a0.cudnnProblems, 1);
    EXPECT_EQ(a2.cudnnProblems, a1.cudnnProblems);
    EXPECT_EQ(g2.fused + g2.bare + g2.refused, g1.fused + g1.bare + g1.refused);

    // The recorded choice, imported (as an engine's "autotune" attribute is at load), is built without timing; a
    // choice that does not build as recorded (another engine tag) is timed as usual.
    std::string graphEntries;
    for (std::string const& e : recorded)
    {
        graphEntries += e.rfind("c\t", 0) == 0 ? e + "\n" : "";
    }
    ASSERT_FALSE(graphEntries.empty()) << "no cuDNN choice was recorded";
    ::kiln::cuda::importTuning(graphEntries);
    settings.candidates = 6; // new settings key: the plan cache misses
    ::kiln::cuda::setAutotuneOverride(settings);
    runConv(s, 72);
    ::kiln::cuda::AutotuneCounters const a3 = ::kiln::cuda::autotuneCounters();
    EXPECT_EQ(a3.cudnnProblems, a2.cudnnProblems);
    std::string stale;
    for (std::string const& e : recorded)
    {
        if (e.rfind("c\t", 0) == 0)
        {
            stale += e.substr(0, e.rfind('\t') + 1) + "not-an-engine-tag\n";
        }
    }
    ::kiln::cuda::importTuning(stale);
    settings.candidates = 5;
    ::kiln::cuda::setAutotuneOverride(settings);
    runConv(s, 73);
    ::kiln::cuda::AutotuneCounters const a4 = ::kiln::cuda::autotuneCounters();
    ::kiln::cuda::setAutotuneOverride(std::nullopt);
    EXPECT_GT(a4.cudnnProblems, a3.cudnnProblems);
}

TEST(CudaParity, Deconvolution)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        ConvSpec s = typed({}, t);
        s.deconv = true;
        s.in = {2, 6, 5, 7};
        s.k = 4;
        s.kernel = {4, 4};
        s.stride = {2, 2};
        s.pre = {1, 1};
        s.post = {1, 1};
        runConv(s, 20); // symmetric: cuDNN backward data directly
        s.pre = {0, 2};
        s.post = {1, 0};
        runConv(s, 21); // asymmetric: full result cropped
        s.groups = 2;
        s.dilation = {2, 1};
        runConv(s, 22);
        ConvSpec same = s;
        same.groups = 1;
        same.dilation = {};
        same.kernel = {3, 5};
        same.stride = {2, 3};
        same.mode = PaddingMode::kSAME_UPPER;
        runConv(same, 23);
        ConvSpec three = typed({}, t);
        three.deconv = true;
        three.in = {1, 4, 3, 4, 5};
        three.k = 6;
        three.kernel = {2, 3, 3};
        three.stride = {2, 1, 2};
        three.pre = {0, 1, 1};
        three.post = {0, 1, 0};
        runConv(three, 24);
        ConvSpec fused = s;
        fused.groups = 1;
        fused.dilation = {};
        fused.fuseAdd = true;
        fused.fuseAct = static_cast<int32_t>(ActivationType::kRELU) + 1;
        runConv(fused, 25);
        ConvSpec input = s;
        input.groups = 1;
        input.dilation = {};
        input.kernelInput = true;
        runConv(input, 26);
    }
}

TEST(CudaParity, ConvolutionNetwork)
{
    // Through the public API and the built plan (weights from the plan, the builder's tactics for the CPU).
    std::vector<float> kernel(6 * 3 * 3 * 3);
    std::vector<float> bias(6);
    std::vector<float> deconvKernel(6 * 2 * 2 * 2);
    std::mt19937 rng(31);
    std::uniform_real_distribution<float> dist(-0.5F, 0.5F);
    for (auto* v : {&kernel, &bias, &deconvKernel})
    {
        for (float& x : *v)
        {
            x = dist(rng);
        }
    }
    ParityOptions o;
    o.tolerance = convTolerance();
    checkParity([&](nvinfer1::INetworkDefinition& net) {
        auto* x = net.addInput("x", DataType::kFLOAT, dims({2, 3, 12, 10}));
        nvinfer1::Weights const w{DataType::kFLOAT, kernel.data(), static_cast<int64_t>(kernel.size())};
        nvinfer1::Weights const b{DataType::kFLOAT, bias.data(), static_cast<int64_t>(bias.size())};
        auto* conv = net.addConvolutionNd(*x, 6, dims({3, 3}), w, b);
        conv->setPaddingNd(dims({1, 1}));
        nvinfer1::Weights const dw{DataType::kFLOAT, deconvKernel.data(), static_cast<int64_t>(deconvKernel.size())};
        auto* deconv = net.addDeconvolutionNd(*conv->getOutput(0), 2, dims({2, 2}), dw, nvinfer1::Weights{DataType::kFLOAT, nullptr, 0});
        deconv->setStrideNd(dims({2, 2}));
        net.markOutput(*deconv->getOutput(0));
    }, o);
}

//! Depthwise cases (groups == C == K) of type `t`: the MobileNet / EfficientNet kernels 3x3 and 5x5 at strides 1 and
//! 2, 7x7, dilation, an odd kernel shape and stride, asymmetric padding, channel counts that are not multiples of 8,
//! batches above 1, each activation those networks fuse (ReLU, the clip of ReLU6, hard-sigmoid, sigmoid) and others,
//! with and without bias and the residual addition.
std::vector<ConvSpec> depthwiseCases(DataType t)
{
    auto make = [t](std::vector<int64_t> in, std::vector<int64_t> kernel, std::vector<int64_t> stride,
                    std::vector<int64_t> pre, std::vector<int64_t> post) {
        ConvSpec s = typed({}, t);
        s.in = std::move(in);
        s.k = s.in[1];
        s.groups = s.k;
        s.kernel = std::move(kernel);
        s.stride = std::move(stride);
        s.pre = std::move(pre);
        s.post = std::move(post);
        return s;
    };
    std::vector<ConvSpec> cases;
    ConvSpec a = make({2, 16, 13, 13}, {3, 3}, {1, 1}, {1, 1}, {1, 1});
    a.fuseAct = act(ActivationType::kRELU);
    cases.push_back(a);
    ConvSpec b = make({3, 24, 12, 11}, {3, 3}, {2, 2}, {0, 1}, {1, 0});
    b.fuseAdd = true;
    b.fuseAct = act(ActivationType::kCLIP); // ReLU6
    b.alpha = 0.F;
    b.beta = 6.F;
    cases.push_back(b);
    ConvSpec c = make({1, 20, 15, 14}, {5, 5}, {1, 1}, {2, 2}, {2, 2});
    c.bias = false;
    c.fuseAct = act(ActivationType::kHARD_SIGMOID); // hard-swish's gate
    c.alpha = 1.F / 6.F;
    c.beta = 0.5F;
    cases.push_back(c);
    ConvSpec d = make({2, 40, 14, 15}, {5, 5}, {2, 2}, {1, 2}, {2, 1});
    d.fuseAdd = true;
    d.fuseAct = act(ActivationType::kSIGMOID);
    cases.push_back(d);
    ConvSpec e = make({2, 8, 16, 16}, {7, 7}, {1, 1}, {3, 3}, {3, 3});
    e.fuseAct = act(ActivationType::kRELU);
    cases.push_back(e);
    ConvSpec f = make({1, 12, 17, 13}, {7, 7}, {2, 2}, {3, 3}, {3, 2});
    f.fuseAdd = true;
    cases.push_back(f);
    ConvSpec g = make({2, 12, 15, 15}, {3, 3}, {1, 1}, {2, 2}, {2, 2});
    g.dilation = {2, 2};
    g.fuseAct = act(ActivationType::kLEAKY_RELU);
    g.alpha = 0.1F;
    cases.push_back(g);
    ConvSpec h = make({1, 5, 9, 10}, {4, 2}, {1, 3}, {2, 0}, {1, 1});
    h.fuseAct = act(ActivationType::kTANH);
    cases.push_back(h);
    ConvSpec i = make({3, 13, 11, 9}, {3, 3}, {2, 2}, {}, {});
    i.mode = PaddingMode::kSAME_UPPER;
    i.fuseAdd = true;
    i.fuseAct = act(ActivationType::kGELU_ERF);
    cases.push_back(i);
    ConvSpec j = make({2, 16, 9, 20}, {3, 3}, {1, 2}, {1, 1}, {1, 1});
    j.dilation = {1, 2}; // vertical stride 1, horizontal dilation: the generic kHWC8 kernel
    cases.push_back(j);
    ConvSpec one = make({2, 6, 1, 30}, {1, 5}, {1, 2}, {0, 2}, {0, 1}); // 1-D as [N, C, 1, W]
    one.fuseAdd = true;
    one.fuseAct = act(ActivationType::kRELU);
    cases.push_back(one);
    return cases;
}

TEST(CudaParity, DepthwiseLinear)
{
    uint32_t seed = 300;
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        SCOPED_TRACE(dataTypeName(t));
        for (ConvSpec const& s : depthwiseCases(t))
        {
            ASSERT_TRUE(isDepthwise(s));
            runConv(s, seed++);
        }
        ConvSpec bcast = depthwiseCases(t)[0]; // a bias-like addition [1, C, 1, 1]
        bcast.fuseAdd = true;
        bcast.addDims = {1, bcast.k, 1, 1};
        runConv(bcast, seed++);
    }
}

TEST(CudaParity, DepthwiseHwc8)
{
    uint32_t seed = 400;
    for (DataType t : {DataType::kHALF, DataType::kBF16})
    {
        SCOPED_TRACE(dataTypeName(t));
        for (ConvSpec const& s : depthwiseCases(t))
        {
            runHwc8(s, seed++);
        }
        ConvSpec wide = depthwiseCases(t)[1]; // FP32 weights for FP16/BF16 tensors
        wide.weightsType = DataType::kFLOAT;
        runHwc8(wide, seed++);
    }
}

//! Sets KILN_DEPTHWISE_VARIANT for the kernels created in its scope (the variable is read at kernel creation).
struct DepthwiseVariant
{
    explicit DepthwiseVariant(int32_t v) { setenv("KILN_DEPTHWISE_VARIANT", std::to_string(v).c_str(), 1); }
    explicit DepthwiseVariant(char const* text) { setenv("KILN_DEPTHWISE_VARIANT", text, 1); }
    ~DepthwiseVariant() { unsetenv("KILN_DEPTHWISE_VARIANT"); }
    DepthwiseVariant(DepthwiseVariant const&) = delete;
    DepthwiseVariant& operator=(DepthwiseVariant const&) = delete;
};

//! The shapes of the MobileNetV3 / EfficientNet depthwise layers, shrunk to a test's size but keeping what selects
//! the kHWC8 variants' tiles: channel counts of 9, 15 and 30 vectors (72, 120, 240), one not a multiple of 8 (44),
//! outputs of several block tiles in both directions, 3x3 and 5x5 at strides 1 and 2, the gated activations SiLU
//! (v * sigmoid(v)) and hard-swish (v * hard_sigmoid(v)) with and without the residual addition, batch 1 and 3.
std::vector<ConvSpec> depthwiseModelCases(DataType t)
{
    auto make = [t](std::vector<int64_t> in, int64_t kernel, int64_t stride) {
        ConvSpec s = typed({}, t);
        s.in = std::move(in);
        s.k = s.in[1];
        s.groups = s.k;
        s.kernel = {kernel, kernel};
        s.stride = {stride, stride};
        s.pre = {kernel / 2, kernel / 2};
        s.post = {kernel / 2, kernel / 2};
        return s;
    };
    std::vector<ConvSpec> cases;
    ConvSpec a = make({3, 72, 21, 19}, 3, 1);
    a.fuseAct = act(ActivationType::kRELU);
    cases.push_back(a);
    ConvSpec b = make({1, 64, 23, 22}, 3, 2);
    b.fuseAct = act(ActivationType::kHARD_SIGMOID); // hard-swish
    b.alpha = 1.F / 6.F;
    b.beta = 0.5F;
    b.gate = true;
    cases.push_back(b);
    ConvSpec c = make({2, 120, 14, 15}, 5, 1);
    c.fuseAct = act(ActivationType::kHARD_SIGMOID);
    c.alpha = 1.F / 6.F;
    c.beta = 0.5F;
    c.gate = true;
    c.fuseAdd = true;
    cases.push_back(c);
    ConvSpec d = make({1, 240, 13, 12}, 5, 2);
    d.fuseAct = act(ActivationType::kSIGMOID); // SiLU
    d.gate = true;
    cases.push_back(d);
    ConvSpec e = make({2, 44, 18, 17}, 7, 1);
    e.fuseAct = act(ActivationType::kSIGMOID);
    e.gate = true;
    e.fuseAdd = true;
    cases.push_back(e);
    ConvSpec f = make({1, 16, 40, 37}, 3, 1); // 2 vectors: tiles of 2 channel vectors
    f.fuseAct = act(ActivationType::kSIGMOID);
    f.gate = true;
    cases.push_back(f);
    ConvSpec g = make({2, 96, 17, 16}, 3, 2);
    g.bias = false;
    g.fuseAdd = true;
    cases.push_back(g);
    return cases;
}

//! Cases of variant 4 whose strips have several rows: threads = N x outW x Cp / 2 x strips against 2 x 132 x 2048.
std::vector<ConvSpec> depthwiseStripCases(DataType t)
{
    std::vector<ConvSpec> cases;
    ConvSpec a = depthwiseModelCases(t)[0]; // 3x3 s1, ReLU: 16 x 58 x 56 x 32 pairs -> 3 rows, 20 strips
    a.in = {16, 64, 58, 56};
    a.k = a.groups = 64;
    cases.push_back(a);
    ConvSpec b = depthwiseModelCases(t)[3]; // 5x5 s2, SiLU: 32 x 59 x 20 x 32 pairs -> 2 rows, 30 strips
    b.in = {32, 64, 118, 40};
    b.k = b.groups = 64;
    b.fuseAdd = true;
    cases.push_back(b);
    return cases;
}

//! Every kHWC8 variant of KILN_DEPTHWISE_VARIANT (0-4 layouts, 5-9 the same with the approximate sigmoid) against
//! the CPU reference on every depthwise case (variant 0 also runs DepthwiseHwc8's), FP16 and BF16.
TEST(CudaParity, DepthwiseHwc8Variants)
{
    for (int32_t variant = 0; variant < 10; ++variant)
    {
        SCOPED_TRACE("KILN_DEPTHWISE_VARIANT=" + std::to_string(variant));
        DepthwiseVariant const scope(variant);
        uint32_t seed = 500;
        for (DataType t : {DataType::kHALF, DataType::kBF16})
        {
            SCOPED_TRACE(dataTypeName(t));
            std::vector<ConvSpec> cases = depthwiseModelCases(t);
            if (variant != 0)
            {
                std::vector<ConvSpec> const small = depthwiseCases(t);
                cases.insert(cases.end(), small.begin(), small.end());
            }
            if (variant % 5 == 4)
            {
                // Large enough for strips of several rows on 132 SMs (3 rows at 3x3 s1, 2 at 5x5 s2), each with a
                // partial last strip: the sliding window's shifts.
                std::vector<ConvSpec> const big = depthwiseStripCases(t);
                cases.insert(cases.end(), big.begin(), big.end());
            }
            for (ConvSpec const& s : cases)
            {
                runHwc8(s, seed++);
            }
        }
    }
}

//! Every kHWC8 depthwise tactic (the layouts the builder times per layer; SiLU epilogues take the approximate
//! sigmoid) against the CPU reference on every depthwise case without KILN_DEPTHWISE_VARIANT, FP16 and BF16.
TEST(CudaParity, DepthwiseHwc8Tactics)
{
    ASSERT_EQ(std::getenv("KILN_DEPTHWISE_VARIANT"), nullptr) << "the test checks the tactics' own layouts";
    for (char const* tactic : {"depthwise", "depthwise.pixel", "depthwise.strip"})
    {
        uint32_t seed = 700;
        for (DataType t : {DataType::kHALF, DataType::kBF16})
        {
            SCOPED_TRACE(dataTypeName(t));
            std::vector<ConvSpec> cases = depthwiseModelCases(t);
            std::vector<ConvSpec> const small = depthwiseCases(t);
            cases.insert(cases.end(), small.begin(), small.end());
            if (std::string(tactic) == "depthwise.strip")
            {
                std::vector<ConvSpec> const big = depthwiseStripCases(t);
                cases.insert(cases.end(), big.begin(), big.end());
            }
            for (ConvSpec const& s : cases)
            {
                runHwc8(s, seed++, tactic);
            }
        }
    }
}

//! 1x1 convolutions for the gemm tactic: C and K not multiples of 8 and multiples, every epilogue split (bias,
//! cuBLASLt's RELU / GELU, the fused addition as C or in the post kernel, activations cuBLASLt has none for), batch
//! > 1, on [N, C, spatial...] tensors.
std::vector<ConvSpec> gemmCases(DataType t, std::vector<int64_t> const& spatial)
{
    auto const spec = [&](int64_t n, int64_t c, int64_t k, int32_t act, bool add, bool bias) {
        ConvSpec s = typed({}, t);
        s.in = {n, c};
        s.in.insert(s.in.end(), spatial.begin(), spatial.end());
        s.k = k;
        s.kernel.assign(spatial.size(), 1);
        s.fuseAct = act;
        s.fuseAdd = add;
        s.bias = bias;
        return s;
    };
    auto const act = [](ActivationType a) { return static_cast<int32_t>(a) + 1; };
    std::vector<ConvSpec> cases{
        spec(3, 20, 12, 0, false, true),                               // bias
        spec(3, 20, 12, act(ActivationType::kRELU), false, true),      // RELU_BIAS
        spec(3, 20, 12, act(ActivationType::kRELU), true, true),       // + residual, then ReLU
        spec(2, 20, 16, act(ActivationType::kRELU), true, true),       // K = Kp: the residual as C
        spec(3, 20, 12, act(ActivationType::kSIGMOID), false, true),   // post kernel
        spec(2, 64, 24, act(ActivationType::kGELU_TANH), false, false), // GELU without bias
        spec(2, 64, 16, act(ActivationType::kGELU_ERF), true, true),
        spec(4, 24, 40, 0, true, false),                               // residual only
    };
    ConvSpec hardSigmoid = spec(3, 36, 20, act(ActivationType::kHARD_SIGMOID), false, true);
    hardSigmoid.alpha = 0.2F;
    hardSigmoid.beta = 0.5F;
    cases.push_back(hardSigmoid);
    ConvSpec clip = spec(2, 24, 16, act(ActivationType::kCLIP), true, true);
    clip.alpha = -0.5F;
    clip.beta = 0.5F;
    cases.push_back(clip);
    ConvSpec wide = cases[1]; // FP32 weights for FP16/BF16 tensors
    wide.weightsType = DataType::kFLOAT;
    cases.push_back(wide);
    return cases;
}

//! Linear tensors: [N, C, 1, 1] (the rows form), [N, C, H, W] and [N, C, D, H, W] (the batched form), every tactic.
TEST(CudaParity, GemmLinear)
{
    uint32_t seed = 500;
    for (DataType t : {DataType::kHALF, DataType::kBF16})
    {
        SCOPED_TRACE(dataTypeName(t));
        for (std::vector<int64_t> const& spatial : {std::vector<int64_t>{1, 1}, std::vector<int64_t>{4, 6}, std::vector<int64_t>{2, 3, 4}})
        {
            for (ConvSpec const& s : gemmCases(t, spatial))
            {
                ASSERT_TRUE(isGemm(s));
                runConv(s, seed++);
            }
        }
    }
}

TEST(CudaParity, GemmHwc8)
{
    uint32_t seed = 600;
    for (DataType t : {DataType::kHALF, DataType::kBF16})
    {
        SCOPED_TRACE(dataTypeName(t));
        for (ConvSpec const& s : gemmCases(t, {5, 7}))
        {
            runHwc8(s, seed++, "gemm");
        }
    }
}

TEST(CudaKernelTable, ConvolutionTactics)
{
    for (bool deconv : {false, true})
    {
        ConvSpec spec;
        spec.deconv = deconv;
        spec.kernelInput = true;
        PlanNode node = convNode(spec, "");
        LayerType const kind = deconv ? LayerType::kDECONVOLUTION : LayerType::kCONVOLUTION;
        auto tactics = ::kiln::cuda::cudaKernelTactics(kind);
        ASSERT_NE(tactics, nullptr);
        ASSERT_NE(::kiln::cuda::cudaKernelFactory(kind), nullptr);
        for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
        {
            KernelSetup const s = tableSetup(node, t, 3);
            EXPECT_EQ(tactics(s), (std::vector<std::string>{"cudnn", "kiln"}));
        }
        // INT8 is not a CPU convolution type either: no tactic, and creation refuses it with a message.
        KernelSetup const i8 = tableSetup(node, DataType::kINT8, 3);
        EXPECT_TRUE(tactics(i8).empty());
        auto r = ::kiln::cuda::cudaKernelFactory(kind)(i8);
        ASSERT_FALSE(r.isOk());
        EXPECT_NE(r.status().message().find("kFLOAT, kHALF or kBF16"), std::string::npos) << r.status().message();
        EXPECT_NE(r.status().message().find(deconv ? "deconv" : "conv"), std::string::npos) << r.status().message();
        // A malformed epilogue.
        node.attrs.setInt("fuse.act", 99);
        KernelSetup const bad = tableSetup(node, DataType::kFLOAT, 3);
        EXPECT_TRUE(tactics(bad).empty());
        r = ::kiln::cuda::cudaKernelFactory(kind)(bad);
        ASSERT_FALSE(r.isOk());
        EXPECT_NE(r.status().message().find("fuse.act"), std::string::npos) << r.status().message();
        node.attrs.setInt("fuse.act", 0);
        // fuse.add without the extra input.
        node.attrs.setInt("fuse.add", 1);
        node.inputs = {0};
        r = ::kiln::cuda::cudaKernelFactory(kind)(tableSetup(node, DataType::kFLOAT, 1));
        ASSERT_FALSE(r.isOk());
        EXPECT_NE(r.status().message().find("fuse.add"), std::string::npos) << r.status().message();
        // Broken attributes.
        node.attrs.setInt("fuse.add", 0);
        node.attrs.setInt("nbGroups", 4); // 6 output maps are not a multiple of 4
        r = ::kiln::cuda::cudaKernelFactory(kind)(tableSetup(node, DataType::kFLOAT, 3));
        ASSERT_FALSE(r.isOk());
        EXPECT_NE(r.status().message().find("nbGroups"), std::string::npos) << r.status().message();
        EXPECT_TRUE(tactics(tableSetup(node, DataType::kFLOAT, 3)).empty());
    }
}

//! Which nodes get the depthwise tactic, and its creation errors (no GPU needed).
TEST(CudaKernelTable, DepthwiseTactics)
{
    auto const tactics = ::kiln::cuda::cudaKernelTactics(LayerType::kCONVOLUTION);
    ASSERT_NE(tactics, nullptr);
    std::vector<float> values(32 * 9, 0.25F);
    auto setupOf = [&](PlanNode const& node, DataType t, int64_t kernelCount, bool channelLast) {
        KernelSetup s;
        s.node = &node;
        s.inputTypes = {t};
        s.inputPresent = {true};
        s.inputRanks = {4};
        s.outputTypes = {t};
        s.outputRanks = {4};
        s.weights.resize(2);
        s.weights[0].data = values.data();
        s.weights[0].count = kernelCount;
        auto const f = channelLast ? nvinfer1::TensorFormat::kHWC8 : nvinfer1::TensorFormat::kLINEAR;
        s.inputFormats = {f};
        s.outputFormats = {f};
        return s;
    };
    ConvSpec dw = depthwiseCases(DataType::kHALF)[0];
    PlanNode node = convNode(dw, "");
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        std::vector<std::string> const linear = tactics(setupOf(node, t, 16 * 9, false));
        ASSERT_FALSE(linear.empty());
        EXPECT_EQ(linear.front(), "depthwise");
        EXPECT_EQ(linear.back(), "kiln");
    }
    PlanNode channelLast = node;
    channelLast.attrs.setInt(kCHANNEL_LAST_ATTRIBUTE, 1);
    for (DataType t : {DataType::kHALF, DataType::kBF16})
    {
        std::vector<std::string> const cl = tactics(setupOf(channelLast, t, 16 * 9, true));
        ASSERT_FALSE(cl.empty());
        EXPECT_EQ(cl.front(), "depthwise");
        EXPECT_EQ(std::count(cl.begin(), cl.end(), "kiln"), 0);
        // 3x3 stride 1 on kHWC8: the pixel and strip layouts are timed too, once each.
        EXPECT_EQ(std::count(cl.begin(), cl.end(), "depthwise.pixel"), 1);
        EXPECT_EQ(std::count(cl.begin(), cl.end(), "depthwise.strip"), 1);
        // Linear tensors have one depthwise kernel: no layouts to time.
        std::vector<std::string> const linear = tactics(setupOf(node, t, 16 * 9, false));
        EXPECT_EQ(std::count(linear.begin(), linear.end(), "depthwise.pixel"), 0);
        EXPECT_EQ(std::count(linear.begin(), linear.end(), "depthwise.strip"), 0);
    }
    {
        // 7x7: the pixel layout is instantiated, the strip one is not.
        PlanNode seven = channelLast;
        seven.attrs.setInts("kernelSize", {7, 7});
        std::vector<std::string> const v = tactics(setupOf(seven, DataType::kHALF, 16 * 49, true));
        EXPECT_EQ(std::count(v.begin(), v.end(), "depthwise.pixel"), 1);
        EXPECT_EQ(std::count(v.begin(), v.end(), "depthwise.strip"), 0);
        // A dense convolution gets no depthwise layout (no timed candidates added outside depthwise layers).
        PlanNode dense = channelLast;
        dense.attrs.setInt("nbGroups", 1);
        std::vector<std::string> const d = tactics(setupOf(dense, DataType::kHALF, 16 * 16 * 9, true));
        for (std::string const& name : d)
        {
            EXPECT_NE(name.rfind("depthwise", 0), 0U) << name;
        }
    }
    auto const offered = [&](PlanNode const& n, DataType t, int64_t count, bool cl) {
        std::vector<std::string> const v = tactics(setupOf(n, t, count, cl));
        return std::find(v.begin(), v.end(), "depthwise") != v.end();
    };
    EXPECT_FALSE(offered(channelLast, DataType::kFLOAT, 16 * 9, true)); // kHWC8 is FP16/BF16 only
    PlanNode multiplier = node;                                           // 2 maps per channel
    multiplier.attrs.setInt("nbOutputMaps", 32);
    EXPECT_FALSE(offered(multiplier, DataType::kHALF, 32 * 9, false));
    PlanNode dense = node; // ungrouped
    dense.attrs.setInt("nbGroups", 1);
    EXPECT_FALSE(offered(dense, DataType::kHALF, 16 * 16 * 9, false));
    ConvSpec fromInput = dw; // kernel as an input tensor
    fromInput.kernelInput = true;
    PlanNode input = convNode(fromInput, "");
    std::vector<std::string> const withInputs = tactics(tableSetup(input, DataType::kHALF, 3));
    EXPECT_EQ(std::count(withInputs.begin(), withInputs.end(), "depthwise"), 0);
    // Forcing the tactic where it does not apply fails with the reason (before any device work).
    multiplier.tactic = "depthwise";
    auto r = ::kiln::cuda::cudaKernelFactory(LayerType::kCONVOLUTION)(setupOf(multiplier, DataType::kHALF, 32 * 9, false));
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("channel multiplier 1"), std::string::npos) << r.status().message();
    PlanNode fp32 = channelLast;
    fp32.tactic = "depthwise";
    r = ::kiln::cuda::cudaKernelFactory(LayerType::kCONVOLUTION)(setupOf(fp32, DataType::kFLOAT, 16 * 9, true));
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("FP16 or BF16"), std::string::npos) << r.status().message();
    // An unknown KILN_DEPTHWISE_VARIANT fails the creation with the variable's name (before any device work).
    for (char const* text : {"10", "x", "1 ", "-1"})
    {
        DepthwiseVariant const scope(text);
        PlanNode forced = channelLast;
        forced.tactic = "depthwise";
        r = ::kiln::cuda::cudaKernelFactory(LayerType::kCONVOLUTION)(setupOf(forced, DataType::kHALF, 16 * 9, true));
        ASSERT_FALSE(r.isOk()) << text;
        EXPECT_NE(r.status().message().find("KILN_DEPTHWISE_VARIANT"), std::string::npos) << r.status().message();
    }
}

//! Which nodes get the gemm tactic (after cudnn, before kiln), and its creation errors (no GPU needed).
TEST(CudaKernelTable, GemmTactics)
{
    auto const tactics = ::kiln::cuda::cudaKernelTactics(LayerType::kCONVOLUTION);
    ASSERT_NE(tactics, nullptr);
    std::vector<float> values(64 * 64 * 9, 0.25F);
    auto setupOf = [&](PlanNode const& node, DataType t, int64_t kernelCount, bool channelLast) {
        KernelSetup s = tableSetup(node, t, node.inputs.size());
        s.weights.resize(2);
        s.weights[0].data = values.data();
        s.weights[0].count = kernelCount;
        auto const f = channelLast ? nvinfer1::TensorFormat::kHWC8 : nvinfer1::TensorFormat::kLINEAR;
        s.inputFormats.assign(node.inputs.size(), f);
        s.outputFormats = {f};
        return s;
    };
    ConvSpec const base = gemmCases(DataType::kHALF, {5, 7})[0]; // 20 channels, 12 maps
    int64_t const count = base.k * base.in[1];
    auto const list = [&](ConvSpec const& s, DataType t, bool cl, int64_t n) {
        PlanNode node = convNode(s, "");
        if (cl)
        {
            node.attrs.setInt(kCHANNEL_LAST_ATTRIBUTE, 1);
        }
        return tactics(setupOf(node, t, n, cl));
    };
    auto const offered = [&](ConvSpec const& s, DataType t, bool cl, int64_t n = -1) {
        std::vector<std::string> const v = list(s, t, cl, n < 0 ? count : n);
        return std::find(v.begin(), v.end(), "gemm") != v.end();
    };
    for (DataType t : {DataType::kHALF, DataType::kBF16})
    {
        std::vector<std::string> const linear = list(base, t, false, count);
        auto const at = std::find(linear.begin(), linear.end(), "gemm");
        ASSERT_NE(at, linear.end());
        EXPECT_EQ(linear.back(), "kiln");
        auto const cudnn = std::find(linear.begin(), linear.end(), "cudnn"); // cudnn (where built) comes first
        EXPECT_TRUE(cudnn == linear.end() || cudnn < at);
        EXPECT_TRUE(offered(base, t, true));
        EXPECT_TRUE(offered(gemmCases(t, {5, 7})[2], t, true)); // with a fused addition
    }
    EXPECT_FALSE(offered(base, DataType::kFLOAT, false)); // FP16/BF16 only
    ConvSpec wide = base;                                  // 3x3
    wide.kernel = {3, 3};
    EXPECT_FALSE(offered(wide, DataType::kHALF, false, count * 9));
    ConvSpec grouped = base;
    grouped.groups = 2;
    EXPECT_FALSE(offered(grouped, DataType::kHALF, false, count / 2));
    ConvSpec padded = base;
    padded.pre = {1, 0};
    EXPECT_FALSE(offered(padded, DataType::kHALF, false));
    ConvSpec strided = base;
    strided.stride = {2, 2};
    EXPECT_FALSE(offered(strided, DataType::kHALF, false)); // stride 1 only
    EXPECT_FALSE(offered(strided, DataType::kHALF, true));
    ConvSpec fromInput = base;
    fromInput.kernelInput = true;
    PlanNode const input = convNode(fromInput, "");
    std::vector<std::string> const withInputs = tactics(tableSetup(input, DataType::kHALF, 3));
    EXPECT_EQ(std::count(withInputs.begin(), withInputs.end(), "gemm"), 0);
    // A fused addition of another type than the data.
    ConvSpec added = gemmCases(DataType::kHALF, {5, 7})[2];
    PlanNode const addNode = convNode(added, "");
    KernelSetup mixed = setupOf(addNode, DataType::kHALF, count, false);
    mixed.inputTypes.back() = DataType::kFLOAT;
    std::vector<std::string> const mixedList = tactics(mixed);
    EXPECT_EQ(std::count(mixedList.begin(), mixedList.end(), "gemm"), 0);
    // Forcing the tactic where it does not apply fails with the reason (before any device work).
    auto const forced = [&](ConvSpec const& s, DataType t, int64_t n) {
        PlanNode node = convNode(s, "gemm");
        return ::kiln::cuda::cudaKernelFactory(LayerType::kCONVOLUTION)(setupOf(node, t, n, false));
    };
    auto r = forced(base, DataType::kFLOAT, count);
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("FP16 or BF16"), std::string::npos) << r.status().message();
    r = forced(wide, DataType::kHALF, count * 9);
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("1x1"), std::string::npos) << r.status().message();
    r = forced(grouped, DataType::kHALF, count / 2);
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("ungrouped"), std::string::npos) << r.status().message();
}

} // namespace
} // namespace kiln::test::cuda
