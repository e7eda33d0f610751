// CPU kernel of ISliceLayer: for each output dimension a table maps output coordinates to input coordinates
// (or to the fill value) under the sample mode; the copy then walks the output row by row, the rows split over the
// CPU thread pool.
#include "backends/common/sliceParams.h"
#include "backends/cpu/kernels/indexing.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"
#include "core/threadPool.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::SampleMode;

namespace
{
int64_t floorMod(int64_t a, int64_t b)
{
    int64_t const r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

//! Maps coordinate x along an extent n; -1 means "use the fill value"; -2 means out of bounds (an error).
int64_t mapCoordinate(SampleMode mode, int64_t x, int64_t n)
{
    bool const inside = x >= 0 && x < n;
    switch (mode)
    {
    case SampleMode::kSTRICT_BOUNDS: return inside ? x : -2;
    case SampleMode::kFILL: return inside ? x : -1;
    case SampleMode::kWRAP: return n > 0 ? floorMod(x, n) : -2;
    case SampleMode::kCLAMP: return n > 0 ? (x < 0 ? 0 : (x >= n ? n - 1 : x)) : -2;
    case SampleMode::kREFLECT:
    {
        if (n <= 0)
        {
            return -2;
        }
        if (n == 1)
        {
            return 0;
        }
        int64_t const period = 2 * n - 2;
        int64_t const c = (x < 0 ? -x : x) % period; // callers keep |x| far below INT64_MAX
        return c < n ? c : period - c;
    }
    }
    return -2;
}

//! create: the sample mode and the static parameters; reshape: start/stride per dimension (from attributes or the
//! evaluated values of the parameter inputs) and, per output dimension, the table of input offsets (-1: fill); run:
//! the fill value and the row-by-row copy. Parameter inputs known only from their data (not shape tensors) are
//! read, and the tables rebuilt, at each run.
class SliceKernel final : public Kernel
{
public:
    SliceKernel(KernelSetup const& setup, SliceAttrs attrs)
        : mSetup(setup)
        , mAttrs(std::move(attrs))
        , mElementBytes(static_cast<size_t>(elementSize(setup.inputTypes[0])))
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mState = State::kNONE;
        if (inputs.empty() || outputs.size() != 1)
        {
            return internalError("slice: expected a data input and one output");
        }
        mInDims = inputs[0].dims;
        mOutDims = outputs[0].dims;
        if (sliceParametersNeedData(mSetup, inputs))
        {
            // Check what does not depend on the parameters now; the rest at each run.
            if (mOutDims.nbDims != mInDims.nbDims || inputs[0].type != outputs[0].type)
            {
                return internalError("slice: output rank or type differs from the input");
            }
            mState = State::kPARAMETERS_FROM_DATA;
            return Status::ok();
        }
        KILN_RETURN_IF_ERROR(prepare(inputs, outputs));
        mState = State::kREADY;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (mState == State::kNONE)
        {
            return notReshaped(mSetup, "Slice");
        }
        if (mState == State::kPARAMETERS_FROM_DATA)
        {
            KILN_RETURN_IF_ERROR(prepare(inputs, outputs));
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        int32_t const rank = mInDims.nbDims;
        int64_t const outVolume = out.volume();
        if (outVolume == 0)
        {
            return Status::ok();
        }
        size_t const eb = mElementBytes;
        // Fill value converted to the output type.
        uint8_t fill[8] = {};
        if (mAnyFill)
        {
            if (sliceInputPresent(mSetup, inputs, kSLICE_FILL_VALUE))
            {
                TensorView const& f = inputs[kSLICE_FILL_VALUE];
                if (f.type == out.type && f.data != nullptr)
                {
                    std::memcpy(fill, f.data, eb);
                }
                else
                {
                    storeElement(fill, out.type, 0,
                        f.values != nullptr ? static_cast<double>(f.values[0]) : loadElement(f.data, f.type, 0));
                }
            }
            else
            {
                storeElement(fill, out.type, 0, 0.0);
            }
        }
        auto const* src = static_cast<uint8_t const*>(in.data);
        auto* dst = static_cast<uint8_t*>(out.data);
        if (rank == 0)
        {
            std::memcpy(dst, src, eb);
            return Status::ok();
        }
        // Walk the output; the outer coordinates give a base offset (or fill), the innermost table the rest. Rows
        // are split over the thread pool (>= 64 KiB a task); a row whose innermost table is a contiguous run of the
        // input is one copy.
        int64_t const inner = mOutDims.d[rank - 1];
        std::vector<int64_t> const& innerTable = mTables[static_cast<size_t>(rank - 1)];
        bool const contiguous = innerContiguous();
        int64_t const grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(inner * static_cast<int64_t>(eb), 1));
        parallelFor(outVolume / inner, grain, [&](int64_t begin, int64_t end) {
            DimArray coord{};
            int64_t rest = begin;
            for (int32_t d = rank - 2; d >= 0; --d)
            {
                coord[static_cast<size_t>(d)] = rest % mOutDims.d[d];
                rest /= mOutDims.d[d];
            }
            for (int64_t r = begin; r < end; ++r)
            {
                int64_t base = 0;
                bool rowFill = false;
                for (int32_t d = 0; d < rank - 1; ++d)
                {
                    int64_t const t
                        = mTables[static_cast<size_t>(d)][static_cast<size_t>(coord[static_cast<size_t>(d)])];
                    rowFill = rowFill || t < 0;
                    base += t;
                }
                uint8_t* o = dst + static_cast<size_t>(r * inner) * eb;
                if (contiguous && !rowFill)
                {
                    std::memcpy(o, src + static_cast<size_t>(base + innerTable[0]) * eb, static_cast<size_t>(inner) * eb);
                }
                else
                {
                    for (int64_t i = 0; i < inner; ++i)
                    {
                        int64_t const t = innerTable[static_cast<size_t>(i)];
                        uint8_t const* from = (rowFill || t < 0) ? fill : src + static_cast<size_t>(base + t) * eb;
                        std::memcpy(o + static_cast<size_t>(i) * eb, from, eb);
                    }
                }
                advanceCoordinate(coord, mOutDims, rank - 1);
            }
        });
        return Status::ok();
    }

private:
    enum class State
    {
        kNONE,                 //!< not reshaped
        kREADY,                //!< tables built at reshape
        kPARAMETERS_FROM_DATA, //!< tables built at each run from the parameter inputs' data
    };

    //! True when the innermost table reads consecutive input elements (no fill, stride 1).
    bool innerContiguous() const
    {
        std::vector<int64_t> const& table = mTables.back();
        for (size_t i = 0; i < table.size(); ++i)
        {
            if (table[i] < 0 || table[i] != table[0] + static_cast<int64_t>(i))
            {
                return false;
            }
        }
        return true;
    }

    //! The parameters and the coordinate tables (input element offsets; -1 = fill).
    Status prepare(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
    {
        KILN_ASSIGN_OR_RETURN(SliceParams const p, sliceParamsFor(mSetup, mAttrs, inputs, outputs, true));
        int32_t const rank = mInDims.nbDims;
        mAnyFill = false;
        // An empty output reads nothing: no tables (one of its other extents may be huge, 2^40 x 0).
        if (std::any_of(mOutDims.d, mOutDims.d + mOutDims.nbDims, [](int64_t e) { return e == 0; }))
        {
            mTables.assign(static_cast<size_t>(rank), {});
            return Status::ok();
        }
        mTables.resize(static_cast<size_t>(rank));
        int64_t inStride = 1;
        for (int32_t d = rank - 1; d >= 0; --d)
        {
            size_t const du = static_cast<size_t>(d);
            std::vector<int64_t>& table = mTables[du];
            table.resize(static_cast<size_t>(mOutDims.d[d]));
            for (int64_t o = 0; o < mOutDims.d[d]; ++o)
            {
                __int128 const wide = static_cast<__int128>(p.start[du]) + static_cast<__int128>(o) * p.stride[du];
                __int128 const clamped = wide > INT64_MAX / 2 ? INT64_MAX / 2 : (wide < INT64_MIN / 2 ? INT64_MIN / 2 : wide);
                auto const x = static_cast<int64_t>(clamped);
                int64_t const m = mapCoordinate(p.mode, x, mInDims.d[d]);
                if (m == -2)
                {
                    return invalidArgument("slice: coordinate " + std::to_string(x) + " of dimension "
                        + std::to_string(d) + " is outside the input extent " + std::to_string(mInDims.d[d]));
                }
                mAnyFill = mAnyFill || m == -1;
                table[static_cast<size_t>(o)] = m < 0 ? -1 : m * inStride;
            }
            inStride *= mInDims.d[d];
        }
        return Status::ok();
    }

    KernelSetup mSetup;
    SliceAttrs mAttrs;
    size_t mElementBytes;
    nvinfer1::Dims mInDims{};
    nvinfer1::Dims mOutDims{};
    std::vector<std::vector<int64_t>> mTables; //!< per output dimension: input offset of each coordinate, -1 = fill
    bool mAnyFill{false};
    State mState{State::kNONE};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createSliceKernel(KernelSetup const& setup)
{
    KILN_ASSIGN_OR_RETURN(SliceAttrs attrs, readSliceAttrs(setup));
    if (setup.inputTypes.empty() || setup.outputTypes.size() != 1 || !setup.inputPresent[0])
    {
        return internalError("slice: expected a data input and one output");
    }
    if (elementSize(setup.inputTypes[0]) <= 0)
    {
        return unsupported(
            std::string("slice: type ") + dataTypeName(setup.inputTypes[0]) + " is not supported on the CPU");
    }
    return std::unique_ptr<Kernel>(std::make_unique<SliceKernel>(setup, std::move(attrs)));
}

} // namespace kiln
