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

StatusOr<FillParams> makeFillParams(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, bool (*outTypeOk)(nvinfer1::DataType))
{
    if (outputs.size() != 1 || setup.node == nullptr)
    {
        return internalError("fill: expected one output");
    }
    Attributes const& attrs = setup.node->attrs;
    TensorView const& out = outputs[0];
    KILN_ASSIGN_OR_RETURN(int64_t const opValue, attrs.requireInt("op"));
    FillParams p;
    KILN_ASSIGN_OR_RETURN(p.seed, attrs.requireInt("seed"));
    if (opValue < 0 || opValue >= nvinfer1::EnumMax<FillOperation>())
    {
        return invalidArgument("fill: invalid operation " + std::to_string(opValue));
    }
    p.op = static_cast<FillOperation>(opValue);
    p.volume = out.volume();
    if (p.volume == 0)
    {
        return p;
    }
    if (out.data == nullptr || !outTypeOk(out.type))
    {
        return internalError("fill: missing output buffer or unsupported output type");
    }
    p.dynamic = fillInputPresent(setup, inputs, 1) && fillInputPresent(setup, inputs, 2);
    if (p.dynamic && (inputs[1].volume() < 1 || (p.op != FillOperation::kLINSPACE && inputs[2].volume() < 1)))
    {
        return invalidArgument("fill: the alpha or beta input is empty");
    }
    return p;
}

} // namespace kiln
