// Backend-neutral host-side logic of IScatterLayer kernels, shared by the CPU kernel
// (backends/cpu/kernels/scatter.cpp) and the CUDA kernel (backends/cuda/kernels/scatter.cu).
#include "backends/common/scatterParams.h"
#include "core/dataType.h"

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::ScatterMode;

namespace
{

Status checkElementShapes(KernelSetup const& setup, TensorView const& data, TensorView const& indices,
    TensorView const& updates, int32_t axis)
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
    return Status::ok();
}

StatusOr<int32_t> checkNDShapes(
    KernelSetup const& setup, TensorView const& data, TensorView const& indices, TensorView const& updates)
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
    return static_cast<int32_t>(k);
}

} // namespace

Status scatterError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (Scatter): " + message);
}

StatusOr<ScatterParams> readScatterParams(KernelSetup const& setup)
{
    Attributes const& attrs = setup.node->attrs;
    StatusOr<int64_t> modeAttr = attrs.requireInt("mode");
    StatusOr<int64_t> axisAttr = attrs.requireInt("axis");
    if (!modeAttr.isOk() || !axisAttr.isOk())
    {
        return scatterError(setup, "missing or mistyped attribute 'mode' or 'axis'");
    }
    ScatterParams p;
    p.axisAttr = *axisAttr;
    switch (static_cast<ScatterMode>(*modeAttr))
    {
    case ScatterMode::kELEMENT: p.mode = ScatterMode::kELEMENT; return p;
    case ScatterMode::kND: p.mode = ScatterMode::kND; return p;
    }
    return scatterError(setup, "invalid mode " + std::to_string(*modeAttr));
}

Status scatterShapes(KernelSetup const& setup, ScatterParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 3 || outputs.size() != 1)
    {
        return scatterError(setup, "expects data, indices and updates inputs and one output");
    }
    TensorView const& data = inputs[0];
    TensorView const& indices = inputs[1];
    TensorView const& updates = inputs[2];
    TensorView const& out = outputs[0];
    p.esize = elementSize(data.type);
    if (p.esize <= 0 || out.type != data.type || updates.type != data.type)
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
    if (p.mode == ScatterMode::kELEMENT)
    {
        if (p.axisAttr < 0 || p.axisAttr >= r)
        {
            return scatterError(setup, "axis " + std::to_string(p.axisAttr) + " is out of range");
        }
        p.axis = static_cast<int32_t>(p.axisAttr);
        return checkElementShapes(setup, data, indices, updates, p.axis);
    }
    KILN_ASSIGN_OR_RETURN(p.k, checkNDShapes(setup, data, indices, updates));
    return Status::ok();
}

StatusOr<ScatterParams> makeScatterParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 3 || outputs.size() != 1 || !inputs[0].present() || !inputs[1].present()
        || !inputs[2].present() || !outputs[0].present())
    {
        return scatterError(setup, "expects data, indices and updates inputs and one output");
    }
    KILN_ASSIGN_OR_RETURN(ScatterParams p, readScatterParams(setup));
    KILN_RETURN_IF_ERROR(scatterShapes(setup, p, inputs, outputs));
    return p;
}

} // namespace kiln
