// CPU kernel of IGatherLayer: kDEFAULT (with 0 or 1 elementwise dimension), kELEMENT and kND. Elements move as
// bytes, so every storage type works. Indices in [-extent, -1] count from the end; any other out-of-range index is
// an execution error naming the layer and the index (Kiln never reads outside the data tensor).
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

Status gatherError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (Gather): " + message);
}

int64_t product(nvinfer1::Dims const& d, int32_t from, int32_t to)
{
    int64_t p = 1;
    for (int32_t i = from; i < to; ++i)
    {
        p *= d.d[i];
    }
    return p;
}

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

Status checkOutput(KernelSetup const& setup, TensorView const& out, std::vector<int64_t> const& expected)
{
    if (out.dims.nbDims != static_cast<int32_t>(expected.size()))
    {
        return gatherError(setup, "output rank " + std::to_string(out.dims.nbDims) + " does not match the expected "
            + std::to_string(expected.size()));
    }
    for (size_t i = 0; i < expected.size(); ++i)
    {
        if (out.dims.d[i] != expected[i])
        {
            return gatherError(setup, "output extent " + std::to_string(out.dims.d[i]) + " in dimension "
                + std::to_string(i) + " does not match the expected " + std::to_string(expected[i]));
        }
    }
    return Status::ok();
}

