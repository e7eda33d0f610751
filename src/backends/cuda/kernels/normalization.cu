// CUDA kernel of INormalizationLayer with the CPU reference's semantics (backends/cpu/kernels/normalization.cpp):
// y = (x - mean) / sqrt(var + eps) * scale + bias, mean and biased variance over the masked axes and, with
// nbGroups > 1, over the channels (axis 1) of each group; statistics in two passes in double; FP16/BF16 storage
// through float. One thread per statistics key (a row of layer norm, a group of group norm, a channel of instance
// norm) walking its members: correct for every shape, not yet fast for few, long keys.
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

//! Operand 0: x (and y), 1: scale, 2: bias.
__global__ void normalizationKernel(IndexMap keyMap, IndexMap memberMap, int64_t keys, int64_t members, double eps,
    void const* x, void const* scale, DataType ts, void const* bias, DataType tb, void* y, DataType t)
{
    for (int64_t key = dev::globalThread(); key < keys; key += dev::gridThreads())
    {
        int64_t base[kMAX_OPERANDS];
        mapOffsets(keyMap, key, base);
        double sum = 0.0;
        for (int64_t m = 0; m < members; ++m)
        {
            int64_t off[kMAX_OPERANDS];
            mapOffsets(memberMap, m, off);
            sum += static_cast<double>(dev::loadFloat(x, t, base[0] + off[0]));
        }
        double const mean = members > 0 ? sum / static_cast<double>(members) : 0.0;
        double squares = 0.0;
        for (int64_t m = 0; m < members; ++m)
        {
            int64_t off[kMAX_OPERANDS];
            mapOffsets(memberMap, m, off);
            double const diff = static_cast<double>(dev::loadFloat(x, t, base[0] + off[0])) - mean;
            squares += diff * diff;
        }
        double const var = members > 0 ? squares / static_cast<double>(members) : 0.0;
        double const invStd = 1.0 / sqrt(var + eps);
        for (int64_t m = 0; m < members; ++m)
        {
            int64_t off[kMAX_OPERANDS];
            mapOffsets(memberMap, m, off);
            int64_t const xi = base[0] + off[0];
            double const normalized = (static_cast<double>(dev::loadFloat(x, t, xi)) - mean) * invStd;
            double const value = normalized * static_cast<double>(dev::loadFloat(scale, ts, base[1] + off[1]))
                + static_cast<double>(dev::loadFloat(bias, tb, base[2] + off[2]));
            dev::storeFloat(y, t, xi, static_cast<float>(value));
        }
    }
}

Status normError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (Normalization): " + message);
}

