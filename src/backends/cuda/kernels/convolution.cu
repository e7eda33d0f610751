// CUDA kernel of IConvolutionLayer and IDeconvolutionLayer (one class, as on the CPU: convolution.cpp). Tactic
// "cudnn": a forward convolution runs through cuDNN's graph API first (convolutionGraph.cpp: one prebuilt plan per
// shape, the epilogue fused where cuDNN has an engine for it, else the bare convolution plus the pointwise pass);
// what it refuses, deconvolutions and the tactic "cudnn-legacy" (never timed, forced by tests) use the legacy calls
// cudnnConvolutionForward / BackwardData (FP32 compute, tensor-op math for FP16/BF16; _v7 heuristics per shape), with
// asymmetric padding zero-padded into the workspace (or the full deconvolution output cropped from it), and bias,
// fused add / activation ("fuse.*") and another output type as one pointwise pass after. Tactic "kiln": the direct
// kernels of convolutionDirect.cu (one pass), also the fallback of a "cudnn" plan for a shape cuDNN refuses or a
// workspace smaller than the plan needs. Tactics "depthwise" (groups == channels == maps; convolutionDepthwise.cu),
// "gemm" (1x1; convolutionGemm.cu) and "pointwise" / "pointwise.fma" (channel-last 1x1 of at most 64 input channels;
// convolutionPointwise.cu): their own kernel objects, created here. Nodes the builder made channel-last
// (kCHANNEL_LAST_ATTRIBUTE: data input, fused addition and output in kHWC8; 2-D FP16/BF16 forward convolutions with
// constant weights) run on the graph API only otherwise, with NHWC strides and the kernel stored KRSC on the device.
#include "backends/cuda/kernels/convolution.h"
#include "backends/cuda/kernels/convolutionGraph.h"
#include "backends/cuda/kernels/convolutionPlan.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/cudnnCommon.h"
#include "backends/cuda/kernels/kernelCommon.cuh"
#include "backends/cuda/cudaLibraries.h"
#include "core/dataType.h"
#include "core/tensorFormat.h"

#include <algorithm>
#include <memory>

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

//! create: the configuration, the epilogue, the tactic, the weights on the device and the session's library
//! handles; reshape: the shape checks, the epilogue's strides, the plan of these shapes (cuDNN descriptors, algorithm
//! and workspace layout, kept per shape up to kMAX_PLANS) and the direct kernel's arguments; run: the data addresses,
//! then cuDNN (with its pointwise passes) or the direct kernel.
class ConvolutionCudaKernel final : public Kernel
{
public:
    ConvolutionCudaKernel(
        KernelSetup const& setup, ConvConfig cfg, FusedEpilogue epilogue, bool useCudnn, bool useGraph)
        : mSetup(setup)
        , mCfg(std::move(cfg))
        , mEpilogue(epilogue)
        , mUseCudnn(useCudnn)
        , mUseGraph(useGraph && !mCfg.deconvolution)
        , mChannelLast(setup.node->attrs.getInt(kCHANNEL_LAST_ATTRIBUTE, 0) != 0)
        , mType(setup.inputTypes[0])
        , mOwn(convolutionOwnInputs(*setup.node))
        , mLibraries(sessionLibraries(setup))
    {
    }

    //! Puts the kernel weights on the device in the input's type and the bias as given (shared copies when the
    //! engine provides them in a usable type).
    Status init()
    {
        if (!mSetup.weights.empty() && mSetup.weights[0].present())
        {
            WeightsView const& w = mSetup.weights[0];
            mKernelCount = w.count;
            if (mChannelLast)
            {
                KILN_RETURN_IF_ERROR(uploadChannelLastKernel(w));
            }
            else if (w.device != nullptr && w.type == mType)
            {
                mKernel = w.device;
            }
            else
            {
                std::vector<uint8_t> host(static_cast<size_t>(byteSize(mType, w.count)));
                for (int64_t i = 0; i < w.count; ++i)
                {
                    storeElement(host.data(), mType, i, loadElement(w.data, w.type, i));
                }
                KILN_RETURN_IF_ERROR(mKernelOwn.upload(host.data(), static_cast<int64_t>(host.size())));
                mKernel = mKernelOwn.data();
            }
        }
        if (mSetup.weights.size() > 1 && mSetup.weights[1].present())
        {
            WeightsView const& b = mSetup.weights[1];
            mBiasCount = b.count;
            mBiasType = b.type;
            if (b.device != nullptr)
            {
                mBias = b.device;
            }
            else
            {
                KILN_RETURN_IF_ERROR(mBiasOwn.upload(b.data, byteSize(b.type, b.count)));
                mBias = mBiasOwn.data();
            }
        }
        return Status::ok();
    }

