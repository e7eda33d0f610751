// CPU reference kernel of ITopKLayer: the k largest (kMAX) or smallest (kMIN) elements along one axis, sorted, with
// their indices. Ties keep the lower index first; NaN counts as larger than every number. k is read from the output
// shape, which shape inference derived from the static k or from the k tensor (input 1).
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <type_traits>
#include <vector>

namespace kiln
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::TopKOperation;

Status topKError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (TopK): " + message);
}

//! One element of a slice: its value (double for floating-point storage, int64 for integers) and its index.
template <typename V>
struct Candidate
{
    V value;
    int64_t index;
};

template <typename V>
bool isNan(V v)
{
    if constexpr (std::is_floating_point_v<V>)
    {
        return std::isnan(v);
    }
    else
    {
        return false;
    }
}

//! Strict weak order "a comes before b" for kMAX: larger first (NaN largest), then lower index.
template <typename V>
bool beforeMax(Candidate<V> const& a, Candidate<V> const& b)
{
    bool const an = isNan(a.value);
    bool const bn = isNan(b.value);
    if (an != bn)
    {
        return an;
    }
    if (!an && a.value != b.value)
    {
        return a.value > b.value;
    }
    return a.index < b.index;
}

//! kMIN: smaller first (NaN last), then lower index.
template <typename V>
bool beforeMin(Candidate<V> const& a, Candidate<V> const& b)
{
    bool const an = isNan(a.value);
    bool const bn = isNan(b.value);
    if (an != bn)
    {
        return bn;
    }
    if (!an && a.value != b.value)
    {
        return a.value < b.value;
    }
    return a.index < b.index;
}

//! Comparison type of a storage type: exact int64 for integers, double for floating point.
template <typename T>
using CompareType = std::conditional_t<std::is_integral_v<T>, int64_t, double>;

template <typename T>
CompareType<T> toCompare(T v)
{
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
    {
        return static_cast<double>(static_cast<float>(v));
    }
    else
    {
        return static_cast<CompareType<T>>(v);
    }
}

template <typename T>
void topKSlices(T const* in, T* values, void* indices, DataType indicesType, TopKOperation op, int64_t outer,
    int64_t n, int64_t inner, int64_t k)
{
    using V = CompareType<T>;
    std::vector<Candidate<V>> row(static_cast<size_t>(n));
    for (int64_t o = 0; o < outer; ++o)
    {
        for (int64_t i = 0; i < inner; ++i)
        {
            int64_t const base = o * n * inner + i;
            for (int64_t j = 0; j < n; ++j)
            {
                row[static_cast<size_t>(j)] = Candidate<V>{toCompare(in[base + j * inner]), j};
            }
            auto const middle = row.begin() + static_cast<std::ptrdiff_t>(k);
            if (op == TopKOperation::kMAX)
            {
                std::partial_sort(row.begin(), middle, row.end(), beforeMax<V>);
            }
            else
            {
                std::partial_sort(row.begin(), middle, row.end(), beforeMin<V>);
            }
            int64_t const outBase = o * k * inner + i;
            for (int64_t j = 0; j < k; ++j)
            {
                int64_t const src = row[static_cast<size_t>(j)].index;
                int64_t const dst = outBase + j * inner;
                values[dst] = in[base + src * inner]; // copy the element itself (exact for every type)
                if (indicesType == DataType::kINT32)
                {
                    static_cast<int32_t*>(indices)[dst] = static_cast<int32_t>(src);
                }
                else
                {
                    static_cast<int64_t*>(indices)[dst] = src;
                }
            }
        }
    }
}

Status executeTopK(KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
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
    auto const op = static_cast<TopKOperation>(*opAttr);
    TensorView const& in = inputs[0];
    TensorView const& values = outputs[0];
    TensorView const& indices = outputs[1];
    int32_t const rank = in.dims.nbDims;
    int64_t const mask = *maskAttr;
    if (rank < 1 || rank > nvinfer1::Dims::MAX_DIMS || mask <= 0 || std::popcount(static_cast<uint64_t>(mask)) != 1
        || (mask >> rank) != 0)
    {
        return topKError(setup, "axes mask " + std::to_string(mask) + " does not name one axis of the input");
    }
    int32_t const axis = std::countr_zero(static_cast<uint64_t>(mask));
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
    Status status;
    bool const known = dispatchType(in.type, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>
            || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>)
        {
            topKSlices(static_cast<T const*>(in.data), static_cast<T*>(values.data), indices.data, indices.type, op,
                outer, n, inner, k);
        }
        else
        {
            status = topKError(setup, std::string("type ") + dataTypeName(in.type) + " is not supported");
        }
    });
    if (!known)
    {
        return topKError(setup, std::string("type ") + dataTypeName(in.type) + " is not supported");
    }
    return status;
}

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createTopKKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("TopK kernel: no plan node");
    }
    return makeFunctionKernel(setup, executeTopK);
}

} // namespace kiln
