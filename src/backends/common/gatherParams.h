// Backend-neutral host-side logic of IGatherLayer kernels (CPU and CUDA): the node's mode, axis and
// nbElementWiseDims and the checks of one run's data, indices and output (expected output shape per mode), with
// the validation messages.
#pragma once

#include "core/geometry.h"
#include "backends/kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

struct GatherParams
{
    nvinfer1::GatherMode mode{nvinfer1::GatherMode::kDEFAULT};
    int32_t axis{0};
    int32_t b{0};       //!< nbElementWiseDims
    int64_t esize{0};   //!< element size in bytes
    int64_t k{0};       //!< kND: the last indices extent
    int64_t dataBatch{1};  //!< kDEFAULT with b == 1: data extent 0 (1 otherwise)
    int64_t indexBatch{1}; //!< kDEFAULT with b == 1: indices extent 0 (1 otherwise)
    int64_t batch{1};      //!< kDEFAULT: the broadcast of the two
};

//! A kFAILED_EXECUTION status "layer '<name>' (Gather): <message>".
Status gatherError(KernelSetup const& setup, std::string const& message);

//! Reads "mode", "axis" and "nbElementWiseDims" and checks the data, indices and output against them.
StatusOr<GatherParams> makeGatherParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

//! "mode", "axis" and "nbElementWiseDims" and their combination (at kernel creation): fills mode, axis and b.
StatusOr<GatherParams> readGatherParams(KernelSetup const& setup);

//! The checks of the data, indices and output against the attributes of `p`, filling the rest of it (data not looked
//! at: at reshape).
Status gatherShapes(KernelSetup const& setup, GatherParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs);

} // namespace kiln
