// Importers of the quantization op family. QuantizeLinear / DequantizeLinear with an INT8 quantized type, a constant
// scale and a zero (or absent) zero point become IQuantizeLayer / IDequantizeLayer, as TensorRT's parser maps them
// (explicit quantization, which the backends run in INT8). Every other form is composed from elementwise layers in
// float: QuantizeLinear
// (round(x / scale) half to even, plus the zero point, saturated to INT8/UINT8), DequantizeLinear
// ((x - zero_point) * scale), both per tensor or per axis; DynamicQuantizeLinear (UINT8 scale and zero point from
// the range of x, which always includes 0); MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv (integer
// products computed exactly in float, then requantised). Float8/INT4 and block quantization are unsupported.
#include "onnx/importerHelpers.h"
#include "onnx/importers/compositeUtils.h"
#include "onnx/importers/quantizationUtils.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

#include <algorithm>

namespace kiln
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

//! The normalised 'axis' attribute (default 1) when the scale is per axis; 0 (unused) for a per-tensor scale, so
//! that the default axis does not have to exist in a low-rank input.
StatusOr<int32_t> quantAxis(::onnx::NodeProto const& node, ITensor* scale, int32_t rank)
{
    nvinfer1::Dims const d = scale->getDimensions();
    if (d.nbDims == 0 || (d.nbDims == 1 && d.d[0] == 1))
    {
        return 0;
    }
    return normalizeAxis(node, attrInt(node, "axis", 1), rank);
}

//! Whether the node's zero point (input 2) is absent, or a constant whose values are all zero.
bool zeroPointIsZero(ImporterContext& ctx, ::onnx::NodeProto const& node)
{
    if (!ctx.hasInput(node, 2))
    {
        return true;
    }
    OnnxConstant const* zp = ctx.constant(node, 2);
    if (zp == nullptr)
    {
        return false;
    }
    StatusOr<std::vector<int64_t>> values = zp->toInt64();
    return values.isOk() && std::all_of(values->begin(), values->end(), [](int64_t v) { return v == 0; });
}

//! The IQuantizeLayer / IDequantizeLayer form of a Q/DQ node: INT8, a constant FP32/FP16/BF16 scale of rank 0 or 1
//! and a zero (or absent) zero point. nullptr (no layer) when the node has another form, which is then composed in
//! float. `x` is the data input; `axis` the normalised axis (0 for a per-tensor scale).
StatusOr<ITensor*> explicitQuantization(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* x, ITensor* scale,
    int32_t axis, bool quantize, DataType quantizedType)
{
    DataType const scaleType = scale->getType();
    bool const floatScale = scaleType == DataType::kFLOAT || scaleType == DataType::kHALF || scaleType == DataType::kBF16;
    bool const floatData = x->getType() == DataType::kFLOAT || x->getType() == DataType::kHALF
        || x->getType() == DataType::kBF16;
    bool const fits = quantizedType == DataType::kINT8 && floatScale && (quantize ? floatData : true)
        && ctx.constant(node, 1) != nullptr && scale->getDimensions().nbDims <= 1 && zeroPointIsZero(ctx, node);
    if (!fits)
    {
        return static_cast<ITensor*>(nullptr);
    }
    bool const perAxis = scale->getDimensions().nbDims == 1 && scale->getDimensions().d[0] != 1;
    nvinfer1::INetworkDefinition& net = ctx.network();
    nvinfer1::ILayer* layer = nullptr;
    if (quantize)
    {
        nvinfer1::IQuantizeLayer* q = net.addQuantize(*x, *scale, DataType::kINT8);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, q, "addQuantize"));
        q->setAxis(perAxis ? axis : -1);
        layer = q;
    }
    else
    {
        nvinfer1::IDequantizeLayer* dq = net.addDequantize(*x, *scale, scaleType);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, dq, "addDequantize"));
        dq->setAxis(perAxis ? axis : -1);
        layer = dq;
    }
    return layer->getOutput(0);
}

