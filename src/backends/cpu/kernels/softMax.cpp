// CPU reference kernel of ISoftMaxLayer: numerically stable softmax (max subtracted) along one axis; FP16/BF16
// storage computes in float, sums accumulate in double.
#include "backends/common/softMaxParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <bit>
#include <cmath>
#include <type_traits>
#include <vector>

namespace kiln
{
using nvinfer1::DataType;

namespace
{

template <typename T>
constexpr bool kIS_FLOAT_STORAGE = std::is_same_v<T, float> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <typename T>
void softMaxSlices(T const* in, T* out, int64_t outer, int64_t n, int64_t inner, std::vector<float>& row)
{
    for (int64_t o = 0; o < outer; ++o)
    {
        for (int64_t i = 0; i < inner; ++i)
        {
            int64_t const base = o * n * inner + i;
            float maxValue = -INFINITY;
            for (int64_t j = 0; j < n; ++j)
            {
                float const x = static_cast<float>(in[base + j * inner]);
                row[static_cast<size_t>(j)] = x;
                // NaN propagates through the sum below; keep the max finite-or-inf for stability.
                maxValue = x > maxValue ? x : maxValue;
            }
            double sum = 0.0;
            for (int64_t j = 0; j < n; ++j)
            {
                float const e = std::exp(row[static_cast<size_t>(j)] - maxValue);
                row[static_cast<size_t>(j)] = e;
                sum += static_cast<double>(e);
            }
            float const scale = static_cast<float>(1.0 / sum);
            for (int64_t j = 0; j < n; ++j)
            {
                out[base + j * inner] = T(row[static_cast<size_t>(j)] * scale);
            }
        }
    }
}

//! create: the axis (and the storage type, FLOAT/HALF/BF16); reshape: outer x n x inner and the row scratch.
class SoftMaxKernel final : public Kernel
{
public:
    SoftMaxKernel(KernelSetup const& setup, int32_t axis)
        : mSetup(setup)
        , mAxis(axis)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_ASSIGN_OR_RETURN(mSplit, softMaxShapes(mSetup, mAxis, inputs, outputs));
        mRow.resize(static_cast<size_t>(mSplit.n));
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "SoftMax");
        }
        if (mSplit.outer * mSplit.n * mSplit.inner == 0)
        {
            return Status::ok();
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        dispatchType(in.type, [&](auto tag) {
            using T = decltype(tag);
            if constexpr (kIS_FLOAT_STORAGE<T>)
            {
                softMaxSlices(static_cast<T const*>(in.data), static_cast<T*>(out.data), mSplit.outer, mSplit.n,
                    mSplit.inner, mRow);
            }
        });
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    int32_t mAxis;
    SoftMaxParams mSplit;
    std::vector<float> mRow; //!< one slice along the axis
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createSoftMaxKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("SoftMax kernel: no plan node");
    }
    if (setup.inputTypes.size() != 1 || setup.outputTypes.size() != 1)
    {
        return softMaxError(setup, "expects one input and one output");
    }
    DataType const type = setup.inputTypes[0];
    if (type != DataType::kFLOAT && type != DataType::kHALF && type != DataType::kBF16)
    {
        return softMaxError(setup, std::string("type ") + dataTypeName(type) + " is not supported");
    }
    KILN_ASSIGN_OR_RETURN(int32_t const axis, readSoftMaxAxis(setup, setup.inputRanks[0]));
    return std::unique_ptr<Kernel>(std::make_unique<SoftMaxKernel>(setup, axis));
}

} // namespace kiln
