// cuDNN graph-API convolution plans (see convolutionGraph.h): the operation graph of one convolution shape with its
// fused epilogue, built through the cuDNN frontend, the plan chosen among heuristics mode A's engines that keep FP32
// accumulation by timing (autotune.h; the heuristics' first choice with KILN_AUTOTUNE=0), and a process-wide cache of
// built plans. FP16 and BF16 only: FP32 keeps the legacy calls.
#include "backends/cuda/kernels/convolutionGraph.h"

#include "backends/cuda/kernels/autotune.h"
#include "backends/cuda/kernels/cudnnCommon.h"
#include "backends/cuda/kernels/frontendPlan.h"
#include "core/dataType.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <sstream>
#include <vector>

namespace kiln::cuda
{
namespace
{
std::mutex& countersMutex()
{
    static std::mutex m;
    return m;
}

ConvGraphCounters& counters()
{
    static ConvGraphCounters c;
    return c;
}
} // namespace

ConvGraphCounters convGraphCounters()
{
    std::lock_guard<std::mutex> lock(countersMutex());
    return counters();
}

#if KILN_HAVE_CUDNN && KILN_HAVE_CUDNN_FRONTEND

namespace fe = cudnn_frontend;

bool convGraphBuilt()
{
    return true;
}

//! The plans' access to a kernel's ConvGraphLaunch.
class ConvGraphPlanAccess
{
public:
    static bool matches(ConvGraphLaunch const& l, uint64_t plan, void const* const (&addresses)[6])
    {
        return l.mPlan == plan && l.mPack != nullptr && std::equal(addresses, addresses + 6, l.mAddresses);
    }
    static void reset(ConvGraphLaunch& l)
    {
        if (l.mGraph != nullptr)
        {
            (void) cudaGraphExecDestroy(l.mGraph);
        }
        if (l.mPack != nullptr)
        {
            cudnnBackendDestroyDescriptor(static_cast<cudnnBackendDescriptor_t>(l.mPack));
        }
        l.mGraph = nullptr;
        l.mGraphRefused = false;
        l.mRuns = 0;
        l.mPack = nullptr;
        l.mPlan = 0;
    }

    //! Executes `plan` with the launch's variant pack on `stream`: through its captured graph when there is one, else
    //! directly, capturing it from the second run when the stream is a capturable one that is not capturing already.
    static Status execute(ConvGraphLaunch& l, cudnnHandle_t h, cudnnBackendDescriptor_t plan, cudaStream_t stream)
    {
        auto const pack = static_cast<cudnnBackendDescriptor_t>(l.mPack);
        cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
        if (stream == nullptr || !graphLaunchesEnabled() || l.mGraphRefused
            || cudaStreamIsCapturing(stream, &capturing) != cudaSuccess || capturing != cudaStreamCaptureStatusNone)
        {
            (void) cudaGetLastError();
            KILN_CUDNN_CHECK(cudnnBackendExecute(h, plan, pack));
            return Status::ok();
        }
        if (l.mGraph != nullptr)
        {
            KILN_CUDA_CHECK(cudaGraphLaunch(l.mGraph, stream));
            return Status::ok();
        }
        if (++l.mRuns < 2)
        {
            KILN_CUDNN_CHECK(cudnnBackendExecute(h, plan, pack));
            return Status::ok();
        }
        cudaGraph_t graph = nullptr;
        KILN_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        cudnnStatus_t const st = cudnnBackendExecute(h, plan, pack);
        cudaError_t const end = cudaStreamEndCapture(stream, &graph);
        if (st == CUDNN_STATUS_SUCCESS && end == cudaSuccess && graph != nullptr
            && cudaGraphInstantiate(&l.mGraph, graph, 0) == cudaSuccess)
        {
            (void) cudaGraphDestroy(graph);
            KILN_CUDA_CHECK(cudaGraphLaunch(l.mGraph, stream));
            return Status::ok();
        }
        // Not capturable here: execute directly from now on.
        if (graph != nullptr)
        {
            (void) cudaGraphDestroy(graph);
        }
        (void) cudaGetLastError();
        l.mGraph = nullptr;
        l.mGraphRefused = true;
        KILN_CUDNN_CHECK(cudnnBackendExecute(h, plan, pack));
        return Status::ok();
    }

