// Backend-neutral host-side logic of IActivationLayer kernels, shared by the CPU kernel
// (backends/cpu/kernels/activation.cpp) and the CUDA kernel (backends/cuda/kernels/activation.cu).
#include "backends/common/activationParams.h"
#include "backends/common/elementWiseChecks.h"
#include "backends/common/unaryParams.h"
#include "core/dataType.h"

#include <string>

namespace kiln
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;

Status checkActivationSetup(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 1, 1, "Activation"));
    Attributes const& attrs = setup.node->attrs;
    KILN_ASSIGN_OR_RETURN(int64_t const type, attrs.requireInt("type"));
    if (type < 0 || type >= nvinfer1::EnumMax<ActivationType>())
    {
        return invalidArgument("Activation node '" + setup.node->name + "': invalid activation type "
            + std::to_string(type));
    }
    KILN_RETURN_IF_ERROR(attrs.requireFloat("alpha").status());
    KILN_RETURN_IF_ERROR(attrs.requireFloat("beta").status());
    DataType const in = setup.inputTypes[0];
    bool const isRelu = static_cast<ActivationType>(type) == ActivationType::kRELU;
    bool const intRelu = isRelu && (in == DataType::kINT32 || in == DataType::kINT64);
    if ((!ew::isFloatKernelType(in) && !intRelu) || !ew::isKernelType(setup.outputTypes[0]))
    {
        return invalidArgument("Activation node '" + setup.node->name + "': unsupported types " + dataTypeName(in)
            + " -> " + dataTypeName(setup.outputTypes[0]));
    }
    return Status::ok();
}

namespace
{
ActivationParams activationAttributes(Attributes const& attrs)
{
    ActivationParams p;
    p.type = static_cast<ActivationType>(attrs.getInt("type"));
    p.alpha = static_cast<float>(attrs.getFloat("alpha"));
    p.beta = static_cast<float>(attrs.getFloat("beta"));
    return p;
}
} // namespace

StatusOr<ActivationParams> readActivationParams(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(checkActivationSetup(setup));
    return activationAttributes(setup.node->attrs);
}

StatusOr<ActivationParams> makeActivationParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_RETURN_IF_ERROR(checkUnaryViews(setup, inputs, outputs));
    return activationAttributes(setup.node->attrs);
}

} // namespace kiln
