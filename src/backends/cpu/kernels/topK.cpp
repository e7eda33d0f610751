// CPU reference kernel of ITopKLayer: the k largest (kMAX) or smallest (kMIN) elements along one axis, sorted, with
// their indices. Ties keep the lower index first; NaN counts as larger than every number. k is read from the output
// shape, which shape inference derived from the static k or from the k tensor (input 1).
#include "backends/common/topKParams.h"
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
    KILN_ASSIGN_OR_RETURN(TopKParams const p, makeTopKParams(setup, inputs, outputs));
    TensorView const& in = inputs[0];
    TensorView const& values = outputs[0];
    TensorView const& indices = outputs[1];
    TopKOperation const op = p.op;
    int64_t const k = p.k;
    int64_t const n = p.n;
    int64_t const outer = p.outer;
    int64_t const inner = p.inner;
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
