// cuDNN SDPA plans (see attentionGraph.h): the frontend graph of one attention, built on the planning handle, and a
// process-wide cache of plans by description.
#include "backends/cuda/kernels/attentionGraph.h"

#include "backends/cuda/kernels/cudnnCommon.h"
#include "backends/cuda/kernels/frontendPlan.h"

#include <sstream>
#include <string>
#include <vector>

namespace kiln::cuda
{

#if KILN_HAVE_CUDNN && KILN_HAVE_CUDNN_FRONTEND

namespace fe = cudnn_frontend;

namespace
{
using nvinfer1::DataType;

//! Tensor roles and their frontend uids (uid = role + 1).
enum Role : int32_t
{
    kQ = 0,
    kK,
    kV,
    kBIAS,
    kO,
    kROLES
};

std::string describe(AttentionGraphSpec const& s)
{
    std::ostringstream os;
    os << static_cast<int>(s.type) << ',' << s.batch << ',' << s.headsQ << ',' << s.headsKV << ',' << s.seqQ << ','
       << s.seqKV << ',' << s.headDim << ',' << s.valueDim << ',' << s.bias << ',' << s.causal << ',' << s.scale
       << ',' << s.device;
    for (int64_t const* a : {s.qStride, s.kStride, s.vStride, s.oStride, s.biasDims, s.biasStride})
    {
        os << ';' << a[0] << ',' << a[1] << ',' << a[2] << ',' << a[3];
    }
    return os.str();
}

std::vector<int64_t> four(int64_t const (&a)[4])
{
    return {a[0], a[1], a[2], a[3]};
}

class FrontendAttentionPlan final : public AttentionGraphPlan
{
public:
    int64_t workspaceBytes() const override { return mWorkspace; }

    Status run(void* handle, cudaStream_t stream, void const* q, void const* k, void const* v, void const* bias,
        void* o, void* workspace) const override
    {
        auto const h = static_cast<cudnnHandle_t>(handle);
        KILN_CUDNN_CHECK(cudnnSetStream(h, stream));
        void* byRole[kROLES]{const_cast<void*>(q), const_cast<void*>(k), const_cast<void*>(v),
            const_cast<void*>(bias), o};
        void* ptrs[kROLES]{};
        for (int32_t i = 0; i < mSlots; ++i)
        {
            ptrs[i] = byRole[mSlotRole[i]];
        }
        fe::error_t e = mGraph.execute(h, ptrs, mSlots, workspace);
        return e.is_bad() ? internalError("cuDNN attention: " + e.get_message()) : Status::ok();
    }

    Status build(AttentionGraphSpec const& s)
    {
        fe::DataType_t t{};
        if (s.type == DataType::kHALF)
        {
            t = fe::DataType_t::HALF;
        }
        else if (s.type == DataType::kBF16)
        {
            t = fe::DataType_t::BFLOAT16;
        }
        else
        {
            return invalidArgument("cuDNN attention runs FP16 and BF16 only");
        }
        if (s.headsKV < 1 || s.headsQ % s.headsKV != 0)
        {
            return invalidArgument("cuDNN attention: the query heads are not a multiple of the key heads");
        }
        fe::graph::Graph& g = mGraph;
        g.set_io_data_type(t).set_intermediate_data_type(fe::DataType_t::FLOAT).set_compute_data_type(
            fe::DataType_t::FLOAT);
        auto tensor = [&](char const* name, Role role, std::vector<int64_t> dims, int64_t const (&stride)[4]) {
            return g.tensor(fe::graph::Tensor_attributes()
                                .set_name(name)
                                .set_uid(role + 1)
                                .set_dim(std::move(dims))
                                .set_stride(four(stride))
                                .set_data_type(t));
        };
        auto Q = tensor("q", kQ, {s.batch, s.headsQ, s.seqQ, s.headDim}, s.qStride);
        auto K = tensor("k", kK, {s.batch, s.headsKV, s.seqKV, s.headDim}, s.kStride);
        auto V = tensor("v", kV, {s.batch, s.headsKV, s.seqKV, s.valueDim}, s.vStride);
        fe::graph::SDPA_attributes options;
        options.set_name("sdpa").set_generate_stats(false).set_attn_scale(s.scale);
        if (s.causal)
        {
            options.set_causal_mask(true);
        }
        if (s.bias)
        {
            options.set_bias(tensor("bias", kBIAS, four(s.biasDims), s.biasStride));
        }
        auto [O, stats] = g.sdpa(Q, K, V, options);
        (void) stats;
        O->set_output(true).set_uid(kO + 1).set_dim({s.batch, s.headsQ, s.seqQ, s.valueDim}).set_stride(
            four(s.oStride));

        KILN_ASSIGN_OR_RETURN(int64_t const bytes, buildFrontendPlan(g, "cuDNN attention"));
        mWorkspace = bytes;
        std::vector<int64_t> const uids = g.get_variant_pack_uids_sorted();
        if (uids.size() > static_cast<size_t>(kROLES))
        {
            return internalError("cuDNN attention: unexpected variant pack of " + std::to_string(uids.size()) + " tensors");
        }
        mSlots = static_cast<int32_t>(uids.size());
        for (size_t i = 0; i < uids.size(); ++i)
        {
            if (uids[i] < 1 || uids[i] > kROLES)
            {
                return internalError("cuDNN attention: unexpected tensor uid " + std::to_string(uids[i]));
            }
            mSlotRole[i] = static_cast<int32_t>(uids[i] - 1);
        }
        return Status::ok();
    }

private:
    fe::graph::Graph mGraph;
    int64_t mWorkspace{0};
    int32_t mSlots{0};
    int32_t mSlotRole[kROLES]{};
};

} // namespace

StatusOr<std::shared_ptr<AttentionGraphPlan const>> AttentionGraphPlan::get(AttentionGraphSpec const& spec)
{
    static PlanCache<AttentionGraphPlan> cache(1024);
    return cache.get(describe(spec),
        [&]() -> PlanCache<AttentionGraphPlan>::Result
        {
            auto plan = std::make_shared<FrontendAttentionPlan>();
            KILN_RETURN_IF_ERROR(plan->build(spec));
            return std::shared_ptr<AttentionGraphPlan const>(plan);
        });
}

#else // without cuDNN or its frontend

StatusOr<std::shared_ptr<AttentionGraphPlan const>> AttentionGraphPlan::get(AttentionGraphSpec const&)
{
    return invalidArgument("fused attention on the GPU needs a Kiln built with cuDNN and the cuDNN frontend headers");
}

#endif

} // namespace kiln::cuda
