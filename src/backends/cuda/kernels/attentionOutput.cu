// CUDA kernel of the fused attention node (kATTENTION_OUTPUT, made by the builder's attention fusion;
// backends/common/attentionParams.h): out = softmax(scale · Q·Kᵀ + mask) · V through cuDNN's flash attention
// (attentionGraph.h), FP16 and BF16, the scores never stored. Query, key, value and output are [b, h, s, d] or, where
// the fusion absorbed an exported model's head transposes, [b, s, h, d], both read through strides; a key
// stored transposed ([b, h, d, s]) is given to cuDNN by its strides, or copied to [b, h, s, d] in the workspace when
// cuDNN refuses those strides; an additive mask is cuDNN's bias with its broadcast strides, and a BOOL mask, or one
// whose broadcast cuDNN refuses, is staged in the workspace as an additive [mb, mh, sq, skv] tensor (0 where kept,
// -inf where masked). A query, key or value viewed inside a packed QKV tensor (layout 2, the Split of one projection
// absorbed by the fusion) is read in place: its offset moves the pointer and its row length is the sequence stride;
// offsets and strides must be multiples of 16 bytes (refused at creation and reshape otherwise, and pointers that are
// not aligned at run). Shapes cuDNN has no engine for are refused at reshape; the builder asks first (KernelProbe)
// and leaves such attentions unfused, so FP32 attention and normOp kNONE keep the separate layers.
#include "backends/common/attentionParams.h"
#include "backends/cuda/cudaLibraries.h"
#include "backends/cuda/kernels/attentionGraph.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/cudnnCommon.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

constexpr int32_t kTILE = 32;

//! planes × [rows, cols] → planes × [cols, rows] of 16-bit elements, through a shared-memory tile.
__global__ void transposePlanes16(int64_t rows, int64_t cols, uint16_t const* in, uint16_t* out)
{
    __shared__ uint16_t tile[kTILE][kTILE + 1];
    int64_t const plane = blockIdx.z;
    int64_t const r0 = static_cast<int64_t>(blockIdx.y) * kTILE;
    int64_t const c0 = static_cast<int64_t>(blockIdx.x) * kTILE;
    uint16_t const* src = in + plane * rows * cols;
    uint16_t* dst = out + plane * rows * cols;
    for (int32_t i = threadIdx.y; i < kTILE; i += blockDim.y)
    {
        int64_t const r = r0 + i;
        int64_t const c = c0 + threadIdx.x;
        if (r < rows && c < cols)
        {
            tile[i][threadIdx.x] = src[r * cols + c];
        }
    }
    __syncthreads();
    for (int32_t i = threadIdx.y; i < kTILE; i += blockDim.y)
    {
        int64_t const c = c0 + i;
        int64_t const r = r0 + threadIdx.x;
        if (r < rows && c < cols)
        {
            dst[c * rows + r] = tile[threadIdx.x][i];
        }
    }
}

//! The mask as a packed additive [mb, mh, sq, skv] tensor of type `t`: BOOL masks give 0 (kept) or -inf; the source
//! is read through its broadcast strides `from` (0 where it broadcasts).
__global__ void stageMask(int64_t total, int64_t mh, int64_t sq, int64_t skv, int64_t s0, int64_t s1, int64_t s2,
    int64_t s3, void const* mask, bool boolMask, void* out, DataType t)
{
    for (int64_t i = dev::globalThread(); i < total; i += dev::gridThreads())
    {
        int64_t const j = i % skv;
        int64_t const row = i / skv;
        int64_t const q = row % sq;
        int64_t const h = (row / sq) % mh;
        int64_t const b = row / (sq * mh);
        int64_t const from = b * s0 + h * s1 + q * s2 + j * s3;
        float const v = boolMask ? (static_cast<uint8_t const*>(mask)[from] != 0 ? 0.F : -INFINITY)
                                 : dev::loadFloat(mask, t, from);
        dev::storeFloat(out, t, i, v);
    }
}

