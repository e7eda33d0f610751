// The shared parts of the CUDA convolution parity tests (convolutionCheck.h): specs, nodes, the kHWC8 check.
#include "convolutionCheck.h"

#include "backends/cpu/cpuKernel.h"
#include "backends/cuda/cudaKernel.h"
#include "backends/cuda/cudaLibraries.h"
#include "common/kernelRun.h"
#include "core/dataType.h"
#include "core/tensorFormat.h"
#include "network/layers/convolutionLayer.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kiln::test::cuda
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;
using nvinfer1::LayerType;

//! Sums of C/G * kernel-volume products in another order than the CPU's double reference.
Tolerance convTolerance()
{
    Tolerance t;
    t.fp32Atol = 2e-4;
    t.fp32Rtol = 2e-4;
    t.fp16Atol = 3e-2;
    t.fp16Rtol = 8e-3;
    t.bf16Atol = 1.5e-1;
    t.bf16Rtol = 3e-2;
    return t;
}

//! Host weights of a tensor (field by field: the struct's member order is not part of its contract).
WeightsView weightsOf(HostTensor const& h)
{
    WeightsView w;
    w.data = h.data();
    w.type = h.type;
    w.count = h.volume();
    return w;
}

std::vector<int64_t> orDefault(std::vector<int64_t> const& v, size_t n, int64_t value)
{
    return v.empty() ? std::vector<int64_t>(n, value) : v;
}

//! The node of `s` with tactic `tactic`.
PlanNode convNode(ConvSpec const& s, std::string const& tactic)
{
    size_t const nb = s.kernel.size();
    PlanNode node;
    node.kind = s.deconv ? LayerType::kDECONVOLUTION : LayerType::kCONVOLUTION;
    node.name = s.deconv ? "deconv" : "conv";
    node.tactic = tactic;
    node.attrs.setInt("nbOutputMaps", s.k);
    node.attrs.setInt("nbGroups", s.groups);
    node.attrs.setInts("kernelSize", s.kernel);
    node.attrs.setInts("stride", orDefault(s.stride, nb, 1));
    node.attrs.setInts("dilation", orDefault(s.dilation, nb, 1));
    node.attrs.setInts("prePadding", orDefault(s.pre, nb, 0));
    node.attrs.setInts("postPadding", orDefault(s.post, nb, 0));
    node.attrs.setInt("paddingMode", static_cast<int64_t>(s.mode));
    node.inputs = {0};
    if (s.kernelInput)
    {
        node.inputs.push_back(1);
        if (s.bias)
        {
            node.inputs.push_back(2);
        }
    }
    if (s.fuseAdd)
    {
        node.attrs.setInt("fuse.add", 1);
        node.inputs.push_back(static_cast<int32_t>(node.inputs.size()));
    }
    if (s.fuseAct != 0)
    {
        node.attrs.setInt("fuse.act", s.fuseAct);
        node.attrs.setFloat("fuse.alpha", s.alpha);
        node.attrs.setFloat("fuse.beta", s.beta);
        if (s.gate)
        {
            node.attrs.setInt("fuse.gate", 1);
        }
    }
    node.outputs = {static_cast<int32_t>(node.inputs.size())};
    return node;
}

//! Output dims of `s` by the padding-mode formulas.
std::vector<int64_t> outputDims(ConvSpec const& s, PlanNode const& node)
{
    auto params = parseWindowParams(node.attrs, s.deconv ? WindowKind::kDECONVOLUTION : WindowKind::kCONVOLUTION);
    EXPECT_TRUE(params.isOk());
    auto ext = computeWindowExtents(s.deconv ? WindowKind::kDECONVOLUTION : WindowKind::kCONVOLUTION, params.value(),
        std::vector<int64_t>(s.in.begin() + 2, s.in.end()));
    EXPECT_TRUE(ext.isOk()) << ext.status().message();
    std::vector<int64_t> out{s.in[0], s.k};
    for (WindowExtent const& e : ext.value())
    {
        out.push_back(e.out);
    }
    return out;
}

ConvSpec typed(ConvSpec s, DataType t)
{
    s.type = t;
    s.outType = t;
    s.weightsType = t;
    return s;
}

int32_t act(ActivationType a)
{
    return static_cast<int32_t>(a) + 1;
}

