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

//! Launches dst = transpose(src of `dims`, perm).
Status launchPermute(void const* src, void* dst, int32_t size, std::vector<int64_t> const& dims,
    std::vector<int32_t> const& perm, cudaStream_t stream)
{
    auto const rank = static_cast<int32_t>(dims.size());
    IndexMap map;
    map.rank = rank;
    std::vector<int64_t> srcStride(dims.size(), 1);
    for (int32_t i = rank - 1; i > 0; --i)
    {
        srcStride[static_cast<size_t>(i - 1)] = srcStride[static_cast<size_t>(i)] * dims[static_cast<size_t>(i)];
    }
    int64_t n = 1;
    for (int32_t i = 0; i < rank; ++i)
    {
        map.dims[i] = dims[static_cast<size_t>(perm[static_cast<size_t>(i)])];
        map.strides[0][i] = srcStride[static_cast<size_t>(perm[static_cast<size_t>(i)])];
        n *= map.dims[i];
    }
    permuteKernel<<<gridFor(n), kBLOCK, 0, stream>>>(map, n, src, dst, size);
    return launchStatus("Shuffle transpose kernel");
}

class ShuffleKernel final : public CudaKernel
{
public:
    explicit ShuffleKernel(ShuffleAttrs attrs)
        : mAttrs(std::move(attrs))
    {
    }

    int64_t workspaceSize(std::vector<TensorView> const& inputs, std::vector<TensorView> const&) const override
    {
        // The intermediate of a double transpose (asked for whenever there is data; 256-byte granules).
        return inputs.empty() ? 0 : (inputs[0].volume() * elementSize(inputs[0].type) + 255) / 256 * 256;
    }

    Status enqueue(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        CudaRunContext const& ctx) override
    {
        KILN_ASSIGN_OR_RETURN(ShuffleParams const p, makeShuffleParams(mAttrs, inputs, outputs, "GPU"));
        if (p.volume == 0)
        {
            return Status::ok();
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        auto const size = static_cast<int32_t>(p.bytes);
        if (!p.firstMoves && !p.secondMoves)
        {
            if (in.data != out.data)
            {
                KILN_CUDA_CHECK(cudaMemcpyAsync(out.data, in.data, static_cast<size_t>(p.volume * p.bytes),
                    cudaMemcpyDeviceToDevice, ctx.stream));
            }
            return Status::ok();
        }
        if (p.firstMoves && !p.secondMoves)
        {
            return launchPermute(in.data, out.data, size, p.inDims, p.perm1, ctx.stream);
        }
        void const* src = in.data;
        if (p.firstMoves)
        {
            if (ctx.workspace == nullptr || ctx.workspaceBytes < p.volume * p.bytes)
            {
                return internalError("shuffle: the workspace is smaller than the " + std::to_string(p.volume * p.bytes)
                    + " p.bytes of the intermediate");
            }
            KILN_RETURN_IF_ERROR(launchPermute(in.data, ctx.workspace, size, p.inDims, p.perm1, ctx.stream));
            src = ctx.workspace;
        }
        return launchPermute(src, out.data, size, p.reshaped, p.perm2, ctx.stream);
    }

private:
    ShuffleAttrs mAttrs;
};

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createShuffleCudaKernel(KernelSetup const& setup)
{
    KILN_ASSIGN_OR_RETURN(auto attrs, readShuffleAttrs(setup));
    return std::unique_ptr<CudaKernel>(std::make_unique<ShuffleKernel>(std::move(attrs)));
}

} // namespace kiln::cuda
