// oneDNN descriptors of a convolution or deconvolution for concrete shapes (the CPU convolution kernel's primitives,
// convolution.cpp): the user's memory layouts (plain or the region format) and a primitive descriptor whose layouts
// oneDNN chooses.
#pragma once

#include "backends/common/convolutionParams.h"
#include "backends/cpu/kernels/convolutionCommon.h"

#if KILN_HAVE_ONEDNN
namespace kiln
{

//! Shapes and descriptors of one oneDNN convolution/deconvolution.
struct OneDnnConvDescs
{
    dnnl::memory::desc userSrc;
    dnnl::memory::desc userDst;
    dnnl::memory::desc userWeights;
    dnnl::memory::desc bias;
    dnnl::primitive_desc pd;
};

//! The storage formats of a convolution's data input and output (kLINEAR, or the region format).
struct ConvFormats
{
    nvinfer1::TensorFormat src{nvinfer1::TensorFormat::kLINEAR};
    nvinfer1::TensorFormat dst{nvinfer1::TensorFormat::kLINEAR};
};

//! Build descriptors for input dims `inDims` [N, C, in...] and output spatial geometry `ext`. Trailing input that no
//! window reads is left out of the source description only where oneDNN's output-size formula needs it. The weights
//! and the output have type `dt` too unless `weightsDt` / `dstDt` say otherwise (the INT8 convolution: s8 weights,
//! s8 or f32 output).
OneDnnConvDescs makeConvDescs(ConvConfig const& cfg, dnnl::memory::data_type dt, std::vector<int64_t> const& inDims,
    std::vector<WindowExtent> const& ext, bool withBias, dnnl::primitive_attr const& attr = dnnl::primitive_attr(),
    ConvFormats formats = ConvFormats(), dnnl::memory::data_type weightsDt = dnnl::memory::data_type::undef,
    dnnl::memory::data_type dstDt = dnnl::memory::data_type::undef);

} // namespace kiln
#endif
