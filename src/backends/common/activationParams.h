// Backend-neutral host-side logic of IActivationLayer kernels (CPU and CUDA): the checks of the node at kernel
// creation, its attributes, and the checks of one run, with the validation messages.
#pragma once

#include "backends/kernel.h"

#include <vector>

namespace kiln
{

struct ActivationParams
{
    nvinfer1::ActivationType type{nvinfer1::ActivationType::kRELU};
    float alpha{0.F};
    float beta{0.F};
};

//! Checks the node at kernel creation: one input and output, "type", "alpha", "beta", and the types (float input,
//! or INT32/INT64 for kRELU; a kernel-supported output type).
Status checkActivationSetup(KernelSetup const& setup);

//! checkActivationSetup, then the attributes (at kernel creation).
StatusOr<ActivationParams> readActivationParams(KernelSetup const& setup);

//! Checks one run's input and output (same dims) and reads the attributes.
StatusOr<ActivationParams> makeActivationParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

} // namespace kiln
