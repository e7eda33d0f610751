// Backend-neutral host-side logic of IReduceLayer kernels, shared by the CPU kernel (backends/cpu/kernels/reduce.cpp)
// and the CUDA kernel (backends/cuda/kernels/reduce.cu).
#include "backends/common/reduceParams.h"

namespace kiln
{
using nvinfer1::ReduceOperation;

Status reduceError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (Reduce): " + message);
}

StatusOr<ReduceParams> readReduceParams(KernelSetup const& setup)
{
    Attributes const& attrs = setup.node->attrs;
    StatusOr<int64_t> opAttr = attrs.requireInt("operation");
    StatusOr<int64_t> maskAttr = attrs.requireInt("axes");
    StatusOr<int64_t> keepAttr = attrs.requireInt("keepDims");
    if (!opAttr.isOk() || !maskAttr.isOk() || !keepAttr.isOk())
    {
        return reduceError(setup, "missing or mistyped attribute 'operation', 'axes' or 'keepDims'");
    }
    if (*opAttr < 0 || *opAttr > static_cast<int64_t>(ReduceOperation::kAVG))
    {
        return reduceError(setup, "invalid operation " + std::to_string(*opAttr));
    }
    ReduceParams p;
    p.op = static_cast<ReduceOperation>(*opAttr);
    p.mask = *maskAttr;
    p.keepDims = *keepAttr != 0;
    return p;
}

Status reduceShapes(KernelSetup const& setup, ReduceParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 1 || outputs.size() != 1)
    {
        return reduceError(setup, "expects one input and one output");
    }
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    p.rank = in.dims.nbDims;
    if (p.rank < 0 || p.rank > nvinfer1::Dims::MAX_DIMS || p.mask < 0 || (p.mask >> p.rank) != 0)
    {
        return reduceError(setup, "axes mask " + std::to_string(p.mask) + " does not fit the input rank "
            + std::to_string(p.rank));
    }
    if (in.type != out.type)
    {
        return reduceError(setup, "input and output types differ");
    }
    p.inVolume = 1;
    p.outVolume = 1;
    p.count = 1;
    std::vector<int64_t> expected;
    for (int32_t d = 0; d < p.rank; ++d)
    {
        int64_t const e = in.dims.d[d];
        if (e < 0)
        {
            return reduceError(setup, "negative input extent");
        }
        p.inVolume *= e;
        if ((p.mask >> d) & 1)
        {
            p.count *= e;
            if (p.keepDims)
            {
                expected.push_back(1);
            }
        }
        else
        {
            expected.push_back(e);
            p.outVolume *= e;
        }
    }
    std::string const why = expectedDimsMismatch(out.dims, expected);
    if (!why.empty())
    {
        return reduceError(setup, why);
    }
    return Status::ok();
}

StatusOr<ReduceParams> makeReduceParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 1 || outputs.size() != 1 || !inputs[0].present() || !outputs[0].present())
    {
        return reduceError(setup, "expects one input and one output");
    }
    KILN_ASSIGN_OR_RETURN(ReduceParams p, readReduceParams(setup));
    KILN_RETURN_IF_ERROR(reduceShapes(setup, p, inputs, outputs));
    return p;
}

} // namespace kiln
