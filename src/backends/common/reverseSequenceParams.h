// Backend-neutral host-side logic of IReverseSequenceLayer kernels (CPU and CUDA): the checks of a run, its
// geometry (strides of the sequence and batch axes) and the message for a sequence length out of range.
#pragma once

#include "backends/kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

struct ReverseSequenceParams
{
    int64_t seqLen{0};
    int64_t batch{0};
    int64_t seqStride{1};   //!< elements between neighbours along the sequence axis
    int64_t batchStride{1}; //!< elements between neighbours along the batch axis
    int64_t total{0};
    int64_t esize{0};
    int64_t batchAxis{1};    //!< attribute "batchAxis"
    int64_t sequenceAxis{0}; //!< attribute "sequenceAxis"
};

//! A kFAILED_EXECUTION status "layer '<name>' (ReverseSequence): <message>".
Status reverseSequenceError(KernelSetup const& setup, std::string const& message);

StatusOr<ReverseSequenceParams> makeReverseSequenceParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

//! "batchAxis" and "sequenceAxis" (at kernel creation).
ReverseSequenceParams readReverseSequenceParams(KernelSetup const& setup);

//! The shape and type checks of makeReverseSequenceParams and the geometry (data not looked at: at reshape).
Status reverseSequenceShapes(KernelSetup const& setup, ReverseSequenceParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs);

//! OK when 0 <= len <= seqLen, else the error naming sequenceLens[b].
Status checkSequenceLength(KernelSetup const& setup, int64_t b, int64_t len, int64_t seqLen);

} // namespace kiln
