// The CPU backend's region format (BackendCapabilities::region, the builder's channelLastPass): the TensorRT format
// that matches the activation layout oneDNN's FP32 convolution picks on this machine (nhwc = kHWC, nChw16c = kCHW16,
// nChw4c = kCHW4, nChw32c = kCHW32), and oneDNN memory descriptors of 4-D tensors stored in such a format, for the
// convolution, pooling and reformat kernels that read and write it directly.
#pragma once

#include "backends/cpu/kernels/convolutionCommon.h"

namespace kiln
{

//! The region format of the CPU backend: the format of oneDNN's preferred FP32 convolution layout, probed once per
//! process with ResNet's 3x3 64 -> 64 convolution over 56x56; kLINEAR when Kiln has no oneDNN or oneDNN picks a
//! layout TensorRT has no format for (nChw8c on AVX2 machines), which turns the region off.
nvinfer1::TensorFormat cpuRegionFormat();
//! True when oneDNN's BF16 convolution (AVX512-BF16 or AMX, not its reference implementation) picks the same layout,
//! so that BF16 activations (kBF16 builds with reduced precision) stay in the region too.
bool cpuRegionHoldsBf16();

//! The format of a kernel's output 0 (kLINEAR for hand-made setups without formats): a convolution's or pooling's
//! region format.
inline nvinfer1::TensorFormat outputFormatOf(KernelSetup const& setup)
{
    return setup.outputFormats.empty() ? nvinfer1::TensorFormat::kLINEAR : setup.outputFormats[0];
}

//! True when the CPU kernels can keep a 4-D activation in `format` through oneDNN (kLINEAR included).
bool oneDnnHasFormat(nvinfer1::TensorFormat format);

#if KILN_HAVE_ONEDNN
//! Descriptor of a dense tensor of `dims` (rank 3 to 5 for the non-linear formats) stored in `format`; an empty
//! descriptor when oneDnnHasFormat(format) is false or the rank does not fit.
dnnl::memory::desc oneDnnFormatDesc(std::vector<int64_t> const& dims, dnnl::memory::data_type dt,
    nvinfer1::TensorFormat format);
#endif

} // namespace kiln