//! Packed row-major strides of [a, b, c, d].
void packed(int64_t const (&dims)[4], int64_t (&s)[4])
{
    s[3] = 1;
    s[2] = dims[3];
    s[1] = dims[2] * dims[3];
    s[0] = dims[1] * dims[2] * dims[3];
}

//! cuDNN's alignment of tensor pointers and of strides, in bytes.
constexpr int64_t kCUDNN_ALIGNMENT = 16;

//! Why cuDNN cannot read `l` (16-bit elements) at an aligned base: its offset or a non-unit stride is not a multiple
//! of 16 bytes; empty when it can.
std::string misalignment(AttentionTensorLayout const& l, char const* name)
{
    int64_t const elementBytes = 2;
    if ((l.offset * elementBytes) % kCUDNN_ALIGNMENT != 0)
    {
        return std::string(name) + " starts " + std::to_string(l.offset) + " elements into its packed rows, not at a "
            + "16-byte boundary (cuDNN's alignment)";
    }
    for (int64_t st : l.stride)
    {
        if (st != 1 && (st * elementBytes) % kCUDNN_ALIGNMENT != 0)
        {
            return std::string(name) + " has a stride of " + std::to_string(st) + " elements, not a multiple of 16 bytes"
                + " (cuDNN's alignment)";
        }
    }
    return {};
}

//! How one shape runs: the plan, and what is staged in the workspace in front of the plan's own.
struct AttentionConfig
{
    std::shared_ptr<AttentionGraphPlan const> plan;
    AttentionShape shape;
    int64_t offset[4]{};   //!< element offsets of query, key, value and output (packed views)
    bool stageKey{false};  //!< the transposed key copied to [b, h, s, d]
    bool stageMask{false}; //!< the mask staged additive, packed [mb, mh, sq, skv]
    int64_t maskDims[4]{};
    int64_t keyBytes{0};
    int64_t maskBytes{0};
    int64_t total() const { return alignWorkspace(keyBytes) + alignWorkspace(maskBytes) + plan->workspaceBytes(); }
};

//! create: the attributes and types (cuDNN's flash attention: FP16/BF16, softmax); reshape: the shapes and the plan
//! (kept per shape); run: the staging launches and cuDNN's execution.
class AttentionOutputCudaKernel final : public Kernel
{
public:
    AttentionOutputCudaKernel(KernelSetup const& setup, AttentionParams const& params)
        : mSetup(setup)
        , mParams(params)
        , mLibraries(sessionLibraries(setup))
    {
    }

