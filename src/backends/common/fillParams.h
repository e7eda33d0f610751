// Backend-neutral logic of IFillLayer kernels (CPU and CUDA): the counter-based random generator both backends draw
// from (so the GPU draws the CPU's numbers), and the node's operation and seed and the checks of one run, with the
// validation messages.
#pragma once

#include "core/hostDevice.h"
#include "backends/kernel.h"

#include <cstdint>
#include <vector>

namespace kiln
{

//! SplitMix64 finalizer of x.
KILN_HOST_DEVICE inline uint64_t splitMix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31U);
}

//! Uniform double in [0, 1) from 53 random bits of (seed, counter).
KILN_HOST_DEVICE inline double uniformAt(uint64_t seed, uint64_t counter)
{
    return static_cast<double>(splitMix64(seed ^ splitMix64(counter)) >> 11U) * (1.0 / 9007199254740992.0);
}

struct FillParams
{
    nvinfer1::FillOperation op{nvinfer1::FillOperation::kLINSPACE};
    int64_t seed{0};
    int64_t volume{0};   //!< output elements; when 0 the run does nothing (and nothing else was checked)
    bool dynamic{false}; //!< alpha and beta come from inputs 1 and 2
};

//! Whether input `slot` of a fill node is given in this run.
bool fillInputPresent(KernelSetup const& setup, std::vector<TensorView> const& inputs, size_t slot);

//! Reads "op" and "seed" and checks the output (buffer, a type `outTypeOk` accepts) and the dynamic alpha/beta.
StatusOr<FillParams> makeFillParams(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, bool (*outTypeOk)(nvinfer1::DataType));

//! "op" and "seed" (at kernel creation).
StatusOr<FillParams> readFillParams(KernelSetup const& setup);

//! The checks of makeFillParams after the attributes, without the output buffer (data not looked at: at reshape).
Status fillShapes(KernelSetup const& setup, FillParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, bool (*outTypeOk)(nvinfer1::DataType));

} // namespace kiln
