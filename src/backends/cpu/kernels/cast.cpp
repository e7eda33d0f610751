// CPU kernel of ICastLayer: converts the input to the output type. Float to integer truncates toward zero and
// saturates (NaN gives 0); integer to integer wraps; to BOOL is value != 0; BOOL is read as 0 or 1.
#include "backends/cpu/kernels/elementWiseCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"

namespace kiln
{
using nvinfer1::DataType;

namespace
{

Status executeConvert(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_RETURN_IF_ERROR(ew::checkViews(setup, inputs, outputs, 1, 1));
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    KILN_RETURN_IF_ERROR(ew::checkSameDims(setup, in.dims, out.dims, "input and output"));
    ew::convertElements(in.data, in.type, out.data, out.type, out.volume());
    return Status::ok();
}

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

StatusOr<std::unique_ptr<CpuKernel>> createCastKernel(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 1, 1, "Cast"));
    KILN_ASSIGN_OR_RETURN(int64_t const toType, setup.node->attrs.requireInt("toType"));
    if (!isValidDataType(static_cast<int32_t>(toType)) || !ew::isKernelType(static_cast<DataType>(toType)))
    {
        return invalidArgument("Cast node '" + setup.node->name + "': invalid target type " + std::to_string(toType));
    }
    KILN_RETURN_IF_ERROR(checkConvertTypes(setup, "Cast"));
    return makeFunctionKernel(setup, executeConvert);
}

} // namespace kiln
