// Backend-neutral host-side logic of ISoftMaxLayer kernels (CPU and CUDA): the axis (from the "axes" one-bit mask,
// default rank - 3 or 0) and the geometry of one run (outer x n x inner), with the validation messages.
#pragma once

#include "core/geometry.h"
#include "backends/kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

//! The input around the softmax axis.
struct SoftMaxParams : AxisSplit
{
};

//! A kFAILED_EXECUTION status "layer '<name>' (SoftMax): <message>".
Status softMaxError(KernelSetup const& setup, std::string const& message);

//! Reads "axes" and checks the input and the output.
StatusOr<SoftMaxParams> makeSoftMaxParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

//! The axis from "axes" for an input of `rank` (default rank - 3, or 0 below rank 3), at kernel creation.
StatusOr<int32_t> readSoftMaxAxis(KernelSetup const& setup, int32_t rank);

//! The shape checks of makeSoftMaxParams around `axis` (data not looked at: at reshape).
StatusOr<SoftMaxParams> softMaxShapes(KernelSetup const& setup, int32_t axis, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs);

} // namespace kiln
