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

Status enqueueParametricReLU(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx)
{
    KILN_RETURN_IF_ERROR(ew::checkViews(setup, inputs, outputs, 2, 1));
    TensorView const& in = inputs[0];
    TensorView const& slope = inputs[1];
    TensorView const& out = outputs[0];
    KILN_RETURN_IF_ERROR(ew::checkSameDims(setup, in.dims, out.dims, "input and output"));
    auto map = makeBroadcastMap(out.dims, {in.dims, slope.dims});
    if (!map.isOk())
    {
        return map.status().withContext(nodeLabel(setup, "ParametricReLU"));
    }
    int64_t const n = out.volume();
    if (n == 0)
    {
        return Status::ok();
    }
    parametricReLUKernel<<<gridFor(n), kBLOCK, 0, ctx.stream>>>(*map, n, in.data, in.type, slope.data, slope.type,
        out.data, out.type);
    return launchStatus("ParametricReLU kernel");
}

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createParametricReLUCudaKernel(KernelSetup const& setup)
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
    return makeCudaFunctionKernel(setup, enqueueParametricReLU);
}

} // namespace kiln::cuda
