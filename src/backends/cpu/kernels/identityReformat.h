// Reformat nodes: kIDENTITY plan nodes with attribute "reformat" = 1, inserted by the builder between a plugin and
// a neighbour that wants another data type or tensor format. The kernel converts any type to any type (TensorRT
// cast semantics), quantizes/dequantizes INT8 with the tensors' scales, and converts between kLINEAR and the
// vectorized / channel-last formats. Node attributes (copies of the tensors' PlanTensor fields, so the kernel
// needs no plan): "inFormat", "outFormat" (int, nvinfer1::TensorFormat), "inScale", "outScale" (float, INT8 scale
// or -1).
//
// Format layouts (TensorRT's), for a tensor of rank r with channel dimension c:
//   kCHW2/4/16/32 (c = r-3), kCDHW32 (c = r-4): [d0..d(c-1), ceil(C/v), d(c+1)..d(r-1), v]
//   kHWC8/16, kHWC (v = 1) (c = r-3), kDHWC8, kDHWC (v = 1) (c = r-4): [d0..d(c-1), d(c+1)..d(r-1), roundUp(C, v)]
// Padding channels are zero.
#pragma once

#include "backends/kernel.h"
#include "core/tensorFormat.h"

#include <cstdint>
#include <vector>

namespace kiln
{

//! Storage index of every element, in row-major logical order, for a tensor of `dims` in `layout`.
void storageIndices(FormatLayout const& layout, nvinfer1::Dims const& dims, std::vector<int64_t>& indices);

//! The reformat kernel (created by the identity kernel factory for nodes with "reformat" = 1).
StatusOr<std::unique_ptr<Kernel>> createReformatKernel(KernelSetup const& setup);

} // namespace kiln
