// CPU kernels of ISqueezeLayer and IUnsqueezeLayer: the element order does not change, so both copy the bytes of
// input 0 into the output (shape inference already produced the new dimensions).
#include "backends/common/squeezeParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cstring>

namespace kiln
{
namespace
{

//! reshape: the byte count (squeezeShapeBytes); run: one copy unless the builder aliased output and input.
class CopyKernel final : public Kernel
{
public:
    explicit CopyKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mBytes = -1;
        KILN_ASSIGN_OR_RETURN(mBytes, squeezeShapeBytes(mSetup, inputs, outputs));
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (mBytes < 0)
        {
            return notReshaped(mSetup, layerKindName(mSetup.node->kind));
        }
        if (mBytes > 0 && outputs[0].data != inputs[0].data)
        {
            std::memmove(outputs[0].data, inputs[0].data, static_cast<size_t>(mBytes));
        }
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    int64_t mBytes{-1}; //!< bytes to copy; -1 until a successful reshape
};

StatusOr<std::unique_ptr<Kernel>> createCopyKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Squeeze/Unsqueeze kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<CopyKernel>(setup));
}

} // namespace

StatusOr<std::unique_ptr<Kernel>> createSqueezeKernel(KernelSetup const& setup)
{
    return createCopyKernel(setup);
}

StatusOr<std::unique_ptr<Kernel>> createUnsqueezeKernel(KernelSetup const& setup)
{
    return createCopyKernel(setup);
}

} // namespace kiln
