// Backend-neutral host-side logic of ITopKLayer kernels (CPU and CUDA): the node's operation and axis and the
// geometry of one run (outer x n x inner, k), with the validation messages.
#pragma once

#include "core/geometry.h"
#include "backends/kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

//! The input around the top-k axis, the operation and k.
struct TopKParams : AxisSplit
{
    nvinfer1::TopKOperation op{nvinfer1::TopKOperation::kMAX};
    int64_t k{0}; //!< elements kept along the axis (the outputs' extent)
    int64_t mask{0}; //!< attribute "axes": a one-bit mask
};

//! A kFAILED_EXECUTION status "layer '<name>' (TopK): <message>".
Status topKError(KernelSetup const& setup, std::string const& message);

//! Reads "operation" and "axes" and checks the input and the two outputs (values, indices) against them.
StatusOr<TopKParams> makeTopKParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

//! "operation" and "axes" (at kernel creation).
StatusOr<TopKParams> readTopKParams(KernelSetup const& setup);

//! The checks of the input and the two outputs against the attributes of `p`, filling the split and k (data not
//! looked at: at reshape).
Status topKShapes(KernelSetup const& setup, TopKParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs);

} // namespace kiln