    //! The kernel [K, C/groups, R, S] stored as [K, R, S, Cp] in the input's type (channel-last plans), where Cp is
    //! C rounded up to 8 for an ungrouped convolution (the input's kHWC8 storage has that many channels, the padding
    //! channels zero and so are their weights) and C/groups otherwise.
    Status uploadChannelLastKernel(WeightsView const& w)
    {
        int64_t const k = mCfg.k;
        int64_t const window = mCfg.params.kernel.size() == 2 ? mCfg.params.kernel[0] * mCfg.params.kernel[1] : 0;
        if (k <= 0 || window <= 0 || w.count % (k * window) != 0)
        {
            return invalidArgument("the kernel weights do not match a 2-D channel-last convolution");
        }
        int64_t const c = w.count / (k * window);
        int64_t const cp = mCfg.groups == 1 ? (c + 7) / 8 * 8 : c;
        std::vector<uint8_t> host(static_cast<size_t>(byteSize(mType, k * window * cp)), 0);
        for (int64_t ko = 0; ko < k; ++ko)
        {
            for (int64_t ci = 0; ci < c; ++ci)
            {
                for (int64_t p = 0; p < window; ++p)
                {
                    int64_t const from = (ko * c + ci) * window + p;
                    int64_t const to = (ko * window + p) * cp + ci;
                    storeElement(host.data(), mType, to, loadElement(w.data, w.type, from));
                }
            }
        }
        KILN_RETURN_IF_ERROR(mKernelOwn.upload(host.data(), static_cast<int64_t>(host.size())));
        mKernel = mKernelOwn.data();
        return Status::ok();
    }

    int64_t workspaceSize(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) const override
    {
        ConvPlan const* plan = findPlan(inputs, outputs);
        if (plan != nullptr && plan->graph != nullptr)
        {
            return plan->graph->workspaceBytes();
        }
        return plan != nullptr && plan->cudnn ? plan->total : 0;
    }

