// CUDA kernel of IUnaryLayer, as the CPU reference (backends/cpu/kernels/unary.cpp): floating-point inputs in
// float; integer kABS/kNEG/kSIGN exactly in int64 (wrapping); kNOT on BOOL; kROUND rounds half to even;
// kISINF/kISNAN write BOOL.
#include "backends/common/unaryParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;
using nvinfer1::UnaryOperation;

namespace
{
using Op = UnaryOperation;

__device__ __forceinline__ float applyFloat(Op op, float v)
{
    switch (op)
    {
    case Op::kEXP: return expf(v);
    case Op::kLOG: return logf(v);
    case Op::kSQRT: return sqrtf(v);
    case Op::kRECIP: return 1.F / v;
    case Op::kABS: return fabsf(v);
    case Op::kNEG: return -v;
    case Op::kSIN: return sinf(v);
    case Op::kCOS: return cosf(v);
    case Op::kTAN: return tanf(v);
    case Op::kSINH: return sinhf(v);
    case Op::kCOSH: return coshf(v);
    case Op::kASIN: return asinf(v);
    case Op::kACOS: return acosf(v);
    case Op::kATAN: return atanf(v);
    case Op::kASINH: return asinhf(v);
    case Op::kACOSH: return acoshf(v);
    case Op::kATANH: return atanhf(v);
    case Op::kCEIL: return ceilf(v);
    case Op::kFLOOR: return floorf(v);
    case Op::kERF: return erff(v);
    case Op::kNOT: return v == 0.F ? 1.F : 0.F;
    case Op::kSIGN: return v != v ? v : (v > 0.F ? 1.F : (v < 0.F ? -1.F : 0.F));
    case Op::kROUND: return rintf(v); // half to even
    case Op::kISINF: return isinf(v) ? 1.F : 0.F;
    case Op::kISNAN: return v != v ? 1.F : 0.F;
    default: return v;
    }
}

__device__ __forceinline__ int64_t applyInt(Op op, int64_t v)
{
    int64_t const neg = static_cast<int64_t>(0ULL - static_cast<uint64_t>(v));
    switch (op)
    {
    case Op::kABS: return v < 0 ? neg : v;
    case Op::kNEG: return neg;
    case Op::kSIGN: return v > 0 ? 1 : (v < 0 ? -1 : 0);
    case Op::kNOT: return v == 0 ? 1 : 0;
    case Op::kISINF:
    case Op::kISNAN: return 0;
    default: return v;
    }
}

template <typename C>
__global__ void unaryKernel(Op op, int64_t n, void const* in, DataType ti, void* out, DataType to)
{
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        C const v = dev::load<C>(in, ti, i);
        if constexpr (sizeof(C) == 8)
        {
            dev::store<C>(out, to, i, applyInt(op, v));
        }
        else
        {
            dev::store<C>(out, to, i, applyFloat(op, v));
        }
    }
}

//! create: the operation and the types; reshape: the shape checks (checkUnaryViews), the element count and the
//! compute type; run: one launch.
class UnaryCudaKernel final : public Kernel
{
public:
    UnaryCudaKernel(KernelSetup const& setup, Op op)
        : mSetup(setup)
        , mOp(op)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_RETURN_IF_ERROR(checkUnaryViews(mSetup, v.inputs, v.outputs));
        mIntegral = !ew::isFloatKernelType(inputs[0].type);
        mVolume = outputs[0].volume();
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mVolume <= 0)
        {
            return mVolume == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "Unary"));
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        if (mIntegral)
        {
            unaryKernel<int64_t><<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(mOp, mVolume, in.data, in.type,
                out.data, out.type);
        }
        else
        {
            unaryKernel<float><<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(mOp, mVolume, in.data, in.type,
                out.data, out.type);
        }
        return launchStatus("Unary kernel");
    }

private:
    KernelSetup mSetup;
    Op mOp;
    bool mIntegral{false};
    int64_t mVolume{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createUnaryCudaKernel(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 1, 1, "Unary"));
    KILN_ASSIGN_OR_RETURN(int64_t const op, setup.node->attrs.requireInt("operation"));
    if (op < 0 || op >= nvinfer1::EnumMax<UnaryOperation>())
    {
        return invalidArgument(nodeLabel(setup, "Unary") + ": invalid operation " + std::to_string(op));
    }
    if (!ew::isKernelType(setup.inputTypes[0]) || !ew::isKernelType(setup.outputTypes[0]))
    {
        return invalidArgument(nodeLabel(setup, "Unary") + ": unsupported types " + dataTypeName(setup.inputTypes[0])
            + " -> " + dataTypeName(setup.outputTypes[0]));
    }
    return std::unique_ptr<Kernel>(std::make_unique<UnaryCudaKernel>(setup, static_cast<Op>(op)));
}

} // namespace kiln::cuda
