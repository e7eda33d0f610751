// Backend-neutral host-side logic of ISqueezeLayer / IUnsqueezeLayer kernels (CPU and CUDA): both copy the bytes
// of input 0 into the output; this checks the tensors and gives the byte count.
#pragma once

#include "backends/kernel.h"

#include <cstdint>
#include <vector>

namespace kiln
{

//! Checks that the output holds the input's elements in the input's type; returns the bytes to copy.
StatusOr<int64_t> squeezeCopyBytes(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

//! squeezeCopyBytes at reshape: the shapes and types only (data not looked at).
StatusOr<int64_t> squeezeShapeBytes(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

} // namespace kiln
