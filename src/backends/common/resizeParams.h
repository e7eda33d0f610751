// Backend-neutral logic of IResizeLayer kernels (CPU and CUDA): the node's interpolation attributes and static
// scales, read and range-checked once, and the coordinate mapping and cubic weights both backends compute with
// (host and device inline functions).
#pragma once

#include "core/hostDevice.h"
#include "backends/kernel.h"

#include <vector>

namespace kiln
{

//! How a resize interpolates (trivially copyable).
struct ResizeParams
{
    nvinfer1::InterpolationMode mode{nvinfer1::InterpolationMode::kNEAREST};
    nvinfer1::ResizeCoordinateTransformation transform{nvinfer1::ResizeCoordinateTransformation::kASYMMETRIC};
    nvinfer1::ResizeSelector selector{nvinfer1::ResizeSelector::kFORMULA};
    nvinfer1::ResizeRoundMode rounding{nvinfer1::ResizeRoundMode::kFLOOR};
    double cubicA{-0.75};
    bool excludeOutside{false};
};

//! The node's attributes: the interpolation and the static scales (empty when the node has none).
struct ResizeAttrs
{
    ResizeParams params;
    std::vector<double> scales;
};

//! Reads "mode", "coord_transform", "selector", "nearest_rounding", "cubic_coeff", "exclude_outside" and the
//! optional "scales" of the node of `setup`.
StatusOr<ResizeAttrs> readResizeAttrs(KernelSetup const& setup);

//! i clamped to [0, n - 1].
KILN_HOST_DEVICE inline int64_t resizeClampIndex(int64_t i, int64_t n)
{
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

//! Cubic convolution weight of distance t with coefficient a (ONNX's cubic_coeff_a).
KILN_HOST_DEVICE inline double resizeCubicWeight(double t, double a)
{
    t = t < 0.0 ? -t : t;
    if (t <= 1.0)
    {
        return ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0;
    }
    if (t < 2.0)
    {
        return ((a * t - 5.0 * a) * t + 8.0 * a) * t - 4.0 * a;
    }
    return 0.0;
}

//! Input coordinate of output coordinate `o` along a dimension (inLen -> outLen); `scale` > 0 when given.
//! P: anything with `selector` and `transform` members (ResizeParams, or a backend's kernel arguments).
template <typename P>
KILN_HOST_DEVICE inline double resizeSourceCoordinate(
    P const& p, int64_t o, int64_t inLen, int64_t outLen, double scale)
{
    if (outLen == 1 && p.selector == nvinfer1::ResizeSelector::kUPPER)
    {
        return 0.0;
    }
    double const x = static_cast<double>(o);
    switch (p.transform)
    {
    case nvinfer1::ResizeCoordinateTransformation::kALIGN_CORNERS:
    {
        // ONNX: the resized length is in * scale (not rounded) when the size came from scales.
        double const resized = scale > 0.0 ? static_cast<double>(inLen) * scale : static_cast<double>(outLen);
        return resized == 1.0 ? 0.0 : x * static_cast<double>(inLen - 1) / (resized - 1.0);
    }
    case nvinfer1::ResizeCoordinateTransformation::kHALF_PIXEL:
        return scale > 0.0 ? (x + 0.5) / scale - 0.5
                           : (x + 0.5) * static_cast<double>(inLen) / static_cast<double>(outLen) - 0.5;
    case nvinfer1::ResizeCoordinateTransformation::kASYMMETRIC:
    default: return scale > 0.0 ? x / scale : x * static_cast<double>(inLen) / static_cast<double>(outLen);
    }
}

} // namespace kiln
