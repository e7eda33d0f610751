// CUDA kernel of IEinsumLayer, as the CPU reference (backends/cpu/kernels/einsum.cpp, geometry in
// backends/common/einsumParams.h): a general strided contraction, one thread per output element looping over the
// summed subscripts (last fastest), products and sum in double as on the CPU, so every equation the CPU accepts
// (any number of inputs up to kMAX_EINSUM_INPUTS, diagonals, pure reductions, outer products) runs. FLOAT, HALF
// and BF16 (the layer's types). Not tuned: contractions shaped like batched matrix products would be faster
// through cuBLASLt (a later tactic).
#include "backends/common/einsumParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

constexpr int32_t kMAX_EINSUM_INPUTS = 8;
constexpr int32_t kMAX_LETTERS = 26;

struct EinsumArgs
{
    int32_t nbInputs{0};
    int32_t nbOut{0};
    int32_t nbAll{0};
    int64_t extents[kMAX_LETTERS]{};
    int64_t steps[kMAX_EINSUM_INPUTS][kMAX_LETTERS]{};
    void const* data[kMAX_EINSUM_INPUTS]{};
    DataType types[kMAX_EINSUM_INPUTS]{};
    int64_t sumCount{1};
};

__global__ void einsumKernel(EinsumArgs const a, void* out, DataType outType, int64_t outCount)
{
    for (int64_t o = dev::globalThread(); o < outCount; o += dev::gridThreads())
    {
        int64_t offset[kMAX_EINSUM_INPUTS];
        for (int32_t i = 0; i < a.nbInputs; ++i)
        {
            offset[i] = 0;
        }
        int64_t rest = o;
        for (int32_t l = a.nbOut - 1; l >= 0; --l)
        {
            int64_t const c = rest % a.extents[l];
            rest /= a.extents[l];
            for (int32_t i = 0; i < a.nbInputs; ++i)
            {
                offset[i] += c * a.steps[i][l];
            }
        }
        int64_t index[kMAX_LETTERS];
        for (int32_t l = a.nbOut; l < a.nbAll; ++l)
        {
            index[l] = 0;
        }
        double acc = 0.0;
        for (int64_t s = 0; s < a.sumCount; ++s)
        {
            double p = 1.0;
            for (int32_t i = 0; i < a.nbInputs; ++i)
            {
                p *= static_cast<double>(dev::loadFloat(a.data[i], a.types[i], offset[i]));
            }
            acc += p;
            for (int32_t l = a.nbAll - 1; l >= a.nbOut; --l)
            {
                if (++index[l] < a.extents[l])
                {
                    for (int32_t i = 0; i < a.nbInputs; ++i)
                    {
                        offset[i] += a.steps[i][l];
                    }
                    break;
                }
                index[l] = 0;
                for (int32_t i = 0; i < a.nbInputs; ++i)
                {
                    offset[i] -= a.steps[i][l] * (a.extents[l] - 1);
                }
            }
        }
        dev::storeFloat(out, outType, o, static_cast<float>(acc));
    }
}

bool isFloatType(DataType t)
{
    return t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
}

//! create: nothing to read (the equation is parsed against the shapes); reshape: the equation, the checks and the
//! launch arguments (extents and steps of every letter); run: the data pointers and one launch.
class EinsumCudaKernel final : public Kernel
{
public:
    explicit EinsumCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mOutCount = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(EinsumParams const p, makeEinsumParams(mSetup, v.inputs, v.outputs));
        if (inputs.size() > static_cast<size_t>(kMAX_EINSUM_INPUTS)
            || p.extents.size() > static_cast<size_t>(kMAX_LETTERS))
        {
            return einsumError(
                mSetup, "the CUDA kernel supports at most " + std::to_string(kMAX_EINSUM_INPUTS) + " inputs");
        }
        EinsumArgs a;
        a.nbInputs = static_cast<int32_t>(inputs.size());
        a.nbOut = static_cast<int32_t>(p.nbOut);
        a.nbAll = static_cast<int32_t>(p.extents.size());
        a.sumCount = p.sumCount;
        for (int32_t l = 0; l < a.nbAll; ++l)
        {
            a.extents[l] = p.extents[static_cast<size_t>(l)];
        }
        for (int32_t i = 0; i < a.nbInputs; ++i)
        {
            TensorView const& in = inputs[static_cast<size_t>(i)];
            if (!isFloatType(in.type))
            {
                return einsumError(mSetup, std::string("type ") + dataTypeName(in.type) + " is not supported");
            }
            a.types[i] = in.type;
            for (int32_t l = 0; l < a.nbAll; ++l)
            {
                a.steps[i][l] = p.steps[static_cast<size_t>(i)][static_cast<size_t>(l)];
            }
        }
        if (!isFloatType(outputs[0].type))
        {
            return einsumError(mSetup, std::string("type ") + dataTypeName(outputs[0].type) + " is not supported");
        }
        mArgs = a;
        mOutCount = p.outCount;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mOutCount <= 0)
        {
            return mOutCount == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "Einsum"));
        }
        EinsumArgs a = mArgs;
        for (int32_t i = 0; i < a.nbInputs; ++i)
        {
            a.data[i] = inputs[static_cast<size_t>(i)].data;
        }
        einsumKernel<<<gridFor(mOutCount), kBLOCK, 0, ctx.stream>>>(a, outputs[0].data, outputs[0].type, mOutCount);
        return launchStatus("Einsum kernel");
    }

private:
    KernelSetup mSetup;
    EinsumArgs mArgs;
    int64_t mOutCount{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createEinsumCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Einsum kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<EinsumCudaKernel>(setup));
}

} // namespace kiln::cuda
