// CPU reference kernel of IReduceLayer: kSUM, kPROD, kMAX, kMIN, kAVG over any axes mask. Floating-point storage
// accumulates in double (NaN propagates through kMAX/kMIN); INT32/INT64 compute exactly with two's-complement
// wrap-around, kAVG truncating toward zero. Empty reductions give TensorRT's identities (0, 1, lowest, highest; kAVG
// gives NaN for floats and 0 for integers).
#include "backends/common/reduceParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

namespace kiln
{
namespace
{
using nvinfer1::ReduceOperation;

struct ReducePlan
{
    int32_t rank{0};
    int64_t inVolume{1};
    int64_t outVolume{1};
    int64_t count{1};                 // elements combined into each output
    std::vector<int64_t> extents;     // input extents
    std::vector<int64_t> outStrides;  // per input dimension; 0 for reduced axes
};

template <typename Acc, typename T, typename Combine>
void accumulate(ReducePlan const& plan, T const* in, std::vector<Acc>& acc, Combine combine)
{
    std::vector<int64_t> coord(static_cast<size_t>(plan.rank), 0);
    int64_t o = 0;
    for (int64_t flat = 0; flat < plan.inVolume; ++flat)
    {
        acc[static_cast<size_t>(o)] = combine(acc[static_cast<size_t>(o)], in[flat]);
        // Odometer over the input coordinates, keeping the output offset in step.
        for (int32_t d = plan.rank - 1; d >= 0; --d)
        {
            size_t const ds = static_cast<size_t>(d);
            o += plan.outStrides[ds];
            if (++coord[ds] < plan.extents[ds])
            {
                break;
            }
            o -= plan.outStrides[ds] * coord[ds];
            coord[ds] = 0;
        }
    }
}

template <typename T>
void reduceFloat(ReducePlan const& plan, ReduceOperation op, T const* in, T* out)
{
    double identity = 0.0;
    switch (op)
    {
    case ReduceOperation::kSUM:
    case ReduceOperation::kAVG: identity = 0.0; break;
    case ReduceOperation::kPROD: identity = 1.0; break;
    case ReduceOperation::kMAX: identity = -INFINITY; break;
    case ReduceOperation::kMIN: identity = INFINITY; break;
    default: break;
    }
    std::vector<double> acc(static_cast<size_t>(plan.outVolume), identity);
    switch (op)
    {
    case ReduceOperation::kSUM:
    case ReduceOperation::kAVG:
        accumulate(plan, in, acc, [](double a, T x) { return a + static_cast<double>(static_cast<float>(x)); });
        break;
    case ReduceOperation::kPROD:
        accumulate(plan, in, acc, [](double a, T x) { return a * static_cast<double>(static_cast<float>(x)); });
        break;
    case ReduceOperation::kMAX:
        accumulate(plan, in, acc, [](double a, T x) {
            double const v = static_cast<double>(static_cast<float>(x));
            return (std::isnan(a) || std::isnan(v)) ? NAN : (v > a ? v : a);
        });
        break;
    case ReduceOperation::kMIN:
        accumulate(plan, in, acc, [](double a, T x) {
            double const v = static_cast<double>(static_cast<float>(x));
            return (std::isnan(a) || std::isnan(v)) ? NAN : (v < a ? v : a);
        });
        break;
    default: break;
    }
    for (int64_t i = 0; i < plan.outVolume; ++i)
    {
        double v = acc[static_cast<size_t>(i)];
        if (op == ReduceOperation::kAVG)
        {
            v = plan.count == 0 ? NAN : v / static_cast<double>(plan.count);
        }
        out[i] = T(static_cast<float>(v));
    }
}

template <typename T>
void reduceInt(ReducePlan const& plan, ReduceOperation op, T const* in, T* out)
{
    using U = std::make_unsigned_t<T>;
    T identity = 0;
    switch (op)
    {
    case ReduceOperation::kPROD: identity = 1; break;
    case ReduceOperation::kMAX: identity = std::numeric_limits<T>::lowest(); break;
    case ReduceOperation::kMIN: identity = std::numeric_limits<T>::max(); break;
    default: identity = 0; break;
    }
    if (op == ReduceOperation::kAVG)
    {
        // Sum exactly in 64 bits (INT64 sums that overflow wrap), then divide.
        std::vector<int64_t> acc(static_cast<size_t>(plan.outVolume), 0);
        accumulate(plan, in, acc, [](int64_t a, T x) {
            return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(static_cast<int64_t>(x)));
        });
        for (int64_t i = 0; i < plan.outVolume; ++i)
        {
            out[i] = plan.count == 0 ? T(0) : static_cast<T>(acc[static_cast<size_t>(i)] / plan.count);
        }
        return;
    }
    std::vector<T> acc(static_cast<size_t>(plan.outVolume), identity);
    switch (op)
    {
    case ReduceOperation::kSUM:
        accumulate(plan, in, acc, [](T a, T x) { return static_cast<T>(static_cast<U>(a) + static_cast<U>(x)); });
        break;
    case ReduceOperation::kPROD:
        accumulate(plan, in, acc, [](T a, T x) { return static_cast<T>(static_cast<U>(a) * static_cast<U>(x)); });
        break;
    case ReduceOperation::kMAX: accumulate(plan, in, acc, [](T a, T x) { return x > a ? x : a; }); break;
    case ReduceOperation::kMIN: accumulate(plan, in, acc, [](T a, T x) { return x < a ? x : a; }); break;
    default: break;
    }
    for (int64_t i = 0; i < plan.outVolume; ++i)
    {
        out[i] = acc[static_cast<size_t>(i)];
    }
}

Status executeReduce(KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_ASSIGN_OR_RETURN(ReduceParams const p, makeReduceParams(setup, inputs, outputs));
    ReduceOperation const op = p.op;
    int64_t const mask = p.mask;
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    ReducePlan plan;
    plan.rank = p.rank;
    plan.inVolume = p.inVolume;
    plan.outVolume = p.outVolume;
    plan.count = p.count;
    plan.extents.assign(in.dims.d, in.dims.d + p.rank);
    plan.outStrides.assign(static_cast<size_t>(plan.rank), 0);
    int64_t stride = 1;
    for (int32_t d = plan.rank - 1; d >= 0; --d)
    {
        if (((mask >> d) & 1) == 0)
        {
            plan.outStrides[static_cast<size_t>(d)] = stride;
            stride *= plan.extents[static_cast<size_t>(d)];
        }
    }
    if (plan.outVolume == 0)
    {
        return Status::ok();
    }
    Status status;
    bool const known = dispatchType(in.type, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
        {
            reduceFloat(plan, op, static_cast<T const*>(in.data), static_cast<T*>(out.data));
        }
        else if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>)
        {
            reduceInt(plan, op, static_cast<T const*>(in.data), static_cast<T*>(out.data));
        }
        else
        {
            status = reduceError(setup, std::string("type ") + dataTypeName(in.type) + " is not supported");
        }
    });
    if (!known)
    {
        return reduceError(setup, std::string("type ") + dataTypeName(in.type) + " is not supported");
    }
    return status;
}

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createReduceKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Reduce kernel: no plan node");
    }
    return makeFunctionKernel(setup, executeReduce);
}

} // namespace kiln
