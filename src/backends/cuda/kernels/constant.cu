// CUDA kernel of IConstantLayer: the weights (slot 0) are the engine's device copy shared by its contexts, or, where
// there is none (tests, the builder's tactic timing), uploaded to device memory the kernel owns when it is created;
// each run copies or converts them into the output, as the CPU reference (backends/cpu/kernels/constant.cpp).
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{

namespace
{

//! create: the weights' checks and their upload; reshape: the output against the weights; run: one copy or
//! conversion.
class ConstantKernel final : public Kernel
{
public:
    explicit ConstantKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    //! The engine's device copy of the weights when it has one, else an upload the kernel owns.
    Status init()
    {
        WeightsView const& w = mSetup.weights[0];
        if (w.device != nullptr)
        {
            mWeightsData = w.device;
            return Status::ok();
        }
        KILN_RETURN_IF_ERROR(mWeights.upload(w.data, w.count * elementSize(w.type)));
        mWeightsData = mWeights.data();
        return Status::ok();
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_RETURN_IF_ERROR(ew::checkViews(mSetup, v.inputs, v.outputs, 0, 1));
        TensorView const& out = outputs[0];
        WeightsView const& w = mSetup.weights[0];
        if (w.count != out.volume())
        {
            return invalidArgument(nodeLabel(mSetup, "Constant") + ": " + std::to_string(w.count)
                + " weights for an output of " + std::to_string(out.volume()) + " elements "
                + ew::dimsToString(out.dims));
        }
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const&, std::vector<TensorView> const& outputs, RunContext const& ctx) override
    {
        if (!mReady)
        {
            return notReshaped(nodeLabel(mSetup, "Constant"));
        }
        WeightsView const& w = mSetup.weights[0];
        return launchConvert(mWeightsData, w.type, outputs[0].data, outputs[0].type, w.count, ctx.stream);
    }

private:
    KernelSetup mSetup;
    DeviceBuffer mWeights;
    void const* mWeightsData{nullptr};
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createConstantCudaKernel(KernelSetup const& setup)
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
    return std::unique_ptr<Kernel>(std::move(kernel));
}

} // namespace kiln::cuda
