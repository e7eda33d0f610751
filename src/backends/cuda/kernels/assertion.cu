// CUDA kernel of IAssertionLayer, as the CPU kernel (backends/cpu/kernels/assertion.cpp): the run fails, with the
// layer's message and name and the first false element, when any element of the BOOL condition is false.
// Documented exception to "kernels never synchronise": a run can only fail on a device value if the host sees it,
// so the kernel finds the first false element on the device (an atomic minimum into 8 bytes of workspace), copies
// that index into pinned host memory it owns (allocated at creation) and synchronises the stream.
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"
#include "network/layers/assertionLayer.h"

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

__global__ void firstFalse(uint8_t const* cond, int64_t n, unsigned long long* first)
{
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        if (cond[i] == 0)
        {
            atomicMin(first, static_cast<unsigned long long>(i));
        }
    }
}

//! create: the I/O checks, the layer's message and the pinned host word; reshape: the I/O counts and the element
//! count; run: the search, the copy of its result and the synchronisation (see the file comment).
class AssertionCudaKernel final : public Kernel
{
public:
    explicit AssertionCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
        , mMessage(setup.node->attrs.getString("message"))
    {
    }
    ~AssertionCudaKernel() override
    {
        if (mHost != nullptr)
        {
            (void) cudaFreeHost(mHost);
        }
    }
    AssertionCudaKernel(AssertionCudaKernel const&) = delete;
    AssertionCudaKernel& operator=(AssertionCudaKernel const&) = delete;

    Status init()
    {
        KILN_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&mHost), sizeof(unsigned long long)));
        return Status::ok();
    }

    int64_t workspaceSize(std::vector<TensorView> const&, std::vector<TensorView> const&) const override
    {
        return static_cast<int64_t>(sizeof(unsigned long long));
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        if (inputs.size() != 1 || !outputs.empty())
        {
            return failedExecution("layer '" + mSetup.node->name
                + "' (Assertion): expected 1 input and no outputs, got " + std::to_string(inputs.size()) + " and "
                + std::to_string(outputs.size()));
        }
        mVolume = inputs[0].volume();
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const&, RunContext const& ctx) override
    {
        if (mVolume <= 0)
        {
            return mVolume == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "Assertion"));
        }
        TensorView const& cond = inputs[0];
        if (cond.data == nullptr)
        {
            return failedExecution("layer '" + mSetup.node->name + "' (Assertion): the condition has no data");
        }
        if (ctx.workspace == nullptr || ctx.workspaceBytes < static_cast<int64_t>(sizeof(unsigned long long)))
        {
            return failedExecution("layer '" + mSetup.node->name + "' (Assertion): needs 8 bytes of workspace");
        }
        auto* first = static_cast<unsigned long long*>(ctx.workspace);
        KILN_CUDA_CHECK(cudaMemsetAsync(first, 0xFF, sizeof(unsigned long long), ctx.stream));
        firstFalse<<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(static_cast<uint8_t const*>(cond.data), mVolume, first);
        KILN_RETURN_IF_ERROR(launchStatus("Assertion kernel"));
        KILN_CUDA_CHECK(
            cudaMemcpyAsync(mHost, first, sizeof(unsigned long long), cudaMemcpyDeviceToHost, ctx.stream));
        KILN_CUDA_CHECK(cudaStreamSynchronize(ctx.stream)); // the documented exception: see the file comment
        unsigned long long const index = *mHost;
        if (index != ~0ULL)
        {
            return failedExecution(assertionFailureMessage(mSetup.node->name, mMessage) + " (element "
                + std::to_string(index) + " of the condition is false)");
        }
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    std::string mMessage;
    unsigned long long* mHost{nullptr}; //!< pinned
    int64_t mVolume{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createAssertionCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Assertion kernel: no plan node");
    }
    if (setup.inputTypes.size() != 1 || !setup.outputTypes.empty())
    {
        return invalidArgument(nodeLabel(setup, "Assertion") + ": expected 1 input and no outputs");
    }
    if (setup.inputTypes[0] != DataType::kBOOL)
    {
        return invalidArgument(nodeLabel(setup, "Assertion") + ": condition has type "
            + dataTypeName(setup.inputTypes[0]) + "; it must be BOOL");
    }
    auto kernel = std::make_unique<AssertionCudaKernel>(setup);
    KILN_RETURN_IF_ERROR(kernel->init());
    return std::unique_ptr<Kernel>(std::move(kernel));
}

} // namespace kiln::cuda
