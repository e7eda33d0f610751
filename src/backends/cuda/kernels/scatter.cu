// CUDA kernel of IScatterLayer with the CPU reference's checks (backends/cpu/kernels/scatter.cpp): the data is copied
// to the output, then one thread per update element writes it where the indices say (kELEMENT like ONNX
// ScatterElements, kND like ONNX ScatterND), moving bits so every storage type works. Indices in [-extent, -1]
// count from the end. Differences from the CPU, both in cases TensorRT leaves undefined: with duplicate indices
// the CPU lets the last update win, the GPU an arbitrary one; an out-of-range index is an error on the CPU and
// skipped on the GPU (reporting it needs the device-side error flag planned for gather too).
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;
using nvinfer1::ScatterMode;

namespace
{

struct ScatterArgs
{
    ScatterMode mode{ScatterMode::kELEMENT};
    // kELEMENT: map over the indices' shape; strides[0] = output strides with 0 on the axis
    IndexMap map;
    int64_t extent{0};
    int64_t axisStride{0};
    // kND
    int32_t k{0};
    int64_t slice{1};
    int64_t ndExtent[kMAX_RANK]{};
    int64_t ndStride[kMAX_RANK]{};
};

__device__ __forceinline__ int64_t loadIndex(void const* indices, DataType t, int64_t position, int64_t extent)
{
    int64_t const raw = dev::loadInt(indices, t, position);
    if (raw < -extent || raw >= extent)
    {
        return -1;
    }
    return raw < 0 ? raw + extent : raw;
}

__global__ void scatterKernel(ScatterArgs a, int64_t n, void const* indices, DataType it, void const* updates,
    void* out, int32_t size)
{
    for (int64_t u = dev::globalThread(); u < n; u += dev::gridThreads())
    {
        int64_t dst = -1;
        if (a.mode == ScatterMode::kELEMENT)
        {
            int64_t off[kMAX_OPERANDS];
            mapOffsets(a.map, u, off);
            int64_t const index = loadIndex(indices, it, u, a.extent);
            dst = index < 0 ? -1 : off[0] + index * a.axisStride;
        }
        else
        {
            int64_t const t = u / a.slice;
            dst = u % a.slice;
            for (int32_t j = 0; j < a.k && dst >= 0; ++j)
            {
                int64_t const index = loadIndex(indices, it, t * a.k + j, a.ndExtent[j]);
                dst = index < 0 ? -1 : dst + index * a.ndStride[j];
            }
        }
        if (dst >= 0)
        {
            dev::copyElement(out, dst, updates, u, size);
        }
    }
}

Status scatterError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (Scatter): " + message);
}

Status enqueueScatter(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx)
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
    if ((esize != 1 && esize != 2 && esize != 4 && esize != 8) || out.type != data.type || updates.type != data.type)
    {
        return scatterError(setup, "data, updates and output must share a supported type");
    }
    if (indices.type != DataType::kINT32 && indices.type != DataType::kINT64)
    {
        return scatterError(setup, "indices must be INT32 or INT64");
    }
    int32_t const r = data.dims.nbDims;
    int32_t const q = indices.dims.nbDims;
    if (r < 1 || r > kMAX_RANK || out.dims.nbDims != r || q < 0 || q > kMAX_RANK || updates.dims.nbDims < 0
        || updates.dims.nbDims > kMAX_RANK)
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
    std::vector<int64_t> const strides = contiguousStrides(data.dims);
    ScatterArgs a;
    a.mode = static_cast<ScatterMode>(*modeAttr);
    int64_t const axis = *axisAttr;
    int64_t n = 0;
    switch (a.mode)
    {
    case ScatterMode::kELEMENT:
    {
        if (axis < 0 || axis >= r)
        {
            return scatterError(setup, "axis " + std::to_string(axis) + " is out of range");
        }
        if (q != r || updates.dims.nbDims != r)
        {
            return scatterError(setup, "kELEMENT needs data, indices and updates of equal rank and an axis within it");
        }
        a.map.rank = r;
        for (int32_t d = 0; d < r; ++d)
        {
            if (indices.dims.d[d] != updates.dims.d[d] || indices.dims.d[d] < 0
                || (d != axis && indices.dims.d[d] > data.dims.d[d]))
            {
                return scatterError(setup, "indices/updates extent " + std::to_string(indices.dims.d[d])
                    + " does not fit dimension " + std::to_string(d) + " (data extent "
                    + std::to_string(data.dims.d[d]) + ", updates extent " + std::to_string(updates.dims.d[d]) + ")");
            }
            a.map.dims[d] = indices.dims.d[d];
            a.map.strides[0][d] = d == axis ? 0 : strides[static_cast<size_t>(d)];
        }
        a.extent = data.dims.d[axis];
        a.axisStride = strides[static_cast<size_t>(axis)];
        n = indices.volume();
        break;
    }
    case ScatterMode::kND:
    {
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
        a.k = static_cast<int32_t>(k);
        a.slice = 1;
        for (int32_t d = a.k; d < r; ++d)
        {
            a.slice *= data.dims.d[d];
        }
        for (int32_t j = 0; j < a.k; ++j)
        {
            a.ndExtent[j] = data.dims.d[j];
            a.ndStride[j] = strides[static_cast<size_t>(j)];
        }
        n = updates.volume();
        break;
    }
    default: return scatterError(setup, "invalid mode " + std::to_string(*modeAttr));
    }
    int64_t const bytes = data.volume() * esize;
    if (bytes > 0 && out.data != data.data)
    {
        KILN_CUDA_CHECK(cudaMemcpyAsync(out.data, data.data, static_cast<size_t>(bytes), cudaMemcpyDeviceToDevice,
            ctx.stream));
    }
    if (n == 0 || a.slice == 0)
    {
        return Status::ok();
    }
    scatterKernel<<<gridFor(n), kBLOCK, 0, ctx.stream>>>(a, n, indices.data, indices.type, updates.data, out.data,
        static_cast<int32_t>(esize));
    return launchStatus("Scatter kernel");
}

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createScatterCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Scatter kernel: no plan node");
    }
    return makeCudaFunctionKernel(setup, enqueueScatter);
}

} // namespace kiln::cuda
