// CPU kernel of IScaleLayer: output = (input * scale + shift) ^ power, computed in float, with uniform,
// per-channel or per-element coefficients (weights slots 0 shift, 1 scale, 2 power; empty slots are identities).
#include "backends/cpu/kernels/elementWiseCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::ScaleMode;

namespace
{

//! The shape a coefficient tensor broadcasts from, for an input of `dims`.
nvinfer1::Dims coefficientDims(nvinfer1::Dims const& dims, ScaleMode mode, int32_t axis)
{
    nvinfer1::Dims d = ew::onesLike(dims);
    if (mode == ScaleMode::kCHANNEL)
    {
        d.d[axis] = dims.d[axis];
    }
    else if (mode == ScaleMode::kELEMENTWISE)
    {
        for (int32_t i = axis; i < dims.nbDims; ++i)
        {
            d.d[i] = dims.d[i];
        }
    }
    return d;
}

Status executeScale(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_RETURN_IF_ERROR(ew::checkViews(setup, inputs, outputs, 1, 1));
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    KILN_RETURN_IF_ERROR(ew::checkSameDims(setup, in.dims, out.dims, "input and output"));
    auto const mode = static_cast<ScaleMode>(setup.node->attrs.getInt("mode"));
    auto const axis = static_cast<int32_t>(setup.node->attrs.getInt("channelAxis"));
    if (mode != ScaleMode::kUNIFORM && (axis < 0 || axis >= in.dims.nbDims))
    {
        return invalidArgument("Scale node '" + setup.node->name + "': channel axis " + std::to_string(axis)
            + " is out of range for input dimensions " + ew::dimsToString(in.dims));
    }
    nvinfer1::Dims const coeffDims = coefficientDims(in.dims, mode, axis);
    int64_t coeffCount = 1;
    for (int32_t i = 0; i < coeffDims.nbDims; ++i)
    {
        coeffCount *= coeffDims.d[i];
    }
    // Operand 0 is the input; then each present weights slot.
    std::vector<nvinfer1::Dims> operandDims{in.dims};
    std::array<WeightsView const*, 3> slots{};
    std::array<int32_t, 3> operandIndex{-1, -1, -1};
    for (size_t s = 0; s < 3; ++s)
    {
        if (setup.weights[s].present())
        {
            WeightsView const& w = setup.weights[s];
            if (w.count != coeffCount && in.volume() != 0)
            {
                return invalidArgument("Scale node '" + setup.node->name + "': weights slot " + std::to_string(s)
                    + " has " + std::to_string(w.count) + " values, expected " + std::to_string(coeffCount)
                    + " for input dimensions " + ew::dimsToString(in.dims));
            }
            slots[s] = &w;
            operandIndex[s] = static_cast<int32_t>(operandDims.size());
            operandDims.push_back(coeffDims);
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
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 1, 1, "Scale"));
    KILN_ASSIGN_OR_RETURN(int64_t const mode, setup.node->attrs.requireInt("mode"));
    KILN_ASSIGN_OR_RETURN(int64_t const axis, setup.node->attrs.requireInt("channelAxis"));
    if (mode < 0 || mode >= nvinfer1::EnumMax<ScaleMode>())
    {
        return invalidArgument("Scale node '" + setup.node->name + "': invalid mode " + std::to_string(mode));
    }
    if (axis < 0 || axis >= nvinfer1::Dims::MAX_DIMS)
    {
        return invalidArgument("Scale node '" + setup.node->name + "': invalid channel axis " + std::to_string(axis));
    }
    if (setup.weights.size() != 3)
    {
        return invalidArgument("Scale node '" + setup.node->name + "': expected 3 weights slots, got "
            + std::to_string(setup.weights.size()));
    }
    for (WeightsView const& w : setup.weights)
    {
        if (w.present() && (w.data == nullptr || !ew::isFloatKernelType(w.type)))
        {
            return invalidArgument("Scale node '" + setup.node->name + "': invalid weights (type "
                + dataTypeName(w.type) + ", count " + std::to_string(w.count) + ")");
        }
    }
    if (!ew::isFloatKernelType(setup.inputTypes[0]) || !ew::isKernelType(setup.outputTypes[0]))
    {
        return invalidArgument("Scale node '" + setup.node->name + "': unsupported types "
            + dataTypeName(setup.inputTypes[0]) + " -> " + dataTypeName(setup.outputTypes[0]));
    }
    return makeFunctionKernel(setup, executeScale);
}

} // namespace kiln
