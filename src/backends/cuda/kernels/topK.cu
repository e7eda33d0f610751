// CUDA kernel of ITopKLayer with the CPU reference's semantics (backends/cpu/kernels/topK.cpp): the k largest
// (kMAX) or smallest (kMIN) elements along one axis, sorted, with their indices; ties keep the lower index first,
// NaN counts as larger than every number. k is read from the output shape. Rank selection: one thread per input
// element counts the elements of its slice that come before it (a strict total order thanks to the index
// tie-break) and, when its rank is below k, writes itself at that rank. O(n) per element: right for the short
// axes of most models, a sort-based kernel is the next step for long ones.
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

Status topKError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (TopK): " + message);
}

Status enqueueTopK(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx)
{
    if (inputs.empty() || inputs.size() > 2 || outputs.size() != 2 || !inputs[0].present() || !outputs[0].present()
        || !outputs[1].present())
    {
        return topKError(setup, "expects a data input (and optionally k) and two outputs");
    }
    Attributes const& attrs = setup.node->attrs;
    StatusOr<int64_t> opAttr = attrs.requireInt("operation");
    StatusOr<int64_t> maskAttr = attrs.requireInt("axes");
    if (!opAttr.isOk() || !maskAttr.isOk())
    {
        return topKError(setup, "missing or mistyped attribute 'operation' or 'axes'");
    }
    if (*opAttr != static_cast<int64_t>(TopKOperation::kMAX) && *opAttr != static_cast<int64_t>(TopKOperation::kMIN))
    {
        return topKError(setup, "invalid operation " + std::to_string(*opAttr));
    }
    bool const isMax = static_cast<TopKOperation>(*opAttr) == TopKOperation::kMAX;
    TensorView const& in = inputs[0];
    TensorView const& values = outputs[0];
    TensorView const& indices = outputs[1];
    int32_t const rank = in.dims.nbDims;
    int64_t const mask = *maskAttr;
    if (rank < 1 || rank > kMAX_RANK || mask <= 0 || __builtin_popcountll(static_cast<unsigned long long>(mask)) != 1
        || (mask >> rank) != 0)
    {
        return topKError(setup, "axes mask " + std::to_string(mask) + " does not name one axis of the input");
    }
    int32_t const axis = __builtin_ctzll(static_cast<unsigned long long>(mask));
    if (values.dims.nbDims != rank || indices.dims.nbDims != rank || values.type != in.type
        || (indices.type != DataType::kINT32 && indices.type != DataType::kINT64))
    {
        return topKError(setup, "output ranks or types do not match the input");
    }
    int64_t const k = values.dims.d[axis];
    int64_t const n = in.dims.d[axis];
    for (int32_t d = 0; d < rank; ++d)
    {
        if (values.dims.d[d] != indices.dims.d[d] || (d != axis && values.dims.d[d] != in.dims.d[d]) || in.dims.d[d] < 0)
        {
            return topKError(setup, "output shapes do not match the input in dimension " + std::to_string(d));
        }
    }
    if (k < 0 || k > n)
    {
        return topKError(setup, "k = " + std::to_string(k) + " is out of range for axis " + std::to_string(axis)
            + " of extent " + std::to_string(n));
    }
    bool const isFloat = ew::isFloatKernelType(in.type);
    if (!isFloat && in.type != DataType::kINT32 && in.type != DataType::kINT64)
    {
        return topKError(setup, std::string("type ") + dataTypeName(in.type) + " is not supported");
    }
    int64_t outer = 1;
    int64_t inner = 1;
    for (int32_t d = 0; d < axis; ++d)
    {
        outer *= in.dims.d[d];
    }
    for (int32_t d = axis + 1; d < rank; ++d)
    {
        inner *= in.dims.d[d];
    }
    if (outer * inner * k == 0)
    {
        return Status::ok();
    }
    int64_t const total = outer * n * inner;
    auto const size = static_cast<int32_t>(elementSize(in.type));
    if (isFloat)
    {
        topKKernel<float><<<gridFor(total), kBLOCK, 0, ctx.stream>>>(isMax, total, n, inner, k, in.data, in.type,
            values.data, indices.data, indices.type, size);
    }
    else
    {
        topKKernel<int64_t><<<gridFor(total), kBLOCK, 0, ctx.stream>>>(isMax, total, n, inner, k, in.data, in.type,
            values.data, indices.data, indices.type, size);
    }
    return launchStatus("TopK kernel");
}

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createTopKCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("TopK kernel: no plan node");
    }
    return makeCudaFunctionKernel(setup, enqueueTopK);
}

} // namespace kiln::cuda
