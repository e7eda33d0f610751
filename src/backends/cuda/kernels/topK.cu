// CUDA kernel of ITopKLayer with the CPU reference's semantics (backends/cpu/kernels/topK.cpp): the k largest
// (kMAX) or smallest (kMIN) elements along one axis, sorted, with their indices; ties keep the lower index first,
// NaN counts as larger than every number. k is read from the output shape. Rank selection: one thread per input
// element counts the elements of its slice that come before it (a strict total order thanks to the index
// tie-break) and, when its rank is below k, writes itself at that rank. O(n) per element: right for the short
// axes of most models, a sort-based kernel is the next step for long ones.
#include "backends/common/topKParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;
using nvinfer1::TopKOperation;

namespace
{

template <typename V>
__device__ __forceinline__ bool isNan(V v)
{
    return v != v;
}

//! True when (a, ia) comes before (b, ib) for the operation.
template <typename V>
__device__ __forceinline__ bool before(bool isMax, V a, int64_t ia, V b, int64_t ib)
{
    bool const an = isNan(a);
    bool const bn = isNan(b);
    if (an != bn)
    {
        return isMax ? an : bn;
    }
    if (!an && a != b)
    {
        return isMax ? a > b : a < b;
    }
    return ia < ib;
}

template <typename C>
__global__ void topKKernel(bool isMax, int64_t total, int64_t n, int64_t inner, int64_t k, void const* in, DataType t,
    void* values, void* indices, DataType it, int32_t size)
{
    for (int64_t e = dev::globalThread(); e < total; e += dev::gridThreads())
    {
        int64_t const i = e % inner;
        int64_t const j = (e / inner) % n;
        int64_t const o = e / (inner * n);
        int64_t const base = o * n * inner + i;
        C const v = dev::load<C>(in, t, base + j * inner);
        int64_t rank = 0;
        for (int64_t m = 0; m < n && rank < k; ++m)
        {
            rank += before(isMax, dev::load<C>(in, t, base + m * inner), m, v, j) ? 1 : 0;
        }
        if (rank < k)
        {
            int64_t const dst = o * k * inner + rank * inner + i;
            dev::copyElement(values, dst, in, base + j * inner, size); // the element itself: exact for every type
            dev::storeInt(indices, it, dst, j);
        }
    }
}

//! create: nothing to read (the attributes are checked with the shapes); reshape: the attributes, the checks and
//! the geometry; run: one launch.
class TopKCudaKernel final : public Kernel
{
public:
    explicit TopKCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mTotal = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(mParams, makeTopKParams(mSetup, v.inputs, v.outputs));
        DataType const t = inputs[0].type;
        mFloat = ew::isFloatKernelType(t);
        if (!mFloat && t != DataType::kINT32 && t != DataType::kINT64)
        {
            return topKError(mSetup, std::string("type ") + dataTypeName(t) + " is not supported");
        }
        mSize = static_cast<int32_t>(elementSize(t));
        mTotal = mParams.outer * mParams.inner == 0 || mParams.k == 0 ? 0 : mParams.outer * mParams.n * mParams.inner;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mTotal <= 0)
        {
            return mTotal == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "TopK"));
        }
        TensorView const& in = inputs[0];
        TensorView const& values = outputs[0];
        TensorView const& indices = outputs[1];
        bool const isMax = mParams.op == TopKOperation::kMAX;
        if (mFloat)
        {
            topKKernel<float><<<gridFor(mTotal), kBLOCK, 0, ctx.stream>>>(isMax, mTotal, mParams.n, mParams.inner,
                mParams.k, in.data, in.type, values.data, indices.data, indices.type, mSize);
        }
        else
        {
            topKKernel<int64_t><<<gridFor(mTotal), kBLOCK, 0, ctx.stream>>>(isMax, mTotal, mParams.n, mParams.inner,
                mParams.k, in.data, in.type, values.data, indices.data, indices.type, mSize);
        }
        return launchStatus("TopK kernel");
    }

private:
    KernelSetup mSetup;
    TopKParams mParams;
    bool mFloat{true};
    int32_t mSize{0};
    int64_t mTotal{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createTopKCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("TopK kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<TopKCudaKernel>(setup));
}

} // namespace kiln::cuda
