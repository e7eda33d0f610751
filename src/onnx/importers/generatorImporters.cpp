// Importers of the generator op family: HannWindow, HammingWindow, BlackmanWindow (opset 17; a linspace of sample
// indices through cos, the size a parse-time constant or a run-time INT32/INT64 scalar), RandomUniform,
// RandomNormal, RandomUniformLike, RandomNormalLike and Bernoulli (IFillLayer random fills: Kiln's generator is
// counter based and does not reproduce another runtime's values; the 'seed' attribute is ignored with a warning).
#include "onnx/importerHelpers.h"
#include "onnx/importers/compositeUtils.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

#include <cmath>

namespace kiln
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

//! The Kiln type of an ONNX element type attribute (DOUBLE maps to FLOAT, as for every tensor).
StatusOr<DataType> onnxToKilnType(::onnx::NodeProto const& node, int64_t onnxType, char const* attribute)
{
    switch (onnxType)
    {
    case ::onnx::TensorProto::FLOAT:
    case ::onnx::TensorProto::DOUBLE: return DataType::kFLOAT;
    case ::onnx::TensorProto::FLOAT16: return DataType::kHALF;
    case ::onnx::TensorProto::BFLOAT16: return DataType::kBF16;
    case ::onnx::TensorProto::INT8: return DataType::kINT8;
    case ::onnx::TensorProto::UINT8: return DataType::kUINT8;
    case ::onnx::TensorProto::INT32: return DataType::kINT32;
    case ::onnx::TensorProto::INT64: return DataType::kINT64;
    case ::onnx::TensorProto::BOOL: return DataType::kBOOL;
    default: break;
    }
    return unsupported(describeNode(node) + ": attribute '" + attribute + "' names ONNX element type "
        + std::to_string(onnxType) + ", which Kiln does not support");
}

enum class Window
{
    kHANN,
    kHAMMING,
    kBLACKMAN
};

