// CPU kernel of IParametricReLULayer: y = x >= 0 ? x : slope * x, the slope broadcast to the input; computed in
// float.
#include "backends/cpu/kernels/elementWiseCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"

namespace kiln
{
using nvinfer1::DataType;

namespace
{

//! reshape: the input and output dims and the broadcast walk of input and slope.
class ParametricReLUKernel final : public Kernel
{
public:
    explicit ParametricReLUKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_RETURN_IF_ERROR(ew::checkViewCounts(mSetup, inputs, outputs, 2, 1));
        KILN_RETURN_IF_ERROR(ew::checkSameDims(mSetup, inputs[0].dims, outputs[0].dims, "input and output"));
        auto walker = ew::BroadcastWalker::make(outputs[0].dims, {inputs[0].dims, inputs[1].dims});
        if (!walker.isOk())
        {
            return walker.status().withContext("ParametricReLU node '" + mSetup.node->name + "'");
        }
        mWalker = std::move(*walker);
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "ParametricReLU");
        }
        TensorView const& in = inputs[0];
        TensorView const& slope = inputs[1];
        TensorView const& out = outputs[0];
        mWalker.forEachChunk([&](int64_t outOffset, int64_t const* offsets, int64_t const* strides, int64_t n) {
            float x[ew::kCHUNK];
            float s[ew::kCHUNK];
            ew::loadChunk(in.data, in.type, offsets[0], strides[0], n, x);
            ew::loadChunk(slope.data, slope.type, offsets[1], strides[1], n, s);
            for (int64_t i = 0; i < n; ++i)
            {
                x[i] = x[i] >= 0.F ? x[i] : s[i] * x[i];
            }
            ew::storeChunk(out.data, out.type, outOffset, n, x);
        });
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    bool mReady{false};
    ew::BroadcastWalker mWalker;
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createParametricReLUKernel(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 2, 1, "ParametricReLU"));
    for (DataType t : setup.inputTypes)
    {
        if (!ew::isFloatKernelType(t))
        {
            return invalidArgument("ParametricReLU node '" + setup.node->name + "': unsupported input type "
                + dataTypeName(t));
        }
    }
    if (!ew::isKernelType(setup.outputTypes[0]))
    {
        return invalidArgument("ParametricReLU node '" + setup.node->name + "': unsupported output type "
            + dataTypeName(setup.outputTypes[0]));
    }
    return std::unique_ptr<Kernel>(std::make_unique<ParametricReLUKernel>(setup));
}

} // namespace kiln
