// Backend-neutral host-side logic of IGridSampleLayer kernels (CPU and CUDA): the checks of a run, the attributes
// and the geometry (input [N, C, H, W], grid [N, Hout, Wout, 2]).
#pragma once

#include "backends/kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

struct GridSampleParams
{
    nvinfer1::InterpolationMode mode{nvinfer1::InterpolationMode::kLINEAR};
    nvinfer1::SampleMode sample{nvinfer1::SampleMode::kFILL};
    bool alignCorners{false};
    int64_t n{0};
    int64_t c{0};
    int64_t h{0};
    int64_t w{0};
    int64_t ho{0};
    int64_t wo{0};
};

//! A kFAILED_EXECUTION status "layer '<name>' (GridSample): <message>".
Status gridSampleError(KernelSetup const& setup, std::string const& message);

StatusOr<GridSampleParams> makeGridSampleParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

//! "interpolationMode", "sampleMode" and "alignCorners" (at kernel creation).
GridSampleParams readGridSampleParams(KernelSetup const& setup);

//! The shape checks of makeGridSampleParams, filling the geometry of `p` (data not looked at: at reshape).
Status gridSampleShapes(KernelSetup const& setup, GridSampleParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs);

} // namespace kiln
