// Backend-neutral host-side logic of IReduceLayer kernels (CPU and CUDA): the node's operation, axes mask and
// keepDims and the checks of one run's input and output (expected output shape), with the validation messages.
#pragma once

#include "core/geometry.h"
#include "backends/kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

struct ReduceParams
{
    nvinfer1::ReduceOperation op{nvinfer1::ReduceOperation::kSUM};
    int64_t mask{0}; //!< bit d set: axis d is reduced
    bool keepDims{false};
    int32_t rank{0};
    int64_t inVolume{1};
    int64_t outVolume{1};
    int64_t count{1}; //!< elements combined into each output
};

//! A kFAILED_EXECUTION status "layer '<name>' (Reduce): <message>".
Status reduceError(KernelSetup const& setup, std::string const& message);

//! Reads "operation", "axes" and "keepDims" and checks the input and the output against them.
StatusOr<ReduceParams> makeReduceParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

//! "operation", "axes" and "keepDims" (at kernel creation).
StatusOr<ReduceParams> readReduceParams(KernelSetup const& setup);

//! The checks of the input and the output against the attributes of `p`, filling its geometry (data not looked at:
//! at reshape).
Status reduceShapes(KernelSetup const& setup, ReduceParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs);

} // namespace kiln