    Status reshape(std::vector<TensorView> const& allInputs, std::vector<TensorView> const& outputs) override
    {
        mTotal = -1;
        std::vector<TensorView> inputs;
        KILN_RETURN_IF_ERROR(checkConvReshape(
            mSetup, mCfg, mEpilogue.hasAdd, allInputs, outputs, mKernelCount, mBiasCount, label(), inputs, mShapes));
        TensorView const& out = outputs[0];
        if (out.volume() == 0)
        {
            mTotal = 0;
            return Status::ok();
        }
        ConvEpilogueDev epi;
        if (mShapes.biasTensor)
        {
            epi.biasType = inputs[2].type; // the address comes with each run
        }
        else if (mShapes.hasBias)
        {
            epi.bias = mBias;
            epi.biasType = mBiasType;
        }
        if (mEpilogue.hasAdd)
        {
            TensorView const& add = allInputs.back();
            if (!isConvFloatStorage(add.type))
            {
                return invalidArgument(label() + ": the fused addition's input is missing or not a float type");
            }
            auto strides = addStrides5(add.dims, out.dims);
            if (!strides.isOk())
            {
                return strides.status().withContext(label());
            }
            epi.addType = add.type;
            std::copy(strides.value().begin(), strides.value().end(), epi.addStrides);
        }
        epi.hasActivation = mEpilogue.hasActivation;
        epi.activation = mEpilogue.activation;
        epi.alpha = mEpilogue.alpha;
        epi.beta = mEpilogue.beta;
        mEpi = epi;
        mPlan = findPlan(inputs, outputs);
        if (mPlan == nullptr)
        {
            return internalError(label() + ": no execution plan for this shape");
        }
        toDims5(mOutDims, out.dims);
        toDims5(mInDims, inputs[0].dims);
#if KILN_HAVE_CUDNN
        if (mPlan->cudnn || mUseGraph)
        {
            if (mLibraries == nullptr)
            {
                return internalError(label() + ": no CUDA library handles (the kernel was created outside a session)");
            }
            StatusOr<cudnnHandle_t> h = mLibraries->cudnn();
            if (!h.isOk())
            {
                return h.status().withContext(label());
            }
            mCudnn = *h;
        }
        if (mUseGraph)
        {
            chooseGraph(*mPlan, out.type);
        }
        if (mChannelLast && mPlan->graph == nullptr)
        {
            return invalidArgument(label() + ": channel-last convolution: cuDNN's graph API has no plan for it ("
                + convGraphCounters().lastRefusal + ")");
        }
#endif
        if (mChannelLast && !mUseGraph)
        {
            return invalidArgument(label() + ": channel-last convolutions run on cuDNN's graph API only");
        }
        DirectConvArgs& a = mDirect;
        a.xType = inputs[0].type;
        a.wType = mShapes.kernelTensor ? inputs[1].type : mType;
        a.yType = out.type;
        a.n = mShapes.n;
        a.c = mShapes.c;
        a.k = mCfg.k;
        a.groups = mCfg.groups;
        a.g = toWindowGeometry(mCfg.params, mShapes.ext);
        mTotal = out.volume();
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mTotal <= 0)
        {
            return mTotal == 0 ? Status::ok() : notReshaped(label());
        }
        TensorView const& out = outputs[0];
        ConvEpilogueDev epi = mEpi;
        if (mShapes.biasTensor)
        {
            epi.bias = inputs[2].data;
        }
        if (mEpilogue.hasAdd)
        {
            TensorView const& add = inputs.back();
            if (add.data == nullptr && add.volume() != 0)
            {
                return invalidArgument(label() + ": the fused addition's input is missing or not a float type");
            }
            epi.add = add.data;
        }
        ConvPlan const& plan = *mPlan;
#if KILN_HAVE_CUDNN
        if (plan.graph != nullptr && ctx.workspaceBytes >= plan.graph->workspaceBytes()
            && (ctx.workspace != nullptr || plan.graph->workspaceBytes() == 0))
        {
            Status const st = runGraph(*plan.graph, inputs[0].data, out, epi, ctx);
            return st.isOk() ? st : st.withContext(label());
        }
#endif
        if (mChannelLast)
        {
            return invalidArgument(label() + ": the workspace is smaller than the channel-last plan needs");
        }
        if (plan.cudnn && (ctx.workspaceBytes >= plan.total || plan.total == 0)
            && (ctx.workspace != nullptr || plan.total == 0))
        {
#if KILN_HAVE_CUDNN
            Status const st = runCudnn(plan, inputs, out, epi, ctx);
            return st.isOk() ? st : st.withContext(label());
#endif
        }
        DirectConvArgs a = mDirect;
        a.x = inputs[0].data;
        a.w = mShapes.kernelTensor ? inputs[1].data : mKernel;
        a.y = out.data;
        a.epilogue = epi;
        Status const st = mCfg.deconvolution ? launchDirectDeconvolution(a, ctx.stream) : launchDirectConvolution(a, ctx.stream);
        return st.isOk() ? st : st.withContext(label());
    }