//! [N, C, H, W] -> kHWC8 storage [N, H, W, Cp] (Cp = C rounded up to 8), padding channels set to `fill`.
HostTensor toHwc8(HostTensor const& t, double fill)
{
    int64_t const n = t.dims.d[0];
    int64_t const c = t.dims.d[1];
    int64_t const hw = t.dims.d[2] * t.dims.d[3];
    int64_t const cp = (c + 7) / 8 * 8;
    HostTensor r(t.type, dims({n, t.dims.d[2], t.dims.d[3], cp}));
    for (int64_t b = 0; b < n; ++b)
    {
        for (int64_t p = 0; p < hw; ++p)
        {
            for (int64_t ci = 0; ci < cp; ++ci)
            {
                r.set((b * hw + p) * cp + ci, ci < c ? t.at((b * c + ci) * hw + p) : fill);
            }
        }
    }
    return r;
}

//! The gated activations of MobileNetV3 and EfficientNet on the ungated reference `v`: v * act(v) for SiLU (sigmoid)
//! and hard-swish (hard-sigmoid with alpha, beta), in double, rounded to the tensor's type.
void applyGate(ConvSpec const& s, HostTensor& v)
{
    auto const a = static_cast<ActivationType>(s.fuseAct - 1);
    ASSERT_TRUE(a == ActivationType::kSIGMOID || a == ActivationType::kHARD_SIGMOID) << "no host gate for activation " << s.fuseAct;
    for (int64_t i = 0; i < v.volume(); ++i)
    {
        double const x = v.at(i);
        double const g = a == ActivationType::kSIGMOID ? 1.0 / (1.0 + std::exp(-x))
                                                       : std::clamp(s.alpha * x + s.beta, 0.0, 1.0);
        v.set(i, x * g);
    }
}

