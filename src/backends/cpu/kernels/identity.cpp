// CPU kernel of IIdentityLayer: copies the input, converting it when the builder gave the output another type
// (a weakly typed network's setOutputType, TensorRT's older way to cast), with the conversions of ICastLayer.
// Nodes with attribute "reformat" = 1 (inserted by the builder around plugins) also change formats and INT8
// scales: see identityReformat.h.
#include "backends/common/unaryParams.h"
#include "backends/cpu/kernels/elementWiseCommon.h"
#include "backends/cpu/kernels/identityReformat.h"
#include "backends/cpu/kernels/kernelFactories.h"

namespace kiln
{

namespace
{

Status executeIdentity(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_RETURN_IF_ERROR(checkUnaryViews(setup, inputs, outputs));
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    if (in.data == out.data && in.type == out.type)
    {
        return Status::ok(); // the builder aliased the output onto the input
    }
    ew::convertElements(in.data, in.type, out.data, out.type, out.volume());
    return Status::ok();
}

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createIdentityKernel(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 1, 1, "Identity"));
    if (setup.node->attrs.getInt("reformat", 0) == 1)
    {
        return createReformatKernel(setup);
    }
    if (!ew::isKernelType(setup.inputTypes[0]) || !ew::isKernelType(setup.outputTypes[0]))
    {
        return invalidArgument("Identity node '" + setup.node->name + "': cannot convert "
            + dataTypeName(setup.inputTypes[0]) + " to " + dataTypeName(setup.outputTypes[0]));
    }
    return makeFunctionKernel(setup, executeIdentity);
}

} // namespace kiln
