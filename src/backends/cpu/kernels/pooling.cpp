// CPU pooling kernel: max, average (padding counted or not) and max-average blend over 2-D/3-D windows. A plain
// reference implementation in double precision, and a oneDNN implementation created at reshape per input shape and
// cached in the kernel object (shapes oneDNN cannot express exactly run on the reference path). A pooling layer in
// the builder's region plan (channelLastPass) reads and writes the CPU's region format (oneDnnFormats.h), given to
// oneDNN as the memory layout; only the oneDNN path runs such nodes (max or average, not the blend).
#include "backends/common/poolingParams.h"
#include "backends/cpu/kernels/convolutionCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "backends/cpu/kernels/oneDnnFormats.h"
#include "core/tensorFormat.h"
#include "network/layers/convolutionLayer.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::PoolingType;

namespace
{

//! Overlap length of [a0, a1) and [b0, b1).
int64_t overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
    return std::max<int64_t>(0, std::min(a1, b1) - std::max(a0, b0));
}

//! Reference pooling over `planes` = N * C planes. Max ignores padding (it is -inf); an average divides by the
//! window's overlap with the unpadded input (excludePadding) or with the padded input; empty windows give 0 for
//! the average and -inf for the maximum.
void referencePooling(Geometry3 const& g, int64_t planes, PoolConfig const& cfg, double const* x, double* y)
{
    int64_t const inVol = g.inVolume();
    int64_t const outVol = g.outVolume();
    double const kNegInf = -std::numeric_limits<double>::infinity();
    for (int64_t pl = 0; pl < planes; ++pl)
    {
        double const* xp = x + pl * inVol;
        double* yp = y + pl * outVol;
        for (int64_t od = 0; od < g.out[0]; ++od)
        {
            for (int64_t oh = 0; oh < g.out[1]; ++oh)
            {
                for (int64_t ow = 0; ow < g.out[2]; ++ow)
                {
                    int64_t const o[3] = {od, oh, ow};
                    int64_t lo[3];
                    int64_t hi[3];
                    int64_t padded = 1;
                    for (size_t j = 0; j < 3; ++j)
                    {
                        int64_t const start = o[j] * g.stride[j] - g.padBefore[j];
                        int64_t const end = start + g.kernel[j];
                        padded *= overlap(start, end, -g.padBefore[j], g.in[j] + g.padAfter[j]);
                        lo[j] = std::max<int64_t>(start, 0);
                        hi[j] = std::min(end, g.in[j]);
                    }
                    double mx = kNegInf;
                    double sum = 0.0;
                    int64_t valid = 0;
                    for (int64_t d = lo[0]; d < hi[0]; ++d)
                    {
                        for (int64_t h = lo[1]; h < hi[1]; ++h)
                        {
                            for (int64_t w = lo[2]; w < hi[2]; ++w)
                            {
                                double const v = xp[(d * g.in[1] + h) * g.in[2] + w];
                                mx = std::max(mx, v);
                                sum += v;
                                ++valid;
                            }
                        }
                    }
                    int64_t const count = cfg.excludePadding ? valid : padded;
                    double const avg = count > 0 ? sum / static_cast<double>(count) : 0.0;
                    double r = mx;
                    if (cfg.type == PoolingType::kAVERAGE)
                    {
                        r = avg;
                    }
                    else if (cfg.type == PoolingType::kMAX_AVERAGE_BLEND)
                    {
                        r = cfg.blend == 0.0 ? mx : (cfg.blend == 1.0 ? avg : (1.0 - cfg.blend) * mx + cfg.blend * avg);
                    }
                    yp[(od * g.out[1] + oh) * g.out[2] + ow] = r;
                }
            }
        }
    }
}

#if KILN_HAVE_ONEDNN
using dnnl::memory;
using Tag = dnnl::memory::format_tag;

