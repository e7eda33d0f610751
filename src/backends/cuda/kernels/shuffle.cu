// CUDA kernel of IShuffleLayer, as the CPU reference (backends/cpu/kernels/shuffle.cpp): first transpose, reshape
// (a reinterpretation of contiguous data), second transpose. Identity transposes (moving only extent-1 dimensions)
// are skipped; a plain reshape is one device copy. When both transposes move data the intermediate goes through
// the workspace.
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

StatusOr<std::vector<int32_t>> readPermutation(std::vector<int64_t> const& order, int32_t rank, char const* what)
{
    if (static_cast<int32_t>(order.size()) < rank)
    {
        return invalidArgument(std::string("shuffle: ") + what + " is shorter than the rank");
    }
    std::vector<int32_t> perm(static_cast<size_t>(rank));
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (int32_t i = 0; i < rank; ++i)
    {
        int64_t const p = order[static_cast<size_t>(i)];
        if (p < 0 || p >= rank || seen[static_cast<size_t>(p)])
        {
            return invalidArgument(std::string("shuffle: ") + what + " is not a permutation");
        }
        seen[static_cast<size_t>(p)] = true;
        perm[static_cast<size_t>(i)] = static_cast<int32_t>(p);
    }
    return perm;
}

bool isIdentity(std::vector<int32_t> const& perm, std::vector<int64_t> const& dims)
{
    int32_t last = -1;
    for (int32_t p : perm)
    {
        if (dims[static_cast<size_t>(p)] == 1)
        {
            continue;
        }
        if (p < last)
        {
            return false;
        }
        last = p;
    }
    return true;
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
    ShuffleKernel(std::vector<int64_t> first, std::vector<int64_t> second)
        : mFirst(std::move(first))
        , mSecond(std::move(second))
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
        if (inputs.empty() || outputs.size() != 1)
        {
            return internalError("shuffle: expected a data input and one output");
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        if (in.type != out.type)
        {
            return internalError("shuffle: input and output types differ");
        }
        int64_t const bytes = elementSize(in.type);
        if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
        {
            return unsupported(std::string("shuffle: type ") + dataTypeName(in.type) + " is not supported on the GPU");
        }
        int64_t const volume = in.volume();
        if (volume != out.volume())
        {
            return invalidArgument("shuffle: input volume " + std::to_string(volume) + " differs from output volume "
                + std::to_string(out.volume()));
        }
        if (volume == 0)
        {
            return Status::ok();
        }
        KILN_ASSIGN_OR_RETURN(auto const perm1, readPermutation(mFirst, in.dims.nbDims, "first transpose"));
        KILN_ASSIGN_OR_RETURN(auto const perm2, readPermutation(mSecond, out.dims.nbDims, "second transpose"));
        std::vector<int64_t> inDims(in.dims.d, in.dims.d + in.dims.nbDims);
        std::vector<int64_t> reshaped(static_cast<size_t>(out.dims.nbDims));
        for (int32_t i = 0; i < out.dims.nbDims; ++i)
        {
            reshaped[static_cast<size_t>(perm2[static_cast<size_t>(i)])] = out.dims.d[i];
        }
        bool const firstMoves = !isIdentity(perm1, inDims);
        bool const secondMoves = !isIdentity(perm2, reshaped);
        auto const size = static_cast<int32_t>(bytes);
        if (!firstMoves && !secondMoves)
        {
            if (in.data != out.data)
            {
                KILN_CUDA_CHECK(cudaMemcpyAsync(out.data, in.data, static_cast<size_t>(volume * bytes),
                    cudaMemcpyDeviceToDevice, ctx.stream));
            }
            return Status::ok();
        }
        if (firstMoves && !secondMoves)
        {
            return launchPermute(in.data, out.data, size, inDims, perm1, ctx.stream);
        }
        void const* src = in.data;
        if (firstMoves)
        {
            if (ctx.workspace == nullptr || ctx.workspaceBytes < volume * bytes)
            {
                return internalError("shuffle: the workspace is smaller than the " + std::to_string(volume * bytes)
                    + " bytes of the intermediate");
            }
            KILN_RETURN_IF_ERROR(launchPermute(in.data, ctx.workspace, size, inDims, perm1, ctx.stream));
            src = ctx.workspace;
        }
        return launchPermute(src, out.data, size, reshaped, perm2, ctx.stream);
    }

private:
    std::vector<int64_t> mFirst;
    std::vector<int64_t> mSecond;
};

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createShuffleCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("shuffle: no plan node");
    }
    KILN_ASSIGN_OR_RETURN(auto first, setup.node->attrs.requireInts("first_transpose"));
    KILN_ASSIGN_OR_RETURN(auto second, setup.node->attrs.requireInts("second_transpose"));
    return std::unique_ptr<CudaKernel>(std::make_unique<ShuffleKernel>(std::move(first), std::move(second)));
}

} // namespace kiln::cuda
