// Kiln's own convolution-family device code: the direct convolution and deconvolution kernels of the "kiln" tactic
// (one thread per output value, float accumulation, used where cuDNN cannot run a case and as the builder's
// alternative), and the pointwise pass that finishes cuDNN results (bias, fused add, activation, cropping, type
// conversion) or zero-pads an input into the workspace. All operand types are run-time arguments (deviceTypes.cuh).
// Also the host-side reshape helpers the convolution kernels share (checkConvReshape, addStrides5).
#include "backends/cuda/kernels/activationMath.cuh"
#include "backends/cuda/kernels/convolution.h"
#include "backends/cuda/kernels/deviceTypes.cuh"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
namespace
{

__device__ __forceinline__ float finish(ConvEpilogueDev const& e, float v, int64_t n, int64_t k, int64_t d, int64_t h, int64_t w)
{
    if (e.bias != nullptr)
    {
        v += dev::loadFloat(e.bias, e.biasType, k);
    }
    if (e.add != nullptr)
    {
        int64_t const off = n * e.addStrides[0] + k * e.addStrides[1] + d * e.addStrides[2] + h * e.addStrides[3]
            + w * e.addStrides[4];
        v += dev::loadFloat(e.add, e.addType, off);
    }
    if (e.hasActivation)
    {
        v = applyActivation(e.activation, e.alpha, e.beta, v);
    }
    return v;
}

__global__ void directConvolutionKernel(DirectConvArgs a, int64_t total)
{
    WindowGeometry const& g = a.g;
    int64_t const cg = a.c / a.groups;
    int64_t const kg = a.k / a.groups;
    int64_t const kVol = g.kernel[0] * g.kernel[1] * g.kernel[2];
    for (int64_t idx = dev::globalThread(); idx < total; idx += dev::gridThreads())
    {
        int64_t r = idx;
        int64_t const ow = r % g.out[2];
        r /= g.out[2];
        int64_t const oh = r % g.out[1];
        r /= g.out[1];
        int64_t const od = r % g.out[0];
        r /= g.out[0];
        int64_t const oc = r % a.k;
        int64_t const b = r / a.k;
        int64_t const grp = oc / kg;
        float acc = 0.F;
        for (int64_t ci = 0; ci < cg; ++ci)
        {
            int64_t const xBase = ((b * a.c + grp * cg + ci) * g.in[0]) * g.in[1] * g.in[2];
            int64_t const wBase = (oc * cg + ci) * kVol;
            for (int64_t kd = 0; kd < g.kernel[0]; ++kd)
            {
                int64_t const id = od * g.stride[0] - g.padBefore[0] + kd * g.dilation[0];
                if (id < 0 || id >= g.in[0])
                {
                    continue;
                }
                for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
                {
                    int64_t const ih = oh * g.stride[1] - g.padBefore[1] + kh * g.dilation[1];
                    if (ih < 0 || ih >= g.in[1])
                    {
                        continue;
                    }
                    for (int64_t kw = 0; kw < g.kernel[2]; ++kw)
                    {
                        int64_t const iw = ow * g.stride[2] - g.padBefore[2] + kw * g.dilation[2];
                        if (iw < 0 || iw >= g.in[2])
                        {
                            continue;
                        }
                        float const xv = dev::loadFloat(a.x, a.xType, xBase + (id * g.in[1] + ih) * g.in[2] + iw);
                        float const wv = dev::loadFloat(a.w, a.wType, wBase + (kd * g.kernel[1] + kh) * g.kernel[2] + kw);
                        acc = fmaf(xv, wv, acc);
                    }
                }
            }
        }
        dev::storeFloat(a.y, a.yType, idx, finish(a.epilogue, acc, b, oc, od, oh, ow));
    }
}

//! Input index along one axis that reaches output o through tap r, or -1 (o + padBefore == i * stride + r * dil).
__device__ __forceinline__ int64_t deconvSource(int64_t o, int64_t r, int64_t pad, int64_t stride, int64_t dil, int64_t in)
{
    int64_t const t = o + pad - r * dil;
    if (t < 0 || t % stride != 0)
    {
        return -1;
    }
    int64_t const i = t / stride;
    return i < in ? i : -1;
}

__global__ void directDeconvolutionKernel(DirectConvArgs a, int64_t total)
{
    WindowGeometry const& g = a.g;
    int64_t const cg = a.c / a.groups;
    int64_t const kg = a.k / a.groups;
    int64_t const kVol = g.kernel[0] * g.kernel[1] * g.kernel[2];
    int64_t const inVol = g.in[0] * g.in[1] * g.in[2];
    for (int64_t idx = dev::globalThread(); idx < total; idx += dev::gridThreads())
    {
        int64_t r = idx;
        int64_t const ow = r % g.out[2];
        r /= g.out[2];
        int64_t const oh = r % g.out[1];
        r /= g.out[1];
        int64_t const od = r % g.out[0];
        r /= g.out[0];
        int64_t const oc = r % a.k;
        int64_t const b = r / a.k;
        int64_t const grp = oc / kg;
        int64_t const kk = oc % kg;
        float acc = 0.F;
        for (int64_t kd = 0; kd < g.kernel[0]; ++kd)
        {
            int64_t const id = deconvSource(od, kd, g.padBefore[0], g.stride[0], g.dilation[0], g.in[0]);
            if (id < 0)
            {
                continue;
            }
            for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
            {
                int64_t const ih = deconvSource(oh, kh, g.padBefore[1], g.stride[1], g.dilation[1], g.in[1]);
                if (ih < 0)
                {
                    continue;
                }
                for (int64_t kw = 0; kw < g.kernel[2]; ++kw)
                {
                    int64_t const iw = deconvSource(ow, kw, g.padBefore[2], g.stride[2], g.dilation[2], g.in[2]);
                    if (iw < 0)
                    {
                        continue;
                    }
                    int64_t const xOffset = (id * g.in[1] + ih) * g.in[2] + iw;
                    int64_t const wOffset = (kd * g.kernel[1] + kh) * g.kernel[2] + kw;
                    for (int64_t ci = 0; ci < cg; ++ci)
                    {
                        int64_t const ic = grp * cg + ci;
                        float const xv = dev::loadFloat(a.x, a.xType, (b * a.c + ic) * inVol + xOffset);
                        float const wv = dev::loadFloat(a.w, a.wType, (ic * kg + kk) * kVol + wOffset);
                        acc = fmaf(xv, wv, acc);
                    }
                }
            }
        }
        dev::storeFloat(a.y, a.yType, idx, finish(a.epilogue, acc, b, oc, od, oh, ow));
    }
}

__global__ void convPointwiseKernel(ConvPointwiseArgs a, int64_t total)
{
    for (int64_t idx = dev::globalThread(); idx < total; idx += dev::gridThreads())
    {
        int64_t r = idx;
        int64_t const w = r % a.dstDims[4];
        r /= a.dstDims[4];
        int64_t const h = r % a.dstDims[3];
        r /= a.dstDims[3];
        int64_t const d = r % a.dstDims[2];
        r /= a.dstDims[2];
        int64_t const k = r % a.dstDims[1];
        int64_t const n = r / a.dstDims[1];
        int64_t const sd = d + a.offset[0];
        int64_t const sh = h + a.offset[1];
        int64_t const sw = w + a.offset[2];
        float v = 0.F;
        if (sd >= 0 && sd < a.srcDims[2] && sh >= 0 && sh < a.srcDims[3] && sw >= 0 && sw < a.srcDims[4])
        {
            int64_t const si = (((n * a.srcDims[1] + k) * a.srcDims[2] + sd) * a.srcDims[3] + sh) * a.srcDims[4] + sw;
            v = dev::loadFloat(a.src, a.srcType, si);
        }
        dev::storeFloat(a.dst, a.dstType, idx, finish(a.epilogue, v, n, k, d, h, w));
    }
}

int64_t outputCount(DirectConvArgs const& a)
{
    return a.n * a.k * a.g.out[0] * a.g.out[1] * a.g.out[2];
}

} // namespace

