// Backend-neutral host-side logic of IScaleLayer kernels, shared by the CPU kernel (backends/cpu/kernels/scale.cpp)
// and the CUDA kernel (backends/cuda/kernels/scale.cu).
#include "backends/common/scaleParams.h"
#include "backends/common/elementWiseChecks.h"
#include "core/dataType.h"

#include <string>

namespace kiln
{
using nvinfer1::ScaleMode;

namespace
{

//! The shape a coefficient tensor broadcasts from, for an input of `dims`.
nvinfer1::Dims coefficientDims(nvinfer1::Dims const& dims, ScaleMode mode, int32_t axis)
{
    nvinfer1::Dims d = ew::onesLike(dims);
    if (mode == ScaleMode::kCHANNEL)
    {
        d.d[axis] = dims.d[axis];
    }
    else if (mode == ScaleMode::kELEMENTWISE)
    {
        for (int32_t i = axis; i < dims.nbDims; ++i)
        {
            d.d[i] = dims.d[i];
        }
    }
    return d;
}

} // namespace

Status checkScaleSetup(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 1, 1, "Scale"));
    KILN_ASSIGN_OR_RETURN(int64_t const mode, setup.node->attrs.requireInt("mode"));
    KILN_ASSIGN_OR_RETURN(int64_t const axis, setup.node->attrs.requireInt("channelAxis"));
    if (mode < 0 || mode >= nvinfer1::EnumMax<ScaleMode>())
    {
        return invalidArgument("Scale node '" + setup.node->name + "': invalid mode " + std::to_string(mode));
    }
    if (axis < 0 || axis >= nvinfer1::Dims::MAX_DIMS)
    {
        return invalidArgument("Scale node '" + setup.node->name + "': invalid channel axis " + std::to_string(axis));
    }
    if (setup.weights.size() != 3)
    {
        return invalidArgument("Scale node '" + setup.node->name + "': expected 3 weights slots, got "
            + std::to_string(setup.weights.size()));
    }
    for (WeightsView const& w : setup.weights)
    {
        if (w.present() && (w.data == nullptr || !ew::isFloatKernelType(w.type)))
        {
            return invalidArgument("Scale node '" + setup.node->name + "': invalid weights (type "
                + dataTypeName(w.type) + ", count " + std::to_string(w.count) + ")");
        }
    }
    if (!ew::isFloatKernelType(setup.inputTypes[0]) || !ew::isKernelType(setup.outputTypes[0]))
    {
        return invalidArgument("Scale node '" + setup.node->name + "': unsupported types "
            + dataTypeName(setup.inputTypes[0]) + " -> " + dataTypeName(setup.outputTypes[0]));
    }
    return Status::ok();
}

namespace
{
ScaleParams scaleAttributes(Attributes const& attrs)
{
    ScaleParams p;
    p.mode = static_cast<ScaleMode>(attrs.getInt("mode"));
    p.axis = static_cast<int32_t>(attrs.getInt("channelAxis"));
    return p;
}
} // namespace

StatusOr<ScaleParams> readScaleParams(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(checkScaleSetup(setup));
    return scaleAttributes(setup.node->attrs);
}

Status scaleShapes(KernelSetup const& setup, ScaleParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs)
{
    KILN_RETURN_IF_ERROR(ew::checkViewCounts(setup, inputs, outputs, 1, 1));
    TensorView const& in = inputs[0];
    KILN_RETURN_IF_ERROR(ew::checkSameDims(setup, in.dims, outputs[0].dims, "input and output"));
    if (p.mode != ScaleMode::kUNIFORM && (p.axis < 0 || p.axis >= in.dims.nbDims))
    {
        return invalidArgument("Scale node '" + setup.node->name + "': channel axis " + std::to_string(p.axis)
            + " is out of range for input dimensions " + ew::dimsToString(in.dims));
    }
    p.coeffDims = coefficientDims(in.dims, p.mode, p.axis);
    p.coeffCount = 1;
    for (int32_t i = 0; i < p.coeffDims.nbDims; ++i)
    {
        p.coeffCount *= p.coeffDims.d[i];
    }
    for (size_t s = 0; s < 3 && s < setup.weights.size(); ++s)
    {
        WeightsView const& w = setup.weights[s];
        if (w.present() && w.count != p.coeffCount && in.volume() != 0)
        {
            return invalidArgument("Scale node '" + setup.node->name + "': weights slot " + std::to_string(s)
                + " has " + std::to_string(w.count) + " values, expected " + std::to_string(p.coeffCount)
                + " for input dimensions " + ew::dimsToString(in.dims));
        }
    }
    return Status::ok();
}

StatusOr<ScaleParams> makeScaleParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_RETURN_IF_ERROR(ew::checkViews(setup, inputs, outputs, 1, 1));
    ScaleParams p = scaleAttributes(setup.node->attrs);
    KILN_RETURN_IF_ERROR(scaleShapes(setup, p, inputs, outputs));
    return p;
}

} // namespace kiln