Status importQuantizeLinear(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * scale, ctx.tensor(node, 1));
    int32_t const rank = rankOf(x);
    if (attrInt(node, "block_size", 0) != 0)
    {
        return unsupported(describeNode(node) + ": blocked quantization (attribute 'block_size') is not supported");
    }
    KILN_ASSIGN_OR_RETURN(int32_t const axis, quantAxis(node, scale, rank));
    DataType outType = DataType::kUINT8;
    ITensor* zeroPoint = nullptr;
    if (ctx.hasInput(node, 2))
    {
        KILN_ASSIGN_OR_RETURN(zeroPoint, ctx.tensor(node, 2));
        outType = zeroPoint->getType();
    }
    else if (hasAttribute(node, "output_dtype"))
    {
        int64_t const dtype = attrInt(node, "output_dtype", 0);
        if (dtype == ::onnx::TensorProto::INT8)
        {
            outType = DataType::kINT8;
        }
        else if (dtype != ::onnx::TensorProto::UINT8 && dtype != 0)
        {
            return unsupported(describeNode(node) + ": attribute 'output_dtype' " + std::to_string(dtype)
                + " is not supported (only INT8 and UINT8)");
        }
    }
    KILN_RETURN_IF_ERROR(quant::checkQuantizedType(node, outType, "the zero point (input 2)"));
    KILN_ASSIGN_OR_RETURN(ITensor * y, explicitQuantization(ctx, node, x, scale, axis, true, outType));
    if (y == nullptr)
    {
        KILN_ASSIGN_OR_RETURN(y, quant::quantize(ctx, node, x, scale, zeroPoint, axis, outType, ""));
    }
    outputs = {OnnxValue(y)};
    return Status::ok();
}

Status importDequantizeLinear(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * scale, ctx.tensor(node, 1));
    if (attrInt(node, "block_size", 0) != 0)
    {
        return unsupported(describeNode(node) + ": blocked quantization (attribute 'block_size') is not supported");
    }
    if (x->getType() != DataType::kINT8 && x->getType() != DataType::kUINT8 && x->getType() != DataType::kINT32)
    {
        return unsupported(describeNode(node) + ": input 0 (x) must be INT8, UINT8 or INT32");
    }
    int32_t const rank = rankOf(x);
    KILN_ASSIGN_OR_RETURN(int32_t const axis, quantAxis(node, scale, rank));
    KILN_ASSIGN_OR_RETURN(ITensor * explicitY, explicitQuantization(ctx, node, x, scale, axis, false, x->getType()));
    if (explicitY != nullptr)
    {
        outputs = {OnnxValue(explicitY)};
        return Status::ok();
    }
    ITensor* zeroPoint = nullptr;
    if (ctx.hasInput(node, 2))
    {
        KILN_ASSIGN_OR_RETURN(zeroPoint, ctx.tensor(node, 2));
    }
    KILN_ASSIGN_OR_RETURN(ITensor * y, quant::dequantize(ctx, node, x, scale, zeroPoint, axis, ""));
    KILN_ASSIGN_OR_RETURN(y, castTo(ctx, node, y, scale->getType(), "_out"));
    outputs = {OnnxValue(y)};
    return Status::ok();
}

Status importDynamicQuantizeLinear(
    ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    using nvinfer1::ReduceOperation;
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    if (!isFloatType(x->getType()))
    {
        return invalidArgument(describeNode(node) + ": input 0 (x) must be a floating-point tensor");
    }
    KILN_ASSIGN_OR_RETURN(x, castTo(ctx, node, x, DataType::kFLOAT, "_x"));
    KILN_ASSIGN_OR_RETURN(ITensor * lo, composite::reduceAll(ctx, node, x, ReduceOperation::kMIN, false, "_min"));
    KILN_ASSIGN_OR_RETURN(ITensor * hi, composite::reduceAll(ctx, node, x, ReduceOperation::kMAX, false, "_max"));
    KILN_ASSIGN_OR_RETURN(lo, composite::binaryScalar(ctx, node, lo, 0.0, ElementWiseOperation::kMIN, "_min0"));
    KILN_ASSIGN_OR_RETURN(hi, composite::binaryScalar(ctx, node, hi, 0.0, ElementWiseOperation::kMAX, "_max0"));
    KILN_ASSIGN_OR_RETURN(ITensor * range, composite::binary(ctx, node, hi, lo, ElementWiseOperation::kSUB, "_range"));
    KILN_ASSIGN_OR_RETURN(ITensor * scale,
        composite::binaryScalar(ctx, node, range, 255.0, ElementWiseOperation::kDIV, "_scale"));
    // zero point = saturate(round(0 - min / scale)).
    KILN_ASSIGN_OR_RETURN(ITensor * zp, composite::binary(ctx, node, lo, scale, ElementWiseOperation::kDIV, "_zp_div"));
    KILN_ASSIGN_OR_RETURN(zp, addUnary(ctx, node, zp, nvinfer1::UnaryOperation::kNEG, "_zp_neg"));
    KILN_ASSIGN_OR_RETURN(zp, quant::saturateRound(ctx, node, zp, DataType::kUINT8, "_zp"));
    KILN_ASSIGN_OR_RETURN(ITensor * zpOut, castTo(ctx, node, zp, DataType::kUINT8, "_zp_cast"));
    KILN_ASSIGN_OR_RETURN(ITensor * y, quant::quantize(ctx, node, x, scale, zpOut, 0, DataType::kUINT8, "_y"));
    outputs = {OnnxValue(y), OnnxValue(scale), OnnxValue(zpOut)};
    return Status::ok();
}

