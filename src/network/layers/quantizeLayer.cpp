// QuantizeLayer / DequantizeLayer, INetworkDefinition::addQuantize / addDequantize and their shape/type inference.
// Inference accepts what TensorRT's explicit quantization describes (per-tensor, per-axis and block scales, every
// quantized type); the backends' kernels say which of those forms they run (backends/common/quantizeParams.h).
#include "network/layers/quantizeLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

#include <type_traits>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::Dims;

namespace
{

template <typename I>
constexpr bool kIS_QUANTIZE = std::is_same_v<I, nvinfer1::IQuantizeLayer>;

template <typename I>
char const* interfaceName()
{
    return kIS_QUANTIZE<I> ? "IQuantizeLayer" : "IDequantizeLayer";
}

bool isDequantizedType(DataType type)
{
    return type == DataType::kFLOAT || type == DataType::kHALF || type == DataType::kBF16;
}

//! Whether `type` is a valid output type of the layer kind (quantized types for Q, float types for DQ).
bool validToType(bool quantize, DataType type)
{
    return quantize ? isQuantizedType(type) : isDequantizedType(type);
}

std::string typeList(bool quantize)
{
    return quantize ? "kINT8, kFP8, kINT4 or kFP4" : "kFLOAT, kHALF or kBF16";
}

//! The common part of addQuantize and addDequantize.
template <typename L>
L* addQuantizeLayer(NetworkDefinition& network, nvinfer1::ITensor& input, nvinfer1::ITensor& scale, DataType toType,
    char const* method)
{
    try
    {
        Tensor* in = network.ownTensor(&input, method);
        Tensor* sc = in != nullptr ? network.ownTensor(&scale, method) : nullptr;
        if (sc == nullptr)
        {
            return nullptr;
        }
        bool const quantize = std::is_same_v<L, QuantizeLayer>;
        if (!isValidDataType(static_cast<int32_t>(toType)) || !validToType(quantize, toType))
        {
            network.reportError(invalidArgument(std::string(method) + ": output type "
                + std::to_string(static_cast<int32_t>(toType)) + " is not " + typeList(quantize)));
            return nullptr;
        }
        return network.adopt(std::make_unique<L>(network, in, sc, toType));
    }
    catch (...)
    {
        network.reportError(internalError(std::string(method) + ": unexpected exception"));
        return nullptr;
    }
}

//! Shared inference: `quantize` selects the checks of the data input's type.
Status inferQuantizeCommon(InferContext& ctx, bool quantize)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0, 0, Dims::MAX_DIMS));
    KILN_RETURN_IF_ERROR(ctx.requireInput(1, 0, Dims::MAX_DIMS));
    TensorInfo const& in = ctx.input(0);
    TensorInfo const& scale = ctx.input(1);
    auto const toType = static_cast<DataType>(ctx.attrs().getInt("toType", -1));
    if (!isValidDataType(static_cast<int32_t>(toType)) || !validToType(quantize, toType))
    {
        return ctx.error("output type " + std::to_string(static_cast<int32_t>(toType)) + " is not " + typeList(quantize));
    }
    if (quantize ? !isDequantizedType(in.type) : !isQuantizedType(in.type))
    {
        return ctx.error("input '" + in.name + "' has type " + dataTypeName(in.type) + "; it must be "
            + typeList(!quantize));
    }
    if (!isDequantizedType(scale.type))
    {
        return ctx.error("scale (input 1) '" + scale.name + "' has type " + dataTypeName(scale.type)
            + "; it must be kFLOAT, kHALF or kBF16");
    }
    int32_t const rank = in.rank();
    int64_t const axis = ctx.attrs().getInt("axis", -1);
    bool const block = !ctx.attrs().getInts("blockShape").empty();
    if (block)
    {
        if (scale.rank() != rank)
        {
            return ctx.error("block quantization needs a scale of the data's rank " + std::to_string(rank)
                + "; scale (input 1) '" + scale.name + "' has rank " + std::to_string(scale.rank()));
        }
    }
    else if (scale.rank() > 1)
    {
        return ctx.error("scale (input 1) '" + scale.name + "' has rank " + std::to_string(scale.rank())
            + "; per-tensor and per-axis scales have rank 0 or 1 (set a block shape for block quantization)");
    }
    else if (scale.rank() == 1)
    {
        DimExpr const n = scale.dims[0];
        bool const single = n.isConstant() && n.constant() == 1;
        if (!single)
        {
            if (axis < 0 || axis >= rank)
            {
                return ctx.error("scale (input 1) '" + scale.name + "' is 1-D (per-axis) but the axis "
                    + std::to_string(axis) + " is not in [0, " + std::to_string(rank - 1) + "] for input '" + in.name
                    + "' of rank " + std::to_string(rank));
            }
            KILN_RETURN_IF_ERROR(ctx.require(n.eq(in.dims[static_cast<size_t>(axis)]),
                "the per-axis scale '" + scale.name + "' must have one value per index of axis " + std::to_string(axis)
                    + " of input '" + in.name + "'"));
        }
    }
    if (ctx.hasInput(2))
    {
        TensorInfo const& zeroPoint = ctx.input(2);
        DataType const quantizedType = quantize ? toType : in.type;
        if (zeroPoint.type != quantizedType)
        {
            return ctx.error("zero point (input 2) '" + zeroPoint.name + "' has type " + dataTypeName(zeroPoint.type)
                + "; it must have the quantized type " + dataTypeName(quantizedType));
        }
        if (zeroPoint.rank() != scale.rank())
        {
            return ctx.error("zero point (input 2) '" + zeroPoint.name + "' must have the scale's shape");
        }
        for (int32_t i = 0; i < scale.rank(); ++i)
        {
            KILN_RETURN_IF_ERROR(ctx.require(zeroPoint.dims[static_cast<size_t>(i)].eq(scale.dims[static_cast<size_t>(i)]),
                "zero point (input 2) '" + zeroPoint.name + "' must have the scale's shape"));
        }
    }
    TensorInfo& out = ctx.output(0);
    out.type = toType;
    out.dims = in.dims;
    return Status::ok();
}

} // namespace

