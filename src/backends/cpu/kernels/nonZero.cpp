// CPU reference kernel of INonZeroLayer: the row-major indices of the non-zero elements (NaN counts as non-zero),
// written as [rank, count], and the count into the layer's internal size tensor (output 1), from which the runtime
// learns the data-dependent dimension.
#include "backends/common/nonZeroParams.h"
#include "backends/cpu/kernels/indexing.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"


namespace kiln
{
namespace
{
using nvinfer1::DataType;

bool isNonZero(void const* data, DataType type, int64_t i)
{
    if (type == DataType::kINT32 || type == DataType::kINT64 || type == DataType::kINT8 || type == DataType::kBOOL)
    {
        return loadInt(data, type, i) != 0;
    }
    return loadElement(data, type, i) != 0.0; // NaN != 0
}

//! reshape: the checks, the rank and the input's strides; run: counts the non-zero elements, then writes their
//! coordinates (a second pass, so that nothing is allocated) and the count.
class NonZeroKernel final : public Kernel
{
public:
    explicit NonZeroKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        KILN_RETURN_IF_ERROR(checkNonZeroShapes(mSetup, inputs, outputs));
        mDims = inputs[0].dims;
        mVolume = inputs[0].volume();
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (mVolume < 0)
        {
            return notReshaped(mSetup, "NonZero");
        }
        TensorView const& in = inputs[0];
        TensorView const& indices = outputs[0];
        int64_t count = 0;
        for (int64_t i = 0; i < mVolume; ++i)
        {
            count += isNonZero(in.data, in.type, i) ? 1 : 0;
        }
        int32_t const rank = mDims.nbDims;
        if (count > 0 && rank > 0)
        {
            if (indices.data == nullptr)
            {
                return nonZeroError(mSetup, "the indices output has no memory");
            }
            DimArray coord{};
            int64_t k = 0;
            for (int64_t i = 0; i < mVolume; ++i)
            {
                if (isNonZero(in.data, in.type, i))
                {
                    for (int32_t d = 0; d < rank; ++d)
                    {
                        storeInt(indices.data, indices.type, d * count + k, coord[static_cast<size_t>(d)]);
                    }
                    ++k;
                }
                advanceCoordinate(coord, mDims, rank);
            }
        }
        storeInt(outputs[1].data, outputs[1].type, 0, count);
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    nvinfer1::Dims mDims{};
    int64_t mVolume{-1}; //!< input elements; -1 until a successful reshape
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createNonZeroKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("NonZero kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<NonZeroKernel>(setup));
}

} // namespace kiln