    static void store(ConvGraphLaunch& l, uint64_t plan, cudnnBackendDescriptor_t pack,
        void const* const (&addresses)[6])
    {
        l.mPlan = plan;
        l.mPack = pack;
        std::copy(addresses, addresses + 6, l.mAddresses);
        ++l.mBuilds;
    }

private:
    static bool graphLaunchesEnabled()
    {
        static bool const enabled = [] {
            char const* env = std::getenv("KILN_CONV_GRAPH_LAUNCH");
            return env == nullptr || std::string(env) != "0";
        }();
        return enabled;
    }
};

ConvGraphLaunch::~ConvGraphLaunch()
{
    ConvGraphPlanAccess::reset(*this);
}

namespace
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;

//! Tensor roles; the plan maps them to the frontend's variant-pack order once.
enum Role : int32_t
{
    kX = 0,
    kW,
    kBIAS,
    kADD,
    kY,
    kROLES
};

bool toFrontendType(DataType t, fe::DataType_t& out)
{
    switch (t)
    {
    case DataType::kFLOAT: out = fe::DataType_t::FLOAT; return true;
    case DataType::kHALF: out = fe::DataType_t::HALF; return true;
    case DataType::kBF16: out = fe::DataType_t::BFLOAT16; return true;
    default: return false;
    }
}

//! Packed strides of [N, C, spatial...] extents: row-major, or with `channelLast` C innermost then the spatial
//! dimensions, N outermost.
std::vector<int64_t> packedStrides(std::vector<int64_t> const& dims, bool channelLast = false)
{
    std::vector<int64_t> s(dims.size(), 1);
    if (channelLast && dims.size() >= 3)
    {
        int64_t stride = dims[1];
        for (size_t i = dims.size(); i-- > 2;)
        {
            s[i] = stride;
            stride *= dims[i];
        }
        s[0] = stride;
        return s;
    }
    for (size_t i = dims.size(); i-- > 1;)
    {
        s[i - 1] = s[i] * dims[i];
    }
    return s;
}

//! The spatial indices (into the 5-D geometry) the graph uses: 1-D runs as 2-D with H = 1.
std::vector<int32_t> spatialAxes(int32_t nbSpatial)
{
    if (nbSpatial == 3)
    {
        return {0, 1, 2};
    }
    return {1, 2};
}

std::string describe(ConvGraphSpec const& s, bool fuse)
{
    std::ostringstream os;
    os << static_cast<int>(s.xType) << ',' << static_cast<int>(s.yType) << ',' << s.nbSpatial << ',' << s.n << ','
       << s.c << ',' << s.k << ',' << s.groups << ',' << s.device << ',' << fuse << ',' << s.channelLast;
    for (int32_t j = 0; j < 3; ++j)
    {
        os << ';' << s.g.in[j] << ',' << s.g.out[j] << ',' << s.g.kernel[j] << ',' << s.g.stride[j] << ','
           << s.g.dilation[j] << ',' << s.g.padBefore[j] << ',' << s.g.padAfter[j];
    }
    if (fuse)
    {
        os << "|b" << s.bias << ',' << static_cast<int>(s.biasType) << "|a" << s.add << ','
           << static_cast<int>(s.addType) << "|f" << s.activation << ',' << static_cast<int>(s.activationType) << ','
           << s.alpha << ',' << s.beta;
    }
    return os.str();
}

//! The pointwise activation of `s`, or false when cuDNN's pointwise modes do not express it exactly.
bool activationAttributes(ConvGraphSpec const& s, fe::graph::Pointwise_attributes& a)
{
    switch (s.activationType)
    {
    case ActivationType::kRELU: a.set_mode(fe::PointwiseMode_t::RELU_FWD); return true;
    case ActivationType::kLEAKY_RELU:
        a.set_mode(fe::PointwiseMode_t::RELU_FWD).set_relu_lower_clip_slope(s.alpha);
        return true;
    case ActivationType::kSIGMOID: a.set_mode(fe::PointwiseMode_t::SIGMOID_FWD); return true;
    case ActivationType::kTANH: a.set_mode(fe::PointwiseMode_t::TANH_FWD); return true;
    case ActivationType::kGELU_ERF: a.set_mode(fe::PointwiseMode_t::GELU_FWD); return true;
    case ActivationType::kGELU_TANH: a.set_mode(fe::PointwiseMode_t::GELU_APPROX_TANH_FWD); return true;
    default: return false;
    }
}

//! The frontend graph with its chosen plan exposed: when the variant pack holds exactly the graph's tensors (no
//! frontend-managed workspace, pass-by-value scalars or replaced slots), Kiln builds and keeps the variant pack itself
//! and calls cudnnBackendExecute on the plan, instead of the frontend's per-call variant pack.
class PlanGraph : public TunableGraph
{
public:
    cudnnBackendDescriptor_t plainPlan(int32_t slots, int64_t workspaceBytes) const
    {
        auto const& t = varpack_template;
        if (plans.candidate < 0 || static_cast<size_t>(plans.candidate) >= plans.execution_plans.size()
            || plans.execution_plans[plans.candidate] == nullptr || t.all_uids.size() != static_cast<size_t>(slots)
            || t.user_slots.size() != static_cast<size_t>(slots) || !t.workspace_slots.empty()
            || !t.replacement_slots.empty() || !t.backend_slots.empty())
        {
            return nullptr;
        }
        auto const& plan = *plans.execution_plans[plans.candidate];
        // A frontend workspace in front of the engine's would shift the engine's workspace pointer.
        if (plan.getWorkspaceSize() != workspaceBytes)
        {
            return nullptr;
        }
        return plan.get_raw_desc();
    }
};

uint64_t nextSerial()
{
    static std::atomic<uint64_t> serial{0};
    return ++serial;
}

class FrontendConvPlan final : public ConvGraphPlan
{
public:
    int64_t workspaceBytes() const override { return mWorkspace; }
    bool fused() const override { return mFused; }
    void recordChoice() const override
    {
        if (mGraph.chosen())
        {
            recordTuning('c', mWhat, mGraph.choiceRecord());
        }
    }