bool isQuantizedType(DataType type)
{
    return type == DataType::kINT8 || type == DataType::kFP8 || type == DataType::kINT4 || type == DataType::kFP4;
}

template <typename I>
QuantizeLayerBase<I>::QuantizeLayerBase(NetworkDefinition& network, Tensor* input, Tensor* scale, DataType toType)
    : LayerBase<I>(network, kIS_QUANTIZE<I> ? nvinfer1::LayerType::kQUANTIZE : nvinfer1::LayerType::kDEQUANTIZE,
        {input, scale}, 1)
{
    this->setMaxInputs(3);
    this->attrs().setInt("axis", -1);
    this->attrs().setInt("toType", static_cast<int64_t>(toType));
    this->attrs().setInts("blockShape", {});
}

template <typename I>
int32_t QuantizeLayerBase<I>::getAxis() const noexcept
{
    return static_cast<int32_t>(this->attrs().getInt("axis", -1));
}

template <typename I>
void QuantizeLayerBase<I>::setAxis(int32_t axis) noexcept
{
    this->attrs().setInt("axis", axis);
    this->touch();
}

template <typename I>
bool QuantizeLayerBase<I>::setBlockShape(Dims const& blockShape) noexcept
{
    bool valid = blockShape.nbDims >= 0 && blockShape.nbDims <= Dims::MAX_DIMS;
    for (int32_t i = 0; valid && i < blockShape.nbDims; ++i)
    {
        valid = blockShape.d[i] == -1 || blockShape.d[i] >= 1;
    }
    if (!valid)
    {
        this->network().reportError(invalidArgument(std::string(interfaceName<I>()) + "::setBlockShape on layer '"
            + this->name() + "': every extent must be -1 or at least 1"));
        return false;
    }
    this->attrs().setInts("blockShape", std::vector<int64_t>(blockShape.d, blockShape.d + blockShape.nbDims));
    this->touch();
    return true;
}

template <typename I>
Dims QuantizeLayerBase<I>::getBlockShape() const noexcept
{
    std::vector<int64_t> const v = this->attrs().getInts("blockShape");
    Dims d{};
    d.nbDims = static_cast<int32_t>(v.size());
    for (size_t i = 0; i < v.size(); ++i)
    {
        d.d[i] = v[i];
    }
    return d;
}

template <typename I>
void QuantizeLayerBase<I>::setToType(DataType toType) noexcept
{
    if (!isValidDataType(static_cast<int32_t>(toType)) || !validToType(kIS_QUANTIZE<I>, toType))
    {
        this->network().reportError(invalidArgument(std::string(interfaceName<I>()) + "::setToType on layer '"
            + this->name() + "': type " + std::to_string(static_cast<int32_t>(toType)) + " is not "
            + typeList(kIS_QUANTIZE<I>)));
        return;
    }
    this->attrs().setInt("toType", static_cast<int64_t>(toType));
    this->touch();
}

template <typename I>
DataType QuantizeLayerBase<I>::getToType() const noexcept
{
    return static_cast<DataType>(this->attrs().getInt("toType"));
}

template class QuantizeLayerBase<nvinfer1::IQuantizeLayer>;
template class QuantizeLayerBase<nvinfer1::IDequantizeLayer>;

nvinfer1::IQuantizeLayer* NetworkDefinition::addQuantize(nvinfer1::ITensor& input, nvinfer1::ITensor& scale) noexcept
{
    return addQuantizeLayer<QuantizeLayer>(*this, input, scale, DataType::kINT8, "addQuantize");
}

nvinfer1::IQuantizeLayer* NetworkDefinition::addQuantize(
    nvinfer1::ITensor& input, nvinfer1::ITensor& scale, DataType outputType) noexcept
{
    return addQuantizeLayer<QuantizeLayer>(*this, input, scale, outputType, "addQuantize");
}

nvinfer1::IDequantizeLayer* NetworkDefinition::addDequantize(nvinfer1::ITensor& input, nvinfer1::ITensor& scale) noexcept
{
    return addQuantizeLayer<DequantizeLayer>(*this, input, scale, DataType::kFLOAT, "addDequantize");
}

nvinfer1::IDequantizeLayer* NetworkDefinition::addDequantize(
    nvinfer1::ITensor& input, nvinfer1::ITensor& scale, DataType outputType) noexcept
{
    return addQuantizeLayer<DequantizeLayer>(*this, input, scale, outputType, "addDequantize");
}

Status inferQuantize(InferContext& ctx)
{
    return inferQuantizeCommon(ctx, true);
}

Status inferDequantize(InferContext& ctx)
{
    return inferQuantizeCommon(ctx, false);
}

} // namespace kiln
