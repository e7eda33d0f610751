// CUDA kernel of IGatherLayer: kDEFAULT (0 or 1 elementwise dimension), kELEMENT and kND, as the CPU reference
// (backends/cpu/kernels/gather.cpp), moving elements as bits so every storage type works. Indices in
// [-extent, -1] count from the end. The CPU reports any other index as an execution error; the GPU cannot without
// a host synchronisation, so such an output element is written as zero (never reading outside the data) and the
// error report is left to the runtime integration (a device-side error flag).
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;
using nvinfer1::GatherMode;

namespace
{

struct GatherArgs
{
    GatherMode mode{GatherMode::kDEFAULT};
    // kDEFAULT
    int64_t inner{1};
    int64_t perBatch{1};
    int64_t outer{1};
    int64_t extent{0};
    int64_t dataBatch{1};
    int64_t indexBatch{1};
    // kELEMENT: map over the indices' shape, strides[0] = data strides with 0 on the axis
    IndexMap map;
    int64_t axisStride{0};
    // kND
    int32_t k{0};
    int32_t b{0};
    int64_t tuples{1};
    int64_t slice{1};
    int64_t batchElems{0};
    int64_t ndExtent[kMAX_RANK]{};
    int64_t ndStride[kMAX_RANK]{};
};

//! indices[position] wrapped into [0, extent), or -1 when out of range.
__device__ __forceinline__ int64_t loadIndex(void const* indices, DataType t, int64_t position, int64_t extent)
{
    int64_t const raw = dev::loadInt(indices, t, position);
    if (raw < -extent || raw >= extent)
    {
        return -1;
    }
    return raw < 0 ? raw + extent : raw;
}

__global__ void gatherKernel(GatherArgs a, int64_t n, void const* data, void const* indices, DataType it, void* out,
    int32_t size)
{
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        int64_t src = -1;
        if (a.mode == GatherMode::kDEFAULT)
        {
            int64_t const e = i % a.inner;
            int64_t rest = i / a.inner;
            int64_t const j = rest % a.perBatch;
            rest /= a.perBatch;
            int64_t const o = rest % a.outer;
            int64_t const b = rest / a.outer;
            int64_t const db = a.dataBatch == 1 ? 0 : b;
            int64_t const ib = a.indexBatch == 1 ? 0 : b;
            int64_t const index = loadIndex(indices, it, ib * a.perBatch + j, a.extent);
            src = index < 0 ? -1 : ((db * a.outer + o) * a.extent + index) * a.inner + e;
        }
        else if (a.mode == GatherMode::kELEMENT)
        {
            int64_t off[kMAX_OPERANDS];
            mapOffsets(a.map, i, off);
            int64_t const index = loadIndex(indices, it, i, a.extent);
            src = index < 0 ? -1 : off[0] + index * a.axisStride;
        }
        else
        {
            int64_t const e = i % a.slice;
            int64_t const tuple = i / a.slice; // (batch * tuples + t)
            int64_t const b = tuple / a.tuples;
            src = b * a.batchElems + e;
            for (int32_t j = 0; j < a.k && src >= 0; ++j)
            {
                int64_t const index = loadIndex(indices, it, tuple * a.k + j, a.ndExtent[j]);
                src = index < 0 ? -1 : src + index * a.ndStride[j];
            }
        }
        if (src >= 0)
        {
            dev::copyElement(out, i, data, src, size);
        }
        else
        {
            uint64_t const zero = 0;
            dev::copyElement(out, i, &zero, 0, size);
        }
    }
}

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

Status checkOutput(KernelSetup const& setup, TensorView const& out, std::vector<int64_t> const& expected)
{
    bool same = out.dims.nbDims == static_cast<int32_t>(expected.size());
    for (size_t i = 0; same && i < expected.size(); ++i)
    {
        same = out.dims.d[i] == expected[i];
    }
    if (!same)
    {
        return gatherError(setup, "output dimensions " + ew::dimsToString(out.dims) + " do not match the expected ones");
    }
    return Status::ok();
}