    int64_t workspaceSize(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) const override
    {
        auto config = configure(inputs, outputs);
        return config.isOk() ? config.value().total() : 0;
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_ASSIGN_OR_RETURN(mConfig, configure(inputs, outputs));
        if (mLibraries == nullptr)
        {
            return internalError(label() + ": no CUDA library handles (the kernel was created outside a session)");
        }
#if KILN_HAVE_CUDNN
        StatusOr<cudnnHandle_t> h = mLibraries->cudnn();
        if (!h.isOk())
        {
            return h.status().withContext(label());
        }
        mCudnn = *h;
#endif
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (!mReady)
        {
            return notReshaped(label());
        }
        AttentionConfig const& c = mConfig;
        AttentionShape const& s = c.shape;
        if (outputs[0].volume() == 0)
        {
            return Status::ok();
        }
        if (ctx.workspaceBytes < c.total() || (ctx.workspace == nullptr && c.total() > 0))
        {
            return invalidArgument(label() + ": the workspace is smaller than the attention plan needs");
        }
        auto* ws = static_cast<uint8_t*>(ctx.workspace);
        void const* key = inputs[1].data;
        void const* mask = mParams.hasMask ? inputs[3].data : nullptr;
        if (c.stageKey)
        {
            dim3 const grid(static_cast<uint32_t>((s.seqKV + kTILE - 1) / kTILE),
                static_cast<uint32_t>((s.headDim + kTILE - 1) / kTILE), static_cast<uint32_t>(s.batch * s.headsKV));
            transposePlanes16<<<grid, dim3(kTILE, 8), 0, ctx.stream>>>(s.headDim, s.seqKV,
                static_cast<uint16_t const*>(key), reinterpret_cast<uint16_t*>(ws));
            KILN_RETURN_IF_ERROR(launchStatus("attention key transpose"));
            key = ws;
            ws += alignWorkspace(c.keyBytes);
        }
        if (c.stageMask)
        {
            int64_t const total = c.maskDims[0] * c.maskDims[1] * c.maskDims[2] * c.maskDims[3];
            stageMask<<<gridFor(total), kBLOCK, 0, ctx.stream>>>(total, c.maskDims[1], c.maskDims[2], c.maskDims[3],
                s.maskStride[0], s.maskStride[1], s.maskStride[2], s.maskStride[3], mask, mParams.boolMask, ws,
                inputs[0].type);
            KILN_RETURN_IF_ERROR(launchStatus("attention mask staging"));
            mask = ws;
            ws += alignWorkspace(c.maskBytes);
        }
        int64_t const elementBytes = 2;
        auto at = [&](void const* base, int32_t which) {
            return static_cast<void const*>(static_cast<uint8_t const*>(base) + c.offset[which] * elementBytes);
        };
        void const* q = at(inputs[0].data, kATTENTION_QUERY);
        void const* v = at(inputs[2].data, kATTENTION_VALUE);
        key = c.stageKey ? key : at(key, kATTENTION_KEY);
        for (void const* p : {q, key, v})
        {
            // Arena tensors are aligned; a packed network input given at an odd address is not.
            if (reinterpret_cast<uintptr_t>(p) % kCUDNN_ALIGNMENT != 0)
            {
                return invalidArgument(label() + ": query, key or value is not 16-byte aligned (cuDNN's alignment)");
            }
        }
        return c.plan->run(mCudnn, ctx.stream, q, key, v, mask, outputs[0].data, ws);
    }

private:
    std::string label() const { return nodeLabel(mSetup, "Attention"); }

