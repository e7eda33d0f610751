// CPU kernel of IAssertionLayer: fails the execution, with the layer's message and name, when any element of the
// BOOL condition (one byte per element) is false. Conditions with symbolically known values never reach it: shape
// inference turned them into shape constraints (assertionLayer.cpp).
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"
#include "network/layers/assertionLayer.h"

namespace kiln
{
namespace
{

//! create: the layer's message; reshape: the condition's element count; run: the first false element fails.
class AssertionKernel final : public Kernel
{
public:
    explicit AssertionKernel(KernelSetup const& setup)
        : mSetup(setup)
        , mMessage(setup.node->attrs.getString("message"))
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        if (inputs.size() != 1 || !outputs.empty())
        {
            return failedExecution("layer '" + mSetup.node->name + "' (Assertion): expected 1 input and no outputs, got "
                + std::to_string(inputs.size()) + " and " + std::to_string(outputs.size()));
        }
        mVolume = inputs[0].volume();
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const&, RunContext const&) override
    {
        if (mVolume < 0)
        {
            return notReshaped(mSetup, "Assertion");
        }
        auto const* bytes = static_cast<uint8_t const*>(inputs[0].data);
        for (int64_t i = 0; i < mVolume; ++i)
        {
            if (bytes[i] == 0)
            {
                return failedExecution(assertionFailureMessage(mSetup.node->name, mMessage) + " (element "
                    + std::to_string(i) + " of the condition is false)");
            }
        }
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    std::string mMessage;
    int64_t mVolume{-1}; //!< condition elements; -1 until a successful reshape
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createAssertionKernel(KernelSetup const& setup)
{
    if (setup.inputTypes.size() != 1 || !setup.outputTypes.empty())
    {
        return invalidArgument("Assertion node '" + setup.node->name + "': expected 1 input and no outputs");
    }
    if (setup.inputTypes[0] != nvinfer1::DataType::kBOOL)
    {
        return invalidArgument("Assertion node '" + setup.node->name + "': condition has type "
            + dataTypeName(setup.inputTypes[0]) + "; it must be BOOL");
    }
    return std::unique_ptr<Kernel>(std::make_unique<AssertionKernel>(setup));
}

} // namespace kiln
