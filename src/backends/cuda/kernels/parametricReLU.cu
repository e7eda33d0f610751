// CUDA kernel of IParametricReLULayer: y = x >= 0 ? x : slope * x, the slope broadcast to the input, computed in
// float as the CPU reference (backends/cpu/kernels/parametricReLU.cpp).
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

__global__ void parametricReLUKernel(IndexMap map, int64_t n, void const* x, DataType tx, void const* s, DataType ts,
    void* out, DataType to)
{
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        int64_t off[kMAX_OPERANDS];
        mapOffsets(map, i, off);
        float const v = dev::loadFloat(x, tx, off[0]);
        float const slope = dev::loadFloat(s, ts, off[1]);
        dev::storeFloat(out, to, i, v >= 0.F ? v : slope * v);
    }
}

//! create: the types; reshape: the shape checks and the broadcast map of input and slope; run: one launch.
class ParametricReLUCudaKernel final : public Kernel
{
public:
    explicit ParametricReLUCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_RETURN_IF_ERROR(ew::checkViews(mSetup, v.inputs, v.outputs, 2, 1));
        TensorView const& out = outputs[0];
        KILN_RETURN_IF_ERROR(ew::checkSameDims(mSetup, inputs[0].dims, out.dims, "input and output"));
        auto map = makeBroadcastMap(out.dims, {inputs[0].dims, inputs[1].dims});
        if (!map.isOk())
        {
            return map.status().withContext(nodeLabel(mSetup, "ParametricReLU"));
        }
        mMap = *map;
        mVolume = out.volume();
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mVolume <= 0)
        {
            return mVolume == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "ParametricReLU"));
        }
        TensorView const& in = inputs[0];
        TensorView const& slope = inputs[1];
        TensorView const& out = outputs[0];
        parametricReLUKernel<<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(mMap, mVolume, in.data, in.type, slope.data,
            slope.type, out.data, out.type);
        return launchStatus("ParametricReLU kernel");
    }

private:
    KernelSetup mSetup;
    IndexMap mMap;
    int64_t mVolume{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createParametricReLUCudaKernel(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 2, 1, "ParametricReLU"));
    for (DataType t : setup.inputTypes)
    {
        if (!ew::isFloatKernelType(t))
        {
            return invalidArgument(nodeLabel(setup, "ParametricReLU") + ": unsupported input type " + dataTypeName(t));
        }
    }
    if (!ew::isKernelType(setup.outputTypes[0]))
    {
        return invalidArgument(nodeLabel(setup, "ParametricReLU") + ": unsupported output type "
            + dataTypeName(setup.outputTypes[0]));
    }
    return std::unique_ptr<Kernel>(std::make_unique<ParametricReLUCudaKernel>(setup));
}

} // namespace kiln::cuda
