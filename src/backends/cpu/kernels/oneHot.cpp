// CPU reference kernel of IOneHotLayer: output[..., j, ...] (j along the new axis) is values[1] (on) where
// j == index (negative indices count from depth) and values[0] (off) elsewhere. Indices outside [-depth, depth) give
// an all-off row. Elements are copied bit for bit, so every values type works. depth is the output extent along axis.
#include "backends/common/oneHotParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cstring>

namespace kiln
{
namespace
{
using nvinfer1::DataType;

//! create: the axis; reshape: outer x depth x inner; run: writes on/off values by index.
class OneHotKernel final : public Kernel
{
public:
    explicit OneHotKernel(KernelSetup const& setup)
        : mSetup(setup)
        , mAxis(readOneHotAxis(setup))
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_ASSIGN_OR_RETURN(mParams, oneHotShapes(mSetup, mAxis, inputs, outputs));
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "OneHot");
        }
        int64_t const outer = mParams.outer;
        int64_t const inner = mParams.inner;
        int64_t const depth = mParams.depth;
        if (outer * inner * depth == 0)
        {
            return Status::ok();
        }
        TensorView const& indices = inputs[0];
        size_t const size = static_cast<size_t>(mParams.esize);
        auto const* off = static_cast<uint8_t const*>(inputs[1].data);
        uint8_t const* on = off + size;
        auto* dst = static_cast<uint8_t*>(outputs[0].data);
        for (int64_t o = 0; o < outer; ++o)
        {
            for (int64_t j = 0; j < depth; ++j)
            {
                for (int64_t i = 0; i < inner; ++i)
                {
                    int64_t index = loadInt(indices.data, indices.type, o * inner + i);
                    if (index < 0)
                    {
                        index += depth;
                    }
                    uint8_t const* src = index == j ? on : off;
                    std::memcpy(dst + static_cast<size_t>((o * depth + j) * inner + i) * size, src, size);
                }
            }
        }
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    int64_t mAxis;
    OneHotParams mParams;
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createOneHotKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("OneHot kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<OneHotKernel>(setup));
}

} // namespace kiln
