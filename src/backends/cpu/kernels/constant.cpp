// CPU kernel of IConstantLayer: writes the weights (slot 0) to the output, converting when the builder chose an
// output type other than the weights' type.
#include "backends/cpu/kernels/elementWiseCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"

namespace kiln
{
using nvinfer1::DataType;

namespace
{

Status executeConstant(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_RETURN_IF_ERROR(ew::checkViews(setup, inputs, outputs, 0, 1));
    TensorView const& out = outputs[0];
    WeightsView const& w = setup.weights[0];
    if (w.count != out.volume())
    {
        return invalidArgument("Constant node '" + setup.node->name + "': " + std::to_string(w.count)
            + " weights for an output of " + std::to_string(out.volume()) + " elements " + ew::dimsToString(out.dims));
    }
    if (w.count > 0 && w.data == nullptr)
    {
        return internalError("Constant node '" + setup.node->name + "': the weights have no data");
    }
    ew::convertElements(w.data, w.type, out.data, out.type, w.count);
    return Status::ok();
}

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createConstantKernel(KernelSetup const& setup)
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
    return makeFunctionKernel(setup, executeConstant);
}

} // namespace kiln
