// Backend-neutral host-side logic of ITopKLayer kernels, shared by the CPU kernel (backends/cpu/kernels/topK.cpp)
// and the CUDA kernel (backends/cuda/kernels/topK.cu).
#include "backends/common/topKParams.h"

#include <bit>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::TopKOperation;

Status topKError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (TopK): " + message);
}

StatusOr<TopKParams> readTopKParams(KernelSetup const& setup)
{
    Attributes const& attrs = setup.node->attrs;
    StatusOr<int64_t> opAttr = attrs.requireInt("operation");
    StatusOr<int64_t> maskAttr = attrs.requireInt("axes");
    if (!opAttr.isOk() || !maskAttr.isOk())
    {
        return topKError(setup, "missing or mistyped attribute 'operation' or 'axes'");
    }
    if (*opAttr != static_cast<int64_t>(TopKOperation::kMAX) && *opAttr != static_cast<int64_t>(TopKOperation::kMIN))
    {
        return topKError(setup, "invalid operation " + std::to_string(*opAttr));
    }
    TopKParams p;
    p.op = static_cast<TopKOperation>(*opAttr);
    p.mask = *maskAttr;
    return p;
}

Status topKShapes(KernelSetup const& setup, TopKParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs)
{
    if (inputs.empty() || inputs.size() > 2 || outputs.size() != 2)
    {
        return topKError(setup, "expects a data input (and optionally k) and two outputs");
    }
    TensorView const& in = inputs[0];
    TensorView const& values = outputs[0];
    TensorView const& indices = outputs[1];
    int32_t const rank = in.dims.nbDims;
    int64_t const mask = p.mask;
    if (rank < 1 || rank > nvinfer1::Dims::MAX_DIMS || mask <= 0 || std::popcount(static_cast<uint64_t>(mask)) != 1
        || (mask >> rank) != 0)
    {
        return topKError(setup, "axes mask " + std::to_string(mask) + " does not name one axis of the input");
    }
    static_cast<AxisSplit&>(p) = splitAtAxis(in.dims, std::countr_zero(static_cast<uint64_t>(mask)));
    if (values.dims.nbDims != rank || indices.dims.nbDims != rank || values.type != in.type
        || (indices.type != DataType::kINT32 && indices.type != DataType::kINT64))
    {
        return topKError(setup, "output ranks or types do not match the input");
    }
    p.k = values.dims.d[p.axis];
    for (int32_t d = 0; d < rank; ++d)
    {
        if (values.dims.d[d] != indices.dims.d[d] || (d != p.axis && values.dims.d[d] != in.dims.d[d])
            || in.dims.d[d] < 0)
        {
            return topKError(setup, "output shapes do not match the input in dimension " + std::to_string(d));
        }
    }
    if (p.k < 0 || p.k > p.n)
    {
        return topKError(setup, "k = " + std::to_string(p.k) + " is out of range for axis " + std::to_string(p.axis)
            + " of extent " + std::to_string(p.n));
    }
    return Status::ok();
}

StatusOr<TopKParams> makeTopKParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.empty() || inputs.size() > 2 || outputs.size() != 2 || !inputs[0].present() || !outputs[0].present()
        || !outputs[1].present())
    {
        return topKError(setup, "expects a data input (and optionally k) and two outputs");
    }
    KILN_ASSIGN_OR_RETURN(TopKParams p, readTopKParams(setup));
    KILN_RETURN_IF_ERROR(topKShapes(setup, p, inputs, outputs));
    return p;
}

} // namespace kiln
