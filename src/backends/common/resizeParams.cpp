// Backend-neutral host-side logic of IResizeLayer kernels: attribute reading shared by the CPU kernel
// (backends/cpu/kernels/resize.cpp) and the CUDA kernel (backends/cuda/kernels/resize.cu).
#include "backends/common/resizeParams.h"

namespace kiln
{
using nvinfer1::InterpolationMode;
using nvinfer1::ResizeCoordinateTransformation;
using nvinfer1::ResizeRoundMode;
using nvinfer1::ResizeSelector;

StatusOr<ResizeAttrs> readResizeAttrs(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("resize: no plan node");
    }
    Attributes const& attrs = setup.node->attrs;
    ResizeAttrs r;
    ResizeParams& p = r.params;
    KILN_ASSIGN_OR_RETURN(int64_t const mode, attrs.requireInt("mode"));
    KILN_ASSIGN_OR_RETURN(int64_t const transform, attrs.requireInt("coord_transform"));
    KILN_ASSIGN_OR_RETURN(int64_t const selector, attrs.requireInt("selector"));
    KILN_ASSIGN_OR_RETURN(int64_t const rounding, attrs.requireInt("nearest_rounding"));
    KILN_ASSIGN_OR_RETURN(p.cubicA, attrs.requireFloat("cubic_coeff"));
    KILN_ASSIGN_OR_RETURN(int64_t const exclude, attrs.requireInt("exclude_outside"));
    if (mode < 0 || mode >= nvinfer1::EnumMax<InterpolationMode>() || transform < 0
        || transform >= nvinfer1::EnumMax<ResizeCoordinateTransformation>() || selector < 0
        || selector >= nvinfer1::EnumMax<ResizeSelector>() || rounding < 0
        || rounding >= nvinfer1::EnumMax<ResizeRoundMode>())
    {
        return invalidArgument("resize: an enumeration attribute is out of range");
    }
    p.mode = static_cast<InterpolationMode>(mode);
    p.transform = static_cast<ResizeCoordinateTransformation>(transform);
    p.selector = static_cast<ResizeSelector>(selector);
    p.rounding = static_cast<ResizeRoundMode>(rounding);
    p.excludeOutside = exclude != 0;
    if (attrs.has("scales"))
    {
        r.scales = attrs.getFloats("scales");
    }
    return r;
}

} // namespace kiln