Status launchDirectConvolution(DirectConvArgs const& a, cudaStream_t stream)
{
    int64_t const total = outputCount(a);
    if (total == 0)
    {
        return Status::ok();
    }
    directConvolutionKernel<<<gridFor(total), kBLOCK, 0, stream>>>(a, total);
    return launchStatus("directConvolutionKernel");
}

Status launchDirectDeconvolution(DirectConvArgs const& a, cudaStream_t stream)
{
    int64_t const total = outputCount(a);
    if (total == 0)
    {
        return Status::ok();
    }
    directDeconvolutionKernel<<<gridFor(total), kBLOCK, 0, stream>>>(a, total);
    return launchStatus("directDeconvolutionKernel");
}

Status launchConvPointwise(ConvPointwiseArgs const& a, cudaStream_t stream)
{
    int64_t total = 1;
    for (int64_t e : a.dstDims)
    {
        total *= e;
    }
    if (total == 0)
    {
        return Status::ok();
    }
    convPointwiseKernel<<<gridFor(total), kBLOCK, 0, stream>>>(a, total);
    return launchStatus("convPointwiseKernel");
}

Status checkConvReshape(KernelSetup const& setup, ConvConfig const& cfg, bool hasAdd,
    std::vector<TensorView> const& allInputs, std::vector<TensorView> const& outputs, int64_t kernelCount,
    int64_t biasCount, std::string const& label, std::vector<TensorView>& inputs, ConvShapes& shapes)
{
    if (hasAdd && allInputs.size() < 2)
    {
        return invalidArgument(label + ": the fused addition's input is missing");
    }
    ReshapeViews const v = reshapeViews(setup, allInputs, outputs);
    inputs.assign(v.inputs.begin(), v.inputs.end() - (hasAdd ? 1 : 0));
    return checkConvShapes(*setup.node, cfg, inputs, v.outputs, kernelCount, biasCount, shapes);
}

StatusOr<std::vector<int64_t>> addStrides5(nvinfer1::Dims const& add, nvinfer1::Dims const& out)
{
    int32_t const rank = out.nbDims;
    int32_t const lead = rank - add.nbDims;
    if (rank < 4 || rank > 5 || lead < 0)
    {
        return invalidArgument("the added tensor " + ew::dimsToString(add) + " does not broadcast to the output "
            + ew::dimsToString(out));
    }
    std::vector<int64_t> strides(static_cast<size_t>(rank), 0);
    int64_t s = 1;
    for (int32_t i = add.nbDims - 1; i >= 0; --i)
    {
        int64_t const e = add.d[i];
        if (e != out.d[i + lead] && e != 1)
        {
            return invalidArgument("the added tensor " + ew::dimsToString(add) + " does not broadcast to the output "
                + ew::dimsToString(out));
        }
        strides[static_cast<size_t>(i + lead)] = e == 1 ? 0 : s;
        s *= e;
    }
    if (rank == 4)
    {
        strides.insert(strides.begin() + 2, 0); // the normalised depth of a 2-D output
    }
    return strides;
}

} // namespace kiln::cuda
