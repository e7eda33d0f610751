// Backend-neutral host-side logic of IGatherLayer kernels, shared by the CPU kernel (backends/cpu/kernels/gather.cpp)
// and the CUDA kernel (backends/cuda/kernels/gather.cu).
#include "backends/common/gatherParams.h"
#include "core/dataType.h"

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::GatherMode;

namespace
{

Status checkOutput(KernelSetup const& setup, TensorView const& out, std::vector<int64_t> const& expected)
{
    std::string const why = expectedDimsMismatch(out.dims, expected);
    return why.empty() ? Status::ok() : gatherError(setup, why);
}

Status checkDefault(KernelSetup const& setup, TensorView const& data, TensorView const& indices,
    TensorView const& out, GatherParams& p)
{
    int32_t const r = data.dims.nbDims;
    int32_t const q = indices.dims.nbDims;
    int32_t const axis = p.axis;
    int32_t const b = p.b;
    if (axis < b || axis >= r || q < b)
    {
        return gatherError(setup, "axis " + std::to_string(axis) + " / nbElementWiseDims " + std::to_string(b)
            + " do not fit data rank " + std::to_string(r) + " and indices rank " + std::to_string(q));
    }
    std::vector<int64_t> expected;
    if (b == 1)
    {
        p.dataBatch = data.dims.d[0];
        p.indexBatch = indices.dims.d[0];
        if (p.dataBatch != p.indexBatch && p.dataBatch != 1 && p.indexBatch != 1)
        {
            return gatherError(setup, "elementwise dimension 0 of data (" + std::to_string(p.dataBatch)
                + ") and indices (" + std::to_string(p.indexBatch) + ") cannot be broadcast");
        }
        p.batch = p.dataBatch == 1 ? p.indexBatch : p.dataBatch;
        expected.push_back(p.batch);
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
    return checkOutput(setup, out, expected);
}

Status checkElement(KernelSetup const& setup, TensorView const& data, TensorView const& indices,
    TensorView const& out, int32_t axis)
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
    return Status::ok();
}

Status checkND(KernelSetup const& setup, TensorView const& data, TensorView const& indices, TensorView const& out,
    GatherParams& p)
{
    int32_t const r = data.dims.nbDims;
    int32_t const q = indices.dims.nbDims;
    int32_t const b = p.b;
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
    p.k = k;
    return checkOutput(setup, out, expected);
}

} // namespace

Status gatherError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (Gather): " + message);
}

StatusOr<GatherParams> readGatherParams(KernelSetup const& setup)
{
    Attributes const& attrs = setup.node->attrs;
    StatusOr<int64_t> modeAttr = attrs.requireInt("mode");
    StatusOr<int64_t> axisAttr = attrs.requireInt("axis");
    StatusOr<int64_t> bAttr = attrs.requireInt("nbElementWiseDims");
    if (!modeAttr.isOk() || !axisAttr.isOk() || !bAttr.isOk())
    {
        return gatherError(setup, "missing or mistyped attribute 'mode', 'axis' or 'nbElementWiseDims'");
    }
    int64_t const axis = *axisAttr;
    int64_t const b = *bAttr;
    if (axis < 0 || axis >= nvinfer1::Dims::MAX_DIMS || b < 0 || b >= nvinfer1::Dims::MAX_DIMS)
    {
        return gatherError(setup, "attribute 'axis' or 'nbElementWiseDims' is out of range");
    }
    GatherParams p;
    p.axis = static_cast<int32_t>(axis);
    p.b = static_cast<int32_t>(b);
    switch (static_cast<GatherMode>(*modeAttr))
    {
    case GatherMode::kDEFAULT:
        if (b > 1)
        {
            return gatherError(setup, "kDEFAULT accepts nbElementWiseDims 0 or 1");
        }
        p.mode = GatherMode::kDEFAULT;
        return p;
    case GatherMode::kELEMENT:
        if (b != 0)
        {
            return gatherError(setup, "kELEMENT needs nbElementWiseDims 0");
        }
        p.mode = GatherMode::kELEMENT;
        return p;
    case GatherMode::kND: p.mode = GatherMode::kND; return p;
    }
    return gatherError(setup, "invalid mode " + std::to_string(*modeAttr));
}

Status gatherShapes(KernelSetup const& setup, GatherParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 2 || outputs.size() != 1)
    {
        return gatherError(setup, "expects data and indices inputs and one output");
    }
    TensorView const& data = inputs[0];
    TensorView const& indices = inputs[1];
    TensorView const& out = outputs[0];
    p.esize = elementSize(data.type);
    if (p.esize <= 0 || out.type != data.type)
    {
        return gatherError(setup, std::string("data type ") + dataTypeName(data.type)
            + " is unsupported or differs from the output type");
    }
    if (indices.type != DataType::kINT32 && indices.type != DataType::kINT64)
    {
        return gatherError(setup, "indices must be INT32 or INT64");
    }
    int32_t const r = data.dims.nbDims;
    if (r < 1 || r > nvinfer1::Dims::MAX_DIMS || indices.dims.nbDims < 0
        || indices.dims.nbDims > nvinfer1::Dims::MAX_DIMS)
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
    p.k = 0;
    p.dataBatch = 1;
    p.indexBatch = 1;
    p.batch = 1;
    switch (p.mode)
    {
    case GatherMode::kDEFAULT: return checkDefault(setup, data, indices, out, p);
    case GatherMode::kELEMENT: return checkElement(setup, data, indices, out, p.axis);
    case GatherMode::kND: break;
    }
    return checkND(setup, data, indices, out, p);
}

StatusOr<GatherParams> makeGatherParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 2 || outputs.size() != 1 || !inputs[0].present() || !inputs[1].present()
        || !outputs[0].present())
    {
        return gatherError(setup, "expects data and indices inputs and one output");
    }
    KILN_ASSIGN_OR_RETURN(GatherParams p, readGatherParams(setup));
    KILN_RETURN_IF_ERROR(gatherShapes(setup, p, inputs, outputs));
    return p;
}

} // namespace kiln
