// Tensor formats: the names, vector widths and memory layouts of nvinfer1::TensorFormat values, shared by the
// builder (format negotiation, memory planning), the runtime (binding sizes, the inspector) and the backends'
// reformat kernels.
//
// Layouts (TensorRT's), for a tensor of rank r with channel dimension c:
//   kCHW2/4/16/32 (c = r-3), kCDHW32 (c = r-4): [d0..d(c-1), ceil(C/v), d(c+1)..d(r-1), v]
//   kHWC8/16, kHWC (v = 1) (c = r-3), kDHWC8, kDHWC (v = 1) (c = r-4): [d0..d(c-1), d(c+1)..d(r-1), roundUp(C, v)]
// Padding channels are zero.
#pragma once

#include "NvInferRuntime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

//! Node attribute (int, 1 = on) set by the builder's channelLastPass on nodes whose 4-D activations (data input,
//! fused addition, output; see regionSlots in backends/kernel.h) are stored in their backend's region format
//! (BackendCapabilities::region: kHWC8 on CUDA, kHWC or kCHW16 on the CPU). The name predates the blocked formats.
constexpr char const* kCHANNEL_LAST_ATTRIBUTE = "channelLast";
//! Node attribute (int, nvinfer1::TensorFormat) set with kCHANNEL_LAST_ATTRIBUTE: the region format (absent: kHWC8).
constexpr char const* kREGION_FORMAT_ATTRIBUTE = "regionFormat";
//! Node attribute (int, 1 = on) set by the pass on a region reader (RegionFormat::readerKinds) whose output it stores
//! in the region format too (RegionFormat::readerOutputs: an [N, C, 1, 1] pool whose readers are region nodes).
constexpr char const* kREGION_OUTPUT_ATTRIBUTE = "regionOutput";
//! Node attribute (text) the pass sets on a node of such a kind that stays linear: why (shown by the inspector).
constexpr char const* kCHANNEL_LAST_REFUSAL_ATTRIBUTE = "channelLast.refused";

//! Enumerator name of a format ("kLINEAR", "kCHW4", ...; "kUNKNOWN" for a value outside the enum).
char const* formatName(nvinfer1::TensorFormat format);

//! TensorRT-style format description, e.g. "Row major linear FP32 format (kLINEAR)".
std::string formatDescription(nvinfer1::TensorFormat format, nvinfer1::DataType type);

//! Scalars per vector of a vectorized format (1 for kLINEAR, kHWC, kDHWC and kDLA_LINEAR).
int32_t formatComponents(nvinfer1::TensorFormat format);

//! Index of the vectorized dimension for a tensor of `rank`, or -1 for non-vectorized formats (and ranks too small).
int32_t formatVectorizedDim(nvinfer1::TensorFormat format, int32_t rank);

//! How a format stores a tensor of a given rank.
struct FormatLayout
{
    bool linear{true};
    int32_t channelDim{-1}; //!< the vectorized (channel) dimension
    int32_t vector{1};      //!< channels per vector (1 for kHWC/kDHWC)
    bool channelLast{false};
};

//! Layout of `format` for a tensor of `rank`; false when the format cannot hold such a tensor on Kiln (DLA formats,
//! channel formats on too small a rank).
bool formatLayout(nvinfer1::TensorFormat format, int32_t rank, FormatLayout& layout);

//! Elements a tensor of `dims` occupies in `format` (the channel dimension padded to the vector size); -1 when the
//! count does not fit in int64_t.
int64_t formattedVolume(nvinfer1::TensorFormat format, std::vector<int64_t> const& dims);

//! Bytes a tensor of `type` and `dims` occupies in `format`; -1 when its element count times the widest element
//! (8 bytes) does not fit in int64_t.
int64_t formattedBytes(nvinfer1::DataType type, nvinfer1::TensorFormat format, std::vector<int64_t> const& dims);

} // namespace kiln
