// CPU kernel of the INT8 convolution node (builder/passes/fusion/int8Convolution.cpp): an s8 data input, s8 weights
// (weights slot 0, per-output-channel or per-tensor scales), an optional FP32 bias (slot 1), an optional activation
// ("fuse.act") and an s8 output when the Q was fused ("int8.yScale"), else FP32. One oneDNN int8 convolution
// (oneDNN 2.x): output scales x_scale * w_scale[oc], the bias divided by the same scales (oneDNN 2.x scales the
// accumulator plus bias), with "int8.midScale" (a fused Q -> DQ before the activation) the post-ops linear(1 / mid),
// round and clip [-128, 127] times mid, then the activation as an eltwise post-op; a fused Q divides the result by
// y_scale (in the activation's result scale, or in the output scales without one); oneDNN then rounds to nearest even
// and saturates to [-128, 127]. With "int8.residualScale" (input 1: the INT8 residual of a fused Q -> DQ -> Add ->
// Q(sum), ONNX Runtime's ResNet block) the residual is copied into the destination and added by a sum post-op
// scaled by residual / sum, after the intermediate rounding; an activation after the sum's Q -> DQ follows a second
// rounding. The weights are reordered into the primitive's layout once per shape. No reference implementation: the
// builder fuses only where this kernel accepts the node at every profile shape (KernelProbe), so a build without
// oneDNN keeps the unfused layers.
#include "backends/common/convolutionParams.h"
#include "backends/cpu/kernels/convolutionCommon.h"
#include "backends/cpu/kernels/convolutionDescs.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "backends/cpu/kernels/oneDnnEpilogue.h"

#include <algorithm>
#include <stdexcept>

namespace kiln
{
using nvinfer1::DataType;

bool isInt8ConvolutionNode(PlanNode const& node)
{
    return node.kind == nvinfer1::LayerType::kCONVOLUTION && node.attrs.has("int8.xScale");
}

#if KILN_HAVE_ONEDNN && DNNL_VERSION_MAJOR < 3
namespace
{
using dnnl::memory;

//! The oneDNN objects of one input shape.
struct Int8ConvEntry
{
    std::vector<int64_t> inDims;
    memory userSrc;
    memory userDst;
    memory src; // set when the primitive reads another source layout
    memory dst; // set when it writes another destination layout
    memory weights;
    memory bias;
    memory residual; // the INT8 residual as stored, copied into the destination before the primitive (sum post-op)
    OneDnnStep residualCopy;
    OneDnnStep srcReorder;
    OneDnnStep convolution;
    OneDnnStep dstReorder;
};

//! create: scales, epilogue and types; reshape: the primitive, reorders and packed weights for the input shape;
//! run: the primitive.
class Int8ConvolutionKernel final : public Kernel
{
public:
    Int8ConvolutionKernel(KernelSetup const& setup, ConvConfig cfg, FusedEpilogue epilogue, std::vector<float> scales,
        float yScale, float midScale, float residualScale, float sumScale)
        : mSetup(setup)
        , mCfg(std::move(cfg))
        , mEpilogue(epilogue)
        , mScales(std::move(scales))
        , mYScale(yScale)
        , mMidScale(midScale)
        , mResidualScale(residualScale)
        , mSumScale(sumScale)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        // The shared shape checks know float storage only: the types were checked at creation.
        TensorView in = inputs.at(0);
        TensorView out = outputs.at(0);
        in.type = DataType::kFLOAT;
        out.type = DataType::kFLOAT;
        KILN_RETURN_IF_ERROR(convShapes(mSetup, mCfg, {in}, {out}, mSetup.weights[0].count,
            mSetup.weights.size() > 1 ? mSetup.weights[1].count : 0, mShapes));
        mEmpty = inputs[0].volume() == 0 || outputs[0].volume() == 0;
        if (mResidualScale > 0.F && (inputs.size() < 2 || dimsVector(inputs[1].dims) != dimsVector(outputs[0].dims)))
        {
            return invalidArgument("layer '" + mSetup.node->name + "': the residual (input 1) must have the output's shape");
        }
        std::vector<int64_t> const inDims = dimsVector(inputs[0].dims);
        if (!mEmpty && (!mEntry || mEntry->inDims != inDims))
        {
            try
            {
                mEntry = buildEntry(inDims, dimsVector(outputs[0].dims));
            }
            catch (std::exception const& e)
            {
                mEntry.reset();
                return unsupported("layer '" + mSetup.node->name + "': oneDNN has no INT8 convolution for this shape ("
                    + e.what() + ")");
            }
        }
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "Convolution");
        }
        if (mEmpty)
        {
            return Status::ok();
        }
        try
        {
            Int8ConvEntry& e = *mEntry;
            e.userSrc.set_data_handle(inputs[0].data);
            e.userDst.set_data_handle(outputs[0].data);
            if (e.residualCopy && (inputs[1].data != outputs[0].data || e.dstReorder))
            {
                e.residual.set_data_handle(inputs[1].data);
                e.residualCopy.execute(*mStream);
            }
            if (e.srcReorder)
            {
                e.srcReorder.execute(*mStream);
            }
            e.convolution.execute(*mStream);
            if (e.dstReorder)
            {
                e.dstReorder.execute(*mStream);
            }
            mStream->wait();
        }
        catch (dnnl::error const& err)
        {
            return failedExecution("layer '" + mSetup.node->name + "': oneDNN failed: " + err.what());
        }
        countOneDnnRun(nvinfer1::LayerType::kCONVOLUTION);
        return Status::ok();
    }

