// Backend-neutral host-side logic of ISliceLayer and IPaddingLayer kernels (CPU and CUDA): the sample mode and the
// full-rank start/stride of a slice (from attributes or from shape-tensor inputs), the per-dimension shift of a
// padding, with the validation messages.
#pragma once

#include "backends/kernel.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace kiln
{

//! Input slots of a slice node.
constexpr size_t kSLICE_START = 1;
constexpr size_t kSLICE_SIZE = 2;
constexpr size_t kSLICE_STRIDE = 3;
constexpr size_t kSLICE_FILL_VALUE = 4;
constexpr size_t kSLICE_AXES = 5;

//! Output coordinate o of dimension d reads input coordinate start[d] + o * stride[d] (under `mode`).
struct SliceParams
{
    nvinfer1::SampleMode mode{nvinfer1::SampleMode::kSTRICT_BOUNDS};
    std::vector<int64_t> start;  //!< one per dimension (0 where not sliced)
    std::vector<int64_t> stride; //!< one per dimension (1 where not sliced)
};

//! Whether input slot `slot` of a node exists in this run and is connected.
bool sliceInputPresent(KernelSetup const& setup, std::vector<TensorView> const& inputs, size_t slot);

//! Reads the mode and start/size/stride/axes (inputs win over attributes) and checks them against the tensors.
//! `hostData`: parameter inputs without evaluated values are read from their (host) data; else such inputs are
//! reported as unsupported (device-only values, CUDA backend).
StatusOr<SliceParams> makeSliceParams(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, bool hostData);

//! A slice node's attributes: the sample mode and the static parameter lists (each absent when not set).
struct SliceAttrs
{
    nvinfer1::SampleMode mode{nvinfer1::SampleMode::kSTRICT_BOUNDS};
    std::optional<std::vector<int64_t>> start;
    std::optional<std::vector<int64_t>> size;
    std::optional<std::vector<int64_t>> stride;
    std::optional<std::vector<int64_t>> axes;
};

//! "mode" and the "start", "size", "stride" and "axes" attributes (at kernel creation).
StatusOr<SliceAttrs> readSliceAttrs(KernelSetup const& setup);

//! True when a connected parameter input (start, size, stride or axes) has no evaluated values, so that its data
//! must be read at each run.
bool sliceParametersNeedData(KernelSetup const& setup, std::vector<TensorView> const& inputs);

//! makeSliceParams with the attributes already read: parameter inputs win over `attrs`.
StatusOr<SliceParams> sliceParamsFor(KernelSetup const& setup, SliceAttrs const& attrs,
    std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, bool hostData);

//! A padding: output coordinate o of dimension d reads input coordinate o - shift[d] (zero outside the input).
struct PaddingParams
{
    std::vector<int64_t> shift; //!< pre-padding per dimension (0 for unpadded leading dimensions)
};

//! Reads "pre_padding"/"post_padding" and checks them against the tensors.
StatusOr<PaddingParams> makePaddingParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

//! A padding node's attributes.
struct PaddingAttrs
{
    std::vector<int64_t> pre;  //!< "pre_padding" of the trailing dimensions
    std::vector<int64_t> post; //!< "post_padding"
};

//! "pre_padding" and "post_padding" (at kernel creation).
StatusOr<PaddingAttrs> readPaddingAttrs(KernelSetup const& setup);

//! Checks `attrs` against the tensors' shapes and types (data not looked at: at reshape).
StatusOr<PaddingParams> paddingShapes(
    PaddingAttrs const& attrs, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

} // namespace kiln
