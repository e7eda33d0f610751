// Backend-neutral host-side logic of IScatterLayer kernels (CPU and CUDA): the node's mode and axis and the checks
// of one run's data, indices, updates and output, with the validation messages.
#pragma once

#include "core/geometry.h"
#include "backends/kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

struct ScatterParams
{
    nvinfer1::ScatterMode mode{nvinfer1::ScatterMode::kELEMENT};
    int32_t axis{0};   //!< kELEMENT: the scattered data axis
    int32_t k{0};      //!< kND: the last indices extent (data dims addressed per tuple)
    int64_t esize{0};  //!< element size in bytes
    int64_t axisAttr{0}; //!< attribute "axis" as stored (checked against the data rank by scatterShapes)
};

//! A kFAILED_EXECUTION status "layer '<name>' (Scatter): <message>".
Status scatterError(KernelSetup const& setup, std::string const& message);

//! Reads "mode" and "axis" and checks inputs (data, indices, updates) and the output against them.
StatusOr<ScatterParams> makeScatterParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

//! "mode" and "axis" (at kernel creation): fills mode and axisAttr.
StatusOr<ScatterParams> readScatterParams(KernelSetup const& setup);

//! The checks of data, indices, updates and output against the attributes of `p`, filling the rest of it (data
//! not looked at: at reshape).
Status scatterShapes(KernelSetup const& setup, ScatterParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs);

} // namespace kiln