//! Runs spec `s` with `tactic` (depthwise or gemm) on kHWC8 data (and fused addition) and compares with the CPU
//! reference on NCHW tensors: the real channels within the type's tolerance, the padding channels exactly zero (the
//! output buffer is poisoned first, the inputs' padding channels hold garbage).
void runHwc8(ConvSpec const& s, uint32_t seed, char const* tactic)
{
    SCOPED_TRACE(std::string("kHWC8 ") + tactic + ", C = " + std::to_string(s.in[1]) + ", K = " + std::to_string(s.k)
        + ", seed " + std::to_string(seed));
    PlanNode node = convNode(s, tactic);
    node.attrs.setInt(kCHANNEL_LAST_ATTRIBUTE, 1);
    node.attrs.setInt(kREGION_FORMAT_ATTRIBUTE, static_cast<int64_t>(nvinfer1::TensorFormat::kHWC8));
    std::vector<int64_t> const out = outputDims(s, node);
    std::mt19937 rng(seed);
    std::vector<int64_t> kShape{s.k, s.in[1] / s.groups};
    kShape.insert(kShape.end(), s.kernel.begin(), s.kernel.end());
    std::vector<HostTensor> inputs{HostTensor::random(s.type, dims(s.in), rng, -1.0, 1.0)};
    HostTensor const kernel = HostTensor::random(s.weightsType, dims(kShape), rng, -0.5, 0.5);
    HostTensor const bias = HostTensor::random(s.weightsType, dims({s.k}), rng, -1.0, 1.0);
    std::vector<WeightsView> weights{weightsOf(kernel), s.bias ? weightsOf(bias) : WeightsView{}};
    if (s.fuseAdd)
    {
        inputs.push_back(HostTensor::random(s.type, dims(out), rng, -1.0, 1.0));
    }
    // The CPU reference on NCHW tensors.
    KernelSetup setup;
    setup.node = &node;
    std::vector<TensorView> cpuIns;
    for (HostTensor const& h : inputs)
    {
        setup.inputTypes.push_back(h.type);
        setup.inputPresent.push_back(true);
        setup.inputRanks.push_back(4);
        cpuIns.push_back(TensorView{const_cast<void*>(h.data()), h.type, h.dims, nullptr});
    }
    setup.outputTypes = {s.type};
    setup.outputRanks = {4};
    setup.weights = weights;
    HostTensor expected(s.type, dims(out));
    PlanNode cpuNode = node;
    cpuNode.tactic.clear();
    cpuNode.attrs.setInt(kCHANNEL_LAST_ATTRIBUTE, 0);
    if (s.gate)
    {
        // The CPU convolution has no gate: it computes v (bias and addition included), the test applies v * act(v).
        cpuNode.attrs.setInt("fuse.act", 0);
        cpuNode.attrs.setInt("fuse.gate", 0);
    }
    KernelSetup cpuSetup = setup;
    cpuSetup.node = &cpuNode;
    auto cpu = cpuKernelFactory(LayerType::kCONVOLUTION)(cpuSetup);
    ASSERT_TRUE(cpu.isOk()) << cpu.status().message();
    Status const ran = kiln::test::reshapeAndRun(**cpu, cpuIns, {TensorView{expected.data(), s.type, expected.dims, nullptr}});
    ASSERT_TRUE(ran.isOk()) << ran.message();
    if (s.gate)
    {
        applyGate(s, expected);
    }
    std::string why;
    if (!gpuAvailable(why))
    {
        GTEST_SKIP() << "no CUDA GPU (" << why << "): CPU reference ran, GPU half skipped";
    }
    // The CUDA kernel on kHWC8 copies, with the session's library handles (cuBLASLt for gemm) and a workspace.
    ::kiln::cuda::CudaLibraries libraries;
    setup.sessionState = &libraries;
    setup.inputFormats.assign(inputs.size(), nvinfer1::TensorFormat::kHWC8);
    setup.outputFormats = {nvinfer1::TensorFormat::kHWC8};
    auto gpu = ::kiln::cuda::cudaKernelFactory(LayerType::kCONVOLUTION)(setup);
    ASSERT_TRUE(gpu.isOk()) << gpu.status().message();
    HostTensor const want = toHwc8(expected, 0.0);
    Tolerance const tol = convTolerance();
    double const atol = s.type == DataType::kHALF ? tol.fp16Atol : tol.bf16Atol;
    double const rtol = s.type == DataType::kHALF ? tol.fp16Rtol : tol.bf16Rtol;
    int64_t const cp = want.dims.d[3];
    // Run 0 reshapes; run 1 runs again without a reshape on new copies at other addresses (a run takes its buffers
    // from its views).
    DeviceTensors device;
    for (int32_t pass = 0; pass < 2; ++pass)
    {
        SCOPED_TRACE("run " + std::to_string(pass));
        std::vector<TensorView> gpuIns;
        for (HostTensor const& h : inputs)
        {
            void* d = device.upload(toHwc8(h, 1000.0));
            ASSERT_NE(d, nullptr);
            gpuIns.push_back(TensorView{d, h.type, h.dims, nullptr});
        }
        HostTensor result = want;
        std::memset(result.data(), 0xA5, result.bytes.size());
        void* y = device.upload(result);
        ASSERT_NE(y, nullptr);
        std::vector<TensorView> const outs{TensorView{y, s.type, expected.dims, nullptr}};
        HostTensor scratch(DataType::kINT8, dims({std::max<int64_t>(1, (*gpu)->workspaceSize(gpuIns, outs))}));
        RunContext ctx;
        ctx.workspace = device.upload(scratch);
        ctx.workspaceBytes = scratch.volume();
        ASSERT_NE(ctx.workspace, nullptr);
        Status const st = pass == 0 ? kiln::test::reshapeAndRun(**gpu, gpuIns, outs, ctx) : (*gpu)->run(gpuIns, outs, ctx);
        ASSERT_TRUE(st.isOk()) << st.message();
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(result.data(), y, result.bytes.size(), cudaMemcpyDeviceToHost), cudaSuccess);
        int32_t bad = 0;
        for (int64_t i = 0; i < result.volume() && bad < 5; ++i)
        {
            double const g = result.at(i);
            double const e = want.at(i);
            bool const padding = i % cp >= s.k;
            if (padding ? g != 0.0 : !(std::fabs(g - e) <= atol + rtol * std::fabs(e)))
            {
                ADD_FAILURE() << "element " << i << " (channel " << i % cp << (padding ? ", padding" : "")
                              << "): gpu " << g << ", expected " << e;
                ++bad;
            }
        }
    }
}

//! Setup of a hand-made node for the table tests (no GPU needed: creation fails before any upload).
KernelSetup tableSetup(PlanNode const& node, DataType t, size_t nbInputs)
{
    KernelSetup s;
    s.node = &node;
    s.inputTypes.assign(nbInputs, t);
    s.inputPresent.assign(nbInputs, true);
    s.inputRanks.assign(nbInputs, 4);
    s.outputTypes = {t};
    s.outputRanks = {4};
    return s;
}

} // namespace kiln::test::cuda