Status enqueueNormalization(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx)
{
    if (inputs.size() != 3 || outputs.size() != 1 || !inputs[0].present() || !inputs[1].present()
        || !inputs[2].present() || !outputs[0].present())
    {
        return normError(setup, "expects input, scale and bias and one output");
    }
    Attributes const& attrs = setup.node->attrs;
    StatusOr<double> epsAttr = attrs.requireFloat("epsilon");
    StatusOr<int64_t> maskAttr = attrs.requireInt("axes");
    StatusOr<int64_t> groupsAttr = attrs.requireInt("nbGroups");
    if (!epsAttr.isOk() || !maskAttr.isOk() || !groupsAttr.isOk())
    {
        return normError(setup, "missing or mistyped attribute 'epsilon', 'axes' or 'nbGroups'");
    }
    bool const v2 = attrs.getInt("v2", 0) != 0;
    double const eps = *epsAttr;
    int64_t const mask = *maskAttr;
    int64_t const groups = *groupsAttr;
    TensorView const& x = inputs[0];
    TensorView const& scale = inputs[1];
    TensorView const& bias = inputs[2];
    TensorView const& y = outputs[0];
    int32_t const rank = x.dims.nbDims;
    if (rank < 1 || rank > kMAX_RANK || mask < 0 || (mask >> rank) != 0 || groups < 1 || !(eps >= 0.0))
    {
        return normError(setup, "invalid rank, axes mask, nbGroups or epsilon");
    }
    if (!ew::isFloatKernelType(x.type) || !ew::isFloatKernelType(scale.type) || !ew::isFloatKernelType(bias.type)
        || y.type != x.type)
    {
        return normError(setup, "input, scale, bias and output must be FP32, FP16 or BF16 (output as the input)");
    }
    if (y.dims.nbDims != rank || scale.dims.nbDims != rank || bias.dims.nbDims != rank)
    {
        return normError(setup, "input, scale, bias and output must have the same rank");
    }
    int64_t const channels = rank >= 2 ? x.dims.d[1] : 1;
    if (groups > 1 && (rank < 2 || (mask & 3) != 0 || channels % groups != 0))
    {
        return normError(setup, "nbGroups " + std::to_string(groups) + " needs a channel axis 1 divisible by it and "
            + "an axes mask without axes 0 and 1");
    }
    int64_t const perGroup = groups > 1 ? channels / groups : 1;
    bool const perGroupScale = groups > 1 && !v2;
    for (int32_t d = 0; d < rank; ++d)
    {
        if (x.dims.d[d] < 0 || y.dims.d[d] != x.dims.d[d])
        {
            return normError(setup, "output shape differs from the input shape in dimension " + std::to_string(d));
        }
        for (TensorView const* tv : {&scale, &bias})
        {
            int64_t const s = tv->dims.d[d];
            bool const ok = s == 1 || (d == 1 && perGroupScale ? s == groups : s == x.dims.d[d]);
            if (!ok)
            {
                return normError(setup, "scale/bias extent " + std::to_string(s) + " in dimension " + std::to_string(d)
                    + " does not broadcast to the input extent " + std::to_string(x.dims.d[d]));
            }
        }
    }
    if (x.volume() == 0)
    {
        return Status::ok();
    }
    std::vector<int64_t> const xs = contiguousStrides(x.dims);
    std::vector<int64_t> const ss = contiguousStrides(scale.dims);
    std::vector<int64_t> const bs = contiguousStrides(bias.dims);
    IndexMap keyMap;
    IndexMap memberMap;
    int64_t keys = 1;
    int64_t members = 1;
    auto const add = [](IndexMap& m, int64_t extent, int64_t sx, int64_t sScale, int64_t sBias) {
        m.dims[m.rank] = extent;
        m.strides[0][m.rank] = sx;
        m.strides[1][m.rank] = sScale;
        m.strides[2][m.rank] = sBias;
        ++m.rank;
    };
    for (int32_t d = 0; d < rank; ++d)
    {
        auto const i = static_cast<size_t>(d);
        int64_t const sScale = scale.dims.d[d] == 1 ? 0 : ss[i];
        int64_t const sBias = bias.dims.d[d] == 1 ? 0 : bs[i];
        if ((mask >> d) & 1)
        {
            add(memberMap, x.dims.d[d], xs[i], sScale, sBias);
            members *= x.dims.d[d];
        }
        else if (d == 1 && groups > 1)
        {
            // Channel c = g * perGroup + j: the group g is part of the key, j a member.
            add(keyMap, groups, perGroup * xs[i], perGroupScale ? sScale : perGroup * sScale,
                perGroupScale ? sBias : perGroup * sBias);
            add(memberMap, perGroup, xs[i], perGroupScale ? 0 : sScale, perGroupScale ? 0 : sBias);
            keys *= groups;
            members *= perGroup;
        }
        else
        {
            add(keyMap, x.dims.d[d], xs[i], sScale, sBias);
            keys *= x.dims.d[d];
        }
    }
    normalizationKernel<<<gridFor(keys), kBLOCK, 0, ctx.stream>>>(keyMap, memberMap, keys, members, eps, x.data,
        scale.data, scale.type, bias.data, bias.type, y.data, y.type);
    return launchStatus("Normalization kernel");
}

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createNormalizationCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Normalization kernel: no plan node");
    }
    return makeCudaFunctionKernel(setup, enqueueNormalization);
}

} // namespace kiln::cuda