    Status run(ConvGraphLaunch& launch, void* handle, cudaStream_t stream, void const* x, void const* w,
        void const* bias, void const* add, void* y, void* workspace) const override
    {
        auto const h = static_cast<cudnnHandle_t>(handle);
        KILN_CUDNN_CHECK(cudnnSetStream(h, stream));
        void const* const addresses[6]{x, w, bias, add, y, workspace};
        if (mRawPlan == nullptr)
        {
            // The frontend's own execute (a variant pack per call): plans whose variant pack is not the plain one.
            void* byRole[kROLES]{const_cast<void*>(x), const_cast<void*>(w), const_cast<void*>(bias),
                const_cast<void*>(add), y};
            void* ptrs[kROLES]{};
            for (int32_t i = 0; i < mSlots; ++i)
            {
                ptrs[i] = byRole[mSlotRole[i]];
            }
            fe::error_t e = mGraph.execute(h, ptrs, mSlots, workspace);
            return e.is_bad() ? internalError("cuDNN graph convolution: " + e.get_message()) : Status::ok();
        }
        if (!ConvGraphPlanAccess::matches(launch, mSerial, addresses))
        {
            KILN_RETURN_IF_ERROR(buildPack(launch, addresses));
        }
        return ConvGraphPlanAccess::execute(launch, h, mRawPlan, stream);
    }

