// CPU kernel of IGatherLayer: kDEFAULT (with 0 or 1 elementwise dimension), kELEMENT and kND. Elements move as
// bytes, so every storage type works. Indices in [-extent, -1] count from the end; any other out-of-range index is
// an execution error naming the layer and the index (Kiln never reads outside the data tensor).
#include "backends/common/gatherParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cstring>
#include <vector>

namespace kiln
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::GatherMode;

//! Reads indices[position], wraps a negative index, and fails when it lies outside [-extent, extent).
Status loadIndex(KernelSetup const& setup, TensorView const& indices, int64_t position, int64_t extent, int32_t axis,
    int64_t& index)
{
    int64_t const raw = loadInt(indices.data, indices.type, position);
    if (raw < -extent || raw >= extent)
    {
        return gatherError(setup, "index " + std::to_string(raw) + " (element " + std::to_string(position)
            + " of the indices) is out of range [" + std::to_string(-extent) + ", " + std::to_string(extent - 1)
            + "] for data axis " + std::to_string(axis));
    }
    index = raw < 0 ? raw + extent : raw;
    return Status::ok();
}

Status gatherDefault(KernelSetup const& setup, TensorView const& data, TensorView const& indices,
    TensorView const& out, GatherParams const& p)
{
    int32_t const r = data.dims.nbDims;
    int32_t const q = indices.dims.nbDims;
    int32_t const axis = p.axis;
    int32_t const b = p.b;
    int64_t const esize = p.esize;
    int64_t const batch = p.batch;
    int64_t const dataBatch = p.dataBatch;
    int64_t const indexBatch = p.indexBatch;
    int64_t const outer = dimsProduct(data.dims, b, axis);
    int64_t const extent = data.dims.d[axis];
    int64_t const innerBytes = dimsProduct(data.dims, axis + 1, r) * esize;
    int64_t const perBatch = dimsProduct(indices.dims, b, q);
    auto const* src = static_cast<uint8_t const*>(data.data);
    auto* dst = static_cast<uint8_t*>(out.data);
    for (int64_t n = 0; n < batch; ++n)
    {
        int64_t const db = dataBatch == 1 ? 0 : n;
        int64_t const ib = indexBatch == 1 ? 0 : n;
        for (int64_t o = 0; o < outer; ++o)
        {
            for (int64_t j = 0; j < perBatch; ++j)
            {
                int64_t index = 0;
                KILN_RETURN_IF_ERROR(loadIndex(setup, indices, ib * perBatch + j, extent, axis, index));
                if (innerBytes > 0)
                {
                    std::memcpy(dst, src + ((db * outer + o) * extent + index) * innerBytes,
                        static_cast<size_t>(innerBytes));
                }
                dst += innerBytes;
            }
        }
    }
    return Status::ok();
}

Status gatherElement(KernelSetup const& setup, TensorView const& data, TensorView const& indices,
    TensorView const& out, int32_t axis, int64_t esize)
{
    int32_t const r = data.dims.nbDims;
    std::vector<int64_t> const dataStrides = contiguousStrides(data.dims);
    int64_t const volume = dimsProduct(indices.dims, 0, r);
    int64_t const extent = data.dims.d[axis];
    std::vector<int64_t> coord(static_cast<size_t>(r), 0);
    auto const* src = static_cast<uint8_t const*>(data.data);
    auto* dst = static_cast<uint8_t*>(out.data);
    for (int64_t flat = 0; flat < volume; ++flat)
    {
        int64_t index = 0;
        KILN_RETURN_IF_ERROR(loadIndex(setup, indices, flat, extent, axis, index));
        int64_t offset = 0;
        for (int32_t d = 0; d < r; ++d)
        {
            offset += (d == axis ? index : coord[static_cast<size_t>(d)]) * dataStrides[static_cast<size_t>(d)];
        }
        std::memcpy(dst + flat * esize, src + offset * esize, static_cast<size_t>(esize));
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

Status gatherND(KernelSetup const& setup, TensorView const& data, TensorView const& indices, TensorView const& out,
    int32_t b, int64_t k, int64_t esize)
{
    int32_t const r = data.dims.nbDims;
    int32_t const q = indices.dims.nbDims;
    int64_t const batch = dimsProduct(indices.dims, 0, b);
    int64_t const tuples = dimsProduct(indices.dims, b, q - 1);
    int64_t const sliceBytes = dimsProduct(data.dims, b + static_cast<int32_t>(k), r) * esize;
    int64_t const batchElems = dimsProduct(data.dims, b, r);
    std::vector<int64_t> const strides = contiguousStrides(data.dims);
    auto const* src = static_cast<uint8_t const*>(data.data);
    auto* dst = static_cast<uint8_t*>(out.data);
    for (int64_t n = 0; n < batch; ++n)
    {
        for (int64_t t = 0; t < tuples; ++t)
        {
            int64_t const tupleStart = (n * tuples + t) * k;
            int64_t offset = n * batchElems;
            for (int64_t j = 0; j < k; ++j)
            {
                int32_t const dim = b + static_cast<int32_t>(j);
                int64_t index = 0;
                KILN_RETURN_IF_ERROR(loadIndex(setup, indices, tupleStart + j, data.dims.d[dim], dim, index));
                offset += index * strides[static_cast<size_t>(dim)];
            }
            if (sliceBytes > 0)
            {
                std::memcpy(dst, src + offset * esize, static_cast<size_t>(sliceBytes));
            }
            dst += sliceBytes;
        }
    }
    return Status::ok();
}

Status executeGather(KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_ASSIGN_OR_RETURN(GatherParams const p, makeGatherParams(setup, inputs, outputs));
    TensorView const& data = inputs[0];
    TensorView const& indices = inputs[1];
    TensorView const& out = outputs[0];
    switch (p.mode)
    {
    case GatherMode::kDEFAULT: return gatherDefault(setup, data, indices, out, p);
    case GatherMode::kELEMENT: return gatherElement(setup, data, indices, out, p.axis, p.esize);
    case GatherMode::kND: break;
    }
    return gatherND(setup, data, indices, out, p.b, p.k, p.esize);
}

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createGatherKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Gather kernel: no plan node");
    }
    return makeFunctionKernel(setup, executeGather);
}

} // namespace kiln
