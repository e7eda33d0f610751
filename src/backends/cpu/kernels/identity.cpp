// CPU kernel of IIdentityLayer: copies the input, converting it when the builder gave the output another type
// (a weakly typed network's setOutputType, TensorRT's older way to cast), with the conversions of ICastLayer.
// Nodes with attribute "reformat" = 1 (inserted by the builder around plugins) also change formats and INT8
// scales: see identityReformat.h.
#include "backends/cpu/kernels/elementWiseCommon.h"
#include "backends/cpu/kernels/identityReformat.h"
#include "backends/cpu/kernels/kernelFactories.h"

namespace kiln
{

StatusOr<std::unique_ptr<Kernel>> createIdentityKernel(KernelSetup const& setup)
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
    return std::unique_ptr<Kernel>(std::make_unique<ew::ConvertKernel>(setup, "Identity"));
}

} // namespace kiln
