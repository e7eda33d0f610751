// Backend-neutral host-side logic of ICumulativeLayer kernels, shared by the CPU kernel
// (backends/cpu/kernels/cumulative.cpp) and the CUDA kernel (backends/cuda/kernels/cumulative.cu).
#include "backends/common/cumulativeParams.h"
#include "core/dataType.h"

namespace kiln
{
using nvinfer1::CumulativeOperation;
using nvinfer1::DataType;

Status cumulativeError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (Cumulative): " + message);
}

StatusOr<CumulativeParams> readCumulativeParams(KernelSetup const& setup)
{
    Attributes const& attrs = setup.node->attrs;
    if (attrs.getInt("operation", -1) != static_cast<int64_t>(CumulativeOperation::kSUM))
    {
        return cumulativeError(setup, "invalid operation " + std::to_string(attrs.getInt("operation", -1)));
    }
    CumulativeParams p;
    p.exclusive = attrs.getInt("exclusive") != 0;
    p.reverse = attrs.getInt("reverse") != 0;
    return p;
}

Status checkCumulativeAxisView(KernelSetup const& setup, TensorView const& axisView)
{
    if (axisView.volume() != 1 || (axisView.type != DataType::kINT32 && axisView.type != DataType::kINT64))
    {
        return cumulativeError(setup, "axis (input 1) must be one INT32/INT64 value");
    }
    return Status::ok();
}

Status cumulativeShapes(KernelSetup const& setup, CumulativeParams& p, int64_t axis,
    std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 2 || outputs.size() != 1)
    {
        return cumulativeError(setup, "expects data and axis inputs and one output");
    }
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
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
    for (int32_t d = 0; d < rank; ++d)
    {
        if (out.dims.d[d] != in.dims.d[d])
        {
            return cumulativeError(setup, "output shape does not match the input in dimension " + std::to_string(d));
        }
    }
    static_cast<AxisSplit&>(p) = splitAtAxis(in.dims, static_cast<int32_t>(axis));
    return Status::ok();
}

StatusOr<CumulativeParams> makeCumulativeParams(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, bool hostData)
{
    if (inputs.size() != 2 || outputs.size() != 1 || !inputs[0].present() || !outputs[0].present())
    {
        return cumulativeError(setup, "expects data and axis inputs and one output");
    }
    KILN_ASSIGN_OR_RETURN(CumulativeParams p, readCumulativeParams(setup));
    TensorView const& axisView = inputs[1];
    KILN_RETURN_IF_ERROR(checkCumulativeAxisView(setup, axisView));
    if (hostData && axisView.data == nullptr && axisView.values == nullptr)
    {
        return cumulativeError(setup, "axis (input 1) must be one INT32/INT64 value");
    }
    if (!hostData && axisView.values == nullptr)
    {
        return unsupported("layer '" + setup.node->name
            + "' (Cumulative): the axis (input 1) has no host value; not supported on the CUDA backend yet");
    }
    int64_t const axis = hostData && axisView.data != nullptr ? loadInt(axisView.data, axisView.type, 0)
                                                              : axisView.values[0];
    KILN_RETURN_IF_ERROR(cumulativeShapes(setup, p, axis, inputs, outputs));
    return p;
}

} // namespace kiln