private:
    std::string label() const
    {
        return nodeLabel(mSetup, mCfg.deconvolution ? "Deconvolution" : "Convolution");
    }

    //! The plan of these shapes (created on first use; nullptr when the shapes are invalid).
    ConvPlan* findPlan(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) const
    {
        if (inputs.empty() || outputs.empty())
        {
            return nullptr;
        }
        bool const kernelTensor = mOwn > 1 && inputs.size() > 1 && mSetup.inputPresent.size() > 1 && mSetup.inputPresent[1];
        std::vector<int64_t> key(inputs[0].dims.d, inputs[0].dims.d + std::max(0, inputs[0].dims.nbDims));
        key.push_back(static_cast<int64_t>(outputs[0].type));
        key.push_back(kernelTensor ? static_cast<int64_t>(inputs[1].type) : -1);
        for (auto const& p : mPlans)
        {
            if (p->key == key)
            {
                return p.get();
            }
        }
        auto plan = std::make_unique<ConvPlan>();
        plan->key = key;
        int32_t const nb = mCfg.params.nbSpatial;
        if (inputs[0].dims.nbDims != nb + 2)
        {
            return nullptr;
        }
        std::vector<int64_t> const spatial(inputs[0].dims.d + 2, inputs[0].dims.d + nb + 2);
        auto ext = computeWindowExtents(
            mCfg.deconvolution ? WindowKind::kDECONVOLUTION : WindowKind::kCONVOLUTION, mCfg.params, spatial);
        if (!ext.isOk())
        {
            return nullptr;
        }
        plan->g = toWindowGeometry(mCfg.params, ext.value());
        plan->n = inputs[0].dims.d[0];
        plan->c = inputs[0].dims.d[1];
#if KILN_HAVE_CUDNN
        if (mUseCudnn && !mChannelLast && plan->n > 0 && plan->c % mCfg.groups == 0)
        {
            plan->cudnn = planCudnn(*plan, outputs[0].type, kernelTensor ? inputs[1].type : mType).isOk();
        }
#endif
        if (mPlans.size() >= kMAX_PLANS)
        {
            // The oldest plan goes, never the one the last reshape chose (workspaceSize may plan other shapes).
            mPlans.erase(mPlans.begin() + (mPlans.front().get() == mPlan ? 1 : 0));
        }
        mPlans.push_back(std::move(plan));
        return mPlans.back().get();
    }

