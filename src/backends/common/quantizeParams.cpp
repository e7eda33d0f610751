// Backend-neutral host-side logic of the Q/DQ kernels, shared by the CPU kernel (backends/cpu/kernels/quantize.cpp)
// and the CUDA kernel (backends/cuda/kernels/quantize.cu).
#include "backends/common/quantizeParams.h"

#include "core/dataType.h"

namespace kiln
{
using nvinfer1::DataType;

namespace
{

bool isFloatIo(DataType t)
{
    return t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
}

//! Whether a present zero point's values (given on the host) are all zero.
bool allZero(void const* data, DataType type, int64_t count)
{
    for (int64_t i = 0; i < count; ++i)
    {
        if (loadElement(data, type, i) != 0.0)
        {
            return false;
        }
    }
    return true;
}

} // namespace

Status quantizeError(KernelSetup const& setup, QuantizeParams const& p, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (" + p.kind + "): " + message);
}

bool zeroPointNeedsRunCheck(KernelSetup const& setup)
{
    bool const present = setup.inputPresent.size() > 2 && setup.inputPresent[2];
    bool const constant = setup.constantInputs.size() > 2 && setup.constantInputs[2].present();
    return present && !constant;
}

StatusOr<QuantizeParams> readQuantizeParams(KernelSetup const& setup, bool quantize, bool runtimeZeroPoint)
{
    QuantizeParams p;
    p.quantize = quantize;
    p.kind = quantize ? "Quantize" : "Dequantize";
    if (setup.node == nullptr)
    {
        return internalError(std::string(p.kind) + " kernel: no plan node");
    }
    size_t const nbIn = setup.inputTypes.size();
    if (nbIn < 2 || nbIn > 3 || setup.outputTypes.size() != 1 || !setup.inputPresent[0] || !setup.inputPresent[1])
    {
        return quantizeError(setup, p, "expects data, scale and an optional zero point, and one output");
    }
    DataType const quantized = quantize ? setup.outputTypes[0] : setup.inputTypes[0];
    DataType const real = quantize ? setup.inputTypes[0] : setup.outputTypes[0];
    if (quantized != DataType::kINT8)
    {
        return unsupported("layer '" + setup.node->name + "' (" + p.kind + "): quantized type "
            + dataTypeName(quantized) + " is not supported; Kiln's kernels run INT8 quantization only (FP8, INT4 "
            + "and FP4 are not implemented)");
    }
    if (!isFloatIo(real))
    {
        return quantizeError(setup, p, std::string("the ") + (quantize ? "input" : "output") + " type "
            + dataTypeName(real) + " is not FP32, FP16 or BF16");
    }
    if (!isFloatIo(setup.inputTypes[1]))
    {
        return quantizeError(setup, p, std::string("scale type ") + dataTypeName(setup.inputTypes[1])
            + " is not FP32, FP16 or BF16");
    }
    if (!setup.node->attrs.getInts("blockShape").empty())
    {
        return unsupported("layer '" + setup.node->name + "' (" + p.kind
            + "): block quantization is not supported; Kiln's kernels take per-tensor and per-axis scales only");
    }
    p.axis = static_cast<int32_t>(setup.node->attrs.getInt("axis", -1));
    bool const hasZeroPoint = nbIn == 3 && setup.inputPresent[2];
    if (hasZeroPoint)
    {
        if (setup.inputTypes[2] != DataType::kINT8)
        {
            return quantizeError(setup, p, std::string("zero point type ") + dataTypeName(setup.inputTypes[2])
                + " is not INT8");
        }
        if (!zeroPointNeedsRunCheck(setup))
        {
            WeightsView const& zp = setup.constantInputs[2];
            if (!allZero(zp.data, zp.type, zp.count))
            {
                return unsupported("layer '" + setup.node->name + "' (" + p.kind
                    + "): non-zero zero points are not supported (INT8 quantization is symmetric)");
            }
        }
        else if (!runtimeZeroPoint)
        {
            return unsupported("layer '" + setup.node->name + "' (" + p.kind
                + "): a zero point that is not a constant of the engine is not supported on this backend");
        }
    }
    return p;
}

StatusOr<QuantizeGeometry> quantizeGeometry(KernelSetup const& setup, QuantizeParams const& p,
    std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.size() < 2 || outputs.size() != 1)
    {
        return quantizeError(setup, p, "expects data and scale inputs and one output");
    }
    TensorView const& in = inputs[0];
    TensorView const& scale = inputs[1];
    nvinfer1::Dims const& d = in.dims;
    nvinfer1::Dims const& o = outputs[0].dims;
    bool same = d.nbDims == o.nbDims;
    for (int32_t i = 0; same && i < d.nbDims; ++i)
    {
        same = d.d[i] == o.d[i];
    }
    if (!same)
    {
        return quantizeError(setup, p, "the output must have the input's shape");
    }
    QuantizeGeometry g;
    g.volume = in.volume();
    g.inner = g.volume;
    int64_t const scaleCount = scale.volume();
    if (scale.dims.nbDims > 1)
    {
        return quantizeError(setup, p, "the scale must have rank 0 or 1 (per-tensor or per-axis)");
    }
    if (scaleCount != 1)
    {
        if (p.axis < 0 || p.axis >= d.nbDims)
        {
            return quantizeError(setup, p, "a per-axis scale of " + std::to_string(scaleCount)
                + " values needs an axis in [0, " + std::to_string(d.nbDims - 1) + "]; the axis is "
                + std::to_string(p.axis));
        }
        if (scaleCount != d.d[p.axis])
        {
            return quantizeError(setup, p, "the per-axis scale has " + std::to_string(scaleCount)
                + " values but axis " + std::to_string(p.axis) + " has extent " + std::to_string(d.d[p.axis]));
        }
        g.n = scaleCount;
        g.inner = 1;
        for (int32_t i = p.axis + 1; i < d.nbDims; ++i)
        {
            g.inner *= d.d[i];
        }
    }
    if (inputs.size() > 2 && inputs[2].present() && inputs[2].volume() != scaleCount)
    {
        return quantizeError(setup, p, "the zero point must have the scale's shape");
    }
    return g;
}

} // namespace kiln
