// Quantization building blocks (see quantizationUtils.h).
#include "onnx/importers/quantizationUtils.h"

#include "onnx/importerHelpers.h"
#include "onnx/importers/compositeUtils.h"
#include "onnx/importers/nnUtils.h"
#include "onnx/onnxAttributes.h"

namespace kiln::quant
{
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

Status checkQuantizedType(::onnx::NodeProto const& node, DataType type, std::string const& what)
{
    if (type != DataType::kINT8 && type != DataType::kUINT8)
    {
        return unsupported(describeNode(node) + ": " + what + " must be INT8 or UINT8 (other quantized types, "
            + "float8 and INT4 included, are not supported)");
    }
    return Status::ok();
}

StatusOr<ITensor*> saturateRound(
    ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t, DataType type, std::string const& suffix)
{
    KILN_ASSIGN_OR_RETURN(ITensor * r, addUnary(ctx, node, t, nvinfer1::UnaryOperation::kROUND, suffix + "_round"));
    double const lo = type == DataType::kINT8 ? -128.0 : 0.0;
    double const hi = type == DataType::kINT8 ? 127.0 : 255.0;
    KILN_ASSIGN_OR_RETURN(r, composite::binaryScalar(ctx, node, r, lo, ElementWiseOperation::kMAX, suffix + "_lo"));
    return composite::binaryScalar(ctx, node, r, hi, ElementWiseOperation::kMIN, suffix + "_hi");
}

StatusOr<ITensor*> quantize(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* x, ITensor* scale,
    ITensor* zeroPoint, int32_t axis, DataType outType, std::string const& suffix)
{
    KILN_ASSIGN_OR_RETURN(ITensor * xf, castTo(ctx, node, x, DataType::kFLOAT, suffix + "_xf"));
    int32_t const rank = rankOf(xf);
    KILN_ASSIGN_OR_RETURN(ITensor * s, castTo(ctx, node, scale, DataType::kFLOAT, suffix + "_scale_f"));
    KILN_ASSIGN_OR_RETURN(s, composite::alignToAxis(ctx, node, s, axis, rank, suffix + "_scale"));
    KILN_ASSIGN_OR_RETURN(
        ITensor * q, composite::binary(ctx, node, xf, s, ElementWiseOperation::kDIV, suffix + "_div"));
    // Round before adding the zero point: rounding half to even depends on the parity of x / scale alone.
    KILN_ASSIGN_OR_RETURN(q, addUnary(ctx, node, q, nvinfer1::UnaryOperation::kROUND, suffix + "_round"));
    if (zeroPoint != nullptr)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * zp, castTo(ctx, node, zeroPoint, DataType::kFLOAT, suffix + "_zp_f"));
        KILN_ASSIGN_OR_RETURN(zp, composite::alignToAxis(ctx, node, zp, axis, rank, suffix + "_zp"));
        KILN_ASSIGN_OR_RETURN(q, composite::binary(ctx, node, q, zp, ElementWiseOperation::kSUM, suffix + "_shift"));
    }
    double const lo = outType == DataType::kINT8 ? -128.0 : 0.0;
    double const hi = outType == DataType::kINT8 ? 127.0 : 255.0;
    KILN_ASSIGN_OR_RETURN(q, composite::binaryScalar(ctx, node, q, lo, ElementWiseOperation::kMAX, suffix + "_lo"));
    KILN_ASSIGN_OR_RETURN(q, composite::binaryScalar(ctx, node, q, hi, ElementWiseOperation::kMIN, suffix + "_hi"));
    return castTo(ctx, node, q, outType, suffix + "_cast");
}

StatusOr<ITensor*> dequantize(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* x, ITensor* scale,
    ITensor* zeroPoint, int32_t axis, std::string const& suffix)
{
    KILN_ASSIGN_OR_RETURN(ITensor * xf, castTo(ctx, node, x, DataType::kFLOAT, suffix + "_xf"));
    int32_t const rank = rankOf(xf);
    if (zeroPoint != nullptr)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * zp, castTo(ctx, node, zeroPoint, DataType::kFLOAT, suffix + "_zp_f"));
        KILN_ASSIGN_OR_RETURN(zp, composite::alignToAxis(ctx, node, zp, axis, rank, suffix + "_zp"));
        KILN_ASSIGN_OR_RETURN(xf, composite::binary(ctx, node, xf, zp, ElementWiseOperation::kSUB, suffix + "_center"));
    }
    KILN_ASSIGN_OR_RETURN(ITensor * s, castTo(ctx, node, scale, DataType::kFLOAT, suffix + "_scale_f"));
    KILN_ASSIGN_OR_RETURN(s, composite::alignToAxis(ctx, node, s, axis, rank, suffix + "_scale"));
    return composite::binary(ctx, node, xf, s, ElementWiseOperation::kPROD, suffix + "_mul");
}