#if KILN_HAVE_CUDNN
    //! Decides the graph-API plan of `p` for the epilogue of the last reshape (mEpi, mShapes); leaves it null when
    //! cuDNN's graph API refuses both the fused and the bare convolution (the legacy calls run then).
    void chooseGraph(ConvPlan& p, DataType outType) const
    {
        int32_t const addFull = !mEpilogue.hasAdd || packedOver(mEpi.addStrides, mOutDims) ? 1 : 0;
        if (p.graphFor == addFull)
        {
            return;
        }
        p.graphFor = addFull;
        p.graph.reset();
        if (mShapes.kernelTensor || mShapes.biasTensor || p.n <= 0)
        {
            return;
        }
        ConvGraphSpec s;
        s.xType = mType;
        s.yType = outType;
        s.nbSpatial = mCfg.params.nbSpatial;
        s.n = p.n;
        s.c = p.c;
        s.k = mCfg.k;
        s.groups = mCfg.groups;
        s.g = p.g;
        s.bias = mEpi.bias != nullptr;
        s.biasType = mEpi.biasType;
        s.add = mEpilogue.hasAdd;
        s.addType = mEpi.addType;
        s.activation = mEpi.hasActivation;
        s.activationType = mEpi.activation;
        s.alpha = mEpi.alpha;
        s.beta = mEpi.beta;
        int device = 0;
        if (cudaGetDevice(&device) != cudaSuccess)
        {
            return;
        }
        s.device = device;
        s.channelLast = mChannelLast;
        if (mChannelLast)
        {
            // An ungrouped convolution reads the input's kHWC8 storage, padding channels included.
            s.c = mCfg.groups == 1 ? (p.c + 7) / 8 * 8 : p.c;
            // The pointwise pass after a bare plan indexes NCHW: a channel-last node needs the whole epilogue fused.
            if (addFull == 1)
            {
                auto fused = ConvGraphPlan::get(s, true);
                if (fused.isOk())
                {
                    p.graph = *fused;
                }
            }
            return;
        }
        if (addFull == 1)
        {
            auto fused = ConvGraphPlan::get(s, true);
            if (fused.isOk())
            {
                p.graph = *fused;
                return;
            }
        }
        if (outType == mType)
        {
            auto bare = ConvGraphPlan::get(s, false);
            if (bare.isOk())
            {
                p.graph = *bare;
            }
        }
    }

    //! The graph plan, then (when its epilogue is not fused) the pointwise pass in place on the output.
    Status runGraph(ConvGraphPlan const& graph, void const* x, TensorView const& out, ConvEpilogueDev const& epi,
        RunContext const& ctx) const
    {
        KILN_RETURN_IF_ERROR(
            graph.run(mGraphLaunch, mCudnn, ctx.stream, x, mKernel, epi.bias, epi.add, out.data, ctx.workspace));
        if (graph.fused() || (epi.bias == nullptr && epi.add == nullptr && !epi.hasActivation))
        {
            return Status::ok();
        }
        ConvPointwiseArgs f;
        f.src = out.data;
        f.srcType = out.type;
        std::copy(mOutDims, mOutDims + 5, f.srcDims);
        f.dst = out.data;
        f.dstType = out.type;
        std::copy(mOutDims, mOutDims + 5, f.dstDims);
        f.epilogue = epi;
        return launchConvPointwise(f, ctx.stream);
    }

    Status planCudnn(ConvPlan& p, DataType outType, DataType kernelType) const
    {
        if (outType == DataType::kFLOAT && mType != DataType::kFLOAT)
        {
            // cuDNN would write the input's narrower type first: the direct kernel keeps the FP32 result exact.
            return invalidArgument("FP32 output of a narrower input");
        }
        WindowGeometry const& g = p.g;
        int32_t const nb = mCfg.params.nbSpatial;
        cudnnDataType_t dt{};
        if (!toCudnnType(mType, dt))
        {
            return invalidArgument("type");
        }
        std::vector<int64_t> pads;
        std::vector<int64_t> strides;
        std::vector<int64_t> dilations;
        int64_t inSp[3]{g.in[0], g.in[1], g.in[2]};
        int64_t resultSp[3]{g.out[0], g.out[1], g.out[2]};
        for (int32_t j = 3 - nb; j < 3; ++j)
        {
            int64_t const dk = 1 + g.dilation[j] * (g.kernel[j] - 1);
            strides.push_back(g.stride[j]);
            dilations.push_back(g.dilation[j]);
            if (mCfg.deconvolution)
            {
                if (g.padBefore[j] == g.padAfter[j])
                {
                    pads.push_back(g.padBefore[j]);
                }
                else
                {
                    pads.push_back(0);
                    resultSp[j] = (g.in[j] - 1) * g.stride[j] + dk;
                    p.cropOffset[j] = g.padBefore[j];
                    p.stage = true;
                }
                continue;
            }
            int64_t const symOut = (g.in[j] + 2 * g.padBefore[j] - dk) >= 0
                ? (g.in[j] + 2 * g.padBefore[j] - dk) / g.stride[j] + 1
                : -1;
            if (symOut == g.out[j])
            {
                pads.push_back(g.padBefore[j]);
            }
            else
            {
                pads.push_back(0);
                inSp[j] = (g.out[j] - 1) * g.stride[j] + dk;
                p.padOffset[j] = -g.padBefore[j];
                p.padInput = true;
            }
        }
        if (outType != mType)
        {
            p.stage = true;
        }
        std::vector<int64_t> const xDims = natural(p.n, p.c, inSp, nb);
        std::vector<int64_t> const yDims = natural(p.n, mCfg.k, resultSp, nb);
        std::vector<int64_t> const wDims = convKernelShape(mCfg, p.c);
        if (!fitsCudnnInt(xDims) || !fitsCudnnInt(yDims) || !fitsCudnnInt(wDims)
            || !fitsCudnnInt(natural(p.n, p.c, g.in, nb)))
        {
            return invalidArgument("extents");
        }
        toDims5(p.paddedDims, p.n, p.c, inSp);
        toDims5(p.resultDims, p.n, mCfg.k, resultSp);
        cudnnMathType_t const math = mType == DataType::kFLOAT ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH;
        // Convolution: x = (padded) input, y = result. Deconvolution: x = input (dy), y = result (dx).
        KILN_RETURN_IF_ERROR(p.xDesc.set(dt, mCfg.deconvolution ? natural(p.n, p.c, g.in, nb) : xDims));
        KILN_RETURN_IF_ERROR(p.yDesc.set(dt, yDims));
        KILN_RETURN_IF_ERROR(p.wDesc.set(dt, wDims));
        KILN_RETURN_IF_ERROR(p.convDesc.set(pads, strides, dilations, mCfg.groups, math));
        CudnnPlanningLock lock;
        KILN_ASSIGN_OR_RETURN(cudnnHandle_t h, cudnnPlanningHandle());
        size_t bytes = 0;
        if (mCfg.deconvolution)
        {
            cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
            int count = 0;
            KILN_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, p.wDesc.get(), p.xDesc.get(),
                p.convDesc.get(), p.yDesc.get(), CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &count, perf));
            auto const works = [](auto const& q) { return q.status == CUDNN_STATUS_SUCCESS; };
            int const i = static_cast<int>(std::find_if(perf, perf + count, works) - perf);
            if (i == count)
            {
                return invalidArgument("no cuDNN algorithm");
            }
            p.algo = static_cast<int32_t>(perf[i].algo);
            KILN_CUDNN_CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.wDesc.get(), p.xDesc.get(),
                p.convDesc.get(), p.yDesc.get(), perf[i].algo, &bytes));
        }
        else
        {
            cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
            int count = 0;
            KILN_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(h, p.xDesc.get(), p.wDesc.get(), p.convDesc.get(),
                p.yDesc.get(), CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, perf));
            auto const works = [](auto const& q) { return q.status == CUDNN_STATUS_SUCCESS; };
            int const i = static_cast<int>(std::find_if(perf, perf + count, works) - perf);
            if (i == count)
            {
                return invalidArgument("no cuDNN algorithm");
            }
            p.algo = static_cast<int32_t>(perf[i].algo);
            KILN_CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(
                h, p.xDesc.get(), p.wDesc.get(), p.convDesc.get(), p.yDesc.get(), perf[i].algo, &bytes));
        }
        p.cudnnBytes = static_cast<int64_t>(bytes);
        p.convertKernel = kernelType != mType;
        p.kernelCount = 1;
        for (int64_t e : wDims)
        {
            p.kernelCount *= e;
        }
        int64_t at = alignWorkspace(p.cudnnBytes);
        if (p.padInput)
        {
            p.padAt = at;
            int64_t v = 1;
            for (int64_t e : p.paddedDims)
            {
                v *= e;
            }
            at = alignWorkspace(at + byteSize(mType, v));
        }
        if (p.convertKernel)
        {
            p.kernelAt = at;
            at = alignWorkspace(at + byteSize(mType, p.kernelCount));
        }
        if (p.stage)
        {
            p.stageAt = at;
            int64_t v = 1;
            for (int64_t e : p.resultDims)
            {
                v *= e;
            }
            at = alignWorkspace(at + byteSize(mType, v));
        }
        p.total = at;
        return Status::ok();
    }

    Status runCudnn(ConvPlan const& p, std::vector<TensorView> const& inputs, TensorView const& out,
        ConvEpilogueDev const& epi, RunContext const& ctx)
    {
        cudnnHandle_t const h = mCudnn;
        KILN_CUDNN_CHECK(cudnnSetStream(h, ctx.stream));
        uint8_t* ws = static_cast<uint8_t*>(ctx.workspace);
        void const* x = inputs[0].data;
        if (p.padInput)
        {
            ConvPointwiseArgs pad;
            pad.src = x;
            pad.srcType = inputs[0].type;
            std::copy(mInDims, mInDims + 5, pad.srcDims);
            for (int32_t j = 0; j < 3; ++j)
            {
                pad.offset[j] = p.padOffset[j];
            }
            pad.dst = ws + p.padAt;
            pad.dstType = mType;
            std::copy(p.paddedDims, p.paddedDims + 5, pad.dstDims);
            KILN_RETURN_IF_ERROR(launchConvPointwise(pad, ctx.stream));
            x = pad.dst;
        }
        void const* w = mShapes.kernelTensor ? inputs[1].data : mKernel;
        if (mShapes.kernelTensor && p.convertKernel)
        {
            KILN_RETURN_IF_ERROR(
                launchConvert(inputs[1].data, inputs[1].type, ws + p.kernelAt, mType, p.kernelCount, ctx.stream));
            w = ws + p.kernelAt;
        }
        void* y = p.stage ? static_cast<void*>(ws + p.stageAt) : out.data;
        float const one = 1.F;
        float const zero = 0.F;
        void* cudnnWs = p.cudnnBytes > 0 ? ws : nullptr;
        if (mCfg.deconvolution)
        {
            KILN_CUDNN_CHECK(cudnnConvolutionBackwardData(h, &one, p.wDesc.get(), w, p.xDesc.get(), x,
                p.convDesc.get(), static_cast<cudnnConvolutionBwdDataAlgo_t>(p.algo), cudnnWs,
                static_cast<size_t>(p.cudnnBytes), &zero, p.yDesc.get(), y));
        }
        else
        {
            KILN_CUDNN_CHECK(cudnnConvolutionForward(h, &one, p.xDesc.get(), x, p.wDesc.get(), w, p.convDesc.get(),
                static_cast<cudnnConvolutionFwdAlgo_t>(p.algo), cudnnWs, static_cast<size_t>(p.cudnnBytes), &zero,
                p.yDesc.get(), y));
        }
        bool const finish = p.stage || epi.bias != nullptr || epi.add != nullptr || epi.hasActivation;
        if (!finish)
        {
            return Status::ok();
        }
        ConvPointwiseArgs f;
        f.src = y;
        f.srcType = mType;
        std::copy(p.resultDims, p.resultDims + 5, f.srcDims);
        for (int32_t j = 0; j < 3; ++j)
        {
            f.offset[j] = p.cropOffset[j];
        }
        f.dst = out.data;
        f.dstType = out.type;
        std::copy(mOutDims, mOutDims + 5, f.dstDims);
        f.epilogue = epi;
        return launchConvPointwise(f, ctx.stream);
    }
