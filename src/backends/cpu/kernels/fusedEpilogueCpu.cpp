// applyFusedEpilogueCpu: the CPU half of the "fuse.*" epilogues (see fusedEpilogueCpu.h), used by the convolution,
// deconvolution and matrix multiply CPU kernels after they have written their plain result.
#include "backends/cpu/kernels/fusedEpilogueCpu.h"

#include "core/dataType.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

namespace kiln
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;

namespace
{

bool isEpilogueType(DataType t)
{
    return t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
}

std::string dimsText(nvinfer1::Dims const& d)
{
    std::string s = "[";
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        s += (i > 0 ? ", " : "") + std::to_string(d.d[i]);
    }
    return s + "]";
}

float softplusCore(float t)
{
    return t > 0.F ? t + std::log1p(std::exp(-t)) : std::log1p(std::exp(t));
}

} // namespace

bool fusedEpilogueCpuSupports(DataType outputType, DataType addType)
{
    return isEpilogueType(outputType) && isEpilogueType(addType);
}

float fusedActivationCpu(ActivationType type, float alpha, float beta, float v)
{
    switch (type)
    {
    case ActivationType::kRELU: return v > 0.F ? v : 0.F;
    case ActivationType::kSIGMOID:
    {
        if (v >= 0.F)
        {
            return 1.F / (1.F + std::exp(-v));
        }
        float const e = std::exp(v);
        return e / (1.F + e);
    }
    case ActivationType::kTANH: return std::tanh(v);
    case ActivationType::kLEAKY_RELU: return v >= 0.F ? v : alpha * v;
    case ActivationType::kELU: return v >= 0.F ? v : alpha * std::expm1(v);
    case ActivationType::kSELU: return v > 0.F ? beta * v : beta * (alpha * std::exp(v) - alpha);
    case ActivationType::kSOFTSIGN: return v / (1.F + std::fabs(v));
    case ActivationType::kSOFTPLUS: return alpha * softplusCore(beta * v);
    case ActivationType::kCLIP: return std::max(alpha, std::min(beta, v));
    case ActivationType::kHARD_SIGMOID: return std::max(0.F, std::min(1.F, alpha * v + beta));
    case ActivationType::kSCALED_TANH: return alpha * std::tanh(beta * v);
    case ActivationType::kTHRESHOLDED_RELU: return v > alpha ? v : 0.F;
    case ActivationType::kGELU_ERF: return 0.5F * v * (1.F + std::erf(v * 0.70710678118654752F));
    case ActivationType::kGELU_TANH:
    {
        float const inner = 0.79788456080286536F * (v + 0.044715F * v * v * v);
        return 0.5F * v * (1.F + std::tanh(inner));
    }
    }
    return v;
}

StatusOr<FusedEpiloguePlan> prepareFusedEpilogueCpu(FusedEpilogue const& epilogue, DataType outputType,
    nvinfer1::Dims const& outputDims, TensorView const* add, TensorView const* residual)
{
    FusedEpiloguePlan plan;
    plan.epilogue = epilogue;
    plan.outDims = outputDims;
    if (epilogue.empty())
    {
        return plan;
    }
    if (!isEpilogueType(outputType))
    {
        return invalidArgument(std::string("fused epilogue: output type ") + dataTypeName(outputType)
            + " is not supported (kFLOAT, kHALF or kBF16)");
    }
    int32_t const rank = outputDims.nbDims;
    plan.volume = 1;
    for (int32_t i = 0; i < rank; ++i)
    {
        plan.volume *= outputDims.d[i];
    }
    if (epilogue.hasAdd)
    {
        if (add == nullptr)
        {
            return invalidArgument("fused epilogue: the added tensor is missing");
        }
        if (!isEpilogueType(add->type))
        {
            return invalidArgument(std::string("fused epilogue: added tensor type ") + dataTypeName(add->type)
                + " is not supported (kFLOAT, kHALF or kBF16)");
        }
        int32_t const lead = rank - add->dims.nbDims;
        if (lead < 0)
        {
            return invalidArgument("fused epilogue: added tensor " + dimsText(add->dims)
                + " has a higher rank than the output " + dimsText(outputDims));
        }
        int64_t s = 1;
        for (int32_t i = add->dims.nbDims - 1; i >= 0; --i)
        {
            int64_t const a = add->dims.d[i];
            int64_t const o = outputDims.d[i + lead];
            if (a != o && a != 1)
            {
                return invalidArgument("fused epilogue: added tensor " + dimsText(add->dims)
                    + " does not broadcast to the output " + dimsText(outputDims));
            }
            plan.addStrides[static_cast<size_t>(i + lead)] = a == 1 ? 0 : s;
            s *= a;
        }
    }
    if (epilogue.hasResidual)
    {
        if (residual == nullptr || !isEpilogueType(residual->type))
        {
            return invalidArgument("fused epilogue: the residual is missing or not kFLOAT, kHALF or kBF16");
        }
        bool same = residual->dims.nbDims == rank;
        for (int32_t i = 0; same && i < rank; ++i)
        {
            same = residual->dims.d[i] == outputDims.d[i];
        }
        if (!same)
        {
            return invalidArgument("fused epilogue: the residual " + dimsText(residual->dims)
                + " does not have the output's dims " + dimsText(outputDims));
        }
    }
    return plan;
}

void runFusedEpilogueCpu(
    FusedEpiloguePlan const& plan, TensorView const& output, TensorView const* add, TensorView const* residual)
{
    FusedEpilogue const& epilogue = plan.epilogue;
    if (epilogue.empty())
    {
        return;
    }
    int32_t const rank = plan.outDims.nbDims;
    std::array<int64_t, nvinfer1::Dims::MAX_DIMS> index{};
    int64_t addOffset = 0;
    for (int64_t i = 0; i < plan.volume; ++i)
    {
        float v = static_cast<float>(loadElement(output.data, output.type, i));
        if (epilogue.hasAdd)
        {
            v += static_cast<float>(loadElement(add->data, add->type, addOffset));
        }
        if (epilogue.hasResidual)
        {
            v += static_cast<float>(loadElement(residual->data, residual->type, i));
        }
        if (epilogue.hasActivation)
        {
            v = fusedActivationCpu(epilogue.activation, epilogue.alpha, epilogue.beta, v);
        }
        storeElement(output.data, output.type, i, static_cast<double>(v));
        // Advance the row-major index and the added tensor's offset.
        for (int32_t d = rank - 1; d >= 0; --d)
        {
            size_t const j = static_cast<size_t>(d);
            addOffset += plan.addStrides[j];
            if (++index[j] < plan.outDims.d[d])
            {
                break;
            }
            addOffset -= plan.addStrides[j] * index[j];
            index[j] = 0;
        }
    }
}

Status applyFusedEpilogueCpu(FusedEpilogue const& epilogue, TensorView const& output, TensorView const* add)
{
    if (epilogue.empty())
    {
        return Status::ok();
    }
    KILN_ASSIGN_OR_RETURN(
        FusedEpiloguePlan const plan, prepareFusedEpilogueCpu(epilogue, output.type, output.dims, add));
    if (plan.volume > 0 && output.data == nullptr)
    {
        return invalidArgument("fused epilogue: missing output buffer");
    }
    if (epilogue.hasAdd && add->data == nullptr && add->volume() != 0)
    {
        return invalidArgument("fused epilogue: the added tensor is missing");
    }
    runFusedEpilogueCpu(plan, output, add);
    return Status::ok();
}

} // namespace kiln
