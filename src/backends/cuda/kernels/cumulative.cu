// CUDA kernel of ICumulativeLayer (kSUM) with the CPU reference's semantics (backends/cpu/kernels/cumulative.cpp):
// forward/reverse, inclusive/exclusive prefix sums along the axis given by input 1; floating-point sums accumulate in
// double, integer sums in int64 (INT32 results wrap as the stored type does). The axis must have host values (it is a
// build-time constant shape tensor in every network Kiln builds). One thread per scanned line.
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::CumulativeOperation;
using nvinfer1::DataType;

namespace
{

__global__ void cumulativeKernel(int64_t lines, int64_t n, int64_t inner, bool exclusive, bool reverse, void const* in,
    void* out, DataType t)
{
    bool const isFloat = t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
    for (int64_t line = dev::globalThread(); line < lines; line += dev::gridThreads())
    {
        int64_t const base = (line / inner) * n * inner + line % inner;
        double sumF = 0.0;
        int64_t sumI = 0;
        for (int64_t step = 0; step < n; ++step)
        {
            int64_t const j = reverse ? n - 1 - step : step;
            int64_t const at = base + j * inner;
            if (isFloat)
            {
                double const x = static_cast<double>(dev::loadFloat(in, t, at));
                if (!exclusive)
                {
                    sumF += x;
                }
                dev::storeFloat(out, t, at, static_cast<float>(sumF));
                if (exclusive)
                {
                    sumF += x;
                }
            }
            else
            {
                int64_t const x = dev::loadInt(in, t, at);
                if (!exclusive)
                {
                    sumI = static_cast<int64_t>(static_cast<uint64_t>(sumI) + static_cast<uint64_t>(x));
                }
                dev::storeInt(out, t, at, sumI);
                if (exclusive)
                {
                    sumI = static_cast<int64_t>(static_cast<uint64_t>(sumI) + static_cast<uint64_t>(x));
                }
            }
        }
    }
}

Status cumulativeError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (Cumulative): " + message);
}

Status enqueueCumulative(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx)
{
    if (inputs.size() != 2 || outputs.size() != 1 || !inputs[0].present() || !outputs[0].present())
    {
        return cumulativeError(setup, "expects data and axis inputs and one output");
    }
    TensorView const& in = inputs[0];
    TensorView const& axisView = inputs[1];
    TensorView const& out = outputs[0];
    Attributes const& attrs = setup.node->attrs;
    if (attrs.getInt("operation", -1) != static_cast<int64_t>(CumulativeOperation::kSUM))
    {
        return cumulativeError(setup, "invalid operation " + std::to_string(attrs.getInt("operation", -1)));
    }
    if (axisView.volume() != 1 || (axisView.type != DataType::kINT32 && axisView.type != DataType::kINT64))
    {
        return cumulativeError(setup, "axis (input 1) must be one INT32/INT64 value");
    }
    if (axisView.values == nullptr)
    {
        return unsupported("layer '" + setup.node->name
            + "' (Cumulative): the axis (input 1) has no host value; not supported on the CUDA backend yet");
    }
    int64_t axis = axisView.values[0];
    int32_t const rank = in.dims.nbDims;
    if (axis < -rank || axis >= rank)
    {
        return cumulativeError(setup, "axis " + std::to_string(axis) + " (input 1) is out of range ["
            + std::to_string(-rank) + ", " + std::to_string(rank - 1) + "]");
    }
    if (axis < 0)
    {
        axis += rank;
    }
    if (out.type != in.type || out.dims.nbDims != rank)
    {
        return cumulativeError(setup, "output type or rank does not match the input");
    }
    bool const supported = ew::isFloatKernelType(in.type) || in.type == DataType::kINT32 || in.type == DataType::kINT64;
    if (!supported)
    {
        return cumulativeError(setup, std::string("type ") + dataTypeName(in.type) + " is not supported");
    }
    int64_t outer = 1;
    int64_t inner = 1;
    for (int32_t d = 0; d < rank; ++d)
    {
        if (out.dims.d[d] != in.dims.d[d])
        {
            return cumulativeError(setup, "output shape does not match the input in dimension " + std::to_string(d));
        }
        if (d < axis)
        {
            outer *= in.dims.d[d];
        }
        else if (d > axis)
        {
            inner *= in.dims.d[d];
        }
    }
    int64_t const n = in.dims.d[axis];
    if (outer * inner * n == 0)
    {
        return Status::ok();
    }
    int64_t const lines = outer * inner;
    cumulativeKernel<<<gridFor(lines), kBLOCK, 0, ctx.stream>>>(lines, n, inner, attrs.getInt("exclusive") != 0,
        attrs.getInt("reverse") != 0, in.data, out.data, in.type);
    return launchStatus("Cumulative kernel");
}

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createCumulativeCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Cumulative kernel: no plan node");
    }
    return makeCudaFunctionKernel(setup, enqueueCumulative);
}

} // namespace kiln::cuda