#endif

    static constexpr size_t kMAX_PLANS = 16;

    KernelSetup mSetup;
    ConvConfig mCfg;
    FusedEpilogue mEpilogue;
    bool mUseCudnn{false};
    bool mUseGraph{false}; //!< forward convolutions with the "cudnn" tactic try cuDNN's graph API first
    bool mChannelLast{false}; //!< NHWC data, fused add and output; KRSC kernel; graph API only
    mutable ConvGraphLaunch mGraphLaunch; //!< the variant pack of the last graph run's addresses
    DataType mType{DataType::kFLOAT}; //!< the input's type: cuDNN's data type, the device kernel copy's type
    size_t mOwn{1};
    DeviceBuffer mKernelOwn;
    DeviceBuffer mBiasOwn;
    void const* mKernel{nullptr};
    int64_t mKernelCount{0};
    void const* mBias{nullptr};
    DataType mBiasType{DataType::kFLOAT};
    int64_t mBiasCount{0};
    mutable std::vector<std::unique_ptr<ConvPlan>> mPlans;
    CudaLibraries* mLibraries{nullptr};
#if KILN_HAVE_CUDNN
    cudnnHandle_t mCudnn{nullptr};
#endif
    // Of the last reshape.
    ConvShapes mShapes;
    ConvPlan* mPlan{nullptr};
    ConvEpilogueDev mEpi;     //!< without the run's addresses (bias tensor, added tensor)
    DirectConvArgs mDirect;   //!< without the run's addresses
    int64_t mInDims[5]{};     //!< the input's extents, 5-D
    int64_t mOutDims[5]{};    //!< the output's extents, 5-D
    int64_t mTotal{-1};       //!< output elements; -1 until a reshape succeeded
};


} // namespace

