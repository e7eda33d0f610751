// CUDA kernels of IQuantizeLayer and IDequantizeLayer (INT8), with the CPU reference's arithmetic
// (backends/cpu/kernels/quantize.cpp): quantize q = saturate(roundHalfToEven(x / scale)) to [-128, 127], NaN to 0;
// dequantize y = q * scale rounded to the output type. Per-tensor or per-axis FP32/FP16/BF16 scales; a zero point
// must be a constant of the engine and all zero (backends/common/quantizeParams.h). One grid-stride elementwise
// kernel each; the scales are read from device memory at each run (they may be run-time tensors). Unlike the CPU
// kernel, the scales' values are not checked (a zero scale saturates, as x / 0 is infinite).
#include "backends/common/quantizeParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

__global__ void quantizeKernel(
    int64_t volume, int64_t n, int64_t inner, void const* x, DataType xType, void const* scale, DataType scaleType,
    int8_t* q)
{
    for (int64_t i = dev::globalThread(); i < volume; i += dev::gridThreads())
    {
        float v = dev::loadFloat(x, xType, i) / dev::loadFloat(scale, scaleType, (i / inner) % n);
        v = v == v ? v : 0.0F;
        v = fminf(fmaxf(v, -128.0F), 127.0F);
        q[i] = static_cast<int8_t>(__float2int_rn(v));
    }
}

__global__ void dequantizeKernel(
    int64_t volume, int64_t n, int64_t inner, int8_t const* q, void const* scale, DataType scaleType, void* y,
    DataType yType)
{
    for (int64_t i = dev::globalThread(); i < volume; i += dev::gridThreads())
    {
        float const v = static_cast<float>(q[i]) * dev::loadFloat(scale, scaleType, (i / inner) % n);
        dev::storeFloat(y, yType, i, v);
    }
}

//! create: params and types (by the factory); reshape: shape checks and geometry; run: one launch.
class QuantizeCudaKernel final : public Kernel
{
public:
    QuantizeCudaKernel(KernelSetup const& setup, QuantizeParams params)
        : mSetup(setup)
        , mParams(params)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(mGeometry, quantizeGeometry(mSetup, mParams, v.inputs, v.outputs));
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (!mReady)
        {
            return notReshaped(nodeLabel(mSetup, mParams.kind));
        }
        QuantizeGeometry const g = mGeometry;
        if (g.volume == 0)
        {
            return Status::ok();
        }
        TensorView const& scale = inputs[1];
        if (mParams.quantize)
        {
            quantizeKernel<<<gridFor(g.volume), kBLOCK, 0, ctx.stream>>>(g.volume, g.n, g.inner, inputs[0].data,
                inputs[0].type, scale.data, scale.type, static_cast<int8_t*>(outputs[0].data));
        }
        else
        {
            dequantizeKernel<<<gridFor(g.volume), kBLOCK, 0, ctx.stream>>>(g.volume, g.n, g.inner,
                static_cast<int8_t const*>(inputs[0].data), scale.data, scale.type, outputs[0].data,
                outputs[0].type);
        }
        return launchStatus(mParams.quantize ? "quantize kernel" : "dequantize kernel");
    }

private:
    KernelSetup mSetup;
    QuantizeParams mParams;
    QuantizeGeometry mGeometry;
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createQuantizeCudaKernel(KernelSetup const& setup)
{
    KILN_ASSIGN_OR_RETURN(QuantizeParams const p, readQuantizeParams(setup, true, false));
    return std::unique_ptr<Kernel>(std::make_unique<QuantizeCudaKernel>(setup, p));
}

StatusOr<std::unique_ptr<Kernel>> createDequantizeCudaKernel(KernelSetup const& setup)
{
    KILN_ASSIGN_OR_RETURN(QuantizeParams const p, readQuantizeParams(setup, false, false));
    return std::unique_ptr<Kernel>(std::make_unique<QuantizeCudaKernel>(setup, p));
}

} // namespace kiln::cuda
