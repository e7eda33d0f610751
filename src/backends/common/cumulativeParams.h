// Backend-neutral host-side logic of ICumulativeLayer kernels (CPU and CUDA): the operation, the axis (input 1)
// and the geometry of one run (outer x n x inner), with the validation messages.
#pragma once

#include "core/geometry.h"
#include "backends/kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

//! The input around the (non-negative) axis, and the direction.
struct CumulativeParams : AxisSplit
{
    bool exclusive{false};
    bool reverse{false};
};

//! A kFAILED_EXECUTION status "layer '<name>' (Cumulative): <message>".
Status cumulativeError(KernelSetup const& setup, std::string const& message);

//! Reads "operation", "exclusive", "reverse" and the axis input and checks the data input and the output.
//! `hostData`: the axis may be read from the input's (host) data; else only its evaluated value is used and
//! an axis without one is reported as unsupported (CUDA backend).
StatusOr<CumulativeParams> makeCumulativeParams(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, bool hostData);

//! "operation", "exclusive" and "reverse" (at kernel creation).
StatusOr<CumulativeParams> readCumulativeParams(KernelSetup const& setup);

//! The checks of the axis input's shape and type: one INT32/INT64 value (data not looked at).
Status checkCumulativeAxisView(KernelSetup const& setup, TensorView const& axisView);

//! Checks `axis` (the value of input 1, negative counting from the end) and the data input against the output, and
//! fills the split of `p` (data not looked at).
Status cumulativeShapes(KernelSetup const& setup, CumulativeParams& p, int64_t axis,
    std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

} // namespace kiln
