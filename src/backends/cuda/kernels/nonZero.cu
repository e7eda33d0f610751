// CUDA kernel of INonZeroLayer, as the CPU reference (backends/cpu/kernels/nonZero.cpp): the row-major indices of
// the non-zero elements (NaN counts as non-zero) written as [rank, count] (element (d, k) at d * count + k, count
// the actual number, in a buffer sized for the upper bound) and the count into output 1, the layer's size tensor,
// which the runtime reads after the node. All on the device, no synchronisation: a flag per element, an exclusive
// scan of the flags (CUB) giving every hit its position, then one pass writing the coordinates and the count.
#include "backends/common/nonZeroParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"
#include "backends/cuda/kernels/workspaceLayout.cuh"

#include <cub/device/device_scan.cuh>

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

struct NonZeroShape
{
    int32_t rank{0};
    int64_t strides[kMAX_RANK]{};
};

__global__ void nonZeroFlags(void const* in, DataType type, int64_t n, int64_t* flags)
{
    bool const integer
        = type == DataType::kINT32 || type == DataType::kINT64 || type == DataType::kINT8 || type == DataType::kBOOL;
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        bool const hit = integer ? dev::loadInt(in, type, i) != 0 : dev::loadFloat(in, type, i) != 0.0F; // NaN != 0
        flags[i] = hit ? 1 : 0;
    }
}

__global__ void nonZeroWrite(NonZeroShape s, int64_t n, int64_t const* flags, int64_t const* positions,
    void* indices, DataType indexType, void* countOut, DataType countType)
{
    int64_t const count = positions[n - 1] + flags[n - 1];
    if (dev::globalThread() == 0)
    {
        dev::storeInt(countOut, countType, 0, count);
    }
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        if (flags[i] == 0)
        {
            continue;
        }
        int64_t const k = positions[i];
        int64_t rest = i;
        for (int32_t d = 0; d < s.rank; ++d)
        {
            dev::storeInt(indices, indexType, d * count + k, rest / s.strides[d]);
            rest %= s.strides[d];
        }
    }
}

struct NonZeroWorkspace
{
    int64_t flags{0};
    int64_t positions{0};
    int64_t temp{0};
    size_t tempBytes{0};
    int64_t total{0};
};

NonZeroWorkspace nonZeroWorkspace(int64_t n)
{
    NonZeroWorkspace w;
    if (n <= 0)
    {
        return w;
    }
    (void) cub::DeviceScan::ExclusiveSum(
        nullptr, w.tempBytes, static_cast<int64_t const*>(nullptr), static_cast<int64_t*>(nullptr), n);
    WorkspaceLayout layout;
    w.flags = layout.add(n * static_cast<int64_t>(sizeof(int64_t)));
    w.positions = layout.add(n * static_cast<int64_t>(sizeof(int64_t)));
    w.temp = layout.add(static_cast<int64_t>(w.tempBytes));
    w.total = layout.total();
    return w;
}

//! create: nothing to read; reshape: the checks, the workspace layout and the input's strides; run: the flags, the
//! scan and the write (or the zero count of an empty input).
class NonZeroCudaKernel final : public Kernel
{
public:
    explicit NonZeroCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    int64_t workspaceSize(std::vector<TensorView> const& inputs, std::vector<TensorView> const&) const override
    {
        return inputs.empty() ? 0 : nonZeroWorkspace(inputs[0].volume()).total;
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_RETURN_IF_ERROR(checkNonZeroViews(mSetup, v.inputs, v.outputs));
        nvinfer1::Dims const& dims = inputs[0].dims;
        mShape.rank = dims.nbDims;
        std::vector<int64_t> const strides = contiguousStrides(dims);
        for (int32_t d = 0; d < dims.nbDims; ++d)
        {
            mShape.strides[d] = strides[static_cast<size_t>(d)];
        }
        mVolume = inputs[0].volume();
        mWorkspace = nonZeroWorkspace(mVolume);
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mVolume < 0)
        {
            return notReshaped(nodeLabel(mSetup, "NonZero"));
        }
        TensorView const& in = inputs[0];
        TensorView const& indices = outputs[0];
        TensorView const& count = outputs[1];
        int64_t const n = mVolume;
        if (n == 0)
        {
            KILN_CUDA_CHECK(cudaMemsetAsync(count.data, 0, static_cast<size_t>(elementSize(count.type)), ctx.stream));
            return Status::ok();
        }
        NonZeroWorkspace const& w = mWorkspace;
        if (ctx.workspace == nullptr || ctx.workspaceBytes < w.total)
        {
            return nonZeroError(mSetup, "needs " + std::to_string(w.total) + " bytes of workspace, got "
                + std::to_string(ctx.workspaceBytes));
        }
        if (mShape.rank > 0 && indices.data == nullptr)
        {
            return nonZeroError(mSetup, "the indices output has no memory");
        }
        auto* flags = WorkspaceLayout::at<int64_t>(ctx.workspace, w.flags);
        auto* positions = WorkspaceLayout::at<int64_t>(ctx.workspace, w.positions);
        nonZeroFlags<<<gridFor(n), kBLOCK, 0, ctx.stream>>>(in.data, in.type, n, flags);
        KILN_RETURN_IF_ERROR(launchStatus("NonZero flag kernel"));
        size_t tempBytes = w.tempBytes;
        KILN_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(WorkspaceLayout::at<void>(ctx.workspace, w.temp), tempBytes,
            static_cast<int64_t const*>(flags), positions, n, ctx.stream));
        nonZeroWrite<<<gridFor(n), kBLOCK, 0, ctx.stream>>>(mShape, n, flags, positions, indices.data, indices.type,
            count.data, count.type);
        return launchStatus("NonZero write kernel");
    }

private:
    KernelSetup mSetup;
    NonZeroShape mShape;
    NonZeroWorkspace mWorkspace;
    int64_t mVolume{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createNonZeroCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("NonZero kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<NonZeroCudaKernel>(setup));
}

} // namespace kiln::cuda
