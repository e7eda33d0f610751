// CPU kernel of IConstantLayer: writes the weights (slot 0) to the output, converting when the builder chose an
// output type other than the weights' type.
#include "backends/cpu/kernels/elementWiseCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"

namespace kiln
{
using nvinfer1::DataType;

namespace
{

//! create: the weights (checked by the factory); reshape: the output holds exactly the weights' elements.
class ConstantKernel final : public Kernel
{
public:
    explicit ConstantKernel(KernelSetup const& setup)
        : mSetup(setup)
        , mWeights(setup.weights[0])
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_RETURN_IF_ERROR(ew::checkViewCounts(mSetup, inputs, outputs, 0, 1));
        TensorView const& out = outputs[0];
        if (mWeights.count != out.volume())
        {
            return invalidArgument("Constant node '" + mSetup.node->name + "': " + std::to_string(mWeights.count)
                + " weights for an output of " + std::to_string(out.volume()) + " elements "
                + ew::dimsToString(out.dims));
        }
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const&, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "Constant");
        }
        ew::convertElements(mWeights.data, mWeights.type, outputs[0].data, outputs[0].type, mWeights.count);
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    WeightsView mWeights;
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createConstantKernel(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 0, 1, "Constant"));
    if (setup.weights.empty())
    {
        return invalidArgument("Constant node '" + setup.node->name + "': missing weights slot");
    }
    WeightsView const& w = setup.weights[0];
    if (w.count < 0 || (w.count > 0 && (w.data == nullptr || !ew::isKernelType(w.type))))
    {
        return invalidArgument("Constant node '" + setup.node->name + "': invalid weights (type "
            + dataTypeName(w.type) + ", count " + std::to_string(w.count) + ")");
    }
    if (!ew::isKernelType(setup.outputTypes[0]))
    {
        return invalidArgument("Constant node '" + setup.node->name + "': unsupported output type "
            + dataTypeName(setup.outputTypes[0]));
    }
    return std::unique_ptr<Kernel>(std::make_unique<ConstantKernel>(setup));
}

} // namespace kiln