struct OneDnnPoolEntry
{
    std::vector<int64_t> key;
    bool usable{false};
    bool copySrc{false};      // the input is read through a smaller view: copy it dense first
    memory userSrc;           // the input tensor (possibly a strided view)
    memory src;               // dense copy when copySrc
    OneDnnStep srcCopy;
    memory userDst;           // the output tensor
    memory blendMax;          // blend: temporaries of the output's shape
    memory blendAvg;
    OneDnnStep maxPool;       // kMAX or blend
    OneDnnStep avgPool;       // kAVERAGE or blend
};

Tag plainTag(int32_t rank)
{
    return rank == 4 ? Tag::abcd : Tag::abcde;
}

//! Build the oneDNN pooling primitives for one shape, input and output stored in `format`; returns false when oneDNN
//! cannot match Kiln's semantics.
bool buildPoolEntry(OneDnnPoolEntry& e, PoolConfig const& cfg, memory::data_type dt, std::vector<int64_t> const& inDims,
    std::vector<WindowExtent> const& ext, nvinfer1::TensorFormat format)
{
    WindowParams const& p = cfg.params;
    int32_t const nb = p.nbSpatial;
    std::vector<int64_t> srcDims = inDims;
    std::vector<int64_t> dstDims{inDims[0], inDims[1]};
    std::vector<int64_t> padL(static_cast<size_t>(nb));
    std::vector<int64_t> padR(static_cast<size_t>(nb));
    bool const needMax = cfg.type != PoolingType::kAVERAGE;
    bool const needAvg = cfg.type != PoolingType::kMAX;
    for (int32_t i = 0; i < nb; ++i)
    {
        size_t const s = static_cast<size_t>(i);
        WindowExtent const& x = ext[s];
        int64_t const f = p.kernel[s];
        int64_t const st = p.stride[s];
        if (x.in < 1 || x.out < 1)
        {
            return false;
        }
        // A window lying wholly in padding (or beyond it) has no oneDNN equivalent of Kiln's -inf / 0 results.
        if (x.padBefore >= f || (x.out - 1) * st - x.padBefore >= x.in)
        {
            return false;
        }
        int64_t const reach = (x.out - 1) * st + f - x.in - x.padBefore;
        // Average with padding counted divides by the overlap with the padded input; oneDNN divides by the
        // whole window, which agrees only when no window runs past the post-padding.
        if (needAvg && !cfg.excludePadding && reach > x.padAfter)
        {
            return false;
        }
        padL[s] = x.padBefore;
        padR[s] = std::max<int64_t>(reach, 0);
        if (reach < 0)
        {
            srcDims[s + 2] = x.in + reach;
        }
        dstDims.push_back(x.out);
    }
    dnnl::engine& eng = oneDnnEngine();
    bool const linear = format == nvinfer1::TensorFormat::kLINEAR;
    memory::desc view = oneDnnFormatDesc(inDims, dt, format);
    if (srcDims != inDims)
    {
        view = view.submemory_desc(toDnnlDims(srcDims), memory::dims(inDims.size(), 0));
    }
    memory::desc const dense = linear ? memory::desc(toDnnlDims(srcDims), dt, plainTag(nb + 2))
                                      : oneDnnFormatDesc(srcDims, dt, format);
    memory::desc const dst = linear ? memory::desc(toDnnlDims(dstDims), dt, plainTag(nb + 2))
                                    : oneDnnFormatDesc(dstDims, dt, format);
    e.userSrc = memory(view, eng, nullptr);
    e.copySrc = view != dense;
    if (e.copySrc)
    {
        e.src = memory(dense, eng);
        e.srcCopy = OneDnnStep(dnnl::reorder(e.userSrc, e.src), {{DNNL_ARG_FROM, e.userSrc}, {DNNL_ARG_TO, e.src}});
    }
    e.userDst = memory(dst, eng, nullptr);
    memory::dims const strides = toDnnlDims(p.stride);
    memory::dims const kernel = toDnnlDims(p.kernel);
    memory::dims const dilation(static_cast<size_t>(nb), 0);
    auto make = [&](dnnl::algorithm alg) {
        dnnl::pooling_v2_forward::desc desc(dnnl::prop_kind::forward_inference, alg, dense, dst, strides, kernel,
            dilation, toDnnlDims(padL), toDnnlDims(padR));
        dnnl::pooling_v2_forward::primitive_desc pd(desc, eng);
        return dnnl::primitive(pd);
    };
    bool const blend = needMax && needAvg;
    if (blend)
    {
        e.blendMax = memory(dst, eng);
        e.blendAvg = memory(dst, eng);
    }
    memory const& src = e.copySrc ? e.src : e.userSrc;
    if (needMax)
    {
        e.maxPool = OneDnnStep(
            make(dnnl::algorithm::pooling_max), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, blend ? e.blendMax : e.userDst}});
    }
    if (needAvg)
    {
        e.avgPool = OneDnnStep(make(cfg.excludePadding ? dnnl::algorithm::pooling_avg_exclude_padding
                                                       : dnnl::algorithm::pooling_avg_include_padding),
            {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, blend ? e.blendAvg : e.userDst}});
    }
    return true;
}
#endif