Status importWindow(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs, Window kind)
{
    KILN_ASSIGN_OR_RETURN(DataType const outType,
        onnxToKilnType(node, attrInt(node, "output_datatype", ::onnx::TensorProto::FLOAT), "output_datatype"));
    bool const periodic = attrInt(node, "periodic", 1) != 0;
    double constexpr kPi = 3.14159265358979323846;

    // n = 0, 1, ..., size - 1 and the denominator N (size when periodic, size - 1 otherwise).
    nvinfer1::IFillLayer* fill = nullptr;
    ITensor* denominator = nullptr;
    if (OnnxConstant const* sizeConst = ctx.constant(node, 0))
    {
        KILN_ASSIGN_OR_RETURN(std::vector<int64_t> const values, sizeConst->toInt64());
        if (values.size() != 1 || values[0] < 0)
        {
            return invalidArgument(describeNode(node) + ": input 0 (size) must be one non-negative integer");
        }
        fill = ctx.network().addFill(nvinfer1::Dims{1, {values[0]}}, nvinfer1::FillOperation::kLINSPACE,
            DataType::kFLOAT);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, fill, "addFill", "_n"));
        KILN_ASSIGN_OR_RETURN(denominator, scalarLike(ctx, node,
            static_cast<double>(periodic ? values[0] : values[0] - 1), DataType::kFLOAT, 1));
    }
    else
    {
        KILN_ASSIGN_OR_RETURN(ITensor * size, ctx.tensor(node, 0));
        if (size->getType() != DataType::kINT32 && size->getType() != DataType::kINT64)
        {
            return invalidArgument(describeNode(node) + ": input 0 (size) must be an INT32 or INT64 scalar");
        }
        KILN_ASSIGN_OR_RETURN(ITensor * shape, reshape(ctx, node, size, nvinfer1::Dims{1, {1}}, "_size"));
        KILN_ASSIGN_OR_RETURN(shape, castTo(ctx, node, shape, DataType::kINT64, "_size64"));
        fill = ctx.network().addFill(nvinfer1::Dims{1, {1}}, nvinfer1::FillOperation::kLINSPACE, DataType::kFLOAT);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, fill, "addFill", "_n"));
        fill->setInput(0, *shape);
        KILN_ASSIGN_OR_RETURN(denominator, castTo(ctx, node, shape, DataType::kFLOAT, "_size_f"));
        if (!periodic)
        {
            KILN_ASSIGN_OR_RETURN(denominator,
                composite::binaryScalar(ctx, node, denominator, 1.0, ElementWiseOperation::kSUB, "_size_m1"));
        }
    }
    fill->setAlpha(0.0);
    fill->setBeta(1.0);
    ITensor* n = fill->getOutput(0);

    // angle = 2 pi n / N; window = a0 - a1 cos(angle) + a2 cos(2 angle).
    KILN_ASSIGN_OR_RETURN(ITensor * angle, composite::binaryScalar(ctx, node, n, 2.0 * kPi, ElementWiseOperation::kPROD,
        "_2pi_n"));
    KILN_ASSIGN_OR_RETURN(
        angle, composite::binary(ctx, node, angle, denominator, ElementWiseOperation::kDIV, "_angle"));
    double a0 = 0.5;
    double a1 = 0.5;
    double a2 = 0.0;
    if (kind == Window::kHAMMING)
    {
        a0 = 25.0 / 46.0;
        a1 = 1.0 - a0;
    }
    else if (kind == Window::kBLACKMAN)
    {
        a0 = 0.42;
        a1 = 0.5;
        a2 = 0.08;
    }
    KILN_ASSIGN_OR_RETURN(ITensor * c1, addUnary(ctx, node, angle, nvinfer1::UnaryOperation::kCOS, "_cos"));
    KILN_ASSIGN_OR_RETURN(c1, composite::binaryScalar(ctx, node, c1, -a1, ElementWiseOperation::kPROD, "_a1cos"));
    KILN_ASSIGN_OR_RETURN(ITensor * w, composite::binaryScalar(ctx, node, c1, a0, ElementWiseOperation::kSUM, "_a0"));
    if (a2 != 0.0)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * angle2,
            composite::binaryScalar(ctx, node, angle, 2.0, ElementWiseOperation::kPROD, "_angle2"));
        KILN_ASSIGN_OR_RETURN(ITensor * c2, addUnary(ctx, node, angle2, nvinfer1::UnaryOperation::kCOS, "_cos2"));
        KILN_ASSIGN_OR_RETURN(c2, composite::binaryScalar(ctx, node, c2, a2, ElementWiseOperation::kPROD, "_a2cos"));
        KILN_ASSIGN_OR_RETURN(w, composite::binary(ctx, node, w, c2, ElementWiseOperation::kSUM, "_window"));
    }
    KILN_ASSIGN_OR_RETURN(w, castTo(ctx, node, w, outType, "_out"));
    outputs = {OnnxValue(w)};
    return Status::ok();
}

Status importHannWindow(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importWindow(ctx, node, outputs, Window::kHANN);
}

Status importHammingWindow(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importWindow(ctx, node, outputs, Window::kHAMMING);
}

Status importBlackmanWindow(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importWindow(ctx, node, outputs, Window::kBLACKMAN);
}

//! A random fill of the shape of `like` (when given) or of the 'shape' attribute, in float.
StatusOr<ITensor*> randomFill(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::FillOperation op,
    double alpha, double beta, ITensor* like)
{
    if (hasAttribute(node, "seed"))
    {
        ctx.warn(node, "attribute 'seed' is ignored: Kiln's random fills use their own counter-based generator");
    }
    nvinfer1::IFillLayer* fill = nullptr;
    if (like != nullptr)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * shape, shapeOf(ctx, node, like));
        fill = ctx.network().addFill(nvinfer1::Dims{1, {1}}, op, DataType::kFLOAT);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, fill, "addFill", "_random"));
        fill->setInput(0, *shape);
    }
    else
    {
        KILN_ASSIGN_OR_RETURN(std::vector<int64_t> const shape, requireAttrInts(node, "shape"));
        if (shape.size() > static_cast<size_t>(nvinfer1::Dims::MAX_DIMS))
        {
            return unsupported(describeNode(node) + ": attribute 'shape' has more than 8 dimensions");
        }
        nvinfer1::Dims dims{};
        dims.nbDims = static_cast<int32_t>(shape.size());
        for (size_t i = 0; i < shape.size(); ++i)
        {
            dims.d[i] = shape[i];
        }
        fill = ctx.network().addFill(dims, op, DataType::kFLOAT);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, fill, "addFill", "_random"));
    }
    fill->setAlpha(alpha);
    fill->setBeta(beta);
    return fill->getOutput(0);
}

