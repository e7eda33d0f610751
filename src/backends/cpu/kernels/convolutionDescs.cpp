// oneDNN descriptors of a convolution or deconvolution: see convolutionDescs.h.
#include "backends/cpu/kernels/convolutionDescs.h"

#include "backends/cpu/kernels/oneDnnFormats.h"

#if KILN_HAVE_ONEDNN
namespace kiln
{

using dnnl::memory;
using Tag = dnnl::memory::format_tag;

OneDnnConvDescs makeConvDescs(ConvConfig const& cfg, memory::data_type dt, std::vector<int64_t> const& inDims,
    std::vector<WindowExtent> const& ext, bool withBias, dnnl::primitive_attr const& attr, ConvFormats formats,
    memory::data_type weightsDt, memory::data_type dstDt)
{
    weightsDt = weightsDt == memory::data_type::undef ? dt : weightsDt;
    dstDt = dstDt == memory::data_type::undef ? dt : dstDt;
    WindowParams const& p = cfg.params;
    int32_t const nb = p.nbSpatial;
    int64_t const n = inDims[0];
    int64_t const c = inDims[1];
    std::vector<int64_t> srcDims = inDims;
    std::vector<int64_t> padL(static_cast<size_t>(nb));
    std::vector<int64_t> padR(static_cast<size_t>(nb));
    std::vector<int64_t> dil(static_cast<size_t>(nb));
    std::vector<int64_t> dstDims{n, cfg.k};
    for (int32_t i = 0; i < nb; ++i)
    {
        size_t const s = static_cast<size_t>(i);
        WindowExtent const& e = ext[s];
        dil[s] = p.dilation[s] - 1;
        padL[s] = e.padBefore;
        dstDims.push_back(e.out);
        if (cfg.deconvolution)
        {
            padR[s] = e.padAfter;
        }
        else
        {
            // Right padding the last window actually reaches; negative means trailing input is never read.
            // oneDNN accepts the whole input with no right padding when its output-size formula (rounding down)
            // gives the same output (a 1x1 stride-2 convolution over 56 columns never reads the 56th); only
            // otherwise is the input described as a smaller, strided view of its leading part. That view is
            // not dense, so oneDNN's implementations want it copied to a dense buffer on every run (a reorder
            // as large as the input), which the whole-input description avoids.
            int64_t const reach = (e.out - 1) * p.stride[s] + p.dilatedKernel(i) - e.in - e.padBefore;
            padR[s] = std::max<int64_t>(reach, 0);
            int64_t const span = e.in - p.dilatedKernel(i) + e.padBefore;
            bool const wholeInput = span >= 0 && span / p.stride[s] + 1 == e.out;
            if (reach < 0 && !wholeInput)
            {
                srcDims[s + 2] = e.in + reach;
            }
        }
    }
    OneDnnConvDescs d;
    // The input as stored; a view of its leading part when trailing input is never read.
    d.userSrc = oneDnnFormatDesc(inDims, dt, formats.src);
    if (srcDims != inDims)
    {
        d.userSrc = d.userSrc.submemory_desc(toDnnlDims(srcDims), memory::dims(inDims.size(), 0));
    }
    d.userDst = oneDnnFormatDesc(dstDims, dstDt, formats.dst);
    int64_t const cg = c / cfg.groups;
    int64_t const kg = cfg.k / cfg.groups;
    std::vector<int64_t> weiDims;
    Tag weiTag{};
    if (cfg.groups == 1)
    {
        weiDims = {cfg.k, c};
        weiTag = cfg.deconvolution ? (nb == 2 ? Tag::iohw : Tag::iodhw) : (nb == 2 ? Tag::oihw : Tag::oidhw);
    }
    else
    {
        weiDims = {cfg.groups, kg, cg};
        weiTag = cfg.deconvolution ? (nb == 2 ? Tag::giohw : Tag::giodhw) : (nb == 2 ? Tag::goihw : Tag::goidhw);
    }
    weiDims.insert(weiDims.end(), p.kernel.begin(), p.kernel.end());
    d.userWeights = memory::desc(toDnnlDims(weiDims), weightsDt, weiTag);
    d.bias = withBias ? memory::desc({cfg.k}, memory::data_type::f32, Tag::a) : memory::desc();
    memory::desc const srcAny(toDnnlDims(srcDims), dt, Tag::any);
    memory::desc const dstAny(toDnnlDims(dstDims), dstDt, Tag::any);
    memory::desc const weiAny(toDnnlDims(weiDims), weightsDt, Tag::any);
    memory::dims const strides = toDnnlDims(p.stride);
    dnnl::engine& eng = oneDnnEngine();
    if (cfg.deconvolution)
    {
        dnnl::deconvolution_forward::desc desc(dnnl::prop_kind::forward_inference,
            dnnl::algorithm::deconvolution_direct, srcAny, weiAny, d.bias, dstAny, strides, toDnnlDims(dil),
            toDnnlDims(padL), toDnnlDims(padR));
        d.pd = dnnl::deconvolution_forward::primitive_desc(desc, attr, eng);
    }
    else
    {
        dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
            srcAny, weiAny, d.bias, dstAny, strides, toDnnlDims(dil), toDnnlDims(padL), toDnnlDims(padR));
        d.pd = dnnl::convolution_forward::primitive_desc(desc, attr, eng);
    }
    return d;
}

} // namespace kiln
#endif
