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

Status executeAssertion(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 1 || !outputs.empty())
    {
        return failedExecution("layer '" + setup.node->name + "' (Assertion): expected 1 input and no outputs, got "
            + std::to_string(inputs.size()) + " and " + std::to_string(outputs.size()));
    }
    TensorView const& cond = inputs[0];
    int64_t const n = cond.volume();
    if (n > 0 && cond.data == nullptr)
    {
        return failedExecution("layer '" + setup.node->name + "' (Assertion): the condition has no data");
    }
    auto const* bytes = static_cast<uint8_t const*>(cond.data);
    for (int64_t i = 0; i < n; ++i)
    {
        if (bytes[i] == 0)
        {
            return failedExecution(assertionFailureMessage(setup.node->name, setup.node->attrs.getString("message"))
                + " (element " + std::to_string(i) + " of the condition is false)");
        }
    }
    return Status::ok();
}

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createAssertionKernel(KernelSetup const& setup)
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
    return makeFunctionKernel(setup, executeAssertion);
}

} // namespace kiln