//! create: the window configuration and tactic; reshape: the window extents and either the oneDNN primitives for
//! these shapes (looked up in or added to a per-shape cache) or the reference kernel's geometry, with the scratch;
//! run: the pooling.
class PoolingKernel final : public Kernel
{
public:
    PoolingKernel(KernelSetup const& setup, PoolConfig cfg, CpuTactic tactic)
        : mSetup(setup)
        , mCfg(std::move(cfg))
        , mTactic(tactic)
        , mRegion(outputFormatOf(setup))
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        std::vector<WindowExtent> ext;
        KILN_RETURN_IF_ERROR(poolShapes(*mSetup.node, mCfg, inputs, outputs, ext));
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        mInVolume = in.volume();
        mOutVolume = out.volume();
#if KILN_HAVE_ONEDNN
        mEntry = nullptr;
        if (mTactic == CpuTactic::kONEDNN && mOutVolume > 0 && in.type == out.type)
        {
            OneDnnPoolEntry* entry = findOrCreateEntry(in, out, ext);
            mEntry = entry != nullptr && entry->usable ? entry : nullptr;
        }
        if (mEntry != nullptr)
        {
            bool const blend = mEntry->maxPool && mEntry->avgPool;
            mX.resize(blend ? static_cast<size_t>(mOutVolume) : 0);
            mY.resize(blend ? static_cast<size_t>(mOutVolume) : 0);
            mReady = true;
            return Status::ok();
        }
#endif
        if (mRegion != nvinfer1::TensorFormat::kLINEAR)
        {
            return unsupported("layer '" + mSetup.node->name + "': oneDNN cannot pool this shape, and the reference "
                "pooling reads and writes kLINEAR tensors only, not " + formatName(mRegion));
        }
        mGeometry = toGeometry3(mCfg.params, ext);
        mPlanes = in.dims.d[0] * in.dims.d[1];
        mX.resize(static_cast<size_t>(mInVolume));
        mY.resize(static_cast<size_t>(mOutVolume));
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "Pooling");
        }
        if (mOutVolume == 0)
        {
            return Status::ok();
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
#if KILN_HAVE_ONEDNN
        if (mEntry != nullptr)
        {
            return runOneDnn(*mEntry, in, out);
        }
#endif
        convertToDouble(in.data, in.type, mInVolume, mX.data());
        referencePooling(mGeometry, mPlanes, mCfg, mX.data(), mY.data());
        convertFromDouble(mY.data(), out.type, mOutVolume, out.data);
        return Status::ok();
    }

