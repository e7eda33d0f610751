// CPU kernel of IPaddingLayer: each output element copies the input element at (coordinate - prePadding) in
// the padded dimensions, or is zero where that falls outside the input (negative padding crops).
#include "backends/common/sliceParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <algorithm>
#include <cstring>

namespace kiln
{
namespace
{

Status runPadding(KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_ASSIGN_OR_RETURN(PaddingParams const p, makePaddingParams(setup, inputs, outputs));
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    int32_t const rank = in.dims.nbDims;
    std::vector<int64_t> const& offset = p.shift;
    int64_t const outVolume = out.volume();
    if (outVolume == 0)
    {
        return Status::ok();
    }
    int64_t const bytes = elementSize(in.type);
    if (bytes <= 0)
    {
        return unsupported(std::string("padding: type ") + dataTypeName(in.type) + " is not supported on the CPU");
    }
    if (out.data == nullptr || (in.volume() > 0 && in.data == nullptr))
    {
        return internalError("padding: missing buffer");
    }
    size_t const eb = static_cast<size_t>(bytes);
    auto const* src = static_cast<uint8_t const*>(in.data);
    auto* dst = static_cast<uint8_t*>(out.data);
    if (rank == 0)
    {
        std::memcpy(dst, src, eb);
        return Status::ok();
    }
    std::vector<int64_t> const inStrides = contiguousStrides(in.dims);
    int64_t const inner = out.dims.d[rank - 1];
    int64_t const innerShift = offset[static_cast<size_t>(rank - 1)];
    int64_t const innerIn = in.dims.d[rank - 1];
    // Output columns [lo, hi) read input columns [lo - shift, hi - shift); the rest are zero.
    int64_t const lo = std::min(inner, std::max<int64_t>(0, innerShift));
    int64_t const hi = std::max(lo, std::min(inner, innerIn + innerShift));
    std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
    for (int64_t row = 0; row < outVolume; row += inner)
    {
        uint8_t* o = dst + static_cast<size_t>(row) * eb;
        bool inside = true;
        int64_t base = 0;
        for (int32_t d = 0; d < rank - 1; ++d)
        {
            int64_t const x = coord[static_cast<size_t>(d)] - offset[static_cast<size_t>(d)];
            inside = inside && x >= 0 && x < in.dims.d[d];
            base += x * inStrides[static_cast<size_t>(d)];
        }
        if (!inside || hi <= lo)
        {
            std::memset(o, 0, static_cast<size_t>(inner) * eb);
        }
        else
        {
            std::memset(o, 0, static_cast<size_t>(lo) * eb);
            std::memcpy(o + static_cast<size_t>(lo) * eb, src + static_cast<size_t>(base + lo - innerShift) * eb,
                static_cast<size_t>(hi - lo) * eb);
            std::memset(o + static_cast<size_t>(hi) * eb, 0, static_cast<size_t>(inner - hi) * eb);
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

StatusOr<std::unique_ptr<CpuKernel>> createPaddingKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("padding: no plan node");
    }
    KILN_RETURN_IF_ERROR(setup.node->attrs.requireInts("pre_padding").status());
    KILN_RETURN_IF_ERROR(setup.node->attrs.requireInts("post_padding").status());
    return makeFunctionKernel(setup, runPadding);
}

} // namespace kiln
