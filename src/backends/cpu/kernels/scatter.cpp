// CPU kernel of IScatterLayer: copies data to the output, then writes updates at the positions the indices give
// (kELEMENT like ONNX ScatterElements, kND like ONNX ScatterND). Elements move as bytes, so every storage type
// works. Updates apply in row-major order, so with duplicate indices the last one wins (TensorRT leaves that case
// undefined). Indices in [-extent, -1] count from the end; any other out-of-range index is an execution error.
#include "backends/common/scatterParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cstring>
#include <vector>

namespace kiln
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::ScatterMode;

Status loadIndex(KernelSetup const& setup, TensorView const& indices, int64_t position, int64_t extent, int32_t axis,
    int64_t& index)
{
    int64_t const raw = loadInt(indices.data, indices.type, position);
    if (raw < -extent || raw >= extent)
    {
        return scatterError(setup, "index " + std::to_string(raw) + " (element " + std::to_string(position)
            + " of the indices) is out of range [" + std::to_string(-extent) + ", " + std::to_string(extent - 1)
            + "] for data axis " + std::to_string(axis));
    }
    index = raw < 0 ? raw + extent : raw;
    return Status::ok();
}

Status scatterElement(KernelSetup const& setup, TensorView const& data, TensorView const& indices,
    TensorView const& updates, TensorView const& out, int32_t axis, int64_t esize)
{
    int32_t const r = data.dims.nbDims;
    std::vector<int64_t> const strides = contiguousStrides(data.dims);
    int64_t const volume = dimsProduct(indices.dims, 0, r);
    int64_t const extent = data.dims.d[axis];
    std::vector<int64_t> coord(static_cast<size_t>(r), 0);
    auto const* src = static_cast<uint8_t const*>(updates.data);
    auto* dst = static_cast<uint8_t*>(out.data);
    for (int64_t flat = 0; flat < volume; ++flat)
    {
        int64_t index = 0;
        KILN_RETURN_IF_ERROR(loadIndex(setup, indices, flat, extent, axis, index));
        int64_t offset = 0;
        for (int32_t d = 0; d < r; ++d)
        {
            offset += (d == axis ? index : coord[static_cast<size_t>(d)]) * strides[static_cast<size_t>(d)];
        }
        std::memcpy(dst + offset * esize, src + flat * esize, static_cast<size_t>(esize));
        for (int32_t d = r - 1; d >= 0; --d)
        {
            if (++coord[static_cast<size_t>(d)] < indices.dims.d[d])
            {
                break;
            }
            coord[static_cast<size_t>(d)] = 0;
        }
    }
    return Status::ok();
}

Status scatterND(KernelSetup const& setup, TensorView const& data, TensorView const& indices,
    TensorView const& updates, TensorView const& out, int32_t k, int64_t esize)
{
    int32_t const r = data.dims.nbDims;
    int32_t const q = indices.dims.nbDims;
    int64_t const tuples = dimsProduct(indices.dims, 0, q - 1);
    int64_t const sliceBytes = dimsProduct(data.dims, k, r) * esize;
    std::vector<int64_t> const strides = contiguousStrides(data.dims);
    auto const* src = static_cast<uint8_t const*>(updates.data);
    auto* dst = static_cast<uint8_t*>(out.data);
    for (int64_t t = 0; t < tuples; ++t)
    {
        int64_t offset = 0;
        for (int64_t j = 0; j < k; ++j)
        {
            int32_t const dim = static_cast<int32_t>(j);
            int64_t index = 0;
            KILN_RETURN_IF_ERROR(loadIndex(setup, indices, t * k + j, data.dims.d[dim], dim, index));
            offset += index * strides[static_cast<size_t>(dim)];
        }
        if (sliceBytes > 0)
        {
            std::memcpy(dst + offset * esize, src + t * sliceBytes, static_cast<size_t>(sliceBytes));
        }
    }
    return Status::ok();
}

Status executeScatter(KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_ASSIGN_OR_RETURN(ScatterParams const p, makeScatterParams(setup, inputs, outputs));
    TensorView const& data = inputs[0];
    TensorView const& indices = inputs[1];
    TensorView const& updates = inputs[2];
    TensorView const& out = outputs[0];
    int64_t const bytes = data.volume() * p.esize;
    if (bytes > 0 && out.data != data.data)
    {
        std::memmove(out.data, data.data, static_cast<size_t>(bytes));
    }
    if (p.mode == ScatterMode::kELEMENT)
    {
        return scatterElement(setup, data, indices, updates, out, p.axis, p.esize);
    }
    return scatterND(setup, data, indices, updates, out, p.k, p.esize);
}

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createScatterKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Scatter kernel: no plan node");
    }
    return makeFunctionKernel(setup, executeScatter);
}

} // namespace kiln
