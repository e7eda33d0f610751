// Host-side logic of ILRNLayer kernels: see lrnParams.h.
#include "backends/common/lrnParams.h"

#include "core/dataType.h"

namespace kiln
{
using nvinfer1::DataType;

Status lrnError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (LRN): " + message);
}

StatusOr<LRNParams> readLRNParams(KernelSetup const& setup)
{
    Attributes const& attrs = setup.node->attrs;
    int64_t const window = attrs.getInt("window", 0);
    if (window < 1 || window % 2 == 0)
    {
        return lrnError(setup, "invalid window size " + std::to_string(window));
    }
    LRNParams p;
    p.half = (window - 1) / 2;
    p.alphaOverN = attrs.getFloat("alpha") / static_cast<double>(window);
    p.beta = attrs.getFloat("beta");
    p.k = attrs.getFloat("k");
    return p;
}

Status lrnShapes(KernelSetup const& setup, LRNParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 1 || outputs.size() != 1)
    {
        return lrnError(setup, "expects one input and one output");
    }
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    int32_t const rank = in.dims.nbDims;
    if (rank < 3 || out.dims.nbDims != rank || out.type != in.type)
    {
        return lrnError(setup, "input must have rank >= 3 and the output its shape and type");
    }
    int32_t const axis = rank - 3;
    p.outer = 1;
    p.inner = 1;
    for (int32_t d = 0; d < rank; ++d)
    {
        if (out.dims.d[d] != in.dims.d[d])
        {
            return lrnError(setup, "output shape does not match the input");
        }
        if (d < axis)
        {
            p.outer *= in.dims.d[d];
        }
        else if (d > axis)
        {
            p.inner *= in.dims.d[d];
        }
    }
    p.channels = in.dims.d[axis];
    p.empty = p.outer * p.inner * p.channels == 0;
    if (!p.empty && in.type != DataType::kFLOAT && in.type != DataType::kHALF && in.type != DataType::kBF16)
    {
        return lrnError(setup, std::string("type ") + dataTypeName(in.type) + " is not supported");
    }
    return Status::ok();
}

StatusOr<LRNParams> makeLRNParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 1 || outputs.size() != 1 || !inputs[0].present() || !outputs[0].present())
    {
        return lrnError(setup, "expects one input and one output");
    }
    KILN_ASSIGN_OR_RETURN(LRNParams p, readLRNParams(setup));
    KILN_RETURN_IF_ERROR(lrnShapes(setup, p, inputs, outputs));
    return p;
}

} // namespace kiln
