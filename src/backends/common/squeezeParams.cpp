// Backend-neutral host-side logic of ISqueezeLayer / IUnsqueezeLayer kernels, shared by the CPU kernel
// (backends/cpu/kernels/squeeze.cpp) and the CUDA kernel (backends/cuda/kernels/concatenation.cu).
#include "backends/common/squeezeParams.h"
#include "core/dataType.h"

namespace kiln
{

namespace
{
Status squeezeError(KernelSetup const& setup)
{
    char const* kind = setup.node->kind == nvinfer1::LayerType::kSQUEEZE ? "Squeeze" : "Unsqueeze";
    return failedExecution("layer '" + setup.node->name + "' (" + kind
        + "): the output must hold the input's elements in the input's type");
}
} // namespace

StatusOr<int64_t> squeezeShapeBytes(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.empty() || outputs.size() != 1 || inputs[0].volume() != outputs[0].volume()
        || inputs[0].type != outputs[0].type)
    {
        return squeezeError(setup);
    }
    return byteSize(inputs[0].type, inputs[0].volume());
}

StatusOr<int64_t> squeezeCopyBytes(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.empty() || outputs.size() != 1 || !inputs[0].present() || !outputs[0].present())
    {
        return squeezeError(setup);
    }
    return squeezeShapeBytes(setup, inputs, outputs);
}

} // namespace kiln