private:
    std::unique_ptr<Int8ConvEntry> buildEntry(std::vector<int64_t> const& inDims, std::vector<int64_t> const& outDims)
    {
        bool const quantizedOut = mYScale > 0.F;
        // oneDNN 2.6's post-op injectors share one set of constants per eltwise algorithm in a chain (a second
        // eltwise_linear computes with the first one's alpha), so each algorithm appears once: the fused Q's 1 / y_scale
        // goes into the output scales (no activation) or into the activation's result scale, and the intermediate
        // Q -> DQ's multiply by mid into the clip's.
        std::vector<dnnl::algorithm> used;
        dnnl::post_ops ops;
        auto append = [&](float scale, dnnl::algorithm alg, float alpha, float beta) {
            // eltwise_round has no constants: a chain may round twice.
            if (alg != dnnl::algorithm::eltwise_round && std::find(used.begin(), used.end(), alg) != used.end())
            {
                throw std::runtime_error("one eltwise algorithm twice in the post-ops");
            }
            used.push_back(alg);
            ops.append_eltwise(scale, alg, alpha, beta);
        };
        float outputDivisor = quantizedOut ? mYScale : 1.F;
        if (mResidualScale > 0.F)
        {
            // Q(mid) -> DQ -> + DQ(residual) -> Q(sum): saturate(round(v / mid)) · mid / sum + residual · res / sum,
            // then [round, saturate, · sum / y (clip_v2: a second clip would take the first one's scale), activation].
            append(1.F, dnnl::algorithm::eltwise_linear, 1.F / mMidScale, 0.F);
            append(1.F, dnnl::algorithm::eltwise_round, 0.F, 0.F);
            append(mMidScale / mSumScale, dnnl::algorithm::eltwise_clip, -128.F, 127.F);
            ops.append_sum(mResidualScale / mSumScale);
            if (!mEpilogue.empty())
            {
                append(1.F, dnnl::algorithm::eltwise_round, 0.F, 0.F);
                append(mSumScale / mYScale, dnnl::algorithm::eltwise_clip_v2, -128.F, 127.F);
            }
            outputDivisor = 1.F;
        }
        else if (mMidScale > 0.F)
        {
            // The fused intermediate Q -> DQ: saturate(round(v / mid)) · mid.
            append(1.F, dnnl::algorithm::eltwise_linear, 1.F / mMidScale, 0.F);
            append(1.F, dnnl::algorithm::eltwise_round, 0.F, 0.F);
            append(mMidScale, dnnl::algorithm::eltwise_clip, -128.F, 127.F);
        }
        if (!mEpilogue.empty())
        {
            OneDnnEpiloguePlan plan = planOneDnnEpilogue(mEpilogue, outDims, nullptr, false);
            dnnl::post_ops const act = plan.attr.get_post_ops();
            if (!plan.remainder.empty() || act.len() < 1)
            {
                throw std::runtime_error("the activation is not a oneDNN post-op");
            }
            for (int i = 0; i < act.len(); ++i)
            {
                float scale = 0.F;
                float alpha = 0.F;
                float beta = 0.F;
                dnnl::algorithm alg{};
                act.get_params_eltwise(i, scale, alg, alpha, beta);
                append(i + 1 == act.len() && mResidualScale <= 0.F ? scale / outputDivisor : scale, alg, alpha, beta);
            }
            outputDivisor = 1.F;
        }
        else if (mMidScale > 0.F && mResidualScale <= 0.F)
        {
            throw std::runtime_error("an intermediate Q -> DQ without an activation");
        }
        std::vector<float> outScales(mScales.size());
        std::vector<float> biasScales(mScales.size());
        for (size_t i = 0; i < mScales.size(); ++i)
        {
            biasScales[i] = xScale() * mScales[i];
            outScales[i] = biasScales[i] / outputDivisor;
        }
        dnnl::primitive_attr attr;
        attr.set_output_scales(outScales.size() == 1 ? 0 : 1 << 1, outScales);
        attr.set_post_ops(ops);
        bool const hasBias = mSetup.weights.size() > 1 && mSetup.weights[1].present();
        memory::data_type const dstType = quantizedOut ? memory::data_type::s8 : memory::data_type::f32;
        OneDnnConvDescs d = makeConvDescs(mCfg, memory::data_type::s8, inDims, mShapes.ext, hasBias, attr,
            ConvFormats(), memory::data_type::s8, dstType);
        if (isOneDnnReferenceImpl(d.pd))
        {
            throw std::runtime_error("only oneDNN's reference implementation takes it");
        }
        dnnl::engine& eng = oneDnnEngine();
        if (!mStream)
        {
            mStream = std::make_unique<dnnl::stream>(eng);
        }
        auto e = std::make_unique<Int8ConvEntry>();
        e->inDims = inDims;
        e->userSrc = memory(d.userSrc, eng, nullptr);
        e->userDst = memory(d.userDst, eng, nullptr);
        if (d.pd.src_desc() != d.userSrc)
        {
            e->src = memory(d.pd.src_desc(), eng);
            e->srcReorder = OneDnnStep(dnnl::reorder(e->userSrc, e->src), {{DNNL_ARG_FROM, e->userSrc}, {DNNL_ARG_TO, e->src}});
        }
        if (d.pd.dst_desc() != d.userDst)
        {
            e->dst = memory(d.pd.dst_desc(), eng);
            e->dstReorder = OneDnnStep(dnnl::reorder(e->dst, e->userDst), {{DNNL_ARG_FROM, e->dst}, {DNNL_ARG_TO, e->userDst}});
        }
        memory user(d.userWeights, eng, const_cast<void*>(mSetup.weights[0].data));
        e->weights = memory(d.pd.weights_desc(), eng);
        dnnl::reorder(user, e->weights).execute(*mStream, user, e->weights);
        mStream->wait();
        if (mResidualScale > 0.F)
        {
            e->residual = memory(d.userDst, eng, nullptr);
            memory const target = e->dstReorder ? e->dst : e->userDst;
            e->residualCopy = OneDnnStep(dnnl::reorder(e->residual, target), {{DNNL_ARG_FROM, e->residual}, {DNNL_ARG_TO, target}});
        }
        std::vector<std::pair<int, memory>> args{{DNNL_ARG_SRC, e->srcReorder ? e->src : e->userSrc},
            {DNNL_ARG_WEIGHTS, e->weights}, {DNNL_ARG_DST, e->dstReorder ? e->dst : e->userDst}};
        if (hasBias)
        {
            e->bias = memory(d.bias, eng);
            float* b = static_cast<float*>(e->bias.get_data_handle());
            float const* src = static_cast<float const*>(mSetup.weights[1].data);
            for (int64_t i = 0; i < mCfg.k; ++i)
            {
                b[i] = src[i] / biasScales[biasScales.size() == 1 ? 0 : static_cast<size_t>(i)];
            }
            args.emplace_back(DNNL_ARG_BIAS, e->bias);
        }
        e->convolution = OneDnnStep(dnnl::primitive(d.pd), args);
        return e;
    }

    float xScale() const { return static_cast<float>(mSetup.node->attrs.getFloat("int8.xScale", 1.0)); }

    KernelSetup mSetup;
    ConvConfig mCfg;
    FusedEpilogue mEpilogue;
    std::vector<float> mScales; //!< the weights' scales (one, or one per output channel)
    float mYScale;              //!< the fused Q's scale, or 0 (FP32 output)
    float mMidScale;            //!< the scale of a fused Q -> DQ before the activation, or 0
    float mResidualScale;       //!< the INT8 residual's scale (input 1), or 0 without a residual
    float mSumScale;            //!< the scale of the Q after the residual addition
    ConvShapes mShapes;
    std::unique_ptr<Int8ConvEntry> mEntry;
    std::unique_ptr<dnnl::stream> mStream;
    bool mEmpty{false};
    bool mReady{false};
};

} // namespace
#endif

