// CPU kernel of ICastLayer: converts the input to the output type. Float to integer truncates toward zero and
// saturates (NaN gives 0); integer to integer wraps; to BOOL is value != 0; BOOL is read as 0 or 1.
#include "backends/cpu/kernels/elementWiseCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"

namespace kiln
{
using nvinfer1::DataType;

namespace
{

Status checkConvertTypes(KernelSetup const& setup, char const* kind)
{
    if (!ew::isKernelType(setup.inputTypes[0]) || !ew::isKernelType(setup.outputTypes[0]))
    {
        return invalidArgument(std::string(kind) + " node '" + setup.node->name + "': cannot convert "
            + dataTypeName(setup.inputTypes[0]) + " to " + dataTypeName(setup.outputTypes[0]));
    }
    return Status::ok();
}

} // namespace

StatusOr<std::unique_ptr<Kernel>> createCastKernel(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 1, 1, "Cast"));
    KILN_ASSIGN_OR_RETURN(int64_t const toType, setup.node->attrs.requireInt("toType"));
    if (!isValidDataType(static_cast<int32_t>(toType)) || !ew::isKernelType(static_cast<DataType>(toType)))
    {
        return invalidArgument("Cast node '" + setup.node->name + "': invalid target type " + std::to_string(toType));
    }
    KILN_RETURN_IF_ERROR(checkConvertTypes(setup, "Cast"));
    return std::unique_ptr<Kernel>(std::make_unique<ew::ConvertKernel>(setup, "Cast"));
}

} // namespace kiln
