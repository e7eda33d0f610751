// CUDA kernel of IScatterLayer with the CPU reference's checks (backends/cpu/kernels/scatter.cpp): the data is copied
// to the output, then one thread per update element writes it where the indices say (kELEMENT like ONNX
// ScatterElements, kND like ONNX ScatterND), moving bits so every storage type works. Indices in [-extent, -1]
// count from the end. Differences from the CPU, both in cases TensorRT leaves undefined: with duplicate indices
// the CPU lets the last update win, the GPU an arbitrary one; an out-of-range index is an error on the CPU and
// skipped on the GPU (reporting it needs the device-side error flag planned for gather too).
#include "backends/common/scatterParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/indexing.cuh"
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

using dev::loadIndex; // indexing.cuh

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

//! create: nothing to read (the attributes are checked with the shapes); reshape: the attributes, the checks and the
//! launch arguments of the mode; run: the copy of the data and one launch.
class ScatterCudaKernel final : public Kernel
{
public:
    explicit ScatterCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mUpdates = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(ScatterParams const p, makeScatterParams(mSetup, v.inputs, v.outputs));
        TensorView const& data = inputs[0];
        TensorView const& indices = inputs[1];
        if (p.esize != 1 && p.esize != 2 && p.esize != 4 && p.esize != 8)
        {
            return scatterError(mSetup, "data, updates and output must share a supported type");
        }
        int32_t const r = data.dims.nbDims;
        std::vector<int64_t> const strides = contiguousStrides(data.dims);
        ScatterArgs a;
        a.mode = p.mode;
        int64_t n = 0;
        if (p.mode == ScatterMode::kELEMENT)
        {
            int32_t const axis = p.axis;
            a.map.rank = r;
            for (int32_t d = 0; d < r; ++d)
            {
                a.map.dims[d] = indices.dims.d[d];
                a.map.strides[0][d] = d == axis ? 0 : strides[static_cast<size_t>(d)];
            }
            a.extent = data.dims.d[axis];
            a.axisStride = strides[static_cast<size_t>(axis)];
            n = indices.volume();
        }
        else
        {
            a.k = p.k;
            a.slice = dimsProduct(data.dims, a.k, r);
            for (int32_t j = 0; j < a.k; ++j)
            {
                a.ndExtent[j] = data.dims.d[j];
                a.ndStride[j] = strides[static_cast<size_t>(j)];
            }
            n = inputs[2].volume();
        }
        mArgs = a;
        mSize = static_cast<int32_t>(p.esize);
        mBytes = data.volume() * p.esize;
        mUpdates = a.slice == 0 ? 0 : n;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mUpdates < 0)
        {
            return notReshaped(nodeLabel(mSetup, "Scatter"));
        }
        TensorView const& data = inputs[0];
        TensorView const& out = outputs[0];
        if (mBytes > 0 && out.data != data.data)
        {
            KILN_CUDA_CHECK(cudaMemcpyAsync(out.data, data.data, static_cast<size_t>(mBytes), cudaMemcpyDeviceToDevice,
                ctx.stream));
        }
        if (mUpdates == 0)
        {
            return Status::ok();
        }
        scatterKernel<<<gridFor(mUpdates), kBLOCK, 0, ctx.stream>>>(mArgs, mUpdates, inputs[1].data, inputs[1].type,
            inputs[2].data, out.data, mSize);
        return launchStatus("Scatter kernel");
    }

private:
    KernelSetup mSetup;
    ScatterArgs mArgs;
    int32_t mSize{0};
    int64_t mBytes{0};
    int64_t mUpdates{-1}; //!< threads of the scatter launch (0: only the copy)
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createScatterCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Scatter kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<ScatterCudaKernel>(setup));
}

} // namespace kiln::cuda
