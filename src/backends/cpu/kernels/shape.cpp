// CPU kernel of IShapeLayer: writes the input's dimensions into the 1-D integer output.
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

namespace kiln
{
namespace
{

Status runShape(KernelSetup const&, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.empty() || outputs.size() != 1)
    {
        return internalError("shape: expected one input and one output");
    }
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    if (out.type != nvinfer1::DataType::kINT64 && out.type != nvinfer1::DataType::kINT32)
    {
        return internalError(std::string("shape: output type ") + dataTypeName(out.type) + " is not an integer type");
    }
    if (out.dims.nbDims != 1 || out.dims.d[0] != in.dims.nbDims)
    {
        return invalidArgument("shape: output length does not match the input rank");
    }
    if (in.dims.nbDims > 0 && out.data == nullptr)
    {
        return internalError("shape: missing output buffer");
    }
    for (int32_t i = 0; i < in.dims.nbDims; ++i)
    {
        storeInt(out.data, out.type, i, in.dims.d[i]);
    }
    return Status::ok();
}

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createShapeKernel(KernelSetup const& setup)
{
    return makeFunctionKernel(setup, runShape);
}

} // namespace kiln
