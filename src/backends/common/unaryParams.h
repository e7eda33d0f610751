// Backend-neutral host-side check of the one-input, one-output, same-shape kernels (identity, unary, activation)
// of the CPU and CUDA backends.
#pragma once

#include "backends/kernel.h"

#include <vector>

namespace kiln
{

//! One present input and one present output of the same dimensions (messages name the node).
Status checkUnaryViews(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

//! The reshape-time part of checkUnaryViews: one input and one output of the same dimensions (data not looked at).
Status checkUnaryShapes(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

} // namespace kiln
