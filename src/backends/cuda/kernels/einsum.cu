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

Status enqueueEinsum(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx)
{
    KILN_ASSIGN_OR_RETURN(EinsumParams const p, makeEinsumParams(setup, inputs, outputs));
    if (inputs.size() > static_cast<size_t>(kMAX_EINSUM_INPUTS) || p.extents.size() > static_cast<size_t>(kMAX_LETTERS))
    {
        return einsumError(setup, "the CUDA kernel supports at most " + std::to_string(kMAX_EINSUM_INPUTS) + " inputs");
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
            return einsumError(setup, std::string("type ") + dataTypeName(in.type) + " is not supported");
        }
        a.data[i] = in.data;
        a.types[i] = in.type;
        for (int32_t l = 0; l < a.nbAll; ++l)
        {
            a.steps[i][l] = p.steps[static_cast<size_t>(i)][static_cast<size_t>(l)];
        }
    }
    TensorView const& out = outputs[0];
    if (!isFloatType(out.type))
    {
        return einsumError(setup, std::string("type ") + dataTypeName(out.type) + " is not supported");
    }
    if (p.outCount == 0)
    {
        return Status::ok();
    }
    einsumKernel<<<gridFor(p.outCount), kBLOCK, 0, ctx.stream>>>(a, out.data, out.type, p.outCount);
    return launchStatus("Einsum kernel");
}

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createEinsumCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Einsum kernel: no plan node");
    }
    return makeCudaFunctionKernel(setup, enqueueEinsum);
}

} // namespace kiln::cuda
