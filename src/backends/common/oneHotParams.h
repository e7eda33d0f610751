// Backend-neutral host-side logic of IOneHotLayer kernels (CPU and CUDA): the checks of a run and its geometry
// (outer x depth x inner output elements around the new axis).
#pragma once

#include "backends/kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

struct OneHotParams
{
    int64_t outer{1};
    int64_t depth{0}; //!< the output's extent along the axis
    int64_t inner{1};
    int64_t esize{0}; //!< bytes per element of values and output
};

//! A kFAILED_EXECUTION status "layer '<name>' (OneHot): <message>".
Status oneHotError(KernelSetup const& setup, std::string const& message);

StatusOr<OneHotParams> makeOneHotParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

//! The node's "axis" as stored (negative counts from the end), at kernel creation.
int64_t readOneHotAxis(KernelSetup const& setup);

//! The shape and type checks of makeOneHotParams around `axis` (data not looked at: at reshape).
StatusOr<OneHotParams> oneHotShapes(KernelSetup const& setup, int64_t axis, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs);

} // namespace kiln