//! (q - zeroPoint) in float; zeroPoint may be absent. `axis` places a 1-D per-channel zero point.
StatusOr<ITensor*> centered(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* q, ITensor* zeroPoint,
    int32_t axis, std::string const& suffix)
{
    KILN_ASSIGN_OR_RETURN(ITensor * f, castTo(ctx, node, q, DataType::kFLOAT, suffix + "_f"));
    if (zeroPoint == nullptr)
    {
        return f;
    }
    KILN_ASSIGN_OR_RETURN(ITensor * zp, castTo(ctx, node, zeroPoint, DataType::kFLOAT, suffix + "_zp_f"));
    KILN_ASSIGN_OR_RETURN(zp, composite::alignToAxis(ctx, node, zp, axis, rankOf(f), suffix + "_zp_align"));
    return composite::binary(ctx, node, f, zp, ElementWiseOperation::kSUB, suffix + "_center");
}

StatusOr<ITensor*> optionalInput(ImporterContext& ctx, ::onnx::NodeProto const& node, int32_t index)
{
    if (!ctx.hasInput(node, index))
    {
        return static_cast<ITensor*>(nullptr);
    }
    return ctx.tensor(node, index);
}

Status importMatMulInteger(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * a, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * b, ctx.tensor(node, 1));
    KILN_ASSIGN_OR_RETURN(ITensor * aZero, optionalInput(ctx, node, 2));
    KILN_ASSIGN_OR_RETURN(ITensor * bZero, optionalInput(ctx, node, 3));
    // A per-row zero point of A is 1-D [M]: it belongs to the row axis (rank - 2).
    KILN_ASSIGN_OR_RETURN(ITensor * af, centered(ctx, node, a, aZero, std::max(rankOf(a) - 2, 0), "_a"));
    KILN_ASSIGN_OR_RETURN(ITensor * bf, centered(ctx, node, b, bZero, rankOf(b) - 1, "_b"));
    KILN_ASSIGN_OR_RETURN(ITensor * y, composite::matmul(ctx, node, af, bf, "_matmul"));
    KILN_ASSIGN_OR_RETURN(y, castTo(ctx, node, y, DataType::kINT32, "_out"));
    outputs = {OnnxValue(y)};
    return Status::ok();
}

Status importQLinearMatMul(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    std::vector<ITensor*> in(8, nullptr);
    for (int32_t i = 0; i < 8; ++i)
    {
        KILN_ASSIGN_OR_RETURN(in[static_cast<size_t>(i)], ctx.tensor(node, i));
    }
    ITensor* a = in[0];
    ITensor* b = in[3];
    int32_t const rowAxis = std::max(rankOf(a) - 2, 0);
    KILN_ASSIGN_OR_RETURN(ITensor * af, centered(ctx, node, a, in[2], rowAxis, "_a"));
    KILN_ASSIGN_OR_RETURN(ITensor * bf, centered(ctx, node, b, in[5], rankOf(b) - 1, "_b"));
    KILN_ASSIGN_OR_RETURN(ITensor * acc, composite::matmul(ctx, node, af, bf, "_matmul"));
    int32_t const rank = rankOf(acc);
    KILN_ASSIGN_OR_RETURN(ITensor * aScale, castTo(ctx, node, in[1], DataType::kFLOAT, "_a_scale"));
    KILN_ASSIGN_OR_RETURN(aScale, composite::alignToAxis(ctx, node, aScale, std::max(rank - 2, 0), rank, "_as"));
    KILN_ASSIGN_OR_RETURN(ITensor * bScale, castTo(ctx, node, in[4], DataType::kFLOAT, "_b_scale"));
    KILN_ASSIGN_OR_RETURN(bScale, composite::alignToAxis(ctx, node, bScale, rank - 1, rank, "_bs"));
    KILN_ASSIGN_OR_RETURN(ITensor * real, composite::binary(ctx, node, aScale, bScale, ElementWiseOperation::kPROD,
        "_ab_scale"));
    KILN_ASSIGN_OR_RETURN(real, composite::binary(ctx, node, acc, real, ElementWiseOperation::kPROD, "_real"));
    DataType const outType = in[7]->getType();
    KILN_RETURN_IF_ERROR(quant::checkQuantizedType(node, outType, "y_zero_point (input 7)"));
    KILN_ASSIGN_OR_RETURN(ITensor * y, quant::quantize(ctx, node, real, in[6], in[7], rank - 1, outType, "_y"));
    outputs = {OnnxValue(y)};
    return Status::ok();
}