    //! The plan of these shapes: the key and the mask as they are where cuDNN takes them, else staged.
    StatusOr<AttentionConfig> configure(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) const
    {
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        AttentionConfig c;
        KILN_ASSIGN_OR_RETURN(c.shape, attentionShapes(mSetup, mParams, v.inputs, v.outputs));
        AttentionShape const& s = c.shape;
        AttentionGraphSpec spec;
        spec.type = inputs[0].type;
        spec.batch = s.batch;
        spec.headsQ = s.headsQ;
        spec.headsKV = s.headsKV;
        spec.seqQ = s.seqQ;
        spec.seqKV = s.seqKV;
        spec.headDim = s.headDim;
        spec.valueDim = s.valueDim;
        spec.causal = mParams.causal;
        spec.scale = mParams.scale;
        spec.device = mLibraries != nullptr ? mLibraries->device() : 0;
        AttentionTensorLayout layouts[4];
        for (int32_t i = 0; i < 4; ++i)
        {
            layouts[i] = attentionLayout(mParams, s, i, i < 3 ? inputs[static_cast<size_t>(i)].dims : outputs[0].dims);
            c.offset[i] = layouts[i].offset;
            if (mParams.packed[i])
            {
                std::string const why = misalignment(layouts[i], kATTENTION_PACKED_ATTRIBUTES[i]);
                if (!why.empty())
                {
                    return invalidArgument(label() + ": " + why);
                }
            }
        }
        std::copy(layouts[kATTENTION_QUERY].stride, layouts[kATTENTION_QUERY].stride + 4, spec.qStride);
        std::copy(layouts[kATTENTION_VALUE].stride, layouts[kATTENTION_VALUE].stride + 4, spec.vStride);
        std::copy(layouts[kATTENTION_OUTPUT].stride, layouts[kATTENTION_OUTPUT].stride + 4, spec.oStride);
        // The key as cuDNN reads it once staged: [b, h, s, d].
        int64_t const keyPacked[4]{s.headsKV * s.seqKV * s.headDim, s.seqKV * s.headDim, s.headDim, 1};
        int64_t const elementBytes = 2;
        nvinfer1::Dims const md = mParams.hasMask ? inputs[3].dims : nvinfer1::Dims{};
        std::optional<Status> first;
        // Attempts, in order: everything as stored; the key staged; the mask staged too (full query extent).
        for (int32_t attempt = 0; attempt < 3; ++attempt)
        {
            c.stageKey = mParams.keyTransposed && attempt >= 1;
            c.stageMask = mParams.hasMask && (mParams.boolMask || attempt >= 2);
            if ((attempt == 1 && !mParams.keyTransposed) || (attempt == 2 && !mParams.hasMask))
            {
                continue;
            }
            int64_t const* keyStride = c.stageKey ? keyPacked : layouts[kATTENTION_KEY].stride;
            std::copy(keyStride, keyStride + 4, spec.kStride);
            c.keyBytes = c.stageKey ? s.batch * s.headsKV * s.seqKV * s.headDim * elementBytes : 0;
            spec.bias = mParams.hasMask;
            c.maskBytes = 0;
            if (spec.bias)
            {
                // As stored: the mask's own extents, packed; staged: the query extent in full when a broadcast over
                // it was refused.
                for (int32_t i = 0; i < 4; ++i)
                {
                    c.maskDims[i] = md.d[i];
                }
                if (c.stageMask && attempt >= 2)
                {
                    c.maskDims[2] = s.seqQ;
                }
                std::copy(c.maskDims, c.maskDims + 4, spec.biasDims);
                packed(c.maskDims, spec.biasStride);
                c.maskBytes = c.stageMask ? c.maskDims[0] * c.maskDims[1] * c.maskDims[2] * c.maskDims[3] * elementBytes : 0;
            }
            auto plan = AttentionGraphPlan::get(spec);
            if (plan.isOk())
            {
                c.plan = plan.value();
                return c;
            }
            if (!first.has_value())
            {
                first = plan.status();
            }
        }
        return first.value_or(invalidArgument("no attention plan")).withContext(label());
    }

    KernelSetup mSetup;
    AttentionParams mParams;
    CudaLibraries* mLibraries{nullptr};
    AttentionConfig mConfig;
    void* mCudnn{nullptr}; //!< the session's cudnnHandle_t
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createAttentionOutputCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Attention kernel: no plan node");
    }
    KILN_ASSIGN_OR_RETURN(AttentionParams params, readAttentionParams(setup));
    if (!cudnnBuilt())
    {
        return attentionError(setup, "fused attention on the GPU needs a Kiln built with cuDNN");
    }
    if (setup.inputTypes[0] != DataType::kHALF && setup.inputTypes[0] != DataType::kBF16)
    {
        return attentionError(setup, std::string("the CUDA attention kernel (cuDNN flash attention) runs FP16 and BF16, not ")
            + dataTypeName(setup.inputTypes[0]));
    }
    if (!params.softmax)
    {
        return attentionError(setup, "the CUDA attention kernel runs softmax attention only (normOp kSOFTMAX)");
    }
    for (int32_t i = 0; i < 3; ++i)
    {
        AttentionTensorLayout offsetOnly;
        offsetOnly.offset = params.packOffset[i];
        std::fill(offsetOnly.stride, offsetOnly.stride + 4, 1);
        std::string const why = params.packed[i] ? misalignment(offsetOnly, kATTENTION_PACKED_ATTRIBUTES[i]) : "";
        if (!why.empty())
        {
            return attentionError(setup, why);
        }
    }
    return std::unique_ptr<Kernel>(std::make_unique<AttentionOutputCudaKernel>(setup, params));
}

} // namespace kiln::cuda