    Status build(ConvGraphSpec const& s, bool fuse)
    {
        fe::DataType_t xt{};
        fe::DataType_t yt{};
        if (!toFrontendType(s.xType, xt) || !toFrontendType(fuse ? s.yType : s.xType, yt))
        {
            return invalidArgument("cuDNN graph: unsupported tensor type");
        }
        if (s.xType == DataType::kFLOAT)
        {
            // Measured on an H100 (cuDNN 9): FP32 graphs still reach TF32-rounded engines with the tensor-core notes
            // deselected, so FP32 keeps the legacy calls with FMA math.
            return invalidArgument("cuDNN graph: FP32 convolutions keep the legacy FMA path");
        }
        if (s.groups < 1 || s.c % s.groups != 0 || s.k % s.groups != 0 || s.n < 1)
        {
            return invalidArgument("cuDNN graph: invalid channel or group counts");
        }
        std::vector<int32_t> const axes = spatialAxes(s.nbSpatial);
        std::vector<int64_t> xDims{s.n, s.c};
        std::vector<int64_t> wDims{s.k, s.c / s.groups};
        std::vector<int64_t> yDims{s.n, s.k};
        std::vector<int64_t> pre;
        std::vector<int64_t> post;
        std::vector<int64_t> stride;
        std::vector<int64_t> dilation;
        WindowGeometry const& g = s.g;
        for (int32_t j : axes)
        {
            int64_t const span = 1 + g.dilation[j] * (g.kernel[j] - 1);
            // cuDNN derives the output extent from the paddings: they must give Kiln's extent exactly.
            if (g.padBefore[j] < 0 || g.padAfter[j] < 0
                || (g.in[j] + g.padBefore[j] + g.padAfter[j] - span) / g.stride[j] + 1 != g.out[j])
            {
                return invalidArgument("cuDNN graph: padding cuDNN cannot express");
            }
            xDims.push_back(g.in[j]);
            wDims.push_back(g.kernel[j]);
            yDims.push_back(g.out[j]);
            pre.push_back(g.padBefore[j]);
            post.push_back(g.padAfter[j]);
            stride.push_back(g.stride[j]);
            dilation.push_back(g.dilation[j]);
        }
        if (!fitsCudnnInt(xDims) || !fitsCudnnInt(yDims) || !fitsCudnnInt(wDims))
        {
            return invalidArgument("cuDNN graph: extents beyond cuDNN's int range");
        }
        // Tensors without spatial extent ([N, C, 1, ...]) are described channel-last, which is the same memory:
        // measured on an H200 (cuDNN 9), their row-major strides made cuDNN's fused engines with an added tensor or
        // a non-ReLU activation return wrong values (CudaParity.GemmLinear, 1x1 inputs).
        auto const pointLike = [](std::vector<int64_t> const& d) {
            return std::all_of(d.begin() + 2, d.end(), [](int64_t e) { return e == 1; });
        };
        bool const channelLast = s.channelLast || (pointLike(xDims) && pointLike(yDims));
        fe::graph::Graph& graph = mGraph;
        graph.set_io_data_type(xt).set_intermediate_data_type(fe::DataType_t::FLOAT).set_compute_data_type(
            fe::DataType_t::FLOAT);
        auto X = graph.tensor(fe::graph::Tensor_attributes()
                                  .set_name("x")
                                  .set_uid(kX + 1)
                                  .set_dim(xDims)
                                  .set_stride(packedStrides(xDims, channelLast))
                                  .set_data_type(xt));
        auto W = graph.tensor(fe::graph::Tensor_attributes()
                                  .set_name("w")
                                  .set_uid(kW + 1)
                                  .set_dim(wDims)
                                  .set_stride(packedStrides(wDims, channelLast))
                                  .set_data_type(xt));
        auto Y = graph.conv_fprop(X, W,
            fe::graph::Conv_fprop_attributes()
                .set_name("conv")
                .set_pre_padding(pre)
                .set_post_padding(post)
                .set_stride(stride)
                .set_dilation(dilation)
                .set_compute_data_type(fe::DataType_t::FLOAT));
        if (fuse && s.bias)
        {
            fe::DataType_t bt{};
            if (!toFrontendType(s.biasType, bt))
            {
                return invalidArgument("cuDNN graph: unsupported bias type");
            }
            std::vector<int64_t> bDims(yDims.size(), 1);
            bDims[1] = s.k;
            auto B = graph.tensor(fe::graph::Tensor_attributes()
                                      .set_name("bias")
                                      .set_uid(kBIAS + 1)
                                      .set_dim(bDims)
                                      .set_stride(packedStrides(bDims))
                                      .set_data_type(bt));
            Y = graph.pointwise(Y, B,
                fe::graph::Pointwise_attributes().set_name("bias").set_mode(fe::PointwiseMode_t::ADD).set_compute_data_type(
                    fe::DataType_t::FLOAT));
        }
        if (fuse && s.add)
        {
            fe::DataType_t at{};
            if (!toFrontendType(s.addType, at))
            {
                return invalidArgument("cuDNN graph: unsupported type of the added tensor");
            }
            auto Z = graph.tensor(fe::graph::Tensor_attributes()
                                      .set_name("add")
                                      .set_uid(kADD + 1)
                                      .set_dim(yDims)
                                      .set_stride(packedStrides(yDims, channelLast))
                                      .set_data_type(at));
            Y = graph.pointwise(Y, Z,
                fe::graph::Pointwise_attributes().set_name("add").set_mode(fe::PointwiseMode_t::ADD).set_compute_data_type(
                    fe::DataType_t::FLOAT));
        }
        if (fuse && s.activation)
        {
            fe::graph::Pointwise_attributes act;
            if (!activationAttributes(s, act))
            {
                return invalidArgument("cuDNN graph: activation without an exact pointwise mode");
            }
            Y = graph.pointwise(Y, act.set_name("act").set_compute_data_type(fe::DataType_t::FLOAT));
        }
        Y->set_output(true).set_uid(kY + 1).set_dim(yDims).set_stride(packedStrides(yDims, channelLast)).set_data_type(
            yt);

        // FP32 accumulation always.
        graph.deselect_numeric_notes({fe::NumericalNote_t::REDUCED_PRECISION_REDUCTION});

        // Scratch sizes for timing candidates: every tensor of the graph by uid.
        auto const volume = [](std::vector<int64_t> const& d) {
            int64_t v = 1;
            for (int64_t x : d)
            {
                v *= x;
            }
            return v;
        };
        FrontendTuning tuning;
        tuning.tensorBytes[kX + 1] = volume(xDims) * elementSize(s.xType);
        tuning.tensorBytes[kW + 1] = volume(wDims) * elementSize(s.xType);
        tuning.tensorBytes[kY + 1] = volume(yDims) * elementSize(fuse ? s.yType : s.xType);
        if (fuse && s.bias)
        {
            tuning.tensorBytes[kBIAS + 1] = s.k * elementSize(s.biasType);
        }
        if (fuse && s.add)
        {
            tuning.tensorBytes[kADD + 1] = volume(yDims) * elementSize(s.addType);
        }
        mWhat = "cuDNN graph " + describe(s, fuse);
        KILN_ASSIGN_OR_RETURN(int64_t const bytes, buildTunedFrontendPlan(mGraph, mWhat, tuning));
        mWorkspace = bytes;
        mFused = fuse;
        std::vector<int64_t> const uids = graph.get_variant_pack_uids_sorted();
        if (uids.size() > static_cast<size_t>(kROLES))
        {
            return internalError("cuDNN graph: unexpected variant pack of " + std::to_string(uids.size()) + " tensors");
        }
        mSlots = static_cast<int32_t>(uids.size());
        for (size_t i = 0; i < uids.size(); ++i)
        {
            if (uids[i] < 1 || uids[i] > kROLES)
            {
                return internalError("cuDNN graph: unexpected tensor uid " + std::to_string(uids[i]));
            }
            mSlotRole[i] = static_cast<int32_t>(uids[i] - 1);
            mUids[i] = uids[i];
        }
        mRawPlan = mGraph.plainPlan(mSlots, mWorkspace);
        return Status::ok();
    }

private:
    //! Builds the variant pack of `addresses` into `launch` (replacing the one it holds).
    Status buildPack(ConvGraphLaunch& launch, void const* const (&addresses)[6]) const
    {
        ConvGraphPlanAccess::reset(launch);
        cudnnBackendDescriptor_t pack = nullptr;
        KILN_CUDNN_CHECK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack));
        void* ptrs[kROLES]{};
        for (int32_t i = 0; i < mSlots; ++i)
        {
            ptrs[i] = const_cast<void*>(addresses[mSlotRole[i]]);
        }
        void* workspace = const_cast<void*>(addresses[5]);
        cudnnStatus_t st = cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, mSlots, mUids);
        if (st == CUDNN_STATUS_SUCCESS)
        {
            st = cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, mSlots, ptrs);
        }
        if (st == CUDNN_STATUS_SUCCESS)
        {
            st = cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace);
        }
        if (st == CUDNN_STATUS_SUCCESS)
        {
            st = cudnnBackendFinalize(pack);
        }
        if (st != CUDNN_STATUS_SUCCESS)
        {
            cudnnBackendDestroyDescriptor(pack);
            return cudnnStatus(st, "cuDNN graph convolution: variant pack");
        }
        ConvGraphPlanAccess::store(launch, mSerial, pack, addresses);
        return Status::ok();
    }

    //! Tells this plan's variant packs from those of a plan that a later allocation put at the same address.
    uint64_t const mSerial{nextSerial()};
    PlanGraph mGraph;
    std::string mWhat; //!< the description (the key of the recorded choice)
    cudnnBackendDescriptor_t mRawPlan{nullptr}; //!< the chosen plan when the variant pack is the plain one
    int64_t mUids[kROLES]{};
    int64_t mWorkspace{0};
    bool mFused{false};
    int32_t mSlots{0};
    int32_t mSlotRole[kROLES]{};
};

} // namespace

