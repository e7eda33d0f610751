// Backend-neutral host-side logic of INormalizationLayer kernels, shared by the CPU kernel
// (backends/cpu/kernels/normalization.cpp) and the CUDA kernel (backends/cuda/kernels/normalization.cu).
#include "backends/common/normalizationParams.h"

#include <algorithm>
#include <cstddef>
#include <string>

namespace kiln
{
using nvinfer1::DataType;

namespace
{

Status normError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (Normalization): " + message);
}

bool isNormFloat(DataType t)
{
    return t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
}

} // namespace

StatusOr<NormalizationParams> readNormalizationParams(KernelSetup const& setup)
{
    Attributes const& attrs = setup.node->attrs;
    StatusOr<double> epsAttr = attrs.requireFloat("epsilon");
    StatusOr<int64_t> maskAttr = attrs.requireInt("axes");
    StatusOr<int64_t> groupsAttr = attrs.requireInt("nbGroups");
    if (!epsAttr.isOk() || !maskAttr.isOk() || !groupsAttr.isOk())
    {
        return normError(setup, "missing or mistyped attribute 'epsilon', 'axes' or 'nbGroups'");
    }
    NormalizationParams p;
    p.eps = *epsAttr;
    p.mask = *maskAttr;
    p.groups = *groupsAttr;
    p.v2 = attrs.getInt("v2", 0) != 0;
    return p;
}

Status normalizationShapes(KernelSetup const& setup, NormalizationParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 3 || outputs.size() != 1)
    {
        return normError(setup, "expects input, scale and bias and one output");
    }
    TensorView const& x = inputs[0];
    TensorView const& scale = inputs[1];
    TensorView const& bias = inputs[2];
    TensorView const& y = outputs[0];
    int32_t const rank = x.dims.nbDims;
    p.rank = rank;
    if (rank < 1 || rank > nvinfer1::Dims::MAX_DIMS || p.mask < 0 || (p.mask >> rank) != 0 || p.groups < 1
        || !(p.eps >= 0.0))
    {
        return normError(setup, "invalid rank, axes mask, nbGroups or epsilon");
    }
    if (!isNormFloat(x.type) || !isNormFloat(scale.type) || !isNormFloat(bias.type) || y.type != x.type)
    {
        return normError(setup, "input, scale, bias and output must be FP32, FP16 or BF16 (output as the input)");
    }
    if (y.dims.nbDims != rank || scale.dims.nbDims != rank || bias.dims.nbDims != rank)
    {
        return normError(setup, "input, scale, bias and output must have the same rank");
    }
    int64_t const channels = rank >= 2 ? x.dims.d[1] : 1;
    if (p.groups > 1 && (rank < 2 || (p.mask & 3) != 0 || channels % p.groups != 0))
    {
        return normError(setup, "nbGroups " + std::to_string(p.groups) + " needs a channel axis 1 divisible by it and "
            + "an axes mask without axes 0 and 1");
    }
    p.perGroup = p.groups > 1 ? channels / p.groups : 1;
    p.perGroupScale = p.groups > 1 && !p.v2;
    for (int32_t d = 0; d < rank; ++d)
    {
        if (x.dims.d[d] < 0 || y.dims.d[d] != x.dims.d[d])
        {
            return normError(setup, "output shape differs from the input shape in dimension " + std::to_string(d));
        }
        for (TensorView const* t : {&scale, &bias})
        {
            int64_t const s = t->dims.d[d];
            bool const ok = s == 1 || (d == 1 && p.perGroupScale ? s == p.groups : s == x.dims.d[d]);
            if (!ok)
            {
                return normError(setup, "scale/bias extent " + std::to_string(s) + " in dimension " + std::to_string(d)
                    + " does not broadcast to the input extent " + std::to_string(x.dims.d[d]));
            }
        }
    }
    return Status::ok();
}

StatusOr<NormalizationParams> makeNormalizationParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 3 || outputs.size() != 1 || !inputs[0].present() || !inputs[1].present()
        || !inputs[2].present() || !outputs[0].present())
    {
        return normError(setup, "expects input, scale and bias and one output");
    }
    KILN_ASSIGN_OR_RETURN(NormalizationParams p, readNormalizationParams(setup));
    KILN_RETURN_IF_ERROR(normalizationShapes(setup, p, inputs, outputs));
    return p;
}

bool isResidualNormalization(KernelSetup const& setup)
{
    return setup.node != nullptr && setup.node->attrs.getInt(kRESIDUAL_NORM_ATTR, 0) != 0;
}

StatusOr<ResidualNormShapes> residualNormShapes(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 4 || outputs.empty() || outputs.size() > 2)
    {
        return normError(setup, "the fused residual form expects input, scale, bias and residual, and one or two outputs");
    }
    TensorView const& x = inputs[0];
    TensorView const& r = inputs[3];
    if (r.type != x.type || r.dims.nbDims != x.dims.nbDims)
    {
        return normError(setup, "the residual must have the input's type and rank");
    }
    ResidualNormShapes shapes;
    shapes.period = 1;
    bool leading = true;
    for (int32_t d = 0; d < x.dims.nbDims; ++d)
    {
        leading = leading && r.dims.d[d] == 1;
        if (!leading && r.dims.d[d] != x.dims.d[d])
        {
            return normError(setup, "residual extent " + std::to_string(r.dims.d[d]) + " in dimension "
                + std::to_string(d) + " is neither the input's " + std::to_string(x.dims.d[d])
                + " nor a leading 1 of a broadcast row");
        }
        shapes.period *= r.dims.d[d];
    }
    shapes.sumOutput = outputs.size() == 2;
    if (shapes.sumOutput)
    {
        TensorView const& s = outputs[1];
        bool same = s.type == x.type && s.dims.nbDims == x.dims.nbDims;
        for (int32_t d = 0; same && d < x.dims.nbDims; ++d)
        {
            same = s.dims.d[d] == x.dims.d[d];
        }
        if (!same)
        {
            return normError(setup, "the sum output must have the input's type and shape");
        }
    }
    return shapes;
}

std::vector<TensorView> normalizationInputs(std::vector<TensorView> const& inputs)
{
    return std::vector<TensorView>(inputs.begin(), inputs.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(inputs.size(), 3)));
}

std::vector<TensorView> normalizationOutputs(std::vector<TensorView> const& outputs)
{
    return std::vector<TensorView>(outputs.begin(), outputs.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(outputs.size(), 1)));
}

} // namespace kiln
