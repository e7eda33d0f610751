// CPU kernel of ISliceLayer: for each output dimension a table maps output coordinates to input coordinates
// (or to the fill value) under the sample mode; the copy then walks the output row by row.
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
constexpr size_t kSTART = 1;
constexpr size_t kSIZE = 2;
constexpr size_t kSTRIDE = 3;
constexpr size_t kFILL_VALUE = 4;
constexpr size_t kAXES = 5;

bool present(KernelSetup const& setup, std::vector<TensorView> const& inputs, size_t slot)
{
    return inputs.size() > slot && setup.inputPresent.size() > slot && setup.inputPresent[slot];
}

//! A parameter list from an input (evaluated values, else its integer data) or from the static attribute.
StatusOr<std::optional<std::vector<int64_t>>> parameter(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, size_t slot, char const* key)
{
    Attributes const& attrs = setup.node->attrs;
    if (present(setup, inputs, slot))
    {
        TensorView const& t = inputs[slot];
        if (t.type != DataType::kINT32 && t.type != DataType::kINT64)
        {
            return invalidArgument(std::string("slice: ") + key + " input must be INT32 or INT64");
        }
        int64_t const n = t.volume();
        if (n < 0 || n > nvinfer1::Dims::MAX_DIMS)
        {
            return invalidArgument(std::string("slice: ") + key + " input has an invalid length");
        }
        if (t.values == nullptr && t.data == nullptr && n > 0)
        {
            return internalError(std::string("slice: ") + key + " input has neither values nor data");
        }
        std::vector<int64_t> v(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i)
        {
            v[static_cast<size_t>(i)] = t.values != nullptr ? t.values[i] : loadInt(t.data, t.type, i);
        }
        return std::optional<std::vector<int64_t>>(std::move(v));
    }
    if (attrs.has(key))
    {
        KILN_ASSIGN_OR_RETURN(auto v, attrs.requireInts(key));
        return std::optional<std::vector<int64_t>>(std::move(v));
    }
    return std::optional<std::vector<int64_t>>();
}

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
    if (inputs.empty() || outputs.size() != 1 || setup.node == nullptr)
    {
        return internalError("slice: expected a data input and one output");
    }
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    int32_t const rank = in.dims.nbDims;
    if (out.dims.nbDims != rank || in.type != out.type)
    {
        return internalError("slice: output rank or type differs from the input");
    }
    Attributes const& attrs = setup.node->attrs;
    KILN_ASSIGN_OR_RETURN(int64_t const modeValue, attrs.requireInt("mode"));
    if (modeValue < 0 || modeValue >= nvinfer1::EnumMax<SampleMode>())
    {
        return invalidArgument("slice: invalid sample mode " + std::to_string(modeValue));
    }
    auto const mode = static_cast<SampleMode>(modeValue);
    KILN_ASSIGN_OR_RETURN(auto start, parameter(setup, inputs, kSTART, "start"));
    KILN_ASSIGN_OR_RETURN(auto size, parameter(setup, inputs, kSIZE, "size"));
    KILN_ASSIGN_OR_RETURN(auto stride, parameter(setup, inputs, kSTRIDE, "stride"));
    KILN_ASSIGN_OR_RETURN(auto axes, parameter(setup, inputs, kAXES, "axes"));
    if (!start || !stride)
    {
        return invalidArgument("slice: start or stride is missing");
    }
    size_t const count = axes ? axes->size() : static_cast<size_t>(rank);
    if (start->size() != count || stride->size() != count)
    {
        return invalidArgument("slice: start/stride lengths do not match the axes");
    }

    // Full-rank start and stride; the output extents come from the output view.
    std::vector<int64_t> dimStart(static_cast<size_t>(rank), 0);
    std::vector<int64_t> dimStride(static_cast<size_t>(rank), 1);
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (size_t k = 0; k < count; ++k)
    {
        int64_t a = axes ? (*axes)[k] : static_cast<int64_t>(k);
        a = a < 0 ? a + rank : a;
        if (a < 0 || a >= rank || seen[static_cast<size_t>(a)])
        {
            return invalidArgument("slice: invalid or repeated axis " + std::to_string(axes ? (*axes)[k] : a));
        }
        seen[static_cast<size_t>(a)] = true;
        dimStart[static_cast<size_t>(a)] = (*start)[k];
        dimStride[static_cast<size_t>(a)] = (*stride)[k];
        if (size && (*size)[k] != out.dims.d[a])
        {
            return invalidArgument("slice: output extent differs from the requested size");
        }
    }
    for (int32_t d = 0; d < rank; ++d)
    {
        if (!seen[static_cast<size_t>(d)] && out.dims.d[d] != in.dims.d[d])
        {
            return invalidArgument("slice: an unsliced dimension changed extent");
        }
    }
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
        if (present(setup, inputs, kFILL_VALUE))
        {
            TensorView const& f = inputs[kFILL_VALUE];
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