StatusOr<std::shared_ptr<ConvGraphPlan const>> ConvGraphPlan::get(ConvGraphSpec const& spec, bool fuseEpilogue)
{
    bool const fuse = fuseEpilogue && (spec.bias || spec.add || spec.activation || spec.yType != spec.xType);
    // The autotuning settings are part of the key: a plan chosen under other settings is not reused.
    std::string const key = describe(spec, fuse) + "|" + autotuneSettings().key();
    static PlanCache<ConvGraphPlan> cache(4096);
    bool fresh = false;
    auto result = cache.get(
        key,
        [&]() -> PlanCache<ConvGraphPlan>::Result
        {
            auto plan = std::make_shared<FrontendConvPlan>();
            KILN_RETURN_IF_ERROR(plan->build(spec, fuse));
            return std::shared_ptr<ConvGraphPlan const>(plan);
        },
        &fresh);
    if (result.isOk())
    {
        result.value()->recordChoice(); // for every node of this description, also when the plan was cached
    }
    if (fresh)
    {
        std::lock_guard<std::mutex> lock(countersMutex());
        (result.isOk() ? (fuse ? counters().fused : counters().bare) : counters().refused) += 1;
        if (!result.isOk())
        {
            counters().lastRefusal = result.status().message();
        }
    }
    return result;
}

#else // without cuDNN or its frontend

bool convGraphBuilt()
{
    return false;
}

ConvGraphLaunch::~ConvGraphLaunch() = default;

StatusOr<std::shared_ptr<ConvGraphPlan const>> ConvGraphPlan::get(ConvGraphSpec const&, bool)
{
    return invalidArgument("cuDNN graph convolutions need a Kiln built with cuDNN and the cuDNN frontend headers");
}

#endif

} // namespace kiln::cuda
