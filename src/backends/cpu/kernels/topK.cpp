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
    int64_t n, int64_t inner, int64_t k, std::vector<Candidate<CompareType<T>>>& row)
{
    using V = CompareType<T>;
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

template <typename T>
constexpr bool kIS_TOPK_TYPE = std::is_same_v<T, float> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>
    || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>;

//! create: operation and axis; reshape: the split, k and the slice scratch; run: a partial sort per slice.
class TopKKernel final : public Kernel
{
public:
    TopKKernel(KernelSetup const& setup, TopKParams params)
        : mSetup(setup)
        , mParams(params)
        , mIntegral(!isFloatType(setup.inputTypes[0]))
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_RETURN_IF_ERROR(topKShapes(mSetup, mParams, inputs, outputs));
        // The row scratch only when there are rows (an empty tensor's axis may still be huge).
        size_t const row = mParams.outer * mParams.inner == 0 ? 0 : static_cast<size_t>(mParams.n);
        if (mIntegral)
        {
            mIntRow.resize(row);
        }
        else
        {
            mFloatRow.resize(row);
        }
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "TopK");
        }
        TopKParams const& p = mParams;
        if (p.outer * p.inner * p.k == 0)
        {
            return Status::ok();
        }
        TensorView const& in = inputs[0];
        TensorView const& values = outputs[0];
        TensorView const& indices = outputs[1];
        dispatchType(in.type, [&](auto tag) {
            using T = decltype(tag);
            if constexpr (kIS_TOPK_TYPE<T>)
            {
                auto& row = [this]() -> auto& {
                    if constexpr (std::is_integral_v<T>)
                    {
                        return mIntRow;
                    }
                    else
                    {
                        return mFloatRow;
                    }
                }();
                topKSlices(static_cast<T const*>(in.data), static_cast<T*>(values.data), indices.data, indices.type,
                    p.op, p.outer, p.n, p.inner, p.k, row);
            }
        });
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    TopKParams mParams;
    bool mIntegral;
    std::vector<Candidate<double>> mFloatRow; //!< one slice (floating-point storage)
    std::vector<Candidate<int64_t>> mIntRow;  //!< one slice (integer storage)
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createTopKKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("TopK kernel: no plan node");
    }
    if (setup.inputTypes.empty() || setup.outputTypes.size() != 2 || !setup.inputPresent[0])
    {
        return topKError(setup, "expects a data input (and optionally k) and two outputs");
    }
    KILN_ASSIGN_OR_RETURN(TopKParams const params, readTopKParams(setup));
    bool supported = false;
    dispatchType(setup.inputTypes[0], [&](auto tag) { supported = kIS_TOPK_TYPE<decltype(tag)>; });
    if (!supported)
    {
        return topKError(setup, std::string("type ") + dataTypeName(setup.inputTypes[0]) + " is not supported");
    }
    return std::unique_ptr<Kernel>(std::make_unique<TopKKernel>(setup, params));
}

} // namespace kiln
