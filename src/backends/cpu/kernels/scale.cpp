// CPU kernel of IScaleLayer: output = (input * scale + shift) ^ power, computed in float, with uniform,
// per-channel or per-element coefficients (weights slots 0 shift, 1 scale, 2 power; empty slots are identities).
#include "backends/common/scaleParams.h"
#include "backends/cpu/kernels/elementWiseCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::ScaleMode;

namespace
{

//! create: mode, channel axis and the present weights slots; reshape: the coefficient shape and the broadcast walk of
//! the input and the coefficients over the output.
class ScaleKernel final : public Kernel
{
public:
    ScaleKernel(KernelSetup const& setup, ScaleParams params)
        : mSetup(setup)
        , mParams(params)
    {
        // Operand 0 is the input; then each present weights slot (0 shift, 1 scale, 2 power).
        int32_t operand = 1;
        for (size_t s = 0; s < 3; ++s)
        {
            if (mSetup.weights[s].present())
            {
                mSlots[s] = &mSetup.weights[s];
                mOperandIndex[s] = operand++;
            }
        }
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_RETURN_IF_ERROR(scaleShapes(mSetup, mParams, inputs, outputs));
        std::vector<nvinfer1::Dims> operandDims{inputs[0].dims};
        for (WeightsView const* w : mSlots)
        {
            if (w != nullptr)
            {
                operandDims.push_back(mParams.coeffDims);
            }
        }
        auto walker = ew::BroadcastWalker::make(outputs[0].dims, operandDims);
        if (!walker.isOk())
        {
            return walker.status().withContext("Scale node '" + mSetup.node->name + "'");
        }
        mWalker = std::move(*walker);
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "Scale");
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        mWalker.forEachChunk([&](int64_t outOffset, int64_t const* offsets, int64_t const* strides, int64_t n) {
            float x[ew::kCHUNK];
            float c[ew::kCHUNK];
            ew::loadChunk(in.data, in.type, offsets[0], strides[0], n, x);
            if (WeightsView const* scale = mSlots[1]; scale != nullptr)
            {
                int32_t const k = mOperandIndex[1];
                ew::loadChunk(scale->data, scale->type, offsets[k], strides[k], n, c);
                for (int64_t i = 0; i < n; ++i)
                {
                    x[i] *= c[i];
                }
            }
            if (WeightsView const* shift = mSlots[0]; shift != nullptr)
            {
                int32_t const k = mOperandIndex[0];
                ew::loadChunk(shift->data, shift->type, offsets[k], strides[k], n, c);
                for (int64_t i = 0; i < n; ++i)
                {
                    x[i] += c[i];
                }
            }
            if (WeightsView const* power = mSlots[2]; power != nullptr)
            {
                int32_t const k = mOperandIndex[2];
                ew::loadChunk(power->data, power->type, offsets[k], strides[k], n, c);
                for (int64_t i = 0; i < n; ++i)
                {
                    x[i] = std::pow(x[i], c[i]);
                }
            }
            ew::storeChunk(out.data, out.type, outOffset, n, x);
        });
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    ScaleParams mParams;
    std::array<WeightsView const*, 3> mSlots{}; //!< present weights slots (into mSetup), else nullptr
    std::array<int32_t, 3> mOperandIndex{-1, -1, -1};
    bool mReady{false};
    ew::BroadcastWalker mWalker;
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createScaleKernel(KernelSetup const& setup)
{
    KILN_ASSIGN_OR_RETURN(ScaleParams const params, readScaleParams(setup));
    return std::unique_ptr<Kernel>(std::make_unique<ScaleKernel>(setup, params));
}

} // namespace kiln
