// planOneDnnEpilogue: maps a fused epilogue onto oneDNN post-ops (see oneDnnEpilogue.h). oneDNN 2.x and 3.x differ
// in append_eltwise (2.x takes a leading scale); both are handled here, so the kernels do not depend on the version.
#include "backends/cpu/kernels/oneDnnEpilogue.h"

#include <atomic>
#include <string>

namespace kiln
{

namespace
{
std::atomic<uint64_t> gPostOpRuns{0};
} // namespace

uint64_t oneDnnPostOpRunCount()
{
    return gPostOpRuns.load(std::memory_order_relaxed);
}

void countOneDnnPostOpRun()
{
    gPostOpRuns.fetch_add(1, std::memory_order_relaxed);
}

#if KILN_HAVE_ONEDNN
namespace
{

using nvinfer1::ActivationType;

//! The eltwise algorithm with IActivationLayer's formula for `type`, or undef.
dnnl::algorithm eltwiseFor(ActivationType type)
{
    switch (type)
    {
    case ActivationType::kRELU: return dnnl::algorithm::eltwise_relu;
    // relu with alpha: x > 0 ? x : alpha * x; Kiln's leaky ReLU uses x >= 0, which gives the same value at 0.
    case ActivationType::kLEAKY_RELU: return dnnl::algorithm::eltwise_relu;
    case ActivationType::kSIGMOID: return dnnl::algorithm::eltwise_logistic;
    case ActivationType::kTANH: return dnnl::algorithm::eltwise_tanh;
    // elu: x > 0 ? x : alpha * (exp(x) - 1), Kiln's x >= 0 branch gives the same value at 0.
    case ActivationType::kELU: return dnnl::algorithm::eltwise_elu;
    // clip: oneDNN's eltwise_clip is min(beta, max(alpha, x)), Kiln's max(alpha, min(beta, x)); they agree when
    // alpha <= beta (oneDNN requires it).
    case ActivationType::kCLIP: return dnnl::algorithm::eltwise_clip;
    case ActivationType::kGELU_ERF: return dnnl::algorithm::eltwise_gelu_erf;
    case ActivationType::kGELU_TANH: return dnnl::algorithm::eltwise_gelu_tanh;
    default: break;
    }
    return dnnl::algorithm::undef;
}

void appendEltwise(dnnl::post_ops& ops, dnnl::algorithm alg, float alpha, float beta)
{
#if DNNL_VERSION_MAJOR >= 3
    ops.append_eltwise(alg, alpha, beta);
#else
    ops.append_eltwise(1.F, alg, alpha, beta);
#endif
}

} // namespace

bool oneDnnHasActivation(ActivationType type, float alpha, float beta)
{
    if (type == ActivationType::kCLIP && !(alpha <= beta))
    {
        return false;
    }
    return eltwiseFor(type) != dnnl::algorithm::undef;
}

bool sameOneDnnImpl(dnnl::primitive_desc_base const& fused, dnnl::primitive_desc_base const& plain)
{
    return !isOneDnnReferenceImpl(fused) && std::string(fused.impl_info_str()) == plain.impl_info_str();
}

OneDnnEpiloguePlan unfusedOneDnnEpilogue(FusedEpilogue const& epilogue)
{
    OneDnnEpiloguePlan plan;
    plan.remainder = epilogue;
    return plan;
}

OneDnnEpiloguePlan planOneDnnEpilogue(FusedEpilogue const& epilogue, std::vector<int64_t> const& outDims,
    TensorView const* add, bool allowSum, TensorView const* residual)
{
    OneDnnEpiloguePlan plan = unfusedOneDnnEpilogue(epilogue);
    if (epilogue.empty())
    {
        return plan;
    }
    dnnl::post_ops ops;
    if (epilogue.hasAdd)
    {
        dnnl::memory::data_type const dt = add != nullptr ? oneDnnType(add->type) : dnnl::memory::data_type::undef;
        int32_t const rank = static_cast<int32_t>(outDims.size());
        if (dt == dnnl::memory::data_type::undef || add->dims.nbDims > rank)
        {
            return plan;
        }
        // The added tensor's dims left-padded with 1s to the output's rank, with its own (row-major) strides.
        std::vector<int64_t> dims(static_cast<size_t>(rank - add->dims.nbDims), 1);
        for (int32_t i = 0; i < add->dims.nbDims; ++i)
        {
            dims.push_back(add->dims.d[i]);
        }
        std::vector<int64_t> const strides = rowMajorStrides(dims.data(), rank);
        plan.addDesc = dnnl::memory::desc(toDnnlDims(dims), dt, toDnnlDims(strides));
        if (dims == outDims && allowSum)
        {
            plan.add = OneDnnAdd::kSUM;
            ops.append_sum(1.F);
        }
        else
        {
            plan.add = OneDnnAdd::kBINARY;
            ops.append_binary(dnnl::algorithm::binary_add, plan.addDesc);
        }
        plan.remainder.hasAdd = false;
    }
    if (epilogue.hasResidual && plan.add == OneDnnAdd::kBINARY)
    {
        dnnl::memory::data_type const dt =
            residual != nullptr ? oneDnnType(residual->type) : dnnl::memory::data_type::undef;
        if (dt != dnnl::memory::data_type::undef)
        {
            plan.residualDesc = dnnl::memory::desc(toDnnlDims(outDims), dt,
                toDnnlDims(rowMajorStrides(outDims.data(), static_cast<int32_t>(outDims.size()))));
            ops.append_binary(dnnl::algorithm::binary_add, plan.residualDesc);
            plan.residual = true;
            plan.remainder.hasResidual = false;
        }
    }
    if (!plan.remainder.hasResidual && epilogue.hasActivation
        && oneDnnHasActivation(epilogue.activation, epilogue.alpha, epilogue.beta))
    {
        // Only leaky ReLU, ELU and clip read alpha/beta; the other algorithms get zeros (ReLU's alpha is its slope).
        bool const parameterised = epilogue.activation == nvinfer1::ActivationType::kLEAKY_RELU
            || epilogue.activation == nvinfer1::ActivationType::kELU
            || epilogue.activation == nvinfer1::ActivationType::kCLIP;
        appendEltwise(ops, eltwiseFor(epilogue.activation), parameterised ? epilogue.alpha : 0.F,
            parameterised ? epilogue.beta : 0.F);
        plan.activation = true;
        plan.remainder.hasActivation = false;
    }
    plan.attr.set_post_ops(ops);
    return plan;
}
#endif

} // namespace kiln
