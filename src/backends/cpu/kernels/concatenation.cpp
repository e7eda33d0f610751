// CPU kernel of IConcatenationLayer: copies each input's block into the output along the concatenation axis
// (type-agnostic byte copies, so every storage type works), output rows split over the CPU thread pool.
#include "backends/common/concatenationParams.h"
#include "backends/cpu/kernels/elementWiseCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace kiln
{
namespace
{

//! create: the axis; reshape: the rows and the bytes each input contributes to a row.
class ConcatenationKernel final : public Kernel
{
public:
    ConcatenationKernel(KernelSetup const& setup, int32_t axis)
        : mSetup(setup)
        , mAxis(axis)
        , mChunks(setup.inputTypes.size(), 0)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mOuter = -1;
        if (inputs.size() != mChunks.size())
        {
            return ew::checkViewCounts(mSetup, inputs, outputs, mChunks.size(), 1);
        }
        KILN_ASSIGN_OR_RETURN(ConcatenationParams const p, concatenationShapes(mSetup, mAxis, inputs, outputs));
        for (size_t i = 0; i < inputs.size(); ++i)
        {
            mChunks[i] = inputs[i].dims.d[mAxis] * p.innerBytes;
        }
        mOuter = p.outer;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (mOuter < 0)
        {
            return notReshaped(mSetup, "Concatenation");
        }
        int64_t rowBytes = 0;
        for (int64_t chunk : mChunks)
        {
            rowBytes += chunk;
        }
        // Rows of the output (every input's row in turn), split over the thread pool in pieces of >= 64 KiB.
        int64_t const grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(rowBytes, 1));
        parallelFor(mOuter, grain, [&](int64_t begin, int64_t end) {
            auto* dst = static_cast<uint8_t*>(outputs[0].data) + begin * rowBytes;
            for (int64_t o = begin; o < end; ++o)
            {
                for (size_t i = 0; i < mChunks.size(); ++i)
                {
                    int64_t const chunk = mChunks[i];
                    if (chunk == 0)
                    {
                        continue;
                    }
                    std::memcpy(
                        dst, static_cast<uint8_t const*>(inputs[i].data) + o * chunk, static_cast<size_t>(chunk));
                    dst += chunk;
                }
            }
        });
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    int32_t mAxis;
    std::vector<int64_t> mChunks; //!< per input: bytes per row
    int64_t mOuter{-1};           //!< rows; -1 until a successful reshape
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createConcatenationKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Concatenation kernel: no plan node");
    }
    if (setup.inputTypes.empty() || setup.outputRanks.size() != 1)
    {
        return invalidArgument(cpuNodeLabel(setup, "Concatenation") + ": expects at least one input and one output");
    }
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, setup.inputTypes.size(), 1, "Concatenation"));
    KILN_ASSIGN_OR_RETURN(int32_t const axis, readConcatenationAxis(setup, setup.outputRanks[0]));
    return std::unique_ptr<Kernel>(std::make_unique<ConcatenationKernel>(setup, axis));
}

} // namespace kiln