private:
#if KILN_HAVE_ONEDNN
    OneDnnPoolEntry* findOrCreateEntry(TensorView const& in, TensorView const& out, std::vector<WindowExtent> const& ext)
    {
        std::vector<int64_t> const key = dimsVector(in.dims);
        for (auto& e : mCache)
        {
            if (e->key == key)
            {
                return e.get();
            }
        }
        if (mCache.size() >= kMAX_CACHED_SHAPES)
        {
            mCache.erase(mCache.begin());
        }
        auto entry = std::make_unique<OneDnnPoolEntry>();
        entry->key = key;
        try
        {
            memory::data_type const dt = oneDnnType(in.type);
            entry->usable = dt != memory::data_type::undef && in.type == out.type
                && buildPoolEntry(*entry, mCfg, dt, key, ext, mRegion);
            if (!mStream)
            {
                mStream.emplace(oneDnnEngine());
            }
        }
        catch (...)
        {
            entry->usable = false;
        }
        mCache.push_back(std::move(entry));
        return mCache.back().get();
    }

    Status runOneDnn(OneDnnPoolEntry& e, TensorView const& in, TensorView const& out)
    {
        try
        {
            dnnl::stream& strm = *mStream;
            e.userSrc.set_data_handle(in.data);
            e.userDst.set_data_handle(out.data);
            if (e.copySrc)
            {
                e.srcCopy.execute(strm);
            }
            if (e.maxPool)
            {
                e.maxPool.execute(strm);
            }
            if (e.avgPool)
            {
                e.avgPool.execute(strm);
            }
            strm.wait();
            if (e.maxPool && e.avgPool)
            {
                int64_t const count = mOutVolume;
                convertToDouble(e.blendMax.get_data_handle(), out.type, count, mX.data());
                convertToDouble(e.blendAvg.get_data_handle(), out.type, count, mY.data());
                double const b = mCfg.blend;
                for (int64_t i = 0; i < count; ++i)
                {
                    size_t const j = static_cast<size_t>(i);
                    mY[j] = b == 0.0 ? mX[j] : (b == 1.0 ? mY[j] : (1.0 - b) * mX[j] + b * mY[j]);
                }
                convertFromDouble(mY.data(), out.type, count, out.data);
            }
            countOneDnnRun(nvinfer1::LayerType::kPOOLING);
            return Status::ok();
        }
        catch (dnnl::error const& err)
        {
            return failedExecution("layer '" + mSetup.node->name + "': oneDNN failed: " + err.what());
        }
        catch (std::exception const& err)
        {
            return failedExecution("layer '" + mSetup.node->name + "': " + err.what());
        }
    }

    static constexpr size_t kMAX_CACHED_SHAPES = 16;
    std::vector<std::unique_ptr<OneDnnPoolEntry>> mCache;
    OneDnnPoolEntry* mEntry{nullptr}; //!< the current shapes' primitives, or nullptr for the reference kernel
    std::optional<dnnl::stream> mStream;
#endif

    KernelSetup mSetup;
    PoolConfig mCfg;
    CpuTactic mTactic;
    nvinfer1::TensorFormat mRegion; //!< format of the input and output (kLINEAR outside regions)
    Geometry3 mGeometry;
    int64_t mPlanes{0}; //!< N * C
    int64_t mInVolume{0};
    int64_t mOutVolume{0};
    std::vector<double> mX;
    std::vector<double> mY;
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createPoolingKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("pooling kernel created without a plan node");
    }
    KILN_ASSIGN_OR_RETURN(PoolConfig cfg, readPoolConfig(*setup.node));
    KILN_ASSIGN_OR_RETURN(CpuTactic tactic, selectCpuTactic(*setup.node));
    nvinfer1::TensorFormat const region
        = outputFormatOf(setup);
    if (region != nvinfer1::TensorFormat::kLINEAR
        && (tactic != CpuTactic::kONEDNN || !oneDnnHasFormat(region) || cfg.type == PoolingType::kMAX_AVERAGE_BLEND
            || cfg.params.nbSpatial != 2))
    {
        return unsupported("layer '" + setup.node->name + "': pooling reads and writes " + formatName(region)
            + " only as 2-D max or average pooling on the oneDNN tactic");
    }
    return std::unique_ptr<Kernel>(std::make_unique<PoolingKernel>(setup, std::move(cfg), tactic));
}

