// CUDA kernel of ICastLayer and IIdentityLayer (one conversion kernel: makeConvertCudaKernel) and the shared
// conversion launcher (launchConvert, also used by constant, reformat and convolution),
// with the CPU reference's conversions (backends/cpu/kernels/cast.cpp): float -> integer truncates toward zero and
// saturates (NaN gives 0); integer -> integer wraps; -> BOOL is value != 0; BOOL reads as 0 or 1.
#include "backends/common/unaryParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

template <typename C>
__global__ void convertKernel(int64_t n, void const* in, DataType ti, void* out, DataType to)
{
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        dev::store<C>(out, to, i, dev::load<C>(in, ti, i));
    }
}

//! create: the node's checks (by the factory); reshape: the shape checks and the element count; run: one
//! conversion (nothing when the builder aliased the output onto an input of its type).
class ConvertCudaKernel final : public Kernel
{
public:
    ConvertCudaKernel(KernelSetup const& setup, char const* kind)
        : mSetup(setup)
        , mKind(kind)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_RETURN_IF_ERROR(checkUnaryViews(mSetup, v.inputs, v.outputs));
        mVolume = outputs[0].volume();
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mVolume < 0)
        {
            return notReshaped(nodeLabel(mSetup, mKind));
        }
        return launchConvert(inputs[0].data, inputs[0].type, outputs[0].data, outputs[0].type, mVolume, ctx.stream);
    }

private:
    KernelSetup mSetup;
    char const* mKind;
    int64_t mVolume{-1};
};

} // namespace

Status launchConvert(void const* src, DataType srcType, void* dst, DataType dstType, int64_t n, cudaStream_t stream)
{
    if (n <= 0)
    {
        return Status::ok();
    }
    if (srcType == dstType)
    {
        if (src != dst)
        {
            KILN_CUDA_CHECK(cudaMemcpyAsync(dst, src, static_cast<size_t>(n * elementSize(srcType)),
                cudaMemcpyDeviceToDevice, stream));
        }
        return Status::ok();
    }
    if (ew::isFloatKernelType(srcType))
    {
        convertKernel<float><<<gridFor(n), kBLOCK, 0, stream>>>(n, src, srcType, dst, dstType);
    }
    else
    {
        convertKernel<int64_t><<<gridFor(n), kBLOCK, 0, stream>>>(n, src, srcType, dst, dstType);
    }
    return launchStatus("convert kernel");
}

std::unique_ptr<Kernel> makeConvertCudaKernel(KernelSetup const& setup, char const* kind)
{
    return std::make_unique<ConvertCudaKernel>(setup, kind);
}

StatusOr<std::unique_ptr<Kernel>> createCastCudaKernel(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 1, 1, "Cast"));
    KILN_ASSIGN_OR_RETURN(int64_t const toType, setup.node->attrs.requireInt("toType"));
    if (!isValidDataType(static_cast<int32_t>(toType)) || !ew::isKernelType(static_cast<DataType>(toType)))
    {
        return invalidArgument(nodeLabel(setup, "Cast") + ": invalid target type " + std::to_string(toType));
    }
    if (!ew::isKernelType(setup.inputTypes[0]) || !ew::isKernelType(setup.outputTypes[0]))
    {
        return invalidArgument(nodeLabel(setup, "Cast") + ": cannot convert " + dataTypeName(setup.inputTypes[0])
            + " to " + dataTypeName(setup.outputTypes[0]));
    }
    return makeConvertCudaKernel(setup, "Cast");
}

} // namespace kiln::cuda
