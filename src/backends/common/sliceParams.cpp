// Backend-neutral host-side logic of ISliceLayer and IPaddingLayer kernels, shared by the CPU kernels
// (backends/cpu/kernels/slice.cpp, padding.cpp) and the CUDA kernels (backends/cuda/kernels/slice.cu).
#include "backends/common/sliceParams.h"
#include "core/dataType.h"

#include <optional>
#include <string>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::SampleMode;

namespace
{

//! A parameter list from an input (evaluated values, else its integer data) or from the static attribute.
StatusOr<std::optional<std::vector<int64_t>>> parameter(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    size_t slot, char const* key, std::optional<std::vector<int64_t>> const& attribute, bool hostData)
{
    if (sliceInputPresent(setup, inputs, slot))
    {
        TensorView const& t = inputs[slot];
        if (t.type != DataType::kINT32 && t.type != DataType::kINT64)
        {
            return invalidArgument(std::string("slice: ") + key + " input must be INT32 or INT64");
        }
        int64_t const n = t.volume();
        if (n < 0 || n > nvinfer1::Dims::MAX_DIMS)
        {
            return invalidArgument(std::string("slice: ") + key + " input has an invalid length");
        }
        if (t.values == nullptr && n > 0)
        {
            if (!hostData)
            {
                return unsupported(std::string("slice: the ") + key
                    + " input has no host values (computed on the device); not supported on the CUDA backend yet");
            }
            if (t.data == nullptr)
            {
                return internalError(std::string("slice: ") + key + " input has neither values nor data");
            }
        }
        std::vector<int64_t> v(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i)
        {
            v[static_cast<size_t>(i)] = t.values != nullptr ? t.values[i] : loadInt(t.data, t.type, i);
        }
        return std::optional<std::vector<int64_t>>(std::move(v));
    }
    return attribute;
}

//! The attribute `key` when the node has it.
StatusOr<std::optional<std::vector<int64_t>>> optionalInts(Attributes const& attrs, char const* key)
{
    if (!attrs.has(key))
    {
        return std::optional<std::vector<int64_t>>();
    }
    KILN_ASSIGN_OR_RETURN(auto v, attrs.requireInts(key));
    return std::optional<std::vector<int64_t>>(std::move(v));
}

} // namespace

bool sliceInputPresent(KernelSetup const& setup, std::vector<TensorView> const& inputs, size_t slot)
{
    return inputs.size() > slot && setup.inputPresent.size() > slot && setup.inputPresent[slot];
}

StatusOr<SliceAttrs> readSliceAttrs(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("slice: no plan node");
    }
    Attributes const& attrs = setup.node->attrs;
    KILN_ASSIGN_OR_RETURN(int64_t const modeValue, attrs.requireInt("mode"));
    if (modeValue < 0 || modeValue >= nvinfer1::EnumMax<SampleMode>())
    {
        return invalidArgument("slice: invalid sample mode " + std::to_string(modeValue));
    }
    SliceAttrs a;
    a.mode = static_cast<SampleMode>(modeValue);
    KILN_ASSIGN_OR_RETURN(a.start, optionalInts(attrs, "start"));
    KILN_ASSIGN_OR_RETURN(a.size, optionalInts(attrs, "size"));
    KILN_ASSIGN_OR_RETURN(a.stride, optionalInts(attrs, "stride"));
    KILN_ASSIGN_OR_RETURN(a.axes, optionalInts(attrs, "axes"));
    return a;
}

bool sliceParametersNeedData(KernelSetup const& setup, std::vector<TensorView> const& inputs)
{
    for (size_t slot : {kSLICE_START, kSLICE_SIZE, kSLICE_STRIDE, kSLICE_AXES})
    {
        if (sliceInputPresent(setup, inputs, slot) && inputs[slot].values == nullptr && inputs[slot].volume() > 0)
        {
            return true;
        }
    }
    return false;
}

StatusOr<SliceParams> makeSliceParams(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, bool hostData)
{
    if (inputs.empty() || outputs.size() != 1 || setup.node == nullptr)
    {
        return internalError("slice: expected a data input and one output");
    }
    KILN_ASSIGN_OR_RETURN(SliceAttrs const attrs, readSliceAttrs(setup));
    return sliceParamsFor(setup, attrs, inputs, outputs, hostData);
}

