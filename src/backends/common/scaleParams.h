// Backend-neutral host-side logic of IScaleLayer kernels (CPU and CUDA): the checks of the node (mode, channel axis,
// weights slots, types) at kernel creation and of one run's tensors, and the coefficient shape, with the
// validation messages.
#pragma once

#include "backends/kernel.h"

#include <cstdint>
#include <vector>

namespace kiln
{

struct ScaleParams
{
    nvinfer1::ScaleMode mode{nvinfer1::ScaleMode::kUNIFORM};
    int32_t axis{0};
    nvinfer1::Dims coeffDims{}; //!< the shape every present coefficient broadcasts from
    int64_t coeffCount{1};      //!< its volume
};

//! Checks the node at kernel creation: one input and output, "mode", "channelAxis", three weights slots of float
//! types, a float input and a kernel-supported output type.
Status checkScaleSetup(KernelSetup const& setup);

//! checkScaleSetup, then "mode" and "channelAxis" (at kernel creation).
StatusOr<ScaleParams> readScaleParams(KernelSetup const& setup);

//! Checks the shapes of one input and output (same dims; data not looked at) against the mode and axis of `p` and
//! derives the coefficient shape; weights whose count differs from it are an error (unless the input is empty).
Status scaleShapes(KernelSetup const& setup, ScaleParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs);

//! Checks one run's input and output against the node and derives the coefficient shape; weights whose count
//! differs from it are an error (unless the input is empty).
StatusOr<ScaleParams> makeScaleParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

} // namespace kiln