Status importConvInteger(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * w, ctx.tensor(node, 1));
    KILN_ASSIGN_OR_RETURN(ITensor * xZero, optionalInput(ctx, node, 2));
    KILN_ASSIGN_OR_RETURN(ITensor * wZero, optionalInput(ctx, node, 3));
    KILN_ASSIGN_OR_RETURN(ITensor * xf, centered(ctx, node, x, xZero, 1, "_x"));
    KILN_ASSIGN_OR_RETURN(ITensor * wf, centered(ctx, node, w, wZero, 0, "_w"));
    KILN_ASSIGN_OR_RETURN(ITensor * y, quant::convolution(ctx, node, xf, wf, w->getDimensions(), "_conv"));
    KILN_ASSIGN_OR_RETURN(y, castTo(ctx, node, y, DataType::kINT32, "_out"));
    outputs = {OnnxValue(y)};
    return Status::ok();
}

Status importQLinearConv(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    std::vector<ITensor*> in(8, nullptr);
    for (int32_t i = 0; i < 8; ++i)
    {
        KILN_ASSIGN_OR_RETURN(in[static_cast<size_t>(i)], ctx.tensor(node, i));
    }
    KILN_ASSIGN_OR_RETURN(ITensor * bias, optionalInput(ctx, node, 8));
    KILN_ASSIGN_OR_RETURN(ITensor * xf, centered(ctx, node, in[0], in[2], 1, "_x"));
    KILN_ASSIGN_OR_RETURN(ITensor * wf, centered(ctx, node, in[3], in[5], 0, "_w"));
    KILN_ASSIGN_OR_RETURN(ITensor * acc, quant::convolution(ctx, node, xf, wf, in[3]->getDimensions(), "_conv"));
    int32_t const rank = rankOf(acc);
    if (bias != nullptr)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * bf, castTo(ctx, node, bias, DataType::kFLOAT, "_bias_f"));
        KILN_ASSIGN_OR_RETURN(bf, composite::alignToAxis(ctx, node, bf, 1, rank, "_bias_align"));
        KILN_ASSIGN_OR_RETURN(acc, composite::binary(ctx, node, acc, bf, ElementWiseOperation::kSUM, "_bias"));
    }
    KILN_ASSIGN_OR_RETURN(ITensor * xScale, castTo(ctx, node, in[1], DataType::kFLOAT, "_x_scale"));
    KILN_ASSIGN_OR_RETURN(xScale, composite::alignToAxis(ctx, node, xScale, 1, rank, "_xs"));
    KILN_ASSIGN_OR_RETURN(ITensor * wScale, castTo(ctx, node, in[4], DataType::kFLOAT, "_w_scale"));
    KILN_ASSIGN_OR_RETURN(wScale, composite::alignToAxis(ctx, node, wScale, 1, rank, "_ws"));
    KILN_ASSIGN_OR_RETURN(ITensor * real, composite::binary(ctx, node, xScale, wScale, ElementWiseOperation::kPROD,
        "_xw_scale"));
    KILN_ASSIGN_OR_RETURN(real, composite::binary(ctx, node, acc, real, ElementWiseOperation::kPROD, "_real"));
    DataType const outType = in[7]->getType();
    KILN_RETURN_IF_ERROR(quant::checkQuantizedType(node, outType, "y_zero_point (input 7)"));
    KILN_ASSIGN_OR_RETURN(ITensor * y, quant::quantize(ctx, node, real, in[6], in[7], 1, outType, "_y"));
    outputs = {OnnxValue(y)};
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> quantizationImporters()
{
    return {
        {"QuantizeLinear", importQuantizeLinear},
        {"DequantizeLinear", importDequantizeLinear},
        {"DynamicQuantizeLinear", importDynamicQuantizeLinear},
        {"MatMulInteger", importMatMulInteger},
        {"QLinearMatMul", importQLinearMatMul},
        {"ConvInteger", importConvInteger},
        {"QLinearConv", importQLinearConv},
    };
}

} // namespace kiln
