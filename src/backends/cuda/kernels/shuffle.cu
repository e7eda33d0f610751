// CUDA kernel of IShuffleLayer, as the CPU reference (backends/cpu/kernels/shuffle.cpp): first transpose, reshape
// (a reinterpretation of contiguous data), second transpose. Identity transposes (moving only extent-1 dimensions)
// are skipped; a plain reshape is one device copy. When both transposes move data the intermediate goes through
// the workspace. A transpose that keeps the innermost dimension(s) in place (attention's head split and merge) moves
// whole 16-, 8-, 4- or 2-byte pieces of those contiguous runs per thread, with one index computation per piece.
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

//! The same over pieces of `V` (whole bytes of contiguous runs): offsets in pieces.
template <typename V>
__global__ void permutePiecesKernel(IndexMap map, int64_t n, V const* src, V* dst)
{
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        int64_t off[kMAX_OPERANDS];
        mapOffsets(map, i, off);
        dst[i] = src[off[0]];
    }
}

//! One transpose: dst (row-major over the permuted dims) = src of `dims` read through `perm`. `pieces` is the same
//! transpose over pieces of `pieceBytes` when the innermost dimensions stay in place (pieceBytes 0: none).
struct Permute
{
    IndexMap map;
    int64_t count{0};
    IndexMap pieces;
    int64_t pieceCount{0};
    int32_t pieceBytes{0};
};

Permute makePermute(std::vector<int64_t> const& dims, std::vector<int32_t> const& perm, int32_t size)
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
    // The trailing dimensions the transpose keeps in place form contiguous runs of `run` elements.
    int32_t kept = rank;
    int64_t run = 1;
    while (kept > 0 && perm[static_cast<size_t>(kept - 1)] == kept - 1)
    {
        --kept;
        run *= dims[static_cast<size_t>(kept)];
    }
    int64_t const runBytes = run * size;
    for (int32_t bytes : {16, 8, 4, 2})
    {
        if (kept > 0 && kept < rank && runBytes % bytes == 0 && p.count > 0)
        {
            p.pieceBytes = bytes;
            break;
        }
    }
    if (p.pieceBytes == 0)
    {
        return p;
    }
    int64_t const perRun = runBytes / p.pieceBytes;
    p.pieces.rank = kept + 1;
    p.pieceCount = perRun;
    for (int32_t i = 0; i < kept; ++i)
    {
        p.pieces.dims[i] = p.map.dims[i];
        p.pieces.strides[0][i] = p.map.strides[0][i] / run * perRun; // a multiple of run elements
        p.pieceCount *= p.map.dims[i];
    }
    p.pieces.dims[kept] = perRun;
    p.pieces.strides[0][kept] = 1;
    return p;
}

template <typename V>
void launchPieces(Permute const& p, void const* src, void* dst, cudaStream_t stream)
{
    permutePiecesKernel<V><<<gridFor(p.pieceCount), kBLOCK, 0, stream>>>(
        p.pieces, p.pieceCount, static_cast<V const*>(src), static_cast<V*>(dst));
}

Status launchPermute(Permute const& p, void const* src, void* dst, int32_t size, cudaStream_t stream)
{
    auto const aligned = [&](int32_t bytes) {
        return reinterpret_cast<uintptr_t>(src) % bytes == 0 && reinterpret_cast<uintptr_t>(dst) % bytes == 0;
    };
    if (p.pieceBytes > 0 && aligned(p.pieceBytes))
    {
        switch (p.pieceBytes)
        {
        case 16: launchPieces<uint4>(p, src, dst, stream); break;
        case 8: launchPieces<uint2>(p, src, dst, stream); break;
        case 4: launchPieces<uint32_t>(p, src, dst, stream); break;
        default: launchPieces<uint16_t>(p, src, dst, stream); break;
        }
        return launchStatus("Shuffle transpose kernel");
    }
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
            mFirst = makePermute(p.inDims, p.perm1, static_cast<int32_t>(p.bytes));
        }
        if (p.volume != 0 && p.secondMoves)
        {
            mSecond = makePermute(p.reshaped, p.perm2, static_cast<int32_t>(p.bytes));
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
