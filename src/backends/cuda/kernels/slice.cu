// CUDA kernel of ISliceLayer with the CPU reference's semantics (backends/cpu/kernels/slice.cpp): for every output
// coordinate x = start + o * stride is mapped per dimension under the sample mode (kSTRICT_BOUNDS, kFILL, kWRAP,
// kCLAMP, kREFLECT) to an input coordinate or to the fill value. start/size/stride/axes come from attributes or
// from inputs whose values shape inference knows (host values); inputs known only on the device are not supported
// yet (that would need a host synchronisation). The fill value may live on the device (same type as the output, or
// converted through float for a FLOAT/HALF/BF16 output).
// IPaddingLayer's kernel is here too: zero padding (negative padding crops) is a kFILL slice with start = -pre.
// Fast path: when every sampled coordinate lies inside the input (no mode applies) and the innermost stride is 1, each
// output row is a run of consecutive input elements (ONNX Split, a Slice of the last axis, an Expand of outer axes),
// copied 16 bytes at a time where the row's bytes and start allow it, else element by element, with one coordinate
// computation per row piece instead of per element.
#include "backends/common/sliceParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

#include <optional>

namespace kiln::cuda
{
using nvinfer1::DataType;
using nvinfer1::SampleMode;

namespace
{
struct SliceArgs
{
    SampleMode mode{SampleMode::kSTRICT_BOUNDS};
    int32_t rank{0};
    int64_t outDims[kMAX_RANK]{};
    int64_t inDims[kMAX_RANK]{};
    int64_t inStrides[kMAX_RANK]{};
    int64_t start[kMAX_RANK]{};
    int64_t stride[kMAX_RANK]{};
    uint64_t fillBits{0};            //!< fill value in the output type (host-known)
    void const* fillPtr{nullptr};    //!< or on the device
    bool convertFill{false};         //!< the device fill value has another type: converted through float
    DataType fillType{DataType::kFLOAT};
    DataType outType{DataType::kFLOAT};
};

__device__ __forceinline__ int64_t mapCoordinate(SampleMode mode, int64_t x, int64_t n)
{
    bool const inside = x >= 0 && x < n;
    switch (mode)
    {
    case SampleMode::kSTRICT_BOUNDS:
    case SampleMode::kFILL: return inside ? x : -1;
    case SampleMode::kWRAP:
    {
        int64_t const r = x % n;
        return (r != 0 && ((r < 0) != (n < 0))) ? r + n : r;
    }
    case SampleMode::kCLAMP: return x < 0 ? 0 : (x >= n ? n - 1 : x);
    case SampleMode::kREFLECT:
    {
        if (n == 1)
        {
            return 0;
        }
        int64_t const period = 2 * n - 2;
        int64_t const c = (x < 0 ? -x : x) % period;
        return c < n ? c : period - c;
    }
    }
    return -1;
}

__global__ void sliceKernel(SliceArgs a, int64_t n, void const* src, void* dst, int32_t size)
{
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        int64_t rest = i;
        int64_t offset = 0;
        bool fill = false;
        for (int32_t d = a.rank - 1; d >= 0; --d)
        {
            int64_t const o = rest % a.outDims[d];
            rest /= a.outDims[d];
            int64_t const m = mapCoordinate(a.mode, a.start[d] + o * a.stride[d], a.inDims[d]);
            fill = fill || m < 0;
            offset += m * a.inStrides[d];
        }
        if (!fill)
        {
            dev::copyElement(dst, i, src, offset, size);
        }
        else if (a.convertFill)
        {
            dev::storeFloat(dst, a.outType, i, dev::loadFloat(a.fillPtr, a.fillType, 0));
        }
        else if (a.fillPtr != nullptr)
        {
            dev::copyElement(dst, i, a.fillPtr, 0, size);
        }
        else
        {
            dev::copyElement(dst, i, &a.fillBits, 0, size);
        }
    }
}

//! The row copy of the fast path: the output's rows (innermost extent) read consecutive input elements.
struct RowCopyArgs
{
    int32_t outerRank{0}; //!< rank - 1
    int64_t outDims[kMAX_RANK]{};
    int64_t inStrides[kMAX_RANK]{};
    int64_t start[kMAX_RANK]{};
    int64_t stride[kMAX_RANK]{};
    int64_t innerStart{0}; //!< the innermost start, in elements
    int64_t rowUnits{1};   //!< units (of type U) per output row
    int32_t unitElements{1};
};

//! One unit of type U (16 bytes or one element) per step: output unit u of row u / rowUnits.
template <typename U>
__global__ void sliceRowsKernel(RowCopyArgs a, int64_t units, void const* src, void* dst)
{
    for (int64_t u = dev::globalThread(); u < units; u += dev::gridThreads())
    {
        int64_t row = u / a.rowUnits;
        int64_t const column = u - row * a.rowUnits;
        int64_t offset = a.innerStart;
        for (int32_t d = a.outerRank - 1; d >= 0; --d)
        {
            int64_t const o = row % a.outDims[d];
            row /= a.outDims[d];
            offset += (a.start[d] + o * a.stride[d]) * a.inStrides[d];
        }
        static_cast<U*>(dst)[u] = static_cast<U const*>(src)[offset / a.unitElements + column];
    }
}

//! Slice and padding: create checks the node's attributes exist; reshape reads the parameters (attributes, or
//! inputs with host values) and the shapes into the launch arguments; run launches (with the fill value's device
//! address when it is known only there).
class SliceCudaKernel final : public Kernel
{
public:
    SliceCudaKernel(KernelSetup const& setup, bool padding)
        : mSetup(setup)
        , mPadding(padding)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        int32_t const rank = in.dims.nbDims;
        SliceArgs a;
        a.rank = rank;
        mFillOnDevice = false;
        if (mPadding)
        {
            KILN_ASSIGN_OR_RETURN(PaddingParams const p, makePaddingParams(mSetup, v.inputs, v.outputs));
            a.mode = SampleMode::kFILL;
            for (int32_t d = 0; d < rank; ++d)
            {
                a.start[d] = -p.shift[static_cast<size_t>(d)];
                a.stride[d] = 1;
            }
        }
        else
        {
            KILN_ASSIGN_OR_RETURN(SliceParams const p, makeSliceParams(mSetup, v.inputs, v.outputs, false));
            a.mode = p.mode;
            for (int32_t d = 0; d < rank; ++d)
            {
                a.start[d] = p.start[static_cast<size_t>(d)];
                a.stride[d] = p.stride[static_cast<size_t>(d)];
            }
        }
        std::vector<int64_t> const inStrides = contiguousStrides(in.dims);
        for (int32_t d = 0; d < rank; ++d)
        {
            a.outDims[d] = out.dims.d[d];
            a.inDims[d] = in.dims.d[d];
            a.inStrides[d] = inStrides[static_cast<size_t>(d)];
        }
        int64_t const n = out.volume();
        if (n == 0)
        {
            mVolume = 0;
            return Status::ok();
        }
        int64_t const bytes = elementSize(in.type);
        if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
        {
            return unsupported(std::string(mPadding ? "padding" : "slice") + ": type " + dataTypeName(in.type)
                + " is not supported on the GPU");
        }
        if (!mPadding)
        {
            KILN_RETURN_IF_ERROR(sliceBounds(inputs, out, a));
        }
        mArgs = a;
        mSize = static_cast<int32_t>(bytes);
        mVolume = n;
        chooseRowCopy(out);
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mVolume <= 0)
        {
            return mVolume == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, mPadding ? "Padding" : "Slice"));
        }
        SliceArgs a = mArgs;
        if (mFillOnDevice)
        {
            a.fillPtr = inputs[kSLICE_FILL_VALUE].data;
        }
        void const* src = inputs[0].data;
        void* dst = outputs[0].data;
        bool const aligned = ((reinterpret_cast<uintptr_t>(src) | reinterpret_cast<uintptr_t>(dst)) & 15U) == 0;
        if (mRowUnits > 0 && (mRows.unitElements == 1 || aligned))
        {
            RowCopyArgs r = mRows;
            int64_t const units = mRowUnits;
            if (r.unitElements > 1)
            {
                sliceRowsKernel<uint4><<<gridFor(units), kBLOCK, 0, ctx.stream>>>(r, units, src, dst);
            }
            else
            {
                launchElementRows(r, units, src, dst, ctx.stream);
            }
        }
        else if (mRowUnits > 0)
        {
            // Unaligned addresses: the same rows element by element.
            RowCopyArgs r = mRows;
            int64_t const perUnit = r.unitElements;
            r.rowUnits *= perUnit;
            r.unitElements = 1;
            launchElementRows(r, mRowUnits * perUnit, src, dst, ctx.stream);
        }
        else
        {
            sliceKernel<<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(a, mVolume, src, dst, mSize);
        }
        return launchStatus(mPadding ? "Padding kernel" : "Slice kernel");
    }