Status gatherDefault(KernelSetup const& setup, TensorView const& data, TensorView const& indices,
    TensorView const& out, int32_t axis, int32_t b, int64_t esize)
{
    int32_t const r = data.dims.nbDims;
    int32_t const q = indices.dims.nbDims;
    if (axis < b || axis >= r || q < b)
    {
        return gatherError(setup, "axis " + std::to_string(axis) + " / nbElementWiseDims " + std::to_string(b)
            + " do not fit data rank " + std::to_string(r) + " and indices rank " + std::to_string(q));
    }
    int64_t batch = 1;
    int64_t dataBatch = 1;
    int64_t indexBatch = 1;
    std::vector<int64_t> expected;
    if (b == 1)
    {
        dataBatch = data.dims.d[0];
        indexBatch = indices.dims.d[0];
        if (dataBatch != indexBatch && dataBatch != 1 && indexBatch != 1)
        {
            return gatherError(setup, "elementwise dimension 0 of data (" + std::to_string(dataBatch)
                + ") and indices (" + std::to_string(indexBatch) + ") cannot be broadcast");
        }
        batch = dataBatch == 1 ? indexBatch : dataBatch;
        expected.push_back(batch);
    }
    for (int32_t d = b; d < axis; ++d)
    {
        expected.push_back(data.dims.d[d]);
    }
    for (int32_t d = b; d < q; ++d)
    {
        expected.push_back(indices.dims.d[d]);
    }
    for (int32_t d = axis + 1; d < r; ++d)
    {
        expected.push_back(data.dims.d[d]);
    }
    KILN_RETURN_IF_ERROR(checkOutput(setup, out, expected));
    int64_t const outer = product(data.dims, b, axis);
    int64_t const extent = data.dims.d[axis];
    int64_t const innerBytes = product(data.dims, axis + 1, r) * esize;
    int64_t const perBatch = product(indices.dims, b, q);
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
    if (indices.dims.nbDims != r || axis < 0 || axis >= r)
    {
        return gatherError(setup, "kELEMENT needs indices of the data's rank and an axis within it");
    }
    std::vector<int64_t> expected(indices.dims.d, indices.dims.d + r);
    KILN_RETURN_IF_ERROR(checkOutput(setup, out, expected));
    for (int32_t d = 0; d < r; ++d)
    {
        if (d != axis && indices.dims.d[d] > data.dims.d[d])
        {
            return gatherError(setup, "indices extent " + std::to_string(indices.dims.d[d]) + " exceeds data extent "
                + std::to_string(data.dims.d[d]) + " in dimension " + std::to_string(d));
        }
    }
    std::vector<int64_t> const dataStrides = contiguousStrides(data.dims);
    int64_t const volume = product(indices.dims, 0, r);
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
    int32_t b, int64_t esize)
{
    int32_t const r = data.dims.nbDims;
    int32_t const q = indices.dims.nbDims;
    if (q < 1 || b < 0 || b > q - 1 || b >= r)
    {
        return gatherError(setup, "kND: nbElementWiseDims " + std::to_string(b) + " does not fit data rank "
            + std::to_string(r) + " and indices rank " + std::to_string(q));
    }
    int64_t const k = indices.dims.d[q - 1];
    if (k < 1 || k > r - b)
    {
        return gatherError(setup, "kND: the last indices dimension " + std::to_string(k) + " is out of range [1, "
            + std::to_string(r - b) + "]");
    }
    for (int32_t d = 0; d < b; ++d)
    {
        if (data.dims.d[d] != indices.dims.d[d])
        {
            return gatherError(setup, "kND: elementwise dimension " + std::to_string(d) + " differs between data ("
                + std::to_string(data.dims.d[d]) + ") and indices (" + std::to_string(indices.dims.d[d]) + ")");
        }
    }
    std::vector<int64_t> expected(indices.dims.d, indices.dims.d + q - 1);
    for (int64_t d = b + k; d < r; ++d)
    {
        expected.push_back(data.dims.d[d]);
    }
    KILN_RETURN_IF_ERROR(checkOutput(setup, out, expected));
    int64_t const batch = product(indices.dims, 0, b);
    int64_t const tuples = product(indices.dims, b, q - 1);
    int64_t const sliceBytes = product(data.dims, b + static_cast<int32_t>(k), r) * esize;
    int64_t const batchElems = product(data.dims, b, r);
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
    if (inputs.size() != 2 || outputs.size() != 1 || !inputs[0].present() || !inputs[1].present()
        || !outputs[0].present())
    {
        return gatherError(setup, "expects data and indices inputs and one output");
    }
    Attributes const& attrs = setup.node->attrs;
    StatusOr<int64_t> modeAttr = attrs.requireInt("mode");
    StatusOr<int64_t> axisAttr = attrs.requireInt("axis");
    StatusOr<int64_t> bAttr = attrs.requireInt("nbElementWiseDims");
    if (!modeAttr.isOk() || !axisAttr.isOk() || !bAttr.isOk())
    {
        return gatherError(setup, "missing or mistyped attribute 'mode', 'axis' or 'nbElementWiseDims'");
    }
    TensorView const& data = inputs[0];
    TensorView const& indices = inputs[1];
    TensorView const& out = outputs[0];
    int64_t const esize = elementSize(data.type);
    if (esize <= 0 || out.type != data.type)
    {
        return gatherError(setup, std::string("data type ") + dataTypeName(data.type)
            + " is unsupported or differs from the output type");
    }
    if (indices.type != DataType::kINT32 && indices.type != DataType::kINT64)
    {
        return gatherError(setup, "indices must be INT32 or INT64");
    }
    int32_t const r = data.dims.nbDims;
    if (r < 1 || r > nvinfer1::Dims::MAX_DIMS || indices.dims.nbDims < 0 || indices.dims.nbDims > nvinfer1::Dims::MAX_DIMS)
    {
        return gatherError(setup, "invalid data or indices rank");
    }
    for (int32_t d = 0; d < r; ++d)
    {
        if (data.dims.d[d] < 0)
        {
            return gatherError(setup, "negative data extent");
        }
    }
    for (int32_t d = 0; d < indices.dims.nbDims; ++d)
    {
        if (indices.dims.d[d] < 0)
        {
            return gatherError(setup, "negative indices extent");
        }
    }
    int64_t const axis = *axisAttr;
    int64_t const b = *bAttr;
    if (axis < 0 || axis >= nvinfer1::Dims::MAX_DIMS || b < 0 || b >= nvinfer1::Dims::MAX_DIMS)
    {
        return gatherError(setup, "attribute 'axis' or 'nbElementWiseDims' is out of range");
    }
    switch (static_cast<GatherMode>(*modeAttr))
    {
    case GatherMode::kDEFAULT:
        if (b > 1)
        {
            return gatherError(setup, "kDEFAULT accepts nbElementWiseDims 0 or 1");
        }
        return gatherDefault(setup, data, indices, out, static_cast<int32_t>(axis), static_cast<int32_t>(b), esize);
    case GatherMode::kELEMENT:
        if (b != 0)
        {
            return gatherError(setup, "kELEMENT needs nbElementWiseDims 0");
        }
        return gatherElement(setup, data, indices, out, static_cast<int32_t>(axis), esize);
    case GatherMode::kND: return gatherND(setup, data, indices, out, static_cast<int32_t>(b), esize);
    }
    return gatherError(setup, "invalid mode " + std::to_string(*modeAttr));
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
