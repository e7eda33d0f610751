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
};

//! A kFAILED_EXECUTION status "layer '<name>' (TopK): <message>".
Status topKError(KernelSetup const& setup, std::string const& message);

//! Reads "operation" and "axes" and checks the input and the two outputs (values, indices) against them.
StatusOr<TopKParams> makeTopKParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

} // namespace kiln
