// CPU kernel of ISliceLayer: for each output dimension a table maps output coordinates to input coordinates
// (or to the fill value) under the sample mode; the copy then walks the output row by row.
#include "backends/common/sliceParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

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

Status runSlice(KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_ASSIGN_OR_RETURN(SliceParams const p, makeSliceParams(setup, inputs, outputs, true));
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    int32_t const rank = in.dims.nbDims;
    SampleMode const mode = p.mode;
    std::vector<int64_t> const& dimStart = p.start;
    std::vector<int64_t> const& dimStride = p.stride;
    int64_t const outVolume = out.volume();
    if (outVolume == 0)
    {
        return Status::ok();
    }
    int64_t const bytes = elementSize(in.type);
    if (bytes <= 0)
    {
        return unsupported(std::string("slice: type ") + dataTypeName(in.type) + " is not supported on the CPU");
    }
    if (out.data == nullptr)
    {
        return internalError("slice: missing output buffer");
    }

    // Coordinate tables (input element offsets; -1 = fill).
    std::vector<int64_t> const inStrides = contiguousStrides(in.dims);
    std::vector<std::vector<int64_t>> table(static_cast<size_t>(rank));
    bool anyFill = false;
    for (int32_t d = 0; d < rank; ++d)
    {
        size_t const du = static_cast<size_t>(d);
        table[du].resize(static_cast<size_t>(out.dims.d[d]));
        for (int64_t o = 0; o < out.dims.d[d]; ++o)
        {
            __int128 const wide = static_cast<__int128>(dimStart[du]) + static_cast<__int128>(o) * dimStride[du];
            int64_t const x = wide > INT64_MAX / 2 ? INT64_MAX / 2 : (wide < INT64_MIN / 2 ? INT64_MIN / 2 : static_cast<int64_t>(wide));
            int64_t const m = mapCoordinate(mode, x, in.dims.d[d]);
            if (m == -2)
            {
                return invalidArgument("slice: coordinate " + std::to_string(x) + " of dimension " + std::to_string(d)
                    + " is outside the input extent " + std::to_string(in.dims.d[d]));
            }
            anyFill = anyFill || m == -1;
            table[du][static_cast<size_t>(o)] = m < 0 ? -1 : m * inStrides[du];
        }
    }
    if (in.data == nullptr && in.volume() > 0)
    {
        return internalError("slice: missing input buffer");
    }

    // Fill value converted to the output type.
    uint8_t fill[8] = {};
    if (anyFill)
    {
        if (sliceInputPresent(setup, inputs, kSLICE_FILL_VALUE))
        {
            TensorView const& f = inputs[kSLICE_FILL_VALUE];
            if (f.values == nullptr && f.data == nullptr)
            {
                return internalError("slice: the fill value input has no data");
            }
            double const v = f.values != nullptr ? static_cast<double>(f.values[0]) : loadElement(f.data, f.type, 0);
            if (f.type == out.type && f.data != nullptr)
            {
                std::memcpy(fill, f.data, static_cast<size_t>(bytes));
            }
            else
            {
                storeElement(fill, out.type, 0, v);
            }
        }
        else
        {
            storeElement(fill, out.type, 0, 0.0);
        }
    }

    auto const* src = static_cast<uint8_t const*>(in.data);
    auto* dst = static_cast<uint8_t*>(out.data);
    size_t const eb = static_cast<size_t>(bytes);
    if (rank == 0)
    {
        std::memcpy(dst, src, eb);
        return Status::ok();
    }
    // Walk the output; the outer coordinates give a base offset (or fill), the innermost table the rest.
    int64_t const inner = out.dims.d[rank - 1];
    std::vector<int64_t> const& innerTable = table[static_cast<size_t>(rank - 1)];
    std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
    for (int64_t row = 0; row < outVolume; row += inner)
    {
        int64_t base = 0;
        bool rowFill = false;
        for (int32_t d = 0; d < rank - 1; ++d)
        {
            int64_t const t = table[static_cast<size_t>(d)][static_cast<size_t>(coord[static_cast<size_t>(d)])];
            rowFill = rowFill || t < 0;
            base += t;
        }
        uint8_t* o = dst + static_cast<size_t>(row) * eb;
        for (int64_t i = 0; i < inner; ++i)
        {
            int64_t const t = innerTable[static_cast<size_t>(i)];
            if (rowFill || t < 0)
            {
                std::memcpy(o + static_cast<size_t>(i) * eb, fill, eb);
            }
            else
            {
                std::memcpy(o + static_cast<size_t>(i) * eb, src + static_cast<size_t>(base + t) * eb, eb);
            }
        }
        for (int32_t d = rank - 1; d-- > 0;)
        {
            size_t const du = static_cast<size_t>(d);
            if (++coord[du] < out.dims.d[d])
            {
                break;
            }
            coord[du] = 0;
        }
    }
    return Status::ok();
}

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createSliceKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("slice: no plan node");
    }
    KILN_RETURN_IF_ERROR(setup.node->attrs.requireInt("mode").status());
    return makeFunctionKernel(setup, runSlice);
}

} // namespace kiln
