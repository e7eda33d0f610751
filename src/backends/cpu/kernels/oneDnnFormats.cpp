// The CPU backend's region format and oneDNN descriptors of tensors in TensorRT formats (see oneDnnFormats.h).
#include "backends/cpu/kernels/oneDnnFormats.h"

namespace kiln
{
using nvinfer1::TensorFormat;

namespace
{
#if KILN_HAVE_ONEDNN
using Tag = dnnl::memory::format_tag;

//! oneDNN's tag for a 4-D tensor in `format`, or undef.
Tag tag4(TensorFormat format)
{
    switch (format)
    {
    case TensorFormat::kLINEAR: return Tag::nchw;
    case TensorFormat::kHWC: return Tag::nhwc;
    case TensorFormat::kCHW4: return Tag::nChw4c;
    case TensorFormat::kCHW16: return Tag::nChw16c;
    case TensorFormat::kCHW32: return Tag::nChw32c;
    default: return Tag::undef;
    }
}

//! The layout oneDNN picks for ResNet's 3x3 64 -> 64 convolution over 56x56 in `dt` (kLINEAR: none TensorRT has, or
//! only oneDNN's reference implementation).
TensorFormat probeRegionFormat(dnnl::memory::data_type dt)
{
    try
    {
        using dnnl::memory;
        memory::dims const src{1, 64, 56, 56};
        memory::desc const any(src, dt, Tag::any);
        memory::desc const weights({64, 64, 3, 3}, dt, Tag::any);
        memory::desc const bias({64}, memory::data_type::f32, Tag::a);
        dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
            any, weights, bias, any, {1, 1}, {0, 0}, {1, 1}, {1, 1});
        dnnl::convolution_forward::primitive_desc pd(desc, oneDnnEngine());
        if (isOneDnnReferenceImpl(pd))
        {
            return TensorFormat::kLINEAR;
        }
        for (TensorFormat f : {TensorFormat::kHWC, TensorFormat::kCHW16, TensorFormat::kCHW4, TensorFormat::kCHW32})
        {
            if (pd.src_desc() == memory::desc(src, dt, tag4(f)) && pd.dst_desc() == memory::desc(src, dt, tag4(f)))
            {
                return f;
            }
        }
    }
    catch (dnnl::error const&)
    {
    }
    return TensorFormat::kLINEAR;
}
#endif
} // namespace

TensorFormat cpuRegionFormat()
{
#if KILN_HAVE_ONEDNN
    static TensorFormat const format = probeRegionFormat(dnnl::memory::data_type::f32);
    return format;
#else
    return TensorFormat::kLINEAR;
#endif
}

bool cpuRegionHoldsBf16()
{
#if KILN_HAVE_ONEDNN
    static bool const holds = cpuRegionFormat() != TensorFormat::kLINEAR
        && probeRegionFormat(dnnl::memory::data_type::bf16) == cpuRegionFormat();
    return holds;
#else
    return false;
#endif
}

bool oneDnnHasFormat(TensorFormat format)
{
#if KILN_HAVE_ONEDNN
    return tag4(format) != dnnl::memory::format_tag::undef;
#else
    return format == TensorFormat::kLINEAR;
#endif
}

#if KILN_HAVE_ONEDNN
dnnl::memory::desc oneDnnFormatDesc(std::vector<int64_t> const& dims, dnnl::memory::data_type dt, TensorFormat format)
{
    if (format == TensorFormat::kLINEAR)
    {
        return dnnl::memory::desc(
            toDnnlDims(dims), dt, toDnnlDims(rowMajorStrides(dims.data(), static_cast<int32_t>(dims.size()))));
    }
    Tag const tag = dims.size() == 4 ? tag4(format) : Tag::undef;
    return tag == Tag::undef ? dnnl::memory::desc() : dnnl::memory::desc(toDnnlDims(dims), dt, tag);
}
#endif

} // namespace kiln
