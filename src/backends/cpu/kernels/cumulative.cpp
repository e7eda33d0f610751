// CPU reference kernel of ICumulativeLayer (kSUM): y[j] = sum of x over 0..j (forward inclusive), 0..j-1 (forward
// exclusive), j..n-1 (reverse inclusive) or j+1..n-1 (reverse exclusive) along the axis given by input 1. Floating
// point sums accumulate in double and integer sums in int64 (INT32 results wrap as the stored type does).
#include "backends/common/cumulativeParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <type_traits>

namespace kiln
{
namespace
{
using nvinfer1::CumulativeOperation;
using nvinfer1::DataType;

//! The storage types the kernel sums.
template <typename T>
constexpr bool kIS_CUMULATIVE_TYPE = std::is_same_v<T, float> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>
    || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>;

template <typename T>
void cumulativeSum(T const* in, T* out, int64_t outer, int64_t n, int64_t inner, bool exclusive, bool reverse)
{
    using Acc = std::conditional_t<std::is_integral_v<T>, int64_t, double>;
    for (int64_t o = 0; o < outer; ++o)
    {
        for (int64_t i = 0; i < inner; ++i)
        {
            int64_t const base = o * n * inner + i;
            Acc sum = 0;
            for (int64_t step = 0; step < n; ++step)
            {
                int64_t const j = reverse ? n - 1 - step : step;
                int64_t const at = base + j * inner;
                Acc const x = static_cast<Acc>(static_cast<std::conditional_t<std::is_integral_v<T>, T, float>>(in[at]));
                if (exclusive)
                {
                    out[at] = static_cast<T>(sum);
                    sum += x;
                }
                else
                {
                    sum += x;
                    out[at] = static_cast<T>(sum);
                }
            }
        }
    }
}

//! create: operation, direction and types; reshape: the axis (when input 1 has an evaluated value) and the split
//! around it; an axis known only from its data is read, and the split derived, at each run.
class CumulativeKernel final : public Kernel
{
public:
    CumulativeKernel(KernelSetup const& setup, CumulativeParams params)
        : mSetup(setup)
        , mParams(params)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mState = State::kNONE;
        if (inputs.size() != 2 || outputs.size() != 1)
        {
            return cumulativeError(mSetup, "expects data and axis inputs and one output");
        }
        KILN_RETURN_IF_ERROR(checkCumulativeAxisView(mSetup, inputs[1]));
        if (inputs[1].values == nullptr)
        {
            mState = State::kAXIS_FROM_DATA;
            return Status::ok();
        }
        KILN_RETURN_IF_ERROR(cumulativeShapes(mSetup, mParams, inputs[1].values[0], inputs, outputs));
        mState = State::kREADY;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (mState == State::kNONE)
        {
            return notReshaped(mSetup, "Cumulative");
        }
        if (mState == State::kAXIS_FROM_DATA)
        {
            TensorView const& axisView = inputs[1];
            KILN_RETURN_IF_ERROR(
                cumulativeShapes(mSetup, mParams, loadInt(axisView.data, axisView.type, 0), inputs, outputs));
        }
        CumulativeParams const& p = mParams;
        if (p.outer * p.inner * p.n == 0)
        {
            return Status::ok();
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        dispatchType(in.type, [&](auto tag) {
            using T = decltype(tag);
            if constexpr (kIS_CUMULATIVE_TYPE<T>)
            {
                cumulativeSum(static_cast<T const*>(in.data), static_cast<T*>(out.data), p.outer, p.n, p.inner,
                    p.exclusive, p.reverse);
            }
        });
        return Status::ok();
    }

private:
    enum class State
    {
        kNONE,           //!< not reshaped
        kREADY,          //!< the axis was known at reshape
        kAXIS_FROM_DATA, //!< the axis is read from input 1's data at each run
    };

    KernelSetup mSetup;
    CumulativeParams mParams;
    State mState{State::kNONE};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createCumulativeKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Cumulative kernel: no plan node");
    }
    if (setup.inputTypes.size() != 2 || setup.outputTypes.size() != 1 || !setup.inputPresent[0]
        || !setup.inputPresent[1])
    {
        return cumulativeError(setup, "expects data and axis inputs and one output");
    }
    KILN_ASSIGN_OR_RETURN(CumulativeParams const params, readCumulativeParams(setup));
    bool supported = false;
    dispatchType(setup.inputTypes[0], [&](auto tag) { supported = kIS_CUMULATIVE_TYPE<decltype(tag)>; });
    if (!supported)
    {
        return cumulativeError(setup, std::string("type ") + dataTypeName(setup.inputTypes[0]) + " is not supported");
    }
    return std::unique_ptr<Kernel>(std::make_unique<CumulativeKernel>(setup, params));
}

} // namespace kiln