StatusOr<std::unique_ptr<Kernel>> createConvolutionLikeCudaKernel(KernelSetup const& setup, bool deconvolution)
{
    if (setup.node == nullptr)
    {
        return internalError("convolution CUDA kernel created without a plan node");
    }
    std::string const label = nodeLabel(setup, deconvolution ? "Deconvolution" : "Convolution");
    KILN_ASSIGN_OR_RETURN(ConvConfig cfg, readConvConfig(*setup.node, deconvolution));
    std::string const& tactic = setup.node->tactic;
    // Gated activations (SiLU, hard-swish) in the depthwise, gemm and pointwise tactics only.
    bool const ownKernel
        = (isDepthwiseTactic(tactic) || tactic == kTACTIC_GEMM || isPointwiseTactic(tactic)) && !deconvolution;
    KILN_ASSIGN_OR_RETURN(FusedEpilogue epilogue, readConvolutionEpilogue(*setup.node, ownKernel));
    std::string const problem = convolutionTypeProblem(setup, convolutionOwnInputs(*setup.node), epilogue.hasAdd);
    if (!problem.empty())
    {
        return invalidArgument(label + ": " + problem);
    }
    if (ownKernel)
    {
        if (isPointwiseTactic(tactic))
        {
            return createPointwiseConvolutionKernel(setup, cfg, epilogue);
        }
        return tactic == kTACTIC_GEMM ? createGemmConvolutionKernel(setup, cfg, epilogue)
                                      : createDepthwiseConvolutionKernel(setup, cfg, epilogue);
    }
    if ((tactic == kTACTIC_CUDNN || tactic == kTACTIC_CUDNN_LEGACY) && !cudnnBuilt())
    {
        return invalidArgument(label + ": tactic " + tactic + " needs a Kiln built with cuDNN");
    }
    bool const useCudnn = cudnnBuilt() && tactic != kTACTIC_KILN;
    bool const useGraph = useCudnn && convGraphBuilt() && tactic != kTACTIC_CUDNN_LEGACY;
    if (setup.node->attrs.getInt(kCHANNEL_LAST_ATTRIBUTE, 0) != 0)
    {
        bool const constantKernel = setup.weights.size() > 0 && setup.weights[0].present()
            && convolutionOwnInputs(*setup.node) == 1;
        if (deconvolution || !useGraph || cfg.params.nbSpatial != 2 || !constantKernel
            || (setup.inputTypes[0] != DataType::kHALF && setup.inputTypes[0] != DataType::kBF16))
        {
            return invalidArgument(label + ": channel-last is for 2-D FP16/BF16 forward convolutions with constant "
                                           "weights on cuDNN's graph API (tactic cudnn)");
        }
    }
    auto kernel = std::make_unique<ConvolutionCudaKernel>(setup, std::move(cfg), epilogue, useCudnn, useGraph);
    KILN_RETURN_IF_ERROR(kernel->init().withContext(label + ": uploading the weights"));
    return std::unique_ptr<Kernel>(std::move(kernel));
}

