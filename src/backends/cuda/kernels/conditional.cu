// CUDA kernel of IIfConditionalOutputLayer (kCONDITIONAL_OUTPUT), as the CPU kernel (createConditionalOutputKernel
// in backends/cpu/kernels/loopBoundary.cpp): the output is a copy of input 0 (condition true) or input 1 (false);
// input 2 is the 0-D BOOL condition. (kCONDITIONAL_INPUT is an identity: the table maps it to the identity kernel.)
// When the condition has a host value the branch is chosen on the host, with the CPU's checks and messages.
// Otherwise the condition is read on the device by the copy kernel itself (no synchronisation); a branch whose
// size or type does not match the output is then left out of the copy (the output keeps its contents), because the
// mismatch cannot be reported without reading the condition on the host.
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

__global__ void selectCopy(uint8_t const* cond, void const* whenTrue, void const* whenFalse, void* out, int64_t n,
    int32_t size)
{
    void const* src = *cond != 0 ? whenTrue : whenFalse;
    if (src == nullptr || src == out)
    {
        return;
    }
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        dev::copyElement(out, i, src, i, size);
    }
}

Status enqueueConditionalOutput(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx)
{
    std::string const label = "conditional output '" + setup.node->name + "'";
    if (inputs.size() != 3 || outputs.size() != 1 || inputs[2].data == nullptr)
    {
        return invalidArgument(label + ": needs the true value, the false value and the condition");
    }
    TensorView const& out = outputs[0];
    int64_t const bytes = byteSize(out.type, out.volume());
    if (inputs[2].values != nullptr)
    {
        bool const cond = inputs[2].values[0] != 0;
        TensorView const& in = inputs[cond ? 0 : 1];
        if (in.volume() != out.volume() || in.type != out.type)
        {
            return invalidArgument(label + ": the " + (cond ? "true" : "false") + " branch's value has "
                + std::to_string(in.volume()) + " elements but the output has " + std::to_string(out.volume()));
        }
        if (bytes > 0 && in.data != out.data)
        {
            KILN_CUDA_CHECK(cudaMemcpyAsync(out.data, in.data, static_cast<size_t>(bytes), cudaMemcpyDeviceToDevice,
                ctx.stream));
        }
        return Status::ok();
    }
    int64_t const n = out.volume();
    if (n == 0)
    {
        return Status::ok();
    }
    int64_t const size = elementSize(out.type);
    if (size != 1 && size != 2 && size != 4 && size != 8)
    {
        return invalidArgument(label + ": type " + dataTypeName(out.type) + " is not supported");
    }
    auto const branch = [&](TensorView const& in) -> void const* {
        return in.volume() == n && in.type == out.type ? in.data : nullptr;
    };
    selectCopy<<<gridFor(n), kBLOCK, 0, ctx.stream>>>(static_cast<uint8_t const*>(inputs[2].data), branch(inputs[0]),
        branch(inputs[1]), out.data, n, static_cast<int32_t>(size));
    return launchStatus("conditional output kernel");
}

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createConditionalOutputCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("conditional output kernel: no plan node");
    }
    if (setup.inputTypes.size() != 3 || setup.outputTypes.size() != 1 || setup.inputTypes[2] != DataType::kBOOL
        || setup.inputRanks[2] != 0)
    {
        return invalidArgument("conditional output '" + setup.node->name
            + "': expected inputs (true value, false value, 0-D BOOL condition) and one output");
    }
    return makeCudaFunctionKernel(setup, enqueueConditionalOutput);
}

} // namespace kiln::cuda
