// CUDA kernel of IGatherLayer: kDEFAULT (0 or 1 elementwise dimension), kELEMENT and kND, as the CPU reference
// (backends/cpu/kernels/gather.cpp), moving elements as bits so every storage type works. Indices in
// [-extent, -1] count from the end. The CPU reports any other index as an execution error; the GPU cannot without
// a host synchronisation, so such an output element is written as zero (never reading outside the data) and the
// error report is left to the runtime integration (a device-side error flag).
#include "backends/common/gatherParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/indexing.cuh"
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

using dev::loadIndex; // indexing.cuh

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

//! create: nothing to read (the attributes are checked with the shapes); reshape: the attributes, the checks and
//! the launch arguments of the mode; run: one launch.
class GatherCudaKernel final : public Kernel
{
public:
    explicit GatherCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(GatherParams const p, makeGatherParams(mSetup, v.inputs, v.outputs));
        TensorView const& data = inputs[0];
        TensorView const& indices = inputs[1];
        if (p.esize != 1 && p.esize != 2 && p.esize != 4 && p.esize != 8)
        {
            return gatherError(mSetup, std::string("data type ") + dataTypeName(data.type)
                + " is unsupported or differs from the output type");
        }
        int32_t const r = data.dims.nbDims;
        int32_t const q = indices.dims.nbDims;
        int32_t const axis = p.axis;
        int32_t const b = p.b;
        GatherArgs a;
        a.mode = p.mode;
        std::vector<int64_t> const dataStrides = contiguousStrides(data.dims);
        switch (p.mode)
        {
        case GatherMode::kDEFAULT:
            a.dataBatch = p.dataBatch;
            a.indexBatch = p.indexBatch;
            a.outer = dimsProduct(data.dims, b, axis);
            a.extent = data.dims.d[axis];
            a.inner = dimsProduct(data.dims, axis + 1, r);
            a.perBatch = dimsProduct(indices.dims, b, q);
            break;
        case GatherMode::kELEMENT:
            a.map.rank = r;
            for (int32_t d = 0; d < r; ++d)
            {
                a.map.dims[d] = indices.dims.d[d];
                a.map.strides[0][d] = d == axis ? 0 : dataStrides[static_cast<size_t>(d)];
            }
            a.extent = data.dims.d[axis];
            a.axisStride = dataStrides[static_cast<size_t>(axis)];
            break;
        case GatherMode::kND:
            a.k = static_cast<int32_t>(p.k);
            a.b = b;
            a.tuples = dimsProduct(indices.dims, b, q - 1);
            a.slice = dimsProduct(data.dims, b + a.k, r);
            a.batchElems = dimsProduct(data.dims, b, r);
            for (int32_t j = 0; j < a.k; ++j)
            {
                a.ndExtent[j] = data.dims.d[b + j];
                a.ndStride[j] = dataStrides[static_cast<size_t>(b + j)];
            }
            break;
        }
        mArgs = a;
        mSize = static_cast<int32_t>(p.esize);
        mVolume = outputs[0].volume();
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mVolume <= 0)
        {
            return mVolume == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "Gather"));
        }
        gatherKernel<<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(mArgs, mVolume, inputs[0].data, inputs[1].data,
            inputs[1].type, outputs[0].data, mSize);
        return launchStatus("Gather kernel");
    }

private:
    KernelSetup mSetup;
    GatherArgs mArgs;
    int32_t mSize{0};
    int64_t mVolume{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createGatherCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Gather kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<GatherCudaKernel>(setup));
}

} // namespace kiln::cuda