std::vector<std::string> convolutionLikeCudaTactics(KernelSetup const& setup, bool deconvolution)
{
    if (setup.node == nullptr || !readConvConfig(*setup.node, deconvolution).isOk())
    {
        return {};
    }
    auto epilogue = readConvolutionEpilogue(*setup.node, !deconvolution);
    if (!epilogue.isOk() || !convolutionTypeProblem(setup, convolutionOwnInputs(*setup.node), epilogue.value().hasAdd).empty())
    {
        return {};
    }
    bool const gated = epilogue.value().gated; // applied by the depthwise, gemm and pointwise tactics only
    // The depthwise tactic first where it applies (timing decides; it is also what the channel-last pass probes).
    bool const channelLast = setup.node->attrs.getInt(kCHANNEL_LAST_ATTRIBUTE, 0) != 0;
    std::vector<std::string> tactics;
    if (!deconvolution)
    {
        tactics = depthwiseTactics(setup, readConvConfig(*setup.node, false).value(), epilogue.value());
    }
    if (cudnnBuilt() && !gated && (!channelLast || (convGraphBuilt() && !deconvolution)))
    {
        tactics.push_back(kTACTIC_CUDNN);
    }
    if (!deconvolution && gemmApplies(setup, readConvConfig(*setup.node, false).value(), epilogue.value()))
    {
        tactics.push_back(kTACTIC_GEMM); // after cudnn: the channel-last pass probes the first tactic
    }
    if (!deconvolution)
    {
        // Channel-last 1x1 convolutions of at most 64 input channels: after cudnn and gemm, so the channel-last pass
        // keeps probing the same first tactic as before; timing decides.
        std::vector<std::string> const pointwise
            = pointwiseTactics(setup, readConvConfig(*setup.node, false).value(), epilogue.value());
        tactics.insert(tactics.end(), pointwise.begin(), pointwise.end());
    }
    if (gated)
    {
        return tactics;
    }
    if (!channelLast)
    {
        tactics.push_back(kTACTIC_KILN);
    }
    return tactics;
}

StatusOr<std::unique_ptr<Kernel>> createConvolutionCudaKernel(KernelSetup const& setup)
{
    return createConvolutionLikeCudaKernel(setup, false);
}

std::vector<std::string> convolutionCudaTactics(KernelSetup const& setup)
{
    return convolutionLikeCudaTactics(setup, false);
}

} // namespace kiln::cuda
