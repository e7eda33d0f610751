// CUDA kernel of IActivationLayer, as the CPU reference (backends/cpu/kernels/activation.cpp): computed in float
// (kRELU on INT32/INT64 exactly in int64), with alpha and beta as TensorRT defines them.
#include "backends/common/activationParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/activationMath.cuh"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;

namespace
{
using Act = ActivationType;

template <typename C>
__global__ void activationKernel(Act type, float alpha, float beta, int64_t n, void const* in, DataType ti,
    void* out, DataType to)
{
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        C const v = dev::load<C>(in, ti, i);
        if constexpr (sizeof(C) == 8)
        {
            dev::store<C>(out, to, i, v > 0 ? v : 0); // integer inputs: only kRELU passes kernel creation
        }
        else
        {
            dev::store<C>(out, to, i, applyActivation(type, alpha, beta, v));
        }
    }
}

//! create: the node's checks (checkActivationSetup); reshape: the shape checks and the attributes
//! (makeActivationParams), the element count and the compute type; run: one launch.
class ActivationCudaKernel final : public Kernel
{
public:
    explicit ActivationCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(mParams, makeActivationParams(mSetup, v.inputs, v.outputs));
        mIntegral = !ew::isFloatKernelType(inputs[0].type);
        mVolume = outputs[0].volume();
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mVolume <= 0)
        {
            return mVolume == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "Activation"));
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        if (mIntegral)
        {
            activationKernel<int64_t><<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(mParams.type, mParams.alpha,
                mParams.beta, mVolume, in.data, in.type, out.data, out.type);
        }
        else
        {
            activationKernel<float><<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(mParams.type, mParams.alpha,
                mParams.beta, mVolume, in.data, in.type, out.data, out.type);
        }
        return launchStatus("Activation kernel");
    }

private:
    KernelSetup mSetup;
    bool mIntegral{false};
    ActivationParams mParams;
    int64_t mVolume{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createActivationCudaKernel(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(checkActivationSetup(setup));
    return std::unique_ptr<Kernel>(std::make_unique<ActivationCudaKernel>(setup));
}

} // namespace kiln::cuda
