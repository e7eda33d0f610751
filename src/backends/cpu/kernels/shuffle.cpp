// CPU kernel of IShuffleLayer: transpose, reshape (a reinterpretation of contiguous data), transpose. Both
// transposes are skipped when they are identities, so a plain reshape is one copy.
#include "backends/common/shuffleParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cstring>

namespace kiln
{
using nvinfer1::Dims;

namespace
{

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
    explicit ShuffleKernel(ShuffleAttrs attrs)
        : mAttrs(std::move(attrs))
    {
    }

    Status execute(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        KILN_ASSIGN_OR_RETURN(ShuffleParams const p, makeShuffleParams(mAttrs, inputs, outputs, "CPU"));
        if (p.volume == 0)
        {
            return Status::ok();
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        int64_t const volume = p.volume;
        int64_t const bytes = p.bytes;
        bool const firstMoves = p.firstMoves;
        bool const secondMoves = p.secondMoves;
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
            transposeBytes(in.data, out.data, bytes, p.inDims, p.perm1);
            return Status::ok();
        }
        void const* src = in.data;
        if (firstMoves)
        {
            mScratch.resize(static_cast<size_t>(volume * bytes));
            transposeBytes(in.data, mScratch.data(), bytes, p.inDims, p.perm1);
            src = mScratch.data();
        }
        transposeBytes(src, out.data, bytes, p.reshaped, p.perm2);
        return Status::ok();
    }

private:
    ShuffleAttrs mAttrs;
    std::vector<uint8_t> mScratch;
};

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createShuffleKernel(KernelSetup const& setup)
{
    KILN_ASSIGN_OR_RETURN(auto attrs, readShuffleAttrs(setup));
    return std::unique_ptr<CpuKernel>(std::make_unique<ShuffleKernel>(std::move(attrs)));
}

} // namespace kiln