namespace
{

nvinfer1::Dims toDims(std::vector<int64_t> const& v)
{
    nvinfer1::Dims d{};
    d.nbDims = static_cast<int32_t>(v.size());
    for (size_t i = 0; i < v.size(); ++i)
    {
        d.d[i] = v[i];
    }
    return d;
}

} // namespace

StatusOr<ITensor*> convolution(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* x, ITensor* w,
    nvinfer1::Dims const& wDims, std::string const& suffix)
{
    int32_t const spatial = wDims.nbDims - 2;
    if (spatial < 1 || spatial > 3 || rankOf(x) != wDims.nbDims)
    {
        return unsupported(describeNode(node) + ": only 1-D, 2-D and 3-D convolutions are supported (input rank "
            + std::to_string(rankOf(x)) + ", kernel rank " + std::to_string(wDims.nbDims) + ")");
    }
    for (int32_t i = 0; i < wDims.nbDims; ++i)
    {
        if (wDims.d[i] < 0)
        {
            return unsupported(describeNode(node) + ": the kernel (input w) must have a static shape");
        }
    }
    std::vector<int64_t> kernel(wDims.d + 2, wDims.d + wDims.nbDims);
    std::vector<int64_t> strides = attrInts(node, "strides", std::vector<int64_t>(kernel.size(), 1));
    std::vector<int64_t> dilations = attrInts(node, "dilations", std::vector<int64_t>(kernel.size(), 1));
    std::vector<int64_t> pads = attrInts(node, "pads", std::vector<int64_t>(2 * kernel.size(), 0));
    if (strides.size() != kernel.size() || dilations.size() != kernel.size() || pads.size() != 2 * kernel.size())
    {
        return invalidArgument(describeNode(node) + ": attributes 'strides', 'dilations' and 'pads' must match the "
            + "kernel's " + std::to_string(kernel.size()) + " spatial dimensions");
    }
    int64_t const group = attrInt(node, "group", 1);
    std::string const autoPad = attrString(node, "auto_pad", "NOTSET");

    // A 1-D convolution runs as 2-D with a unit trailing dimension.
    bool const oneD = spatial == 1;
    if (oneD)
    {
        KILN_ASSIGN_OR_RETURN(x, unsqueeze(ctx, node, x, {3}, suffix + "_x2d"));
        KILN_ASSIGN_OR_RETURN(w, unsqueeze(ctx, node, w, {3}, suffix + "_w2d"));
        kernel.push_back(1);
        strides.push_back(1);
        dilations.push_back(1);
        pads = {pads[0], 0, pads[1], 0};
    }
    size_t const n = kernel.size();
    nvinfer1::Weights const empty{DataType::kFLOAT, nullptr, 0};
    nvinfer1::IConvolutionLayer* conv
        = ctx.network().addConvolutionNd(*x, wDims.d[0], toDims(kernel), empty, empty);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, conv, "addConvolutionNd", suffix));
    conv->setInput(1, *w);
    conv->setNbGroups(group);
    conv->setStrideNd(toDims(strides));
    conv->setDilationNd(toDims(dilations));
    if (autoPad == "SAME_UPPER")
    {
        conv->setPaddingMode(nvinfer1::PaddingMode::kSAME_UPPER);
    }
    else if (autoPad == "SAME_LOWER")
    {
        conv->setPaddingMode(nvinfer1::PaddingMode::kSAME_LOWER);
    }
    else if (autoPad == "NOTSET")
    {
        conv->setPrePadding(toDims(std::vector<int64_t>(pads.begin(), pads.begin() + static_cast<int64_t>(n))));
        conv->setPostPadding(toDims(std::vector<int64_t>(pads.begin() + static_cast<int64_t>(n), pads.end())));
    }
    else if (autoPad != "VALID")
    {
        return invalidArgument(describeNode(node) + ": attribute 'auto_pad' has unknown value '" + autoPad + "'");
    }
    KILN_RETURN_IF_ERROR(nn::checkApplied(node, "strides", conv->getStrideNd(), toDims(strides)));
    KILN_RETURN_IF_ERROR(nn::checkApplied(node, "dilations", conv->getDilationNd(), toDims(dilations)));
    if (autoPad == "NOTSET")
    {
        KILN_RETURN_IF_ERROR(nn::checkApplied(node, "pads", conv->getPrePadding(),
            toDims(std::vector<int64_t>(pads.begin(), pads.begin() + static_cast<int64_t>(n)))));
        KILN_RETURN_IF_ERROR(nn::checkApplied(node, "pads", conv->getPostPadding(),
            toDims(std::vector<int64_t>(pads.begin() + static_cast<int64_t>(n), pads.end()))));
    }
    ITensor* y = conv->getOutput(0);
    if (oneD)
    {
        KILN_ASSIGN_OR_RETURN(y, squeeze(ctx, node, y, {3}, suffix + "_y1d"));
    }
    return y;
}

} // namespace kiln::quant
