// CPU convolution kernel (also runs deconvolution, see deconvolution.cpp): a plain reference implementation in
// double precision, and a oneDNN implementation whose primitives are created at reshape per input shape and cached
// in the kernel object. Kernel and bias come from weights or from inputs 1/2. A fused epilogue ("fuse.*": add of the
// last input, activation) runs as oneDNN post-ops where oneDNN expresses it (oneDnnEpilogue.h); what remains (and the
// whole epilogue on the reference path) is applied to the output afterwards (fusedEpilogueCpu.h). A convolution in the
// builder's region plan (channelLastPass) reads its data input and fused addition and writes its output in the CPU's
// region format (oneDnnFormats.h: kHWC or kCHW16), given to oneDNN as the memory layout, so that no reorder runs
// when it is the layout the primitive picks; only the oneDNN path runs such nodes. With kADD_IN_PLACE (inPlaceAddPass)
// the output is the residual's memory: the sum post-op adds into it where it lies; other paths read a copy of it.
#include "backends/common/convolutionParams.h"
#include "backends/cpu/kernels/convolutionCommon.h"
#include "backends/cpu/kernels/convolutionDescs.h"
#include "backends/cpu/kernels/fusedEpilogueCpu.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "backends/cpu/kernels/oneDnnEpilogue.h"
#include "backends/cpu/kernels/oneDnnFormats.h"
#include "core/tensorFormat.h"
#include "engine/tensorLifetimes.h"
#include "network/layers/convolutionLayer.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>

