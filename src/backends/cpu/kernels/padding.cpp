// CPU kernel of IPaddingLayer: each output element copies the input element at (coordinate - prePadding) in
// the padded dimensions, or is zero where that falls outside the input (negative padding crops).
#include "backends/common/sliceParams.h"
#include "backends/cpu/kernels/indexing.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace kiln
{
namespace
{

//! create: the paddings; reshape: the shift per dimension, the input strides and the columns of the innermost
//! dimension that read the input; run: row by row, copies and zeros.
class PaddingKernel final : public Kernel
{
public:
    PaddingKernel(KernelSetup const& setup, PaddingAttrs attrs)
        : mSetup(setup)
        , mAttrs(std::move(attrs))
        , mElementBytes(static_cast<size_t>(elementSize(setup.inputTypes[0])))
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_ASSIGN_OR_RETURN(PaddingParams const p, paddingShapes(mAttrs, inputs, outputs));
        mInDims = inputs[0].dims;
        mOutDims = outputs[0].dims;
        int32_t const rank = mInDims.nbDims;
        std::copy(p.shift.begin(), p.shift.end(), mShift.begin());
        mInStrides = stridesOf(mInDims);
        if (rank > 0)
        {
            int64_t const inner = mOutDims.d[rank - 1];
            int64_t const innerShift = mShift[static_cast<size_t>(rank - 1)];
            // Output columns [lo, hi) read input columns [lo - shift, hi - shift); the rest are zero.
            mLo = std::min(inner, std::max<int64_t>(0, innerShift));
            mHi = std::max(mLo, std::min(inner, mInDims.d[rank - 1] + innerShift));
        }
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "Padding");
        }
        TensorView const& out = outputs[0];
        int32_t const rank = mInDims.nbDims;
        int64_t const outVolume = out.volume();
        if (outVolume == 0)
        {
            return Status::ok();
        }
        size_t const eb = mElementBytes;
        auto const* src = static_cast<uint8_t const*>(inputs[0].data);
        auto* dst = static_cast<uint8_t*>(out.data);
        if (rank == 0)
        {
            std::memcpy(dst, src, eb);
            return Status::ok();
        }
        int64_t const inner = mOutDims.d[rank - 1];
        int64_t const innerShift = mShift[static_cast<size_t>(rank - 1)];
        DimArray coord{};
        for (int64_t row = 0; row < outVolume; row += inner)
        {
            uint8_t* o = dst + static_cast<size_t>(row) * eb;
            bool inside = true;
            int64_t base = 0;
            for (int32_t d = 0; d < rank - 1; ++d)
            {
                int64_t const x = coord[static_cast<size_t>(d)] - mShift[static_cast<size_t>(d)];
                inside = inside && x >= 0 && x < mInDims.d[d];
                base += x * mInStrides[static_cast<size_t>(d)];
            }
            if (!inside || mHi <= mLo)
            {
                std::memset(o, 0, static_cast<size_t>(inner) * eb);
            }
            else
            {
                std::memset(o, 0, static_cast<size_t>(mLo) * eb);
                std::memcpy(o + static_cast<size_t>(mLo) * eb, src + static_cast<size_t>(base + mLo - innerShift) * eb,
                    static_cast<size_t>(mHi - mLo) * eb);
                std::memset(o + static_cast<size_t>(mHi) * eb, 0, static_cast<size_t>(inner - mHi) * eb);
            }
            advanceCoordinate(coord, mOutDims, rank - 1);
        }
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    PaddingAttrs mAttrs;
    size_t mElementBytes;
    nvinfer1::Dims mInDims{};
    nvinfer1::Dims mOutDims{};
    DimArray mShift{};     //!< pre-padding per dimension
    DimArray mInStrides{}; //!< row-major input strides
    int64_t mLo{0}; //!< first innermost output column that reads the input
    int64_t mHi{0}; //!< one past the last
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createPaddingKernel(KernelSetup const& setup)
{
    KILN_ASSIGN_OR_RETURN(PaddingAttrs attrs, readPaddingAttrs(setup));
    if (setup.inputTypes.empty() || setup.outputTypes.size() != 1 || !setup.inputPresent[0])
    {
        return internalError("padding: expected one input and one output");
    }
    if (elementSize(setup.inputTypes[0]) <= 0)
    {
        return unsupported(
            std::string("padding: type ") + dataTypeName(setup.inputTypes[0]) + " is not supported on the CPU");
    }
    return std::unique_ptr<Kernel>(std::make_unique<PaddingKernel>(setup, std::move(attrs)));
}

} // namespace kiln
