// CUDA kernel of IShuffleLayer, as the CPU reference (backends/cpu/kernels/shuffle.cpp): first transpose, reshape
// (a reinterpretation of contiguous data), second transpose. Identity transposes (moving only extent-1 dimensions)
// are skipped; a plain reshape is one device copy. When both transposes move data the intermediate goes through
// the workspace.
#include "backends/common/shuffleParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{

namespace
{

__global__ void permuteKernel(IndexMap map, int64_t n, void const* src, void* dst, int32_t size)
{
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        int64_t off[kMAX_OPERANDS];
        mapOffsets(map, i, off);
        dev::copyElement(dst, i, src, off[0], size);
    }
}

//! One transpose: dst (row-major over the permuted dims) = src of `dims` read through `perm`.
struct Permute
{
    IndexMap map;
    int64_t count{0};
};

Permute makePermute(std::vector<int64_t> const& dims, std::vector<int32_t> const& perm)
{
    auto const rank = static_cast<int32_t>(dims.size());
    Permute p;
    p.map.rank = rank;
    std::vector<int64_t> srcStride(dims.size(), 1);
    for (int32_t i = rank - 1; i > 0; --i)
    {
        srcStride[static_cast<size_t>(i - 1)] = srcStride[static_cast<size_t>(i)] * dims[static_cast<size_t>(i)];
    }
    p.count = 1;
    for (int32_t i = 0; i < rank; ++i)
    {
        auto const from = static_cast<size_t>(perm[static_cast<size_t>(i)]);
        p.map.dims[i] = dims[from];
        p.map.strides[0][i] = srcStride[from];
        p.count *= p.map.dims[i];
    }
    return p;
}

Status launchPermute(Permute const& p, void const* src, void* dst, int32_t size, cudaStream_t stream)
{
    permuteKernel<<<gridFor(p.count), kBLOCK, 0, stream>>>(p.map, p.count, src, dst, size);
    return launchStatus("Shuffle transpose kernel");
}

//! create: the transposes; reshape: the checks and the index maps of the transposes that move data; run: a device
//! copy (nothing when the builder aliased the output), or one or two transposes (the intermediate in the workspace).
class ShuffleKernel final : public Kernel
{
public:
    ShuffleKernel(KernelSetup const& setup, ShuffleAttrs attrs)
        : mSetup(setup)
        , mAttrs(std::move(attrs))
    {
    }

    int64_t workspaceSize(std::vector<TensorView> const& inputs, std::vector<TensorView> const&) const override
    {
        // The intermediate of a double transpose (asked for whenever there is data; 256-byte granules).
        return inputs.empty() ? 0 : (inputs[0].volume() * elementSize(inputs[0].type) + 255) / 256 * 256;
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(ShuffleParams const p, makeShuffleParams(mAttrs, v.inputs, v.outputs, "GPU"));
        mFirstMoves = p.firstMoves;
        mSecondMoves = p.secondMoves;
        if (p.volume != 0 && p.firstMoves)
        {
            mFirst = makePermute(p.inDims, p.perm1);
        }
        if (p.volume != 0 && p.secondMoves)
        {
            mSecond = makePermute(p.reshaped, p.perm2);
        }
        mSize = static_cast<int32_t>(p.bytes);
        mVolume = p.volume;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mVolume <= 0)
        {
            return mVolume == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "Shuffle"));
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        int64_t const bytes = mVolume * mSize;
        if (!mFirstMoves && !mSecondMoves)
        {
            if (in.data != out.data)
            {
                KILN_CUDA_CHECK(cudaMemcpyAsync(out.data, in.data, static_cast<size_t>(bytes), cudaMemcpyDeviceToDevice,
                    ctx.stream));
            }
            return Status::ok();
        }
        if (mFirstMoves && !mSecondMoves)
        {
            return launchPermute(mFirst, in.data, out.data, mSize, ctx.stream);
        }
        void const* src = in.data;
        if (mFirstMoves)
        {
            if (ctx.workspace == nullptr || ctx.workspaceBytes < bytes)
            {
                return internalError("shuffle: the workspace is smaller than the " + std::to_string(bytes)
                    + " bytes of the intermediate");
            }
            KILN_RETURN_IF_ERROR(launchPermute(mFirst, in.data, ctx.workspace, mSize, ctx.stream));
            src = ctx.workspace;
        }
        return launchPermute(mSecond, src, out.data, mSize, ctx.stream);
    }

private:
    KernelSetup mSetup;
    ShuffleAttrs mAttrs;
    bool mFirstMoves{false};
    bool mSecondMoves{false};
    Permute mFirst;
    Permute mSecond;
    int32_t mSize{0};
    int64_t mVolume{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createShuffleCudaKernel(KernelSetup const& setup)
{
    KILN_ASSIGN_OR_RETURN(auto attrs, readShuffleAttrs(setup));
    return std::unique_ptr<Kernel>(std::make_unique<ShuffleKernel>(setup, std::move(attrs)));
}

} // namespace kiln::cuda