StatusOr<SliceParams> sliceParamsFor(KernelSetup const& setup, SliceAttrs const& attrs,
    std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, bool hostData)
{
    if (inputs.empty() || outputs.size() != 1)
    {
        return internalError("slice: expected a data input and one output");
    }
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    int32_t const rank = in.dims.nbDims;
    if (out.dims.nbDims != rank || in.type != out.type)
    {
        return internalError("slice: output rank or type differs from the input");
    }
    SliceParams p;
    p.mode = attrs.mode;
    KILN_ASSIGN_OR_RETURN(auto start, parameter(setup, inputs, kSLICE_START, "start", attrs.start, hostData));
    KILN_ASSIGN_OR_RETURN(auto size, parameter(setup, inputs, kSLICE_SIZE, "size", attrs.size, hostData));
    KILN_ASSIGN_OR_RETURN(auto stride, parameter(setup, inputs, kSLICE_STRIDE, "stride", attrs.stride, hostData));
    KILN_ASSIGN_OR_RETURN(auto axes, parameter(setup, inputs, kSLICE_AXES, "axes", attrs.axes, hostData));
    if (!start || !stride)
    {
        return invalidArgument("slice: start or stride is missing");
    }
    size_t const count = axes ? axes->size() : static_cast<size_t>(rank);
    if (start->size() != count || stride->size() != count)
    {
        return invalidArgument("slice: start/stride lengths do not match the axes");
    }
    p.start.assign(static_cast<size_t>(rank), 0);
    p.stride.assign(static_cast<size_t>(rank), 1);
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (size_t k = 0; k < count; ++k)
    {
        int64_t a = axes ? (*axes)[k] : static_cast<int64_t>(k);
        a = a < 0 ? a + rank : a;
        if (a < 0 || a >= rank || seen[static_cast<size_t>(a)])
        {
            return invalidArgument("slice: invalid or repeated axis " + std::to_string(axes ? (*axes)[k] : a));
        }
        seen[static_cast<size_t>(a)] = true;
        p.start[static_cast<size_t>(a)] = (*start)[k];
        p.stride[static_cast<size_t>(a)] = (*stride)[k];
        if (size && (*size)[k] != out.dims.d[a])
        {
            return invalidArgument("slice: output extent differs from the requested size");
        }
    }
    for (int32_t d = 0; d < rank; ++d)
    {
        if (!seen[static_cast<size_t>(d)] && out.dims.d[d] != in.dims.d[d])
        {
            return invalidArgument("slice: an unsliced dimension changed extent");
        }
    }
    return p;
}

StatusOr<PaddingAttrs> readPaddingAttrs(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("padding: no plan node");
    }
    PaddingAttrs a;
    KILN_ASSIGN_OR_RETURN(a.pre, setup.node->attrs.requireInts("pre_padding"));
    KILN_ASSIGN_OR_RETURN(a.post, setup.node->attrs.requireInts("post_padding"));
    return a;
}

StatusOr<PaddingParams> paddingShapes(
    PaddingAttrs const& attrs, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.empty() || outputs.size() != 1)
    {
        return internalError("padding: expected one input and one output");
    }
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    std::vector<int64_t> const& pre = attrs.pre;
    std::vector<int64_t> const& post = attrs.post;
    int32_t const rank = in.dims.nbDims;
    auto const k = static_cast<int32_t>(pre.size());
    if (post.size() != pre.size() || k > rank || out.dims.nbDims != rank || in.type != out.type)
    {
        return invalidArgument("padding: attributes do not match the tensors");
    }
    PaddingParams p;
    p.shift.assign(static_cast<size_t>(rank), 0);
    for (int32_t i = 0; i < k; ++i)
    {
        int32_t const d = rank - k + i;
        p.shift[static_cast<size_t>(d)] = pre[static_cast<size_t>(i)];
        if (in.dims.d[d] + pre[static_cast<size_t>(i)] + post[static_cast<size_t>(i)] != out.dims.d[d])
        {
            return invalidArgument("padding: output extent of dimension " + std::to_string(d) + " is inconsistent");
        }
    }
    for (int32_t d = 0; d < rank - k; ++d)
    {
        if (in.dims.d[d] != out.dims.d[d])
        {
            return invalidArgument("padding: unpadded dimension " + std::to_string(d) + " changed extent");
        }
    }
    return p;
}

StatusOr<PaddingParams> makePaddingParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.empty() || outputs.size() != 1 || setup.node == nullptr)
    {
        return internalError("padding: expected one input and one output");
    }
    KILN_ASSIGN_OR_RETURN(PaddingAttrs const attrs, readPaddingAttrs(setup));
    return paddingShapes(attrs, inputs, outputs);
}

} // namespace kiln
