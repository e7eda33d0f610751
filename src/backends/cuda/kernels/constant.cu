// CUDA kernel of IConstantLayer: the weights (slot 0) are uploaded to device memory the kernel owns when it is
// created (engine-level sharing of weights between contexts comes later), and each run copies or converts them
// into the output, as the CPU reference (backends/cpu/kernels/constant.cpp).
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{

namespace
{

class ConstantKernel final : public CudaKernel
{
public:
    explicit ConstantKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status init()
    {
        WeightsView const& w = mSetup.weights[0];
        return mWeights.upload(w.data, w.count * elementSize(w.type));
    }

    Status enqueue(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        CudaRunContext const& ctx) override
    {
        KILN_RETURN_IF_ERROR(ew::checkViews(mSetup, inputs, outputs, 0, 1));
        TensorView const& out = outputs[0];
        WeightsView const& w = mSetup.weights[0];
        if (w.count != out.volume())
        {
            return invalidArgument(nodeLabel(mSetup, "Constant") + ": " + std::to_string(w.count)
                + " weights for an output of " + std::to_string(out.volume()) + " elements "
                + ew::dimsToString(out.dims));
        }
        return launchConvert(mWeights.data(), w.type, out.data, out.type, w.count, ctx.stream);
    }

private:
    KernelSetup mSetup;
    DeviceBuffer mWeights;
};

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createConstantCudaKernel(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 0, 1, "Constant"));
    if (setup.weights.empty())
    {
        return invalidArgument(nodeLabel(setup, "Constant") + ": missing weights slot");
    }
    WeightsView const& w = setup.weights[0];
    if (w.count < 0 || (w.count > 0 && (w.data == nullptr || !ew::isKernelType(w.type))))
    {
        return invalidArgument(nodeLabel(setup, "Constant") + ": invalid weights (type " + dataTypeName(w.type)
            + ", count " + std::to_string(w.count) + ")");
    }
    if (!ew::isKernelType(setup.outputTypes[0]))
    {
        return invalidArgument(nodeLabel(setup, "Constant") + ": unsupported output type "
            + dataTypeName(setup.outputTypes[0]));
    }
    auto kernel = std::make_unique<ConstantKernel>(setup);
    KILN_RETURN_IF_ERROR(kernel->init().withContext(nodeLabel(setup, "Constant") + ": uploading the weights"));
    return std::unique_ptr<CudaKernel>(std::move(kernel));
}

} // namespace kiln::cuda