private:
    void launchElementRows(RowCopyArgs const& r, int64_t units, void const* src, void* dst, cudaStream_t stream) const
    {
        switch (mSize)
        {
        case 1: sliceRowsKernel<uint8_t><<<gridFor(units), kBLOCK, 0, stream>>>(r, units, src, dst); break;
        case 2: sliceRowsKernel<uint16_t><<<gridFor(units), kBLOCK, 0, stream>>>(r, units, src, dst); break;
        case 4: sliceRowsKernel<uint32_t><<<gridFor(units), kBLOCK, 0, stream>>>(r, units, src, dst); break;
        default: sliceRowsKernel<uint64_t><<<gridFor(units), kBLOCK, 0, stream>>>(r, units, src, dst); break;
        }
    }

    //! The fast path (file comment) when it applies: mRowUnits > 0 with mRows set, else mRowUnits = 0.
    void chooseRowCopy(TensorView const& out)
    {
        SliceArgs const& a = mArgs;
        mRowUnits = 0;
        int32_t const inner = a.rank - 1;
        if (a.rank < 1 || a.stride[inner] != 1)
        {
            return;
        }
        for (int32_t d = 0; d < a.rank; ++d)
        {
            int64_t const last = a.start[d] + (out.dims.d[d] - 1) * a.stride[d];
            if (a.start[d] < 0 || a.start[d] >= a.inDims[d] || last < 0 || last >= a.inDims[d])
            {
                return; // some coordinate is mapped by the mode (fill, wrap, clamp, reflect)
            }
        }
        RowCopyArgs r;
        r.outerRank = inner;
        for (int32_t d = 0; d < inner; ++d)
        {
            r.outDims[d] = a.outDims[d];
            r.inStrides[d] = a.inStrides[d];
            r.start[d] = a.start[d];
            r.stride[d] = a.stride[d];
        }
        r.innerStart = a.start[inner];
        int64_t const rowElements = a.outDims[inner];
        int64_t const vector = 16 / mSize;
        // 16-byte units when every row starts and ends on one (input rows: the strides are multiples of the vector).
        bool vectorRows = rowElements % vector == 0 && r.innerStart % vector == 0;
        for (int32_t d = 0; d < inner && vectorRows; ++d)
        {
            vectorRows = r.inStrides[d] % vector == 0;
        }
        r.unitElements = vectorRows ? static_cast<int32_t>(vector) : 1;
        r.rowUnits = rowElements / r.unitElements;
        mRows = r;
        mRowUnits = mVolume / r.unitElements;
    }

    //! Checks the sampled coordinates against the input (they are linear in the output index, so the extremes are the
    //! first and the last) and sets the fill value: a host value, the device address of a fill input of the output's
    //! type (mFillOnDevice), or zero.
    Status sliceBounds(std::vector<TensorView> const& inputs, TensorView const& out, SliceArgs& a)
    {
        bool anyFill = false;
        for (int32_t d = 0; d < a.rank; ++d)
        {
            int64_t const extent = a.inDims[d];
            for (int64_t x : {a.start[d], a.start[d] + (out.dims.d[d] - 1) * a.stride[d]})
            {
                bool const inside = x >= 0 && x < extent;
                bool const bad = a.mode == SampleMode::kSTRICT_BOUNDS ? !inside
                    : (a.mode == SampleMode::kFILL ? false : extent <= 0);
                if (bad)
                {
                    return invalidArgument("slice: coordinate " + std::to_string(x) + " of dimension "
                        + std::to_string(d) + " is outside the input extent " + std::to_string(extent));
                }
                anyFill = anyFill || (a.mode == SampleMode::kFILL && !inside);
            }
        }
        if (anyFill && sliceInputPresent(mSetup, inputs, kSLICE_FILL_VALUE))
        {
            TensorView const& f = inputs[kSLICE_FILL_VALUE];
            if (f.values != nullptr)
            {
                storeElement(&a.fillBits, out.type, 0, static_cast<double>(f.values[0]));
            }
            else if (f.type == out.type)
            {
                mFillOnDevice = true;
            }
            else if (ew::isFloatKernelType(out.type))
            {
                // Read on the device and converted through float, as the CPU converts the value to the output's type.
                mFillOnDevice = true;
                a.convertFill = true;
                a.fillType = f.type;
                a.outType = out.type;
            }
            else
            {
                return unsupported("slice: a fill value of another type than an integer output, known only on the "
                                   "device, is not supported on the CUDA backend yet");
            }
        }
        else
        {
            storeElement(&a.fillBits, out.type, 0, 0.0);
        }
        return Status::ok();
    }

    KernelSetup mSetup;
    bool mPadding{false};
    SliceArgs mArgs;
    RowCopyArgs mRows;      //!< the fast path's geometry
    int64_t mRowUnits{0};   //!< units the fast path copies; 0: the general kernel
    bool mFillOnDevice{false};
    int32_t mSize{0};
    int64_t mVolume{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createSliceCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("slice: no plan node");
    }
    KILN_RETURN_IF_ERROR(setup.node->attrs.requireInt("mode").status());
    return std::unique_ptr<Kernel>(std::make_unique<SliceCudaKernel>(setup, false));
}

//! As the CPU's padding kernel (backends/cpu/kernels/padding.cpp), with the same checks: a kFILL slice (zero outside
//! the input) with start = -pre-padding.
StatusOr<std::unique_ptr<Kernel>> createPaddingCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("padding: no plan node");
    }
    KILN_RETURN_IF_ERROR(setup.node->attrs.requireInts("pre_padding").status());
    KILN_RETURN_IF_ERROR(setup.node->attrs.requireInts("post_padding").status());
    return std::unique_ptr<Kernel>(std::make_unique<SliceCudaKernel>(setup, true));
}

} // namespace kiln::cuda
