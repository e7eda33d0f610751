// CUDA kernel of ISelectLayer: output = condition ? then : else, all three inputs broadcast to the output, as the
// CPU reference (backends/cpu/kernels/select.cpp): bit copies when then/else/output types agree, else conversions.
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

//! C = void: bit copy of `size`-byte elements; float / int64_t: converted.
template <typename C>
__global__ void selectKernel(IndexMap map, int64_t n, void const* c, DataType tc, void const* t, DataType tt,
    void const* e, DataType te, void* out, DataType to, int32_t size)
{
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        int64_t off[kMAX_OPERANDS];
        mapOffsets(map, i, off);
        bool const cond = dev::loadInt(c, tc, off[0]) != 0;
        if constexpr (std::is_void_v<C>)
        {
            if (cond)
            {
                dev::copyElement(out, i, t, off[1], size);
            }
            else
            {
                dev::copyElement(out, i, e, off[2], size);
            }
        }
        else
        {
            dev::store<C>(out, to, i, cond ? dev::load<C>(t, tt, off[1]) : dev::load<C>(e, te, off[2]));
        }
    }
}

Status enqueueSelect(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx)
{
    KILN_RETURN_IF_ERROR(ew::checkViews(setup, inputs, outputs, 3, 1));
    TensorView const& c = inputs[0];
    TensorView const& t = inputs[1];
    TensorView const& e = inputs[2];
    TensorView const& out = outputs[0];
    auto map = makeBroadcastMap(out.dims, {c.dims, t.dims, e.dims});
    if (!map.isOk())
    {
        return map.status().withContext(nodeLabel(setup, "Select"));
    }
    int64_t const n = out.volume();
    if (n == 0)
    {
        return Status::ok();
    }
    auto const size = static_cast<int32_t>(elementSize(out.type));
    if (t.type == out.type && e.type == out.type)
    {
        selectKernel<void><<<gridFor(n), kBLOCK, 0, ctx.stream>>>(*map, n, c.data, c.type, t.data, t.type, e.data,
            e.type, out.data, out.type, size);
    }
    else if (ew::isFloatKernelType(t.type) || ew::isFloatKernelType(e.type))
    {
        selectKernel<float><<<gridFor(n), kBLOCK, 0, ctx.stream>>>(*map, n, c.data, c.type, t.data, t.type, e.data,
            e.type, out.data, out.type, size);
    }
    else
    {
        selectKernel<int64_t><<<gridFor(n), kBLOCK, 0, ctx.stream>>>(*map, n, c.data, c.type, t.data, t.type,
            e.data, e.type, out.data, out.type, size);
    }
    return launchStatus("Select kernel");
}

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createSelectCudaKernel(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 3, 1, "Select"));
    for (DataType t : setup.inputTypes)
    {
        if (!ew::isKernelType(t))
        {
            return invalidArgument(nodeLabel(setup, "Select") + ": unsupported input type " + dataTypeName(t));
        }
    }
    if (!ew::isKernelType(setup.outputTypes[0]))
    {
        return invalidArgument(nodeLabel(setup, "Select") + ": unsupported output type "
            + dataTypeName(setup.outputTypes[0]));
    }
    return makeCudaFunctionKernel(setup, enqueueSelect);
}

} // namespace kiln::cuda
