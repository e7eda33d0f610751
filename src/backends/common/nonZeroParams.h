// Backend-neutral host-side logic of INonZeroLayer kernels (CPU and CUDA): the checks of a run. Output 1 is the
// layer's size tensor (the count), which the runtime reads after the node to bind the data-dependent dimension;
// the indices output's dims may show that dimension as -1 (unknown) at run time, so kernels never rely on it.
#pragma once

#include "backends/kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

//! A kFAILED_EXECUTION status "layer '<name>' (NonZero): <message>".
Status nonZeroError(KernelSetup const& setup, std::string const& message);

//! Checks one input, the INT32/INT64 [rank, count] indices output and the count output.
Status checkNonZeroViews(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs);

//! The shape and type checks of checkNonZeroViews (data not looked at: at reshape).
Status checkNonZeroShapes(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs);

} // namespace kiln
