// CPU kernel of IShuffleLayer: transpose, reshape (a reinterpretation of contiguous data), transpose. Both
// transposes are skipped when they are identities, so a plain reshape is one copy. Transposes split their output
// rows over the CPU thread pool.
#include "backends/common/shuffleParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"
#include "core/threadPool.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace kiln
{
using nvinfer1::Dims;

namespace
{

//! One transpose of a row-major tensor, prepared at reshape: the output extents and, per output dimension, the
//! source stride.
struct TransposePlan
{
    int32_t rank{0};
    int64_t volume{0};
    std::array<int64_t, nvinfer1::Dims::MAX_DIMS> outDims{};
    std::array<int64_t, nvinfer1::Dims::MAX_DIMS> step{};
};

TransposePlan makeTransposePlan(std::vector<int64_t> const& dims, std::vector<int32_t> const& perm)
{
    TransposePlan plan;
    plan.rank = static_cast<int32_t>(dims.size());
    std::array<int64_t, nvinfer1::Dims::MAX_DIMS> srcStride{};
    int64_t stride = 1;
    for (size_t i = dims.size(); i-- > 0;)
    {
        srcStride[i] = stride;
        stride *= dims[i];
    }
    plan.volume = 1;
    for (size_t i = 0; i < dims.size(); ++i)
    {
        plan.outDims[i] = dims[static_cast<size_t>(perm[i])];
        plan.step[i] = srcStride[static_cast<size_t>(perm[i])];
        plan.volume *= plan.outDims[i];
    }
    return plan;
}

//! Least elements per thread-pool task of a transpose (64 KiB of FP32).
constexpr int64_t kGRAIN = 16384;

template <typename T>
void transposeTyped(T const* src, T* dst, TransposePlan const& plan)
{
    if (plan.volume == 0)
    {
        return;
    }
    if (plan.rank == 0)
    {
        dst[0] = src[0];
        return;
    }
    size_t const rank = static_cast<size_t>(plan.rank);
    // Innermost output dimension as a strided loop; the outer ones advance as an odometer. Output rows are split
    // over the thread pool, each piece starting from its first row's coordinates.
    int64_t const inner = plan.outDims[rank - 1];
    int64_t const innerStep = plan.step[rank - 1];
    int64_t const rows = plan.volume / inner;
    parallelFor(rows, std::max<int64_t>(1, kGRAIN / inner), [&](int64_t begin, int64_t end) {
        std::array<int64_t, nvinfer1::Dims::MAX_DIMS> coord{};
        int64_t srcOffset = 0;
        int64_t rest = begin;
        for (size_t i = rank - 1; i-- > 0;)
        {
            coord[i] = rest % plan.outDims[i];
            rest /= plan.outDims[i];
            srcOffset += coord[i] * plan.step[i];
        }
        for (int64_t row = begin; row < end; ++row)
        {
            T const* s = src + srcOffset;
            T* d = dst + row * inner;
            if (innerStep == 1)
            {
                std::memcpy(d, s, static_cast<size_t>(inner) * sizeof(T));
            }
            else
            {
                for (int64_t i = 0; i < inner; ++i)
                {
                    d[i] = s[i * innerStep];
                }
            }
            for (size_t i = rank - 1; i-- > 0;)
            {
                srcOffset += plan.step[i];
                if (++coord[i] < plan.outDims[i])
                {
                    break;
                }
                srcOffset -= plan.step[i] * plan.outDims[i];
                coord[i] = 0;
            }
        }
    });
}

void transposeBytes(void const* src, void* dst, int64_t elementBytes, TransposePlan const& plan)
{
    switch (elementBytes)
    {
    case 1: transposeTyped(static_cast<uint8_t const*>(src), static_cast<uint8_t*>(dst), plan); break;
    case 2: transposeTyped(static_cast<uint16_t const*>(src), static_cast<uint16_t*>(dst), plan); break;
    case 4: transposeTyped(static_cast<uint32_t const*>(src), static_cast<uint32_t*>(dst), plan); break;
    default: transposeTyped(static_cast<uint64_t const*>(src), static_cast<uint64_t*>(dst), plan); break;
    }
}

//! create: the transposes; reshape: which transposes move data, their plans and the scratch between them; run: one
//! copy, one transpose or two.
class ShuffleKernel final : public Kernel
{
public:
    ShuffleKernel(KernelSetup const& setup, ShuffleAttrs attrs)
        : mSetup(setup)
        , mAttrs(std::move(attrs))
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_ASSIGN_OR_RETURN(ShuffleParams const p, shuffleShapes(mAttrs, inputs, outputs, "CPU"));
        mVolume = p.volume;
        mBytes = p.bytes;
        mFirstMoves = p.firstMoves;
        mSecondMoves = p.secondMoves;
        if (mVolume > 0)
        {
            mFirst = makeTransposePlan(p.inDims, p.perm1);
            mSecond = makeTransposePlan(p.reshaped, p.perm2);
            mScratch.resize(mFirstMoves && mSecondMoves ? static_cast<size_t>(mVolume * mBytes) : 0);
        }
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "Shuffle");
        }
        if (mVolume == 0)
        {
            return Status::ok();
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        if (!mFirstMoves && !mSecondMoves)
        {
            if (in.data != out.data)
            {
                std::memmove(out.data, in.data, static_cast<size_t>(mVolume * mBytes));
            }
            return Status::ok();
        }
        if (mFirstMoves && !mSecondMoves)
        {
            transposeBytes(in.data, out.data, mBytes, mFirst);
            return Status::ok();
        }
        void const* src = in.data;
        if (mFirstMoves)
        {
            transposeBytes(in.data, mScratch.data(), mBytes, mFirst);
            src = mScratch.data();
        }
        transposeBytes(src, out.data, mBytes, mSecond);
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    ShuffleAttrs mAttrs;
    int64_t mVolume{0};
    int64_t mBytes{0};
    bool mFirstMoves{false};
    bool mSecondMoves{false};
    TransposePlan mFirst;
    TransposePlan mSecond;
    std::vector<uint8_t> mScratch; //!< the first transpose's result when both move data
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createShuffleKernel(KernelSetup const& setup)
{
    KILN_ASSIGN_OR_RETURN(auto attrs, readShuffleAttrs(setup));
    return std::unique_ptr<Kernel>(std::make_unique<ShuffleKernel>(setup, std::move(attrs)));
}

} // namespace kiln
