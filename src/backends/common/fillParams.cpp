// Backend-neutral host-side logic of IFillLayer kernels, shared by the CPU kernel (backends/cpu/kernels/fill.cpp)
// and the CUDA kernel (backends/cuda/kernels/fill.cu).
#include "backends/common/fillParams.h"

#include <string>

namespace kiln
{
using nvinfer1::FillOperation;

bool fillInputPresent(KernelSetup const& setup, std::vector<TensorView> const& inputs, size_t slot)
{
    return inputs.size() > slot && setup.inputPresent.size() > slot && setup.inputPresent[slot];
}

StatusOr<FillParams> readFillParams(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("fill: no plan node");
    }
    Attributes const& attrs = setup.node->attrs;
    KILN_ASSIGN_OR_RETURN(int64_t const opValue, attrs.requireInt("op"));
    FillParams p;
    KILN_ASSIGN_OR_RETURN(p.seed, attrs.requireInt("seed"));
    if (opValue < 0 || opValue >= nvinfer1::EnumMax<FillOperation>())
    {
        return invalidArgument("fill: invalid operation " + std::to_string(opValue));
    }
    p.op = static_cast<FillOperation>(opValue);
    return p;
}

Status fillShapes(KernelSetup const& setup, FillParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, bool (*outTypeOk)(nvinfer1::DataType))
{
    if (outputs.size() != 1)
    {
        return internalError("fill: expected one output");
    }
    TensorView const& out = outputs[0];
    p.volume = out.volume();
    p.dynamic = false;
    if (p.volume == 0)
    {
        return Status::ok();
    }
    if (!outTypeOk(out.type))
    {
        return internalError("fill: missing output buffer or unsupported output type");
    }
    p.dynamic = fillInputPresent(setup, inputs, 1) && fillInputPresent(setup, inputs, 2);
    if (p.dynamic && (inputs[1].volume() < 1 || (p.op != FillOperation::kLINSPACE && inputs[2].volume() < 1)))
    {
        return invalidArgument("fill: the alpha or beta input is empty");
    }
    return Status::ok();
}

StatusOr<FillParams> makeFillParams(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, bool (*outTypeOk)(nvinfer1::DataType))
{
    if (outputs.size() != 1 || setup.node == nullptr)
    {
        return internalError("fill: expected one output");
    }
    KILN_ASSIGN_OR_RETURN(FillParams p, readFillParams(setup));
    if (outputs[0].volume() != 0 && outputs[0].data == nullptr)
    {
        return internalError("fill: missing output buffer or unsupported output type");
    }
    KILN_RETURN_IF_ERROR(fillShapes(setup, p, inputs, outputs, outTypeOk));
    return p;
}

} // namespace kiln
