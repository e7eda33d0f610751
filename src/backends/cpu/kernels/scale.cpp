// CPU kernel of IScaleLayer: output = (input * scale + shift) ^ power, computed in float, with uniform,
// per-channel or per-element coefficients (weights slots 0 shift, 1 scale, 2 power; empty slots are identities).
#include "backends/common/scaleParams.h"
#include "backends/cpu/kernels/elementWiseCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::ScaleMode;

namespace
{

Status executeScale(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_ASSIGN_OR_RETURN(ScaleParams const p, makeScaleParams(setup, inputs, outputs));
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    // Operand 0 is the input; then each present weights slot.
    std::vector<nvinfer1::Dims> operandDims{in.dims};
    std::array<WeightsView const*, 3> slots{};
    std::array<int32_t, 3> operandIndex{-1, -1, -1};
    for (size_t s = 0; s < 3; ++s)
    {
        if (setup.weights[s].present())
        {
            slots[s] = &setup.weights[s];
            operandIndex[s] = static_cast<int32_t>(operandDims.size());
            operandDims.push_back(p.coeffDims);
        }
    }
    auto walker = ew::BroadcastWalker::make(out.dims, operandDims);
    if (!walker.isOk())
    {
        return walker.status().withContext("Scale node '" + setup.node->name + "'");
    }
    walker->forEachChunk([&](int64_t outOffset, int64_t const* offsets, int64_t const* strides, int64_t n) {
        float x[ew::kCHUNK];
        float c[ew::kCHUNK];
        ew::loadChunk(in.data, in.type, offsets[0], strides[0], n, x);
        if (slots[1] != nullptr)
        {
            int32_t const k = operandIndex[1];
            ew::loadChunk(slots[1]->data, slots[1]->type, offsets[k], strides[k], n, c);
            for (int64_t i = 0; i < n; ++i)
            {
                x[i] *= c[i];
            }
        }
        if (slots[0] != nullptr)
        {
            int32_t const k = operandIndex[0];
            ew::loadChunk(slots[0]->data, slots[0]->type, offsets[k], strides[k], n, c);
            for (int64_t i = 0; i < n; ++i)
            {
                x[i] += c[i];
            }
        }
        if (slots[2] != nullptr)
        {
            int32_t const k = operandIndex[2];
            ew::loadChunk(slots[2]->data, slots[2]->type, offsets[k], strides[k], n, c);
            for (int64_t i = 0; i < n; ++i)
            {
                x[i] = std::pow(x[i], c[i]);
            }
        }
        ew::storeChunk(out.data, out.type, outOffset, n, x);
    });
    return Status::ok();
}

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createScaleKernel(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(checkScaleSetup(setup));
    return makeFunctionKernel(setup, executeScale);
}

} // namespace kiln
