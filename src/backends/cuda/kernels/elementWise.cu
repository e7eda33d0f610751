// CUDA kernel of IElementWiseLayer: binary operations with broadcasting, exactly as the CPU reference
// (backends/cpu/kernels/elementWise.cpp): floating-point operands are computed in float, integer and BOOL operands
// in int64 (wrapping; integer division by zero gives 0; kDIV truncates, kFLOOR_DIV rounds toward -infinity).
#include "core/intArithmetic.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;

namespace
{
using Op = ElementWiseOperation;

__device__ __forceinline__ float applyFloat(Op op, float a, float b)
{
    switch (op)
    {
    case Op::kSUM: return a + b;
    case Op::kPROD: return a * b;
    case Op::kMAX: return fmaxf(a, b);
    case Op::kMIN: return fminf(a, b);
    case Op::kSUB: return a - b;
    case Op::kDIV: return a / b;
    case Op::kPOW: return powf(a, b);
    case Op::kFLOOR_DIV: return floorf(a / b);
    case Op::kAND: return (a != 0.F && b != 0.F) ? 1.F : 0.F;
    case Op::kOR: return (a != 0.F || b != 0.F) ? 1.F : 0.F;
    case Op::kXOR: return ((a != 0.F) != (b != 0.F)) ? 1.F : 0.F;
    case Op::kEQUAL: return a == b ? 1.F : 0.F;
    case Op::kGREATER: return a > b ? 1.F : 0.F;
    case Op::kLESS: return a < b ? 1.F : 0.F;
    default: return 0.F;
    }
}

__device__ __forceinline__ int64_t applyInt(Op op, int64_t a, int64_t b)
{
    switch (op)
    {
    case Op::kSUM: return wrapAdd(a, b);
    case Op::kPROD: return wrapMul(a, b);
    case Op::kMAX: return a > b ? a : b;
    case Op::kMIN: return a < b ? a : b;
    case Op::kSUB: return wrapSub(a, b);
    case Op::kDIV: return truncDiv(a, b);
    case Op::kPOW: return intPow(a, b);
    case Op::kFLOOR_DIV: return floorDiv(a, b);
    case Op::kAND: return (a != 0 && b != 0) ? 1 : 0;
    case Op::kOR: return (a != 0 || b != 0) ? 1 : 0;
    case Op::kXOR: return ((a != 0) != (b != 0)) ? 1 : 0;
    case Op::kEQUAL: return a == b ? 1 : 0;
    case Op::kGREATER: return a > b ? 1 : 0;
    case Op::kLESS: return a < b ? 1 : 0;
    default: return 0;
    }
}

template <typename C>
__global__ void elementWiseKernel(Op op, IndexMap map, int64_t n, void const* a, DataType ta, void const* b,
    DataType tb, void* out, DataType to)
{
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        int64_t off[kMAX_OPERANDS];
        mapOffsets(map, i, off);
        C const x = dev::load<C>(a, ta, off[0]);
        C const y = dev::load<C>(b, tb, off[1]);
        if constexpr (sizeof(C) == 8)
        {
            dev::store<C>(out, to, i, applyInt(op, x, y));
        }
        else
        {
            dev::store<C>(out, to, i, applyFloat(op, x, y));
        }
    }
}

//! create: the operation and the types; reshape: the broadcast map, the element count and the compute type; run:
//! one launch.
class ElementWiseCudaKernel final : public Kernel
{
public:
    ElementWiseCudaKernel(KernelSetup const& setup, Op op)
        : mSetup(setup)
        , mOp(op)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_RETURN_IF_ERROR(ew::checkViews(mSetup, v.inputs, v.outputs, 2, 1));
        auto map = makeBroadcastMap(outputs[0].dims, {inputs[0].dims, inputs[1].dims});
        if (!map.isOk())
        {
            return map.status().withContext(nodeLabel(mSetup, "ElementWise"));
        }
        mMap = *map;
        mFloat = ew::isFloatKernelType(inputs[0].type) || ew::isFloatKernelType(inputs[1].type);
        mVolume = outputs[0].volume();
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mVolume <= 0)
        {
            return mVolume == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "ElementWise"));
        }
        TensorView const& a = inputs[0];
        TensorView const& b = inputs[1];
        TensorView const& out = outputs[0];
        if (mFloat)
        {
            elementWiseKernel<float><<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(mOp, mMap, mVolume, a.data, a.type,
                b.data, b.type, out.data, out.type);
        }
        else
        {
            elementWiseKernel<int64_t><<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(mOp, mMap, mVolume, a.data,
                a.type, b.data, b.type, out.data, out.type);
        }
        return launchStatus("ElementWise kernel");
    }

private:
    KernelSetup mSetup;
    Op mOp;
    IndexMap mMap;
    bool mFloat{true};
    int64_t mVolume{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createPointwiseProgramCudaKernel(KernelSetup const& setup); // pointwiseProgram.cu

StatusOr<std::unique_ptr<Kernel>> createElementWiseCudaKernel(KernelSetup const& setup)
{
    if (setup.node != nullptr && setup.node->attrs.has("pw.program"))
    {
        return createPointwiseProgramCudaKernel(setup); // a fused chain (fusion pass)
    }
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 2, 1, "ElementWise"));
    KILN_ASSIGN_OR_RETURN(int64_t const op, setup.node->attrs.requireInt("operation"));
    if (op < 0 || op >= nvinfer1::EnumMax<ElementWiseOperation>())
    {
        return invalidArgument(nodeLabel(setup, "ElementWise") + ": invalid operation " + std::to_string(op));
    }
    for (DataType t : setup.inputTypes)
    {
        if (!ew::isKernelType(t))
        {
            return invalidArgument(nodeLabel(setup, "ElementWise") + ": unsupported input type " + dataTypeName(t));
        }
    }
    if (!ew::isKernelType(setup.outputTypes[0]))
    {
        return invalidArgument(nodeLabel(setup, "ElementWise") + ": unsupported output type "
            + dataTypeName(setup.outputTypes[0]));
    }
    return std::unique_ptr<Kernel>(std::make_unique<ElementWiseCudaKernel>(setup, static_cast<Op>(op)));
}

} // namespace kiln::cuda
