// CPU kernel of IShuffleLayer: transpose, reshape (a reinterpretation of contiguous data), transpose. Both
// transposes are skipped when they are identities, so a plain reshape is one copy.
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cstring>

namespace kiln
{
using nvinfer1::Dims;

namespace
{

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
    // Moving extent-1 dimensions does not move data: compare the order of the other dimensions.
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

template <typename T>
void transposeTyped(T const* src, T* dst, std::vector<int64_t> const& dims, std::vector<int32_t> const& perm)
{
    size_t const rank = dims.size();
    std::vector<int64_t> srcStride(rank, 1);
    for (size_t i = rank; i-- > 1;)
    {
        srcStride[i - 1] = srcStride[i] * dims[i];
    }
    std::vector<int64_t> outDims(rank);
    std::vector<int64_t> step(rank); // source stride of each output dimension
    int64_t volume = 1;
    for (size_t i = 0; i < rank; ++i)
    {
        outDims[i] = dims[static_cast<size_t>(perm[i])];
        step[i] = srcStride[static_cast<size_t>(perm[i])];
        volume *= outDims[i];
    }
    if (volume == 0)
    {
        return;
    }
    if (rank == 0)
    {
        dst[0] = src[0];
        return;
    }
    // Innermost output dimension as a strided loop; the outer ones advance as an odometer.
    int64_t const inner = outDims[rank - 1];
    int64_t const innerStep = step[rank - 1];
    std::vector<int64_t> coord(rank, 0);
    int64_t srcOffset = 0;
    for (int64_t o = 0; o < volume; o += inner)
    {
        T const* s = src + srcOffset;
        T* d = dst + o;
        for (int64_t i = 0; i < inner; ++i)
        {
            d[i] = s[i * innerStep];
        }
        for (size_t i = rank - 1; i-- > 0;)
        {
            srcOffset += step[i];
            if (++coord[i] < outDims[i])
            {
                break;
            }
            srcOffset -= step[i] * outDims[i];
            coord[i] = 0;
        }
    }
}

void transposeBytes(void const* src, void* dst, int64_t elementBytes, std::vector<int64_t> const& dims,
    std::vector<int32_t> const& perm)
{
    switch (elementBytes)
    {
    case 1:
        transposeTyped(static_cast<uint8_t const*>(src), static_cast<uint8_t*>(dst), dims, perm);
        break;
    case 2:
        transposeTyped(static_cast<uint16_t const*>(src), static_cast<uint16_t*>(dst), dims, perm);
        break;
    case 4:
        transposeTyped(static_cast<uint32_t const*>(src), static_cast<uint32_t*>(dst), dims, perm);
        break;
    default:
        transposeTyped(static_cast<uint64_t const*>(src), static_cast<uint64_t*>(dst), dims, perm);
        break;
    }
}

class ShuffleKernel final : public CpuKernel
{
public:
    ShuffleKernel(std::vector<int64_t> first, std::vector<int64_t> second)
        : mFirst(std::move(first))
        , mSecond(std::move(second))
    {
    }

    Status execute(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
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
            return unsupported(std::string("shuffle: type ") + dataTypeName(in.type) + " is not supported on the CPU");
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
        if (in.data == nullptr || out.data == nullptr)
        {
            return internalError("shuffle: missing buffer");
        }
        KILN_ASSIGN_OR_RETURN(auto const perm1, readPermutation(mFirst, in.dims.nbDims, "first transpose"));
        KILN_ASSIGN_OR_RETURN(auto const perm2, readPermutation(mSecond, out.dims.nbDims, "second transpose"));
        std::vector<int64_t> inDims(in.dims.d, in.dims.d + in.dims.nbDims);
        // Dimensions before the second transpose: reshaped[perm2[i]] = out[i].
        std::vector<int64_t> reshaped(static_cast<size_t>(out.dims.nbDims));
        for (int32_t i = 0; i < out.dims.nbDims; ++i)
        {
            reshaped[static_cast<size_t>(perm2[static_cast<size_t>(i)])] = out.dims.d[i];
        }
        bool const firstMoves = !isIdentity(perm1, inDims);
        bool const secondMoves = !isIdentity(perm2, reshaped);
        if (!firstMoves && !secondMoves)
        {
            if (in.data != out.data)
            {
                std::memmove(out.data, in.data, static_cast<size_t>(volume * bytes));
            }
            return Status::ok();
        }
        if (firstMoves && !secondMoves)
        {
            transposeBytes(in.data, out.data, bytes, inDims, perm1);
            return Status::ok();
        }
        void const* src = in.data;
        if (firstMoves)
        {
            mScratch.resize(static_cast<size_t>(volume * bytes));
            transposeBytes(in.data, mScratch.data(), bytes, inDims, perm1);
            src = mScratch.data();
        }
        transposeBytes(src, out.data, bytes, reshaped, perm2);
        return Status::ok();
    }

private:
    std::vector<int64_t> mFirst;
    std::vector<int64_t> mSecond;
    std::vector<uint8_t> mScratch;
};

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createShuffleKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("shuffle: no plan node");
    }
    KILN_ASSIGN_OR_RETURN(auto first, setup.node->attrs.requireInts("first_transpose"));
    KILN_ASSIGN_OR_RETURN(auto second, setup.node->attrs.requireInts("second_transpose"));
    return std::unique_ptr<CpuKernel>(std::make_unique<ShuffleKernel>(std::move(first), std::move(second)));
}

} // namespace kiln
