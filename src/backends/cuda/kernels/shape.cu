// CUDA kernel of IShapeLayer: writes the input's dimensions (known on the host at enqueue) into the 1-D integer
// output. The values travel as kernel parameters, so nothing waits for the host.
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

struct ShapeValues
{
    int32_t rank{0};
    int64_t d[kMAX_RANK]{};
};

__global__ void shapeKernel(ShapeValues v, void* out, DataType to)
{
    int32_t const i = static_cast<int32_t>(threadIdx.x);
    if (i < v.rank)
    {
        dev::storeInt(out, to, i, v.d[i]);
    }
}

//! create: nothing to read; reshape: the checks and the input's dimensions as launch arguments; run: one launch.
class ShapeCudaKernel final : public Kernel
{
public:
    explicit ShapeCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        if (inputs.empty() || outputs.size() != 1)
        {
            return internalError("shape: expected one input and one output");
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        if (out.type != DataType::kINT64 && out.type != DataType::kINT32)
        {
            return internalError(
                std::string("shape: output type ") + dataTypeName(out.type) + " is not an integer type");
        }
        if (out.dims.nbDims != 1 || out.dims.d[0] != in.dims.nbDims)
        {
            return invalidArgument("shape: output length does not match the input rank");
        }
        mValues.rank = in.dims.nbDims;
        for (int32_t i = 0; i < in.dims.nbDims; ++i)
        {
            mValues.d[i] = in.dims.d[i];
        }
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const&, std::vector<TensorView> const& outputs, RunContext const& ctx) override
    {
        if (!mReady)
        {
            return notReshaped(nodeLabel(mSetup, "Shape"));
        }
        if (mValues.rank == 0)
        {
            return Status::ok();
        }
        TensorView const& out = outputs[0];
        if (out.data == nullptr)
        {
            return internalError("shape: missing output buffer");
        }
        shapeKernel<<<1, kMAX_RANK, 0, ctx.stream>>>(mValues, out.data, out.type);
        return launchStatus("Shape kernel");
    }

private:
    KernelSetup mSetup;
    ShapeValues mValues;
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createShapeCudaKernel(KernelSetup const& setup)
{
    return std::unique_ptr<Kernel>(std::make_unique<ShapeCudaKernel>(setup));
}

} // namespace kiln::cuda