Status importRandom(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs, bool normal,
    bool likeInput)
{
    ITensor* like = nullptr;
    DataType outType = DataType::kFLOAT;
    if (likeInput)
    {
        KILN_ASSIGN_OR_RETURN(like, ctx.tensor(node, 0));
        outType = like->getType();
    }
    if (hasAttribute(node, "dtype"))
    {
        KILN_ASSIGN_OR_RETURN(outType, onnxToKilnType(node, attrInt(node, "dtype", 1), "dtype"));
    }
    if (!isFloatType(outType))
    {
        return invalidArgument(describeNode(node) + ": the output type must be a floating-point type");
    }
    double const alpha = normal ? attrFloat(node, "mean", 0.F) : attrFloat(node, "low", 0.F);
    double const beta = normal ? attrFloat(node, "scale", 1.F) : attrFloat(node, "high", 1.F);
    nvinfer1::FillOperation const op
        = normal ? nvinfer1::FillOperation::kRANDOM_NORMAL : nvinfer1::FillOperation::kRANDOM_UNIFORM;
    KILN_ASSIGN_OR_RETURN(ITensor * y, randomFill(ctx, node, op, alpha, beta, like));
    KILN_ASSIGN_OR_RETURN(y, castTo(ctx, node, y, outType, "_out"));
    outputs = {OnnxValue(y)};
    return Status::ok();
}

Status importRandomUniform(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importRandom(ctx, node, outputs, false, false);
}

Status importRandomNormal(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importRandom(ctx, node, outputs, true, false);
}

Status importRandomUniformLike(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importRandom(ctx, node, outputs, false, true);
}

Status importRandomNormalLike(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importRandom(ctx, node, outputs, true, true);
}

//! Bernoulli: y = uniform[0, 1) < p, in the 'dtype' type (default: the input's type).
Status importBernoulli(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * p, ctx.tensor(node, 0));
    if (!isFloatType(p->getType()))
    {
        return invalidArgument(describeNode(node) + ": input 0 (probabilities) must be a floating-point tensor");
    }
    DataType outType = p->getType();
    if (hasAttribute(node, "dtype"))
    {
        KILN_ASSIGN_OR_RETURN(outType, onnxToKilnType(node, attrInt(node, "dtype", 1), "dtype"));
    }
    KILN_ASSIGN_OR_RETURN(ITensor * u, randomFill(ctx, node, nvinfer1::FillOperation::kRANDOM_UNIFORM, 0.0, 1.0, p));
    KILN_ASSIGN_OR_RETURN(ITensor * pf, castTo(ctx, node, p, DataType::kFLOAT, "_p"));
    KILN_ASSIGN_OR_RETURN(ITensor * hit, composite::binary(ctx, node, u, pf, ElementWiseOperation::kLESS, "_draw"));
    KILN_ASSIGN_OR_RETURN(ITensor * y, castTo(ctx, node, hit, outType, "_out"));
    outputs = {OnnxValue(y)};
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> generatorImporters()
{
    return {
        {"HannWindow", importHannWindow},
        {"HammingWindow", importHammingWindow},
        {"BlackmanWindow", importBlackmanWindow},
        {"RandomUniform", importRandomUniform},
        {"RandomNormal", importRandomNormal},
        {"RandomUniformLike", importRandomUniformLike},
        {"RandomNormalLike", importRandomNormalLike},
        {"Bernoulli", importBernoulli},
    };
}

} // namespace kiln
