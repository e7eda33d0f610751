// CPU kernel of IScatterLayer: copies data to the output, then writes updates at the positions the indices give
// (kELEMENT like ONNX ScatterElements, kND like ONNX ScatterND). Elements move as bytes, so every storage type
// works. Updates apply in row-major order, so with duplicate indices the last one wins (TensorRT leaves that case
// undefined). Indices in [-extent, -1] count from the end; any other out-of-range index is an execution error.
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

Status scatterError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (Scatter): " + message);
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
    if (indices.dims.nbDims != r || updates.dims.nbDims != r || axis < 0 || axis >= r)
    {
        return scatterError(setup, "kELEMENT needs data, indices and updates of equal rank and an axis within it");
    }
    for (int32_t d = 0; d < r; ++d)
    {
        if (indices.dims.d[d] != updates.dims.d[d] || indices.dims.d[d] < 0
            || (d != axis && indices.dims.d[d] > data.dims.d[d]))
        {
            return scatterError(setup, "indices/updates extent " + std::to_string(indices.dims.d[d])
                + " does not fit dimension " + std::to_string(d) + " (data extent " + std::to_string(data.dims.d[d])
                + ", updates extent " + std::to_string(updates.dims.d[d]) + ")");
        }
    }
    std::vector<int64_t> const strides = contiguousStrides(data.dims);
    int64_t const volume = product(indices.dims, 0, r);
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
    TensorView const& updates, TensorView const& out, int64_t esize)
{
    int32_t const r = data.dims.nbDims;
    int32_t const q = indices.dims.nbDims;
    if (q < 1)
    {
        return scatterError(setup, "kND needs indices of rank >= 1");
    }
    int64_t const k = indices.dims.d[q - 1];
    if (k < 1 || k > r)
    {
        return scatterError(setup, "kND: the last indices dimension " + std::to_string(k) + " is out of range [1, "
            + std::to_string(r) + "]");
    }
    int32_t const s = q - 1 + r - static_cast<int32_t>(k);
    bool shapeOk = updates.dims.nbDims == s;
    for (int32_t d = 0; shapeOk && d < q - 1; ++d)
    {
        shapeOk = updates.dims.d[d] == indices.dims.d[d] && indices.dims.d[d] >= 0;
    }
    for (int32_t d = static_cast<int32_t>(k); shapeOk && d < r; ++d)
    {
        shapeOk = updates.dims.d[q - 1 + d - k] == data.dims.d[d];
    }
    if (!shapeOk)
    {
        return scatterError(setup, "kND: the updates shape does not match indices.shape[:-1] + data.shape[k:]");
    }
    int64_t const tuples = product(indices.dims, 0, q - 1);
    int64_t const sliceBytes = product(data.dims, static_cast<int32_t>(k), r) * esize;
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
    if (inputs.size() != 3 || outputs.size() != 1 || !inputs[0].present() || !inputs[1].present()
        || !inputs[2].present() || !outputs[0].present())
    {
        return scatterError(setup, "expects data, indices and updates inputs and one output");
    }
    Attributes const& attrs = setup.node->attrs;
    StatusOr<int64_t> modeAttr = attrs.requireInt("mode");
    StatusOr<int64_t> axisAttr = attrs.requireInt("axis");
    if (!modeAttr.isOk() || !axisAttr.isOk())
    {
        return scatterError(setup, "missing or mistyped attribute 'mode' or 'axis'");
    }
    TensorView const& data = inputs[0];
    TensorView const& indices = inputs[1];
    TensorView const& updates = inputs[2];
    TensorView const& out = outputs[0];
    int64_t const esize = elementSize(data.type);
    if (esize <= 0 || out.type != data.type || updates.type != data.type)
    {
        return scatterError(setup, "data, updates and output must share a supported type");
    }
    if (indices.type != DataType::kINT32 && indices.type != DataType::kINT64)
    {
        return scatterError(setup, "indices must be INT32 or INT64");
    }
    int32_t const r = data.dims.nbDims;
    if (r < 1 || r > nvinfer1::Dims::MAX_DIMS || out.dims.nbDims != r || indices.dims.nbDims < 0
        || indices.dims.nbDims > nvinfer1::Dims::MAX_DIMS || updates.dims.nbDims < 0
        || updates.dims.nbDims > nvinfer1::Dims::MAX_DIMS)
    {
        return scatterError(setup, "invalid ranks");
    }
    for (int32_t d = 0; d < r; ++d)
    {
        if (data.dims.d[d] < 0 || data.dims.d[d] != out.dims.d[d])
        {
            return scatterError(setup, "output shape differs from the data shape in dimension " + std::to_string(d));
        }
    }
    int64_t const bytes = data.volume() * esize;
    if (bytes > 0 && out.data != data.data)
    {
        std::memmove(out.data, data.data, static_cast<size_t>(bytes));
    }
    int64_t const axis = *axisAttr;
    switch (static_cast<ScatterMode>(*modeAttr))
    {
    case ScatterMode::kELEMENT:
        if (axis < 0 || axis >= r)
        {
            return scatterError(setup, "axis " + std::to_string(axis) + " is out of range");
        }
        return scatterElement(setup, data, indices, updates, out, static_cast<int32_t>(axis), esize);
    case ScatterMode::kND: return scatterND(setup, data, indices, updates, out, esize);
    }
    return scatterError(setup, "invalid mode " + std::to_string(*modeAttr));
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
