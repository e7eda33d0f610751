// CPU reference kernel of IEinsumLayer: a loop over the output index space and, for every output element, over the
// summed (contracted) subscripts, multiplying the operands in double precision. A subscript repeated within one input
// takes that input's diagonal.
#include "backends/common/einsumParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <algorithm>
#include <vector>

namespace kiln
{
namespace
{

//! create: the parsed equation; reshape: the loop nest and the scratch (operands as double, loop counters); run: the
//! contraction.
class EinsumKernel final : public Kernel
{
public:
    EinsumKernel(KernelSetup const& setup, EinsumEquation equation)
        : mSetup(setup)
        , mEquation(std::move(equation))
        , mValues(mEquation.inputs.size())
        , mBase(mEquation.inputs.size())
        , mOffset(mEquation.inputs.size())
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_ASSIGN_OR_RETURN(mParams, einsumShapes(mSetup, mEquation, inputs, outputs));
        for (size_t i = 0; i < inputs.size(); ++i)
        {
            mValues[i].resize(static_cast<size_t>(inputs[i].volume()));
        }
        mIndex.resize(mParams.extents.size());
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "Einsum");
        }
        size_t const nbInputs = inputs.size();
        for (size_t i = 0; i < nbInputs; ++i)
        {
            std::vector<double>& v = mValues[i];
            for (size_t k = 0; k < v.size(); ++k)
            {
                v[k] = loadElement(inputs[i].data, inputs[i].type, static_cast<int64_t>(k));
            }
        }
        TensorView const& out = outputs[0];
        size_t const nbOut = mParams.nbOut;
        size_t const nbAll = mParams.extents.size();
        std::vector<int64_t> const& ext = mParams.extents;
        std::vector<std::vector<int64_t>> const& strides = mParams.steps;
        std::fill(mIndex.begin(), mIndex.end(), 0);
        std::fill(mBase.begin(), mBase.end(), 0); // offsets from the output subscripts
        for (int64_t o = 0; o < mParams.outCount; ++o)
        {
            double acc = 0.0;
            std::copy(mBase.begin(), mBase.end(), mOffset.begin());
            std::fill(mIndex.begin() + static_cast<std::ptrdiff_t>(nbOut), mIndex.end(), 0);
            for (int64_t s = 0; s < mParams.sumCount; ++s)
            {
                double p = 1.0;
                for (size_t i = 0; i < nbInputs; ++i)
                {
                    p *= mValues[i][static_cast<size_t>(mOffset[i])];
                }
                acc += p;
                // Advance the summed subscripts (last fastest).
                advance(nbOut, nbAll, ext, strides, mOffset);
            }
            storeElement(out.data, out.type, o, acc);
            // Advance the output subscripts (last fastest, row-major output).
            advance(0, nbOut, ext, strides, mBase);
        }
        return Status::ok();
    }

private:
    //! Odometer step over letters [first, last) (the last fastest), keeping `offsets` in step.
    void advance(size_t first, size_t last, std::vector<int64_t> const& ext,
        std::vector<std::vector<int64_t>> const& strides, std::vector<int64_t>& offsets)
    {
        for (size_t l = last; l-- > first;)
        {
            if (++mIndex[l] < ext[l])
            {
                for (size_t i = 0; i < offsets.size(); ++i)
                {
                    offsets[i] += strides[i][l];
                }
                return;
            }
            mIndex[l] = 0;
            for (size_t i = 0; i < offsets.size(); ++i)
            {
                offsets[i] -= strides[i][l] * (ext[l] - 1);
            }
        }
    }

    KernelSetup mSetup;
    EinsumEquation mEquation;
    EinsumParams mParams;
    std::vector<std::vector<double>> mValues; //!< every input as double
    std::vector<int64_t> mIndex;              //!< loop counter per letter
    std::vector<int64_t> mBase;               //!< per input: offset of the current output element
    std::vector<int64_t> mOffset;             //!< per input: offset of the current term
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createEinsumKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Einsum kernel: no plan node");
    }
    KILN_ASSIGN_OR_RETURN(EinsumEquation equation, readEinsumEquation(setup));
    return std::unique_ptr<Kernel>(std::make_unique<EinsumKernel>(setup, std::move(equation)));
}

} // namespace kiln