namespace kiln
{
using nvinfer1::DataType;

namespace
{

#if KILN_HAVE_ONEDNN
int64_t product(std::vector<int64_t> const& v)
{
    int64_t p = 1;
    for (int64_t x : v)
    {
        p *= x;
    }
    return p;
}
#endif

void referenceConvolution(Geometry3 const& g, int64_t n, int64_t c, int64_t k, int64_t groups, double const* x,
    double const* w, double const* bias, double* y)
{
    // y[b][oc][o] = bias[oc] + sum over ci in the group and kernel taps r of x[b][ci][o * stride - pad + r * dilation]
    // * w[oc][ci][r]; taps that land in the padding contribute nothing. Loops run tap by tap over whole output
    // planes (plain loops, accumulation in double).
    int64_t const cg = c / groups;
    int64_t const kg = k / groups;
    int64_t const inVol = g.inVolume();
    int64_t const outVol = g.outVolume();
    int64_t const kVol = g.kernelVolume();
    for (int64_t b = 0; b < n; ++b)
    {
        for (int64_t oc = 0; oc < k; ++oc)
        {
            int64_t const grp = oc / kg;
            double* yc = y + (b * k + oc) * outVol;
            std::fill(yc, yc + outVol, bias != nullptr ? bias[oc] : 0.0);
            for (int64_t ci = 0; ci < cg; ++ci)
            {
                double const* xc = x + (b * c + grp * cg + ci) * inVol;
                double const* wc = w + (oc * cg + ci) * kVol;
                for (int64_t kd = 0; kd < g.kernel[0]; ++kd)
                {
                    for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
                    {
                        for (int64_t kw = 0; kw < g.kernel[2]; ++kw)
                        {
                            double const wv = wc[(kd * g.kernel[1] + kh) * g.kernel[2] + kw];
                            for (int64_t od = 0; od < g.out[0]; ++od)
                            {
                                int64_t const id = od * g.stride[0] - g.padBefore[0] + kd * g.dilation[0];
                                if (id < 0 || id >= g.in[0])
                                {
                                    continue;
                                }
                                for (int64_t oh = 0; oh < g.out[1]; ++oh)
                                {
                                    int64_t const ih = oh * g.stride[1] - g.padBefore[1] + kh * g.dilation[1];
                                    if (ih < 0 || ih >= g.in[1])
                                    {
                                        continue;
                                    }
                                    double const* xrow = xc + (id * g.in[1] + ih) * g.in[2];
                                    double* yrow = yc + (od * g.out[1] + oh) * g.out[2];
                                    for (int64_t ow = 0; ow < g.out[2]; ++ow)
                                    {
                                        int64_t const iw = ow * g.stride[2] - g.padBefore[2] + kw * g.dilation[2];
                                        if (iw >= 0 && iw < g.in[2])
                                        {
                                            yrow[ow] += xrow[iw] * wv;
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#if KILN_HAVE_ONEDNN
using dnnl::memory;
using Tag = dnnl::memory::format_tag;

//! One oneDNN configuration for a concrete input/output shape.
struct OneDnnConvEntry
{
    std::vector<int64_t> key;
    bool usable{false}; // false: oneDNN rejected this shape; run the reference kernel
    memory userSrc;
    memory userDst;
    memory src;
    memory dst;
    memory weights;     // in the primitive's layout (from weights slot: filled once)
    memory userWeights; // plain kernel tensor (input 1), handle set per run
    memory bias;        // f32 [K]
    memory userAdd;            // the fused addition's tensor (handle set per run), for a sum or binary post-op
    OneDnnStep addReorder;     // sum post-op: copies the added tensor into the destination before the convolution
    FusedEpilogue remainder;   // the part of the epilogue the post-ops do not run
    bool postOps{false};       // the primitive runs (part of) the epilogue
    OneDnnStep srcReorder;     // set when the primitive wants another source layout
    OneDnnStep weightsReorder; // set when a kernel tensor (input 1) needs another layout
    OneDnnStep convolution;
    OneDnnStep dstReorder;     // set when the primitive writes another destination layout
};

//! Plain buffer of `count` values of oneDNN type `dt` (f32 or bf16/f16) converted from doubles.
std::vector<uint8_t> packValues(double const* v, int64_t count, memory::data_type dt)
{
    std::vector<uint8_t> bytes;
    if (dt == memory::data_type::f32)
    {
        bytes.resize(static_cast<size_t>(count) * sizeof(float));
        float* p = reinterpret_cast<float*>(bytes.data());
        for (int64_t i = 0; i < count; ++i)
        {
            p[i] = static_cast<float>(v[i]);
        }
        return bytes;
    }
    bytes.resize(static_cast<size_t>(count) * sizeof(uint16_t));
    uint16_t* p = reinterpret_cast<uint16_t*>(bytes.data());
    for (int64_t i = 0; i < count; ++i)
    {
        p[i] = dt == memory::data_type::bf16 ? floatToBf16(static_cast<float>(v[i])) : floatToHalf(static_cast<float>(v[i]));
    }
    return bytes;
}
#endif

//! create: the configuration, tactic and epilogue, and the weights slots as double; reshape: the shapes, the
//! epilogue's plan and either the oneDNN primitives, reorders and arguments for these shapes (looked up in or added to
//! a per-shape cache) or the reference kernel's geometry and scratch; run: the convolution, then the epilogue.
class ConvolutionKernel final : public Kernel
{
public:
    ConvolutionKernel(KernelSetup const& setup, ConvConfig cfg, CpuTactic tactic, FusedEpilogue epilogue)
        : mSetup(setup)
        , mCfg(std::move(cfg))
        , mTactic(tactic)
        , mEpilogue(epilogue)
        , mRegion(outputFormatOf(setup))
        , mAddInPlace(setup.node->attrs.getInt(kADD_IN_PLACE, 0) != 0)
    {
        if (mSetup.weights.size() > 0 && mSetup.weights[0].present())
        {
            WeightsView const& w = mSetup.weights[0];
            mSlotWeights.resize(static_cast<size_t>(w.count));
            convertToDouble(w.data, w.type, w.count, mSlotWeights.data());
        }
        if (mSetup.weights.size() > 1 && mSetup.weights[1].present())
        {
            WeightsView const& b = mSetup.weights[1];
            mSlotBias.resize(static_cast<size_t>(b.count));
            convertToDouble(b.data, b.type, b.count, mSlotBias.data());
        }
    }

    Status reshape(std::vector<TensorView> const& allInputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        if (mEpilogue.hasAdd && allInputs.size() < 2)
        {
            return invalidArgument("layer '" + mSetup.node->name + "': the fused addition's input is missing");
        }
        std::vector<TensorView> const inputs(allInputs.begin(), allInputs.end() - (mEpilogue.hasAdd ? 1 : 0));
        KILN_RETURN_IF_ERROR(convShapes(mSetup, mCfg, inputs, outputs, static_cast<int64_t>(mSlotWeights.size()),
            static_cast<int64_t>(mSlotBias.size()), mShapes));
        TensorView const& out = outputs.at(0);
        TensorView const* add = mEpilogue.hasAdd ? &allInputs.back() : nullptr;
        // The whole epilogue is checked against the shapes first, whichever part of it oneDNN runs.
        StatusOr<FusedEpiloguePlan> plan = prepareFusedEpilogueCpu(mEpilogue, out.type, out.dims, add);
        if (!plan.isOk())
        {
            return plan.status().withContext("layer '" + mSetup.node->name + "'");
        }
        mEpiloguePlan = std::move(*plan);
        mOutVolume = out.volume();
        mInVolume = inputs[0].volume();
        mB.resize(mShapes.biasTensor ? static_cast<size_t>(mCfg.k) : 0);
#if KILN_HAVE_ONEDNN
        mEntry = nullptr;
        if (mTactic == CpuTactic::kONEDNN && mInVolume > 0 && mOutVolume > 0)
        {
            OneDnnConvEntry* entry = findOrCreateEntry(inputs, outputs, mShapes, add);
            mEntry = entry != nullptr && entry->usable ? entry : nullptr;
        }
        if (mEntry != nullptr)
        {
            KILN_ASSIGN_OR_RETURN(mEpiloguePlan, prepareFusedEpilogueCpu(mEntry->remainder, out.type, out.dims, add));
            // The CPU epilogue walks the storage as if linear: right for a region format without padding channels.
            if (mRegion != nvinfer1::TensorFormat::kLINEAR && !mEntry->remainder.empty()
                && formattedVolume(mRegion, dimsVector(out.dims)) != mOutVolume)
            {
                return unsupported("layer '" + mSetup.node->name + "': the part of the fused epilogue oneDNN does not "
                    "run cannot be applied to " + formatName(mRegion) + " storage with padding channels");
            }
        }
        else if (mRegion != nvinfer1::TensorFormat::kLINEAR)
        {
            return unsupported("layer '" + mSetup.node->name + "': oneDNN cannot run this shape, and the reference "
                "convolution reads and writes kLINEAR tensors only, not " + formatName(mRegion));
        }
        else
#endif
        {
            mGeometry = toGeometry3(mCfg.params, mShapes.ext);
            mX.resize(static_cast<size_t>(mInVolume));
            mW.resize(mShapes.kernelTensor ? static_cast<size_t>(inputs[1].volume()) : 0);
            mY.resize(static_cast<size_t>(mOutVolume));
        }
        // Written in place, only a sum post-op reads the residual before the output overwrites it.
        bool sumPostOp = false;
#if KILN_HAVE_ONEDNN
        sumPostOp = mEntry != nullptr && mEntry->addReorder;
#endif
        mAddCopy.resize(mAddInPlace && add != nullptr && !sumPostOp
                ? static_cast<size_t>(byteSize(add->type, formattedVolume(mRegion, dimsVector(add->dims))))
                : 0);
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, mCfg.deconvolution ? "Deconvolution" : "Convolution");
        }
        if (mOutVolume == 0)
        {
            return Status::ok();
        }
        TensorView add = mEpilogue.hasAdd ? inputs.back() : TensorView{};
        if (!mAddCopy.empty() && add.data == outputs[0].data)
        {
            std::memcpy(mAddCopy.data(), add.data, mAddCopy.size());
            add.data = mAddCopy.data();
        }
#if KILN_HAVE_ONEDNN
        if (mEntry != nullptr)
        {
            KILN_RETURN_IF_ERROR(runOneDnn(*mEntry, inputs, outputs, add.data));
        }
        else
#endif
        {
            runReference(inputs, outputs);
        }
        runFusedEpilogueCpu(mEpiloguePlan, outputs[0], mEpiloguePlan.epilogue.hasAdd ? &add : nullptr);
        return Status::ok();
    }

private:
    //! The bias tensor (input 2) as double in mB.
    void loadBiasTensor(std::vector<TensorView> const& inputs)
    {
        convertToDouble(inputs[2].data, inputs[2].type, mCfg.k, mB.data());
    }

    void runReference(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
    {
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        ConvShapes const& s = mShapes;
        convertToDouble(in.data, in.type, mInVolume, mX.data());
        double const* w = mSlotWeights.data();
        if (s.kernelTensor)
        {
            convertToDouble(inputs[1].data, inputs[1].type, static_cast<int64_t>(mW.size()), mW.data());
            w = mW.data();
        }
        double const* bias = mSlotBias.empty() ? nullptr : mSlotBias.data();
        if (s.biasTensor)
        {
            loadBiasTensor(inputs);
            bias = mB.data();
        }
        if (mCfg.deconvolution)
        {
            referenceDeconvolution(mGeometry, s.n, s.c, mCfg.k, mCfg.groups, mX.data(), w, bias, mY.data());
        }
        else
        {
            referenceConvolution(mGeometry, s.n, s.c, mCfg.k, mCfg.groups, mX.data(), w, bias, mY.data());
        }
        convertFromDouble(mY.data(), out.type, mOutVolume, out.data);
    }

#if KILN_HAVE_ONEDNN
    OneDnnConvEntry* findOrCreateEntry(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        ConvShapes const& s, TensorView const* add)
    {
        std::vector<int64_t> key = dimsVector(inputs[0].dims);
        std::vector<int64_t> const outDims = dimsVector(outputs[0].dims);
        key.insert(key.end(), outDims.begin(), outDims.end());
        key.push_back(s.kernelTensor ? 1 : 0);
        key.push_back(s.hasBias ? 1 : 0);
        if (add != nullptr)
        {
            std::vector<int64_t> const addDims = dimsVector(add->dims);
            key.push_back(-1);
            key.insert(key.end(), addDims.begin(), addDims.end());
        }
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
        auto entry = std::make_unique<OneDnnConvEntry>();
        entry->key = key;
        try
        {
            buildEntry(*entry, inputs, outputs, s, add);
            entry->usable = true;
        }
        catch (...)
        {
            entry->usable = false; // oneDNN does not support this shape: the reference kernel runs it
        }
        mCache.push_back(std::move(entry));
        return mCache.back().get();
    }

    //! The descriptors with the epilogue's post-ops where oneDNN runs them in the implementation it picks without
    //! them, else without; `plan` is left saying what the post-ops run.
    OneDnnConvDescs makeFusedDescs(memory::data_type dt, std::vector<int64_t> const& inDims, ConvShapes const& s,
        std::vector<int64_t> const& outDims, TensorView const* add, OneDnnEpiloguePlan& plan)
    {
        ConvFormats const formats{mRegion, mRegion};
        OneDnnConvDescs plain = makeConvDescs(mCfg, dt, inDims, s.ext, s.hasBias, dnnl::primitive_attr(), formats);
        plan = planOneDnnEpilogue(mEpilogue, outDims, add, true);
        if (mRegion != nvinfer1::TensorFormat::kLINEAR && plan.add != OneDnnAdd::kNONE)
        {
            // The region plan's addition has the output's shape and format: the sum post-op copies it as stored.
            if (plan.add != OneDnnAdd::kSUM)
            {
                throw std::runtime_error("a broadcast addition in a region format");
            }
            plan.addDesc = oneDnnFormatDesc(outDims, oneDnnType(add->type), mRegion);
        }
        if (plan.fusesAnything())
        {
            try
            {
                OneDnnConvDescs d = makeConvDescs(mCfg, dt, inDims, s.ext, s.hasBias, plan.attr, formats);
                if (sameOneDnnImpl(d.pd, plain.pd))
                {
                    return d;
                }
            }
            catch (dnnl::error const&)
            {
                // oneDNN rejects these post-ops for this configuration: the CPU epilogue applies them.
            }
            plan = unfusedOneDnnEpilogue(mEpilogue);
        }
        return plain;
    }

    void buildEntry(OneDnnConvEntry& e, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        ConvShapes const& s, TensorView const* add)
    {
        TensorView const& in = inputs[0];
        memory::data_type const dt = oneDnnType(in.type);
        if (dt == memory::data_type::undef || outputs[0].type != in.type
            || (s.kernelTensor && inputs[1].type != in.type))
        {
            throw std::runtime_error("types not supported by the oneDNN path");
        }
        OneDnnEpiloguePlan plan;
        OneDnnConvDescs d = makeFusedDescs(dt, dimsVector(in.dims), s, dimsVector(outputs[0].dims), add, plan);
        e.remainder = plan.remainder;
        e.postOps = plan.fusesAnything();
        dnnl::engine& eng = oneDnnEngine();
        if (!mStream)
        {
            mStream.emplace(eng);
        }
        e.userSrc = memory(d.userSrc, eng, nullptr);
        e.userDst = memory(d.userDst, eng, nullptr);
        if (d.pd.src_desc() != d.userSrc)
        {
            e.src = memory(d.pd.src_desc(), eng);
            e.srcReorder
                = OneDnnStep(dnnl::reorder(e.userSrc, e.src), {{DNNL_ARG_FROM, e.userSrc}, {DNNL_ARG_TO, e.src}});
        }
        if (d.pd.dst_desc() != d.userDst)
        {
            e.dst = memory(d.pd.dst_desc(), eng);
            e.dstReorder
                = OneDnnStep(dnnl::reorder(e.dst, e.userDst), {{DNNL_ARG_FROM, e.dst}, {DNNL_ARG_TO, e.userDst}});
        }
        bool const reorderWeights = d.pd.weights_desc() != d.userWeights;
        memory weights;
        if (s.kernelTensor)
        {
            e.userWeights = memory(d.userWeights, eng, nullptr);
            weights = e.userWeights;
            if (reorderWeights)
            {
                e.weights = memory(d.pd.weights_desc(), eng);
                e.weightsReorder = OneDnnStep(dnnl::reorder(e.userWeights, e.weights),
                    {{DNNL_ARG_FROM, e.userWeights}, {DNNL_ARG_TO, e.weights}});
                weights = e.weights;
            }
        }
        else
        {
            std::vector<uint8_t> packed = packValues(mSlotWeights.data(), static_cast<int64_t>(mSlotWeights.size()), dt);
            memory user(d.userWeights, eng, packed.data());
            e.weights = memory(d.pd.weights_desc(), eng);
            dnnl::reorder(user, e.weights).execute(*mStream, user, e.weights);
            mStream->wait();
            weights = e.weights;
        }
        memory const dst = e.dstReorder ? e.dst : e.userDst;
        std::vector<std::pair<int, memory>> args{
            {DNNL_ARG_SRC, e.srcReorder ? e.src : e.userSrc}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
        if (plan.add != OneDnnAdd::kNONE)
        {
            e.userAdd = memory(plan.addDesc, eng, nullptr);
            if (plan.add == OneDnnAdd::kSUM)
            {
                e.addReorder = OneDnnStep(dnnl::reorder(e.userAdd, dst), {{DNNL_ARG_FROM, e.userAdd}, {DNNL_ARG_TO, dst}});
            }
            else
            {
                args.emplace_back(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, e.userAdd);
            }
        }
        if (s.hasBias)
        {
            e.bias = memory(d.bias, eng);
            if (!s.biasTensor)
            {
                float* b = static_cast<float*>(e.bias.get_data_handle());
                for (int64_t i = 0; i < mCfg.k; ++i)
                {
                    b[i] = static_cast<float>(mSlotBias[static_cast<size_t>(i)]);
                }
            }
            args.emplace_back(DNNL_ARG_BIAS, e.bias);
        }
        e.convolution = OneDnnStep(dnnl::primitive(d.pd), args);
    }

    Status runOneDnn(
        OneDnnConvEntry& e, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, void* add)
    {
        try
        {
            dnnl::stream& strm = *mStream;
            e.userSrc.set_data_handle(inputs[0].data);
            e.userDst.set_data_handle(outputs[0].data);
            if (e.srcReorder)
            {
                e.srcReorder.execute(strm);
            }
            if (e.userWeights)
            {
                e.userWeights.set_data_handle(inputs[1].data);
                if (e.weightsReorder)
                {
                    e.weightsReorder.execute(strm);
                }
            }
            if (e.bias && mShapes.biasTensor)
            {
                loadBiasTensor(inputs);
                float* b = static_cast<float*>(e.bias.get_data_handle());
                for (int64_t i = 0; i < mCfg.k; ++i)
                {
                    b[i] = static_cast<float>(mB[static_cast<size_t>(i)]);
                }
            }
            if (e.userAdd)
            {
                e.userAdd.set_data_handle(add);
                // Written in place, the residual already lies in the destination the sum post-op adds into.
                if (e.addReorder && (add != outputs[0].data || e.dstReorder))
                {
                    e.addReorder.execute(strm);
                }
            }
            e.convolution.execute(strm);
            if (e.dstReorder)
            {
                e.dstReorder.execute(strm);
            }
            strm.wait();
            countOneDnnRun(mCfg.deconvolution ? nvinfer1::LayerType::kDECONVOLUTION : nvinfer1::LayerType::kCONVOLUTION);
            if (e.postOps)
            {
                countOneDnnPostOpRun();
            }
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
    std::vector<std::unique_ptr<OneDnnConvEntry>> mCache;
    OneDnnConvEntry* mEntry{nullptr}; //!< the current shapes' primitives, or nullptr for the reference kernel
    std::optional<dnnl::stream> mStream;
#endif

    KernelSetup mSetup;
    ConvConfig mCfg;
    CpuTactic mTactic;
    FusedEpilogue mEpilogue;
    nvinfer1::TensorFormat mRegion; //!< format of the data input, fused addition and output (kLINEAR outside regions)
    bool mAddInPlace;                //!< kADD_IN_PLACE: the output may be the fused addition's memory
    std::vector<uint8_t> mAddCopy;   //!< the fused addition, copied before the output overwrites it (in place, no sum)
    std::vector<double> mSlotWeights;
    std::vector<double> mSlotBias;
    ConvShapes mShapes;
    Geometry3 mGeometry;
    FusedEpiloguePlan mEpiloguePlan;
    int64_t mInVolume{0};
    int64_t mOutVolume{0};
    std::vector<double> mX;
    std::vector<double> mW;
    std::vector<double> mB;
    std::vector<double> mY;
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createConvolutionLikeKernel(KernelSetup const& setup, bool deconvolution)
{
    if (setup.node == nullptr)
    {
        return internalError("convolution kernel created without a plan node");
    }
    KILN_ASSIGN_OR_RETURN(ConvConfig cfg, readConvConfig(*setup.node, deconvolution));
    KILN_ASSIGN_OR_RETURN(CpuTactic tactic, selectCpuTactic(*setup.node));
    KILN_ASSIGN_OR_RETURN(FusedEpilogue epilogue, readConvolutionEpilogue(*setup.node));
    if (epilogue.hasAdd && setup.inputTypes.size() >= 2
        && !fusedEpilogueCpuSupports(setup.outputTypes.empty() ? DataType::kFLOAT : setup.outputTypes[0],
            setup.inputTypes.back()))
    {
        return invalidArgument("layer '" + setup.node->name + "': the fused addition's type is not supported");
    }
    if (setup.inputTypes.empty() || setup.outputTypes.size() != 1)
    {
        return invalidArgument("layer '" + setup.node->name + "': expected 1 to 3 inputs and 1 output");
    }
    nvinfer1::TensorFormat const region
        = outputFormatOf(setup);
    if (region != nvinfer1::TensorFormat::kLINEAR
        && (deconvolution || tactic != CpuTactic::kONEDNN || !oneDnnHasFormat(region) || setup.outputRanks[0] != 4))
    {
        return unsupported("layer '" + setup.node->name + "': a convolution reads and writes " + formatName(region)
            + " only as a 4-D convolution on the oneDNN tactic");
    }
    for (size_t i = 0; i < setup.weights.size() && i < 2; ++i)
    {
        WeightsView const& w = setup.weights[i];
        if (w.present() && (w.data == nullptr || !isConvFloatStorage(w.type)))
        {
            return invalidArgument("layer '" + setup.node->name + "': weights slot " + std::to_string(i)
                + " has no data or a non-float type");
        }
    }
    return std::unique_ptr<Kernel>(std::make_unique<ConvolutionKernel>(setup, std::move(cfg), tactic, epilogue));
}

std::vector<std::string> convolutionLikeTactics(KernelSetup const& setup, bool deconvolution)
{
    std::vector<std::string> const referenceOnly{kTACTIC_REFERENCE};
#if KILN_HAVE_ONEDNN
    if (setup.node == nullptr || setup.inputTypes.empty() || setup.outputTypes.empty())
    {
        return referenceOnly;
    }
    auto cfg = readConvConfig(*setup.node, deconvolution);
    if (!cfg.isOk())
    {
        return referenceOnly;
    }
    DataType const type = setup.inputTypes[0];
    if (!isConvFloatStorage(type) || setup.outputTypes[0] != type)
    {
        return referenceOnly;
    }
    size_t const own = convolutionOwnInputs(*setup.node);
    bool const kernelTensor = own > 1 && setup.inputPresent.size() > 1 && setup.inputPresent[1];
    if (kernelTensor && setup.inputTypes[1] != type)
    {
        return referenceOnly;
    }
    // Probe oneDNN with a small shape of this configuration (channels from the weights when known).
    ConvConfig const& c = cfg.value();
    // A convolution in a region format runs only on oneDNN (the reference kernel reads kLINEAR).
    nvinfer1::TensorFormat const region = outputFormatOf(setup);
    bool const inRegion = region != nvinfer1::TensorFormat::kLINEAR;
    if (inRegion && (deconvolution || !oneDnnHasFormat(region) || c.params.nbSpatial != 2))
    {
        return {};
    }
    int64_t const kernelVolume = product(c.params.kernel);
    int64_t perGroup = 1;
    if (!kernelTensor && !setup.weights.empty() && setup.weights[0].present())
    {
        int64_t const denom = (deconvolution ? c.k / c.groups : c.k) * kernelVolume;
        perGroup = denom > 0 ? std::max<int64_t>(setup.weights[0].count / denom, 1) : 1;
        if (deconvolution)
        {
            perGroup = std::max<int64_t>(perGroup / c.groups, 1);
        }
    }
    std::vector<int64_t> inDims{1, perGroup * c.groups};
    for (int32_t i = 0; i < c.params.nbSpatial; ++i)
    {
        // Large enough that the padding never trims the whole (deconvolution) output.
        size_t const j = static_cast<size_t>(i);
        inDims.push_back(c.params.dilatedKernel(i) + c.params.stride[j] + c.params.prePadding[j] + c.params.postPadding[j]);
    }
    auto ext = computeWindowExtents(deconvolution ? WindowKind::kDECONVOLUTION : WindowKind::kCONVOLUTION, c.params,
        std::vector<int64_t>(inDims.begin() + 2, inDims.end()));
    if (!ext.isOk())
    {
        return referenceOnly;
    }
    bool const hasBias = (own > 2 && setup.inputPresent.size() > 2 && setup.inputPresent[2])
        || (setup.weights.size() > 1 && setup.weights[1].present());
    try
    {
        OneDnnConvDescs d = makeConvDescs(c, oneDnnType(type), inDims, ext.value(), hasBias, dnnl::primitive_attr(),
            ConvFormats{region, region});
        if (isOneDnnReferenceImpl(d.pd))
        {
            return inRegion ? std::vector<std::string>{} : referenceOnly;
        }
    }
    catch (...)
    {
        return inRegion ? std::vector<std::string>{} : referenceOnly;
    }
    if (inRegion)
    {
        return {kTACTIC_ONEDNN};
    }
    return {kTACTIC_ONEDNN, kTACTIC_REFERENCE};
#else
    (void) deconvolution;
    bool const inRegion = outputFormatOf(setup) != nvinfer1::TensorFormat::kLINEAR;
    return inRegion ? std::vector<std::string>{} : referenceOnly;
#endif
}

StatusOr<std::unique_ptr<Kernel>> createConvolutionKernel(KernelSetup const& setup)
{
    if (setup.node != nullptr && isInt8ConvolutionNode(*setup.node))
    {
        return createInt8ConvolutionKernel(setup);
    }
    return createConvolutionLikeKernel(setup, false);
}

std::vector<std::string> convolutionTactics(KernelSetup const& setup)
{
    if (setup.node != nullptr && isInt8ConvolutionNode(*setup.node))
    {
        return int8ConvolutionTactics(setup);
    }
    return convolutionLikeTactics(setup, false);
}

} // namespace kiln
