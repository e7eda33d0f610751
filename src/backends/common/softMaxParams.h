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

} // namespace kiln
