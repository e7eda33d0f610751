// Backend-neutral host-side logic of INMSLayer kernels (CPU and CUDA): the checks of a run, the attributes and the
// geometry. Output 1 is the layer's size tensor (the row count), which the runtime reads after the node to bind the
// data-dependent dimension; the rows output's dims may show that dimension as -1 (unknown) at run time, so kernels
// never rely on it.
#pragma once

#include "backends/kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

struct NMSParams
{
    nvinfer1::BoundingBoxFormat format{nvinfer1::BoundingBoxFormat::kCORNER_PAIRS};
    int64_t limit{5000}; //!< topKBoxLimit: candidates kept per batch item after sorting
    int64_t batch{0};
    int64_t nbBoxes{0};
    int64_t nbClasses{0};
    bool perClassBoxes{false}; //!< boxes [batch, boxes, classes, 4] instead of [batch, boxes, 4]
};

//! A kFAILED_EXECUTION status "layer '<name>' (NMS): <message>".
Status nmsError(KernelSetup const& setup, std::string const& message);

//! Checks boxes, scores, maxOutputBoxesPerClass (+ optional IoU and score thresholds) and the two outputs.
StatusOr<NMSParams> makeNMSParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

//! "boxFormat" and "topKBoxLimit" (at kernel creation).
NMSParams readNMSParams(KernelSetup const& setup);

//! The shape checks of makeNMSParams, filling the geometry of `p` (data not looked at: at reshape).
Status nmsShapes(KernelSetup const& setup, NMSParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs);

} // namespace kiln
