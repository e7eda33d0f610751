// CPU kernel of IShapeLayer: writes the input's dimensions into the 1-D integer output.
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

namespace kiln
{
namespace
{

//! reshape: checks the output against the input's rank and stores the input's dims; run: writes them.
class ShapeKernel final : public Kernel
{
public:
    explicit ShapeKernel(KernelSetup const& setup)
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
        TensorView const& out = outputs[0];
        if (out.type != nvinfer1::DataType::kINT64 && out.type != nvinfer1::DataType::kINT32)
        {
            return internalError(
                std::string("shape: output type ") + dataTypeName(out.type) + " is not an integer type");
        }
        if (out.dims.nbDims != 1 || out.dims.d[0] != inputs[0].dims.nbDims)
        {
            return invalidArgument("shape: output length does not match the input rank");
        }
        mDims = inputs[0].dims;
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const&, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "Shape");
        }
        TensorView const& out = outputs[0];
        for (int32_t i = 0; i < mDims.nbDims; ++i)
        {
            storeInt(out.data, out.type, i, mDims.d[i]);
        }
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    nvinfer1::Dims mDims{};
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createShapeKernel(KernelSetup const& setup)
{
    return std::unique_ptr<Kernel>(std::make_unique<ShapeKernel>(setup));
}

} // namespace kiln
