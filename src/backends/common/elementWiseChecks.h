// Backend-neutral checks of the elementwise-family kernels, shared by the CPU and CUDA kernels and the parameter
// readers of backends/common: which storage types the kernels handle, the I/O counts at kernel creation, and the
// view counts, data, types and dimensions at reshape, with the messages every backend gives.
#pragma once

#include "backends/kernel.h"
#include "core/dataType.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::ew
{

//! The types the elementwise kernels read and write.
inline bool isKernelType(nvinfer1::DataType t)
{
    using nvinfer1::DataType;
    switch (t)
    {
    case DataType::kFLOAT:
    case DataType::kHALF:
    case DataType::kBF16:
    case DataType::kINT8:
    case DataType::kUINT8:
    case DataType::kINT32:
    case DataType::kINT64:
    case DataType::kBOOL: return true;
    default: return false;
    }
}

inline bool isFloatKernelType(nvinfer1::DataType t)
{
    return t == nvinfer1::DataType::kFLOAT || t == nvinfer1::DataType::kHALF || t == nvinfer1::DataType::kBF16;
}

//! "[2, 3, 4]".
inline std::string dimsToString(nvinfer1::Dims const& d)
{
    std::string s = "[";
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        s += (i ? ", " : "") + std::to_string(d.d[i]);
    }
    return s + "]";
}

//! Dims of `out` with every extent replaced by 1 except those listed (helper for weights operands).
inline nvinfer1::Dims onesLike(nvinfer1::Dims const& out)
{
    nvinfer1::Dims d = out;
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        d.d[i] = 1;
    }
    return d;
}

// ---------------------------------------------------------------------------------------------------------
// Checks shared by kernel factories and reshape()
// ---------------------------------------------------------------------------------------------------------

//! Kernel-creation check of I/O counts.
inline Status checkIoCounts(KernelSetup const& setup, size_t nbInputs, size_t nbOutputs, char const* kind)
{
    if (setup.node == nullptr)
    {
        return internalError(std::string(kind) + " kernel: no plan node");
    }
    if (setup.inputTypes.size() != nbInputs || setup.outputTypes.size() != nbOutputs)
    {
        return invalidArgument(std::string(kind) + " node '" + setup.node->name + "': expected "
            + std::to_string(nbInputs) + " input(s) and " + std::to_string(nbOutputs) + " output(s), got "
            + std::to_string(setup.inputTypes.size()) + " and " + std::to_string(setup.outputTypes.size()));
    }
    for (size_t i = 0; i < setup.inputPresent.size() && i < nbInputs; ++i)
    {
        if (!setup.inputPresent[i])
        {
            return invalidArgument(std::string(kind) + " node '" + setup.node->name + "': input "
                + std::to_string(i) + " is missing");
        }
    }
    return Status::ok();
}

//! Reshape-time check of the number of views (the node's slots).
inline Status checkViewCounts(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, size_t nbInputs, size_t nbOutputs)
{
    if (inputs.size() != nbInputs || outputs.size() != nbOutputs)
    {
        return internalError("node '" + (setup.node != nullptr ? setup.node->name : std::string("?")) + "': got "
            + std::to_string(inputs.size()) + " inputs and " + std::to_string(outputs.size()) + " outputs, expected "
            + std::to_string(nbInputs) + " and " + std::to_string(nbOutputs));
    }
    return Status::ok();
}

//! Check of view counts and that non-empty views have data and kernel types (for kernels that check at a run).
inline Status checkViews(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, size_t nbInputs, size_t nbOutputs)
{
    KILN_RETURN_IF_ERROR(checkViewCounts(setup, inputs, outputs, nbInputs, nbOutputs));
    std::string const name = setup.node != nullptr ? setup.node->name : std::string("?");
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        if (inputs[i].data == nullptr && inputs[i].volume() != 0)
        {
            return internalError("node '" + name + "': input " + std::to_string(i) + " has no data");
        }
        if (!isKernelType(inputs[i].type))
        {
            return invalidArgument("node '" + name + "': input " + std::to_string(i) + " has unsupported type "
                + dataTypeName(inputs[i].type));
        }
    }
    for (size_t i = 0; i < outputs.size(); ++i)
    {
        if (outputs[i].data == nullptr && outputs[i].volume() != 0)
        {
            return internalError("node '" + name + "': output " + std::to_string(i) + " has no data");
        }
        if (!isKernelType(outputs[i].type))
        {
            return invalidArgument("node '" + name + "': output " + std::to_string(i) + " has unsupported type "
                + dataTypeName(outputs[i].type));
        }
    }
    return Status::ok();
}

//! Check that two views have identical dimensions.
inline Status checkSameDims(KernelSetup const& setup, nvinfer1::Dims const& a, nvinfer1::Dims const& b,
    char const* what)
{
    bool same = a.nbDims == b.nbDims;
    for (int32_t i = 0; same && i < a.nbDims; ++i)
    {
        same = a.d[i] == b.d[i];
    }
    if (!same)
    {
        return invalidArgument("node '" + (setup.node != nullptr ? setup.node->name : std::string("?")) + "': "
            + what + " dimensions " + dimsToString(a) + " and " + dimsToString(b) + " differ");
    }
    return Status::ok();
}

} // namespace kiln::ew
