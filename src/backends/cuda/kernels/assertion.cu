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

class AssertionCudaKernel final : public CudaKernel
{
public:
    explicit AssertionCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
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

    Status enqueue(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        CudaRunContext const& ctx) override
    {
        std::string const& name = mSetup.node->name;
        if (inputs.size() != 1 || !outputs.empty())
        {
            return failedExecution("layer '" + name + "' (Assertion): expected 1 input and no outputs, got "
                + std::to_string(inputs.size()) + " and " + std::to_string(outputs.size()));
        }
        TensorView const& cond = inputs[0];
        int64_t const n = cond.volume();
        if (n == 0)
        {
            return Status::ok();
        }
        if (cond.data == nullptr)
        {
            return failedExecution("layer '" + name + "' (Assertion): the condition has no data");
        }
        if (ctx.workspace == nullptr || ctx.workspaceBytes < static_cast<int64_t>(sizeof(unsigned long long)))
        {
            return failedExecution("layer '" + name + "' (Assertion): needs 8 bytes of workspace");
        }
        auto* first = static_cast<unsigned long long*>(ctx.workspace);
        KILN_CUDA_CHECK(cudaMemsetAsync(first, 0xFF, sizeof(unsigned long long), ctx.stream));
        firstFalse<<<gridFor(n), kBLOCK, 0, ctx.stream>>>(static_cast<uint8_t const*>(cond.data), n, first);
        KILN_RETURN_IF_ERROR(launchStatus("Assertion kernel"));
        KILN_CUDA_CHECK(
            cudaMemcpyAsync(mHost, first, sizeof(unsigned long long), cudaMemcpyDeviceToHost, ctx.stream));
        KILN_CUDA_CHECK(cudaStreamSynchronize(ctx.stream)); // the documented exception: see the file comment
        unsigned long long const index = *mHost;
        if (index != ~0ULL)
        {
            return failedExecution(assertionFailureMessage(name, mSetup.node->attrs.getString("message"))
                + " (element " + std::to_string(index) + " of the condition is false)");
        }
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    unsigned long long* mHost{nullptr}; //!< pinned
};

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createAssertionCudaKernel(KernelSetup const& setup)
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
    return std::unique_ptr<CudaKernel>(std::move(kernel));
}

} // namespace kiln::cuda