StatusOr<std::unique_ptr<Kernel>> createInt8ConvolutionKernel(KernelSetup const& setup)
{
    PlanNode const& node = *setup.node;
    std::string const layer = "layer '" + node.name + "' (INT8 convolution): ";
    KILN_ASSIGN_OR_RETURN(ConvConfig cfg, readConvConfig(node, false));
    KILN_ASSIGN_OR_RETURN(FusedEpilogue epilogue, readConvolutionEpilogue(node));
    KILN_ASSIGN_OR_RETURN(double const xScale, node.attrs.requireFloat("int8.xScale"));
    KILN_ASSIGN_OR_RETURN(std::vector<double> const wScales, node.attrs.requireFloats("int8.wScales"));
    double const yScale = node.attrs.getFloat("int8.yScale", 0.0);
    double const midScale = node.attrs.getFloat("int8.midScale", 0.0);
    double const residualScale = node.attrs.getFloat("int8.residualScale", 0.0);
    double const sumScale = node.attrs.getFloat("int8.sumScale", 0.0);
    bool const residual = node.attrs.has("int8.residualScale");
    bool const quantizedOut = node.attrs.has("int8.yScale");
    std::vector<float> scales(wScales.begin(), wScales.end());
    bool const scalesOk = xScale > 0.0 && (!quantizedOut || yScale > 0.0)
        && (!node.attrs.has("int8.midScale") || (midScale > 0.0 && (epilogue.hasActivation || residual)))
        && (!residual || (residualScale > 0.0 && sumScale > 0.0 && midScale > 0.0 && quantizedOut))
        && (scales.size() == 1 || static_cast<int64_t>(scales.size()) == cfg.k)
        && std::all_of(scales.begin(), scales.end(), [](float s) { return s > 0.F; });
    if (!scalesOk)
    {
        return invalidArgument(layer + "the scales must be positive, one or one per output map for the weights");
    }
    if (epilogue.hasAdd || epilogue.hasResidual)
    {
        return unsupported(layer + "a fused addition is not supported");
    }
    bool const typesOk = setup.inputTypes.size() == (residual ? 2U : 1U) && setup.inputTypes[0] == DataType::kINT8
        && (!residual || setup.inputTypes[1] == DataType::kINT8)
        && setup.outputTypes.size() == 1 && setup.outputTypes[0] == (quantizedOut ? DataType::kINT8 : DataType::kFLOAT);
    bool const weightsOk = !setup.weights.empty() && setup.weights[0].present() && setup.weights[0].data != nullptr
        && setup.weights[0].type == DataType::kINT8
        && (setup.weights.size() < 2 || !setup.weights[1].present()
            || (setup.weights[1].type == DataType::kFLOAT && setup.weights[1].count == cfg.k
                && setup.weights[1].data != nullptr));
    if (!typesOk || !weightsOk)
    {
        return invalidArgument(layer + "expects one INT8 input, INT8 weights, an FP32 bias of one value per output map "
            "or none, and an " + std::string(quantizedOut ? "INT8" : "FP32") + " output");
    }
    if (cfg.params.nbSpatial != 2 && cfg.params.nbSpatial != 3)
    {
        return unsupported(layer + "only 2-D and 3-D convolutions are supported");
    }
#if KILN_HAVE_ONEDNN && DNNL_VERSION_MAJOR < 3
    return std::unique_ptr<Kernel>(std::make_unique<Int8ConvolutionKernel>(
        setup, std::move(cfg), epilogue, std::move(scales), quantizedOut ? static_cast<float>(yScale) : 0.F,
        static_cast<float>(midScale), static_cast<float>(residualScale), static_cast<float>(sumScale)));
#else
    return unsupported(layer + "needs oneDNN 2.x (output scales); this build has none");
#endif
}

std::vector<std::string> int8ConvolutionTactics(KernelSetup const& /*setup*/)
{
#if KILN_HAVE_ONEDNN && DNNL_VERSION_MAJOR < 3
    return {kTACTIC_ONEDNN};
#else
    return {};
#endif
}

} // namespace kiln