std::vector<std::string> poolingTactics(KernelSetup const& setup)
{
    std::vector<std::string> const referenceOnly{kTACTIC_REFERENCE};
#if KILN_HAVE_ONEDNN
    if (setup.node == nullptr || setup.inputTypes.size() != 1 || setup.outputTypes.size() != 1)
    {
        return referenceOnly;
    }
    auto cfg = readPoolConfig(*setup.node);
    DataType const type = setup.inputTypes[0];
    // Pooling in a region format runs only on oneDNN (the reference kernel reads kLINEAR).
    nvinfer1::TensorFormat const region = outputFormatOf(setup);
    bool const inRegion = region != nvinfer1::TensorFormat::kLINEAR;
    if (inRegion)
    {
        bool const ok = cfg.isOk() && setup.outputTypes[0] == type && oneDnnType(type) != dnnl::memory::data_type::undef
            && oneDnnHasFormat(region) && cfg.value().type != PoolingType::kMAX_AVERAGE_BLEND
            && cfg.value().params.nbSpatial == 2;
        return ok ? std::vector<std::string>{kTACTIC_ONEDNN} : std::vector<std::string>{};
    }
    if (!cfg.isOk() || setup.outputTypes[0] != type || oneDnnType(type) == dnnl::memory::data_type::undef)
    {
        return referenceOnly;
    }
    // Probe with a small input of this configuration: oneDNN must offer a non-reference implementation.
    PoolConfig probe = cfg.value();
    probe.params.mode = nvinfer1::PaddingMode::kEXPLICIT_ROUND_DOWN;
    std::fill(probe.params.prePadding.begin(), probe.params.prePadding.end(), 0);
    std::fill(probe.params.postPadding.begin(), probe.params.postPadding.end(), 0);
    std::vector<int64_t> inDims{1, 16};
    for (int32_t i = 0; i < probe.params.nbSpatial; ++i)
    {
        inDims.push_back(probe.params.kernel[static_cast<size_t>(i)] + probe.params.stride[static_cast<size_t>(i)]);
    }
    try
    {
        auto ext = computeWindowExtents(
            WindowKind::kPOOLING, probe.params, std::vector<int64_t>(inDims.begin() + 2, inDims.end()));
        if (!ext.isOk())
        {
            return referenceOnly;
        }
        std::vector<int64_t> dstDims{1, 16};
        for (WindowExtent const& x : ext.value())
        {
            dstDims.push_back(x.out);
        }
        int32_t const rank = static_cast<int32_t>(inDims.size());
        dnnl::memory::desc const src(toDnnlDims(inDims), oneDnnType(type),
            rank == 4 ? dnnl::memory::format_tag::abcd : dnnl::memory::format_tag::abcde);
        dnnl::memory::desc const dst(toDnnlDims(dstDims), oneDnnType(type),
            rank == 4 ? dnnl::memory::format_tag::abcd : dnnl::memory::format_tag::abcde);
        dnnl::memory::dims const zeros(static_cast<size_t>(rank - 2), 0);
        dnnl::algorithm const alg = probe.type == PoolingType::kAVERAGE ? dnnl::algorithm::pooling_avg_exclude_padding
                                                                       : dnnl::algorithm::pooling_max;
        dnnl::pooling_v2_forward::desc desc(dnnl::prop_kind::forward_inference, alg, src, dst,
            toDnnlDims(probe.params.stride), toDnnlDims(probe.params.kernel), zeros, zeros, zeros);
        dnnl::pooling_v2_forward::primitive_desc pd(desc, oneDnnEngine());
        if (isOneDnnReferenceImpl(pd))
        {
            return referenceOnly;
        }
    }
    catch (...)
    {
        return referenceOnly;
    }
    return {kTACTIC_ONEDNN, kTACTIC_REFERENCE};
#else
    bool const inRegion = outputFormatOf(setup) != nvinfer1::TensorFormat::kLINEAR;
    return inRegion ? std::vector<std::string>{} : referenceOnly;
#endif
}

} // namespace kiln