Status enqueueGather(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx)
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
    if ((esize != 1 && esize != 2 && esize != 4 && esize != 8) || out.type != data.type)
    {
        return gatherError(setup, std::string("data type ") + dataTypeName(data.type)
            + " is unsupported or differs from the output type");
    }
    if (indices.type != DataType::kINT32 && indices.type != DataType::kINT64)
    {
        return gatherError(setup, "indices must be INT32 or INT64");
    }
    int32_t const r = data.dims.nbDims;
    int32_t const q = indices.dims.nbDims;
    if (r < 1 || r > kMAX_RANK || q < 0 || q > kMAX_RANK)
    {
        return gatherError(setup, "invalid data or indices rank");
    }
    int64_t const axis64 = *axisAttr;
    int64_t const b64 = *bAttr;
    if (axis64 < 0 || axis64 >= kMAX_RANK || b64 < 0 || b64 >= kMAX_RANK)
    {
        return gatherError(setup, "attribute 'axis' or 'nbElementWiseDims' is out of range");
    }
    auto const axis = static_cast<int32_t>(axis64);
    auto const b = static_cast<int32_t>(b64);
    GatherArgs a;
    a.mode = static_cast<GatherMode>(*modeAttr);
    std::vector<int64_t> expected;
    std::vector<int64_t> const dataStrides = contiguousStrides(data.dims);
    switch (a.mode)
    {
    case GatherMode::kDEFAULT:
    {
        if (b > 1 || axis < b || axis >= r || q < b)
        {
            return gatherError(setup, "axis " + std::to_string(axis) + " / nbElementWiseDims " + std::to_string(b)
                + " do not fit data rank " + std::to_string(r) + " and indices rank " + std::to_string(q));
        }
        if (b == 1)
        {
            a.dataBatch = data.dims.d[0];
            a.indexBatch = indices.dims.d[0];
            if (a.dataBatch != a.indexBatch && a.dataBatch != 1 && a.indexBatch != 1)
            {
                return gatherError(setup, "elementwise dimension 0 of data and indices cannot be broadcast");
            }
            expected.push_back(a.dataBatch == 1 ? a.indexBatch : a.dataBatch);
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
        a.outer = product(data.dims, b, axis);
        a.extent = data.dims.d[axis];
        a.inner = product(data.dims, axis + 1, r);
        a.perBatch = product(indices.dims, b, q);
        break;
    }
    case GatherMode::kELEMENT:
    {
        if (b != 0 || q != r || axis >= r)
        {
            return gatherError(setup, "kELEMENT needs indices of the data's rank, an axis within it and "
                                      "nbElementWiseDims 0");
        }
        expected.assign(indices.dims.d, indices.dims.d + r);
        a.map.rank = r;
        for (int32_t d = 0; d < r; ++d)
        {
            if (d != axis && indices.dims.d[d] > data.dims.d[d])
            {
                return gatherError(setup, "indices extent " + std::to_string(indices.dims.d[d])
                    + " exceeds data extent " + std::to_string(data.dims.d[d]) + " in dimension " + std::to_string(d));
            }
            a.map.dims[d] = indices.dims.d[d];
            a.map.strides[0][d] = d == axis ? 0 : dataStrides[static_cast<size_t>(d)];
        }
        a.extent = data.dims.d[axis];
        a.axisStride = dataStrides[static_cast<size_t>(axis)];
        break;
    }
    case GatherMode::kND:
    {
        if (q < 1 || b > q - 1 || b >= r)
        {
            return gatherError(setup, "kND: nbElementWiseDims " + std::to_string(b) + " does not fit data rank "
                + std::to_string(r) + " and indices rank " + std::to_string(q));
        }
        int64_t const k = indices.dims.d[q - 1];
        if (k < 1 || k > r - b)
        {
            return gatherError(setup, "kND: the last indices dimension " + std::to_string(k) + " is out of range");
        }
        for (int32_t d = 0; d < b; ++d)
        {
            if (data.dims.d[d] != indices.dims.d[d])
            {
                return gatherError(setup, "kND: elementwise dimension " + std::to_string(d) + " differs");
            }
        }
        expected.assign(indices.dims.d, indices.dims.d + q - 1);
        for (int64_t d = b + k; d < r; ++d)
        {
            expected.push_back(data.dims.d[d]);
        }
        a.k = static_cast<int32_t>(k);
        a.b = b;
        a.tuples = product(indices.dims, b, q - 1);
        a.slice = product(data.dims, b + a.k, r);
        a.batchElems = product(data.dims, b, r);
        for (int32_t j = 0; j < a.k; ++j)
        {
            a.ndExtent[j] = data.dims.d[b + j];
            a.ndStride[j] = dataStrides[static_cast<size_t>(b + j)];
        }
        break;
    }
    default: return gatherError(setup, "invalid mode " + std::to_string(*modeAttr));
    }
    KILN_RETURN_IF_ERROR(checkOutput(setup, out, expected));
    int64_t const n = out.volume();
    if (n == 0)
    {
        return Status::ok();
    }
    gatherKernel<<<gridFor(n), kBLOCK, 0, ctx.stream>>>(a, n, data.data, indices.data, indices.type, out.data,
        static_cast<int32_t>(esize));
    return launchStatus("Gather kernel");
}

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createGatherCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Gather kernel: no plan node");
    }
    return makeCudaFunctionKernel(setup, enqueueGather);
}

} // namespace kiln::cuda
