// Importers of the binary arithmetic ops: Add, Sub, Mul, Div, Pow, Mod, Max, Min, Sum, Mean, PRelu and BitShift,
// with ONNX multidirectional broadcasting (and the opset < 7 broadcast/axis attributes). The comparison and logical
// ops live in comparisonImporters.cpp and are registered here too.
#include "onnx/importerHelpers.h"
#include "onnx/importers/elementwiseUtils.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

#include <algorithm>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;
using nvinfer1::UnaryOperation;

namespace
{

using NodeProto = ::onnx::NodeProto;

template <ElementWiseOperation kOp>
Status importBinary(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(auto ab, binaryInputs(ctx, node));
    KILN_ASSIGN_OR_RETURN(ITensor * result, addArithmetic(ctx, node, ab.first, ab.second, kOp));
    outputs = {OnnxValue(result)};
    return Status::ok();
}

//! Pow: the result has the base's type. Opset 12+ lets the exponent have another numeric type; mixed float/integer
//! pairs are computed in FP32 (an integer base then truncates the result toward zero, as ONNX Runtime does), mixed
//! integer pairs in INT64.
Status importPow(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(auto ab, binaryInputs(ctx, node));
    ITensor* base = ab.first;
    ITensor* exponent = ab.second;
    DataType const type = base->getType();
    if (type == DataType::kBOOL || exponent->getType() == DataType::kBOOL)
    {
        return invalidArgument(describeNode(node) + ": Pow does not take BOOL inputs");
    }
    if (exponent->getType() == type)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * result, addArithmetic(ctx, node, base, exponent, ElementWiseOperation::kPOW));
        outputs = {OnnxValue(result)};
        return Status::ok();
    }
    bool const floatCompute = isFloatType(type) || isFloatType(exponent->getType());
    DataType const compute = floatCompute ? DataType::kFLOAT : DataType::kINT64;
    KILN_ASSIGN_OR_RETURN(base, castTo(ctx, node, base, compute, "_base"));
    KILN_ASSIGN_OR_RETURN(exponent, castTo(ctx, node, exponent, compute, "_exponent"));
    KILN_ASSIGN_OR_RETURN(ITensor * result, addElementWise(ctx, node, base, exponent, ElementWiseOperation::kPOW));
    KILN_ASSIGN_OR_RETURN(result, castTo(ctx, node, result, type, "_result"));
    outputs = {OnnxValue(result)};
    return Status::ok();
}

//! Mod. fmod = 0 (integers only): the remainder takes the divisor's sign, a - b * floor(a / b). fmod = 1: C fmod,
//! the remainder takes the dividend's sign, a - b * trunc(a / b). Floats are computed in FP32.
Status importMod(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * a, inputTensor(ctx, node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * b, inputTensor(ctx, node, 1));
    KILN_RETURN_IF_ERROR(requireSameType(node, a, b, "A", "B"));
    int64_t const fmod = attrInt(node, "fmod", 0);
    if (fmod != 0 && fmod != 1)
    {
        return invalidArgument(describeNode(node) + ": attribute 'fmod' must be 0 or 1, got " + std::to_string(fmod));
    }
    DataType const type = a->getType();
    if (type == DataType::kBOOL)
    {
        return invalidArgument(describeNode(node) + ": Mod does not take BOOL inputs");
    }
    if (!isFloatType(type))
    {
        // Exact integer arithmetic: kFLOOR_DIV floors, kDIV truncates toward zero.
        auto const divide = fmod == 0 ? ElementWiseOperation::kFLOOR_DIV : ElementWiseOperation::kDIV;
        KILN_ASSIGN_OR_RETURN(ITensor * quotient, addArithmetic(ctx, node, a, b, divide, "_quotient"));
        KILN_ASSIGN_OR_RETURN(ITensor * product, addArithmetic(ctx, node, b, quotient, ElementWiseOperation::kPROD,
            "_product"));
        KILN_ASSIGN_OR_RETURN(ITensor * result, addArithmetic(ctx, node, a, product, ElementWiseOperation::kSUB));
        outputs = {OnnxValue(result)};
        return Status::ok();
    }
    if (fmod == 0)
    {
        return invalidArgument(describeNode(node) + ": attribute 'fmod' is 0 but the inputs have floating-point type "
            + elementTypeName(type) + "; ONNX requires fmod=1 for floating-point Mod");
    }
    KILN_ASSIGN_OR_RETURN(ITensor * fa, castTo(ctx, node, a, DataType::kFLOAT, "_a"));
    KILN_ASSIGN_OR_RETURN(ITensor * fb, castTo(ctx, node, b, DataType::kFLOAT, "_b"));
    KILN_ASSIGN_OR_RETURN(ITensor * q, addElementWise(ctx, node, fa, fb, ElementWiseOperation::kDIV, "_div"));
    int32_t const rank = q->getDimensions().nbDims;
    KILN_ASSIGN_OR_RETURN(ITensor * zero, scalarLike(ctx, node, 0.0, DataType::kFLOAT, rank));
    KILN_ASSIGN_OR_RETURN(ITensor * negative, addElementWise(ctx, node, q, zero, ElementWiseOperation::kLESS,
        "_negative"));
    KILN_ASSIGN_OR_RETURN(ITensor * up, addUnary(ctx, node, q, UnaryOperation::kCEIL, "_ceil"));
    KILN_ASSIGN_OR_RETURN(ITensor * down, addUnary(ctx, node, q, UnaryOperation::kFLOOR, "_floor"));
    KILN_ASSIGN_OR_RETURN(ITensor * truncated, addWhere(ctx, node, negative, up, down, "_trunc"));
    KILN_ASSIGN_OR_RETURN(ITensor * product, addElementWise(ctx, node, fb, truncated, ElementWiseOperation::kPROD,
        "_product"));
    KILN_ASSIGN_OR_RETURN(ITensor * result, addElementWise(ctx, node, fa, product, ElementWiseOperation::kSUB,
        "_sub"));
    KILN_ASSIGN_OR_RETURN(result, castTo(ctx, node, result, type, "_result"));
    outputs = {OnnxValue(result)};
    return Status::ok();
}

//! Max, Min, Sum, Mean: variadic with broadcasting, folded pairwise.
template <ElementWiseOperation kOp, bool kMean = false>
Status importVariadic(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    int32_t const nbInputs = node.input_size();
    if (nbInputs < 1 || !ctx.hasInput(node, 0))
    {
        return invalidArgument(describeNode(node) + ": needs at least one input");
    }
    if (nbInputs == 1)
    {
        KILN_ASSIGN_OR_RETURN(OnnxValue value, passThrough(ctx, node, 0));
        outputs = {value};
        return Status::ok();
    }
    KILN_ASSIGN_OR_RETURN(ITensor * result, inputTensor(ctx, node, 0));
    for (int32_t i = 1; i < nbInputs; ++i)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * next, inputTensor(ctx, node, i));
        std::string const suffix = (i + 1 == nbInputs && !kMean) ? "" : "_" + std::to_string(i);
        KILN_ASSIGN_OR_RETURN(result, addArithmetic(ctx, node, result, next, kOp, suffix));
    }
    if (kMean)
    {
        if (!isFloatType(result->getType()))
        {
            return invalidArgument(describeNode(node) + ": Mean takes floating-point inputs, got "
                + elementTypeName(result->getType()));
        }
        int32_t const rank = result->getDimensions().nbDims;
        KILN_ASSIGN_OR_RETURN(ITensor * count, scalarLike(ctx, node, nbInputs, result->getType(), rank));
        KILN_ASSIGN_OR_RETURN(result, addElementWise(ctx, node, result, count, ElementWiseOperation::kDIV));
    }
    outputs = {OnnxValue(result)};
    return Status::ok();
}

//! PRelu: slope broadcast unidirectionally to X. Before opset 7 a 1-D slope of X's channel count applies per
//! channel (dimension 1).
Status importPRelu(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, inputTensor(ctx, node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * slope, inputTensor(ctx, node, 1));
    nvinfer1::Dims const xDims = x->getDimensions();
    nvinfer1::Dims const sDims = slope->getDimensions();
    if (sDims.nbDims > xDims.nbDims)
    {
        return invalidArgument(describeNode(node) + ": slope has rank " + std::to_string(sDims.nbDims)
            + ", more than input X's rank " + std::to_string(xDims.nbDims));
    }
    if (ctx.opsetVersion() < 7 && sDims.nbDims == 1 && xDims.nbDims > 2 && sDims.d[0] != 1 && sDims.d[0] == xDims.d[1])
    {
        nvinfer1::Dims channel{};
        channel.nbDims = xDims.nbDims - 1;
        channel.d[0] = 0;
        for (int32_t i = 1; i < channel.nbDims; ++i)
        {
            channel.d[i] = 1;
        }
        KILN_ASSIGN_OR_RETURN(slope, reshape(ctx, node, slope, channel, "_channelSlope"));
    }
    KILN_ASSIGN_OR_RETURN(slope, unsqueezeToRank(ctx, node, slope, xDims.nbDims));
    DataType const type = x->getType();
    if (isFloatType(type))
    {
        if (!isFloatType(slope->getType()))
        {
            KILN_ASSIGN_OR_RETURN(slope, castTo(ctx, node, slope, type, "_slope"));
        }
        nvinfer1::IParametricReLULayer* layer = ctx.network().addParametricReLU(*x, *slope);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addParametricReLU"));
        outputs = {OnnxValue(layer->getOutput(0))};
        return Status::ok();
    }
    // Integer PRelu (opset 16): x < 0 ? x * slope : x.
    KILN_RETURN_IF_ERROR(requireSameType(node, x, slope, "X", "slope"));
    KILN_ASSIGN_OR_RETURN(ITensor * zero, scalarLike(ctx, node, 0.0, type, xDims.nbDims));
    KILN_ASSIGN_OR_RETURN(ITensor * negative, addComparison(ctx, node, x, zero, ElementWiseOperation::kLESS,
        "_negative"));
    KILN_ASSIGN_OR_RETURN(ITensor * scaled, addArithmetic(ctx, node, x, slope, ElementWiseOperation::kPROD,
        "_scaled"));
    KILN_ASSIGN_OR_RETURN(ITensor * result, addWhere(ctx, node, negative, scaled, x));
    outputs = {OnnxValue(result)};
    return Status::ok();
}

//! BitShift on UINT8 (the only unsigned type Kiln stores), computed exactly in INT64: x * 2^y or x / 2^y.
Status importBitShift(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, inputTensor(ctx, node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * y, inputTensor(ctx, node, 1));
    KILN_RETURN_IF_ERROR(requireSameType(node, x, y, "X", "Y"));
    if (x->getType() != DataType::kUINT8)
    {
        return unsupported(describeNode(node) + ": BitShift on " + elementTypeName(x->getType())
            + " is not supported; Kiln supports it on UINT8 only (UINT16/UINT32/UINT64 are not Kiln types)");
    }
    std::string const direction = attrString(node, "direction", "");
    if (direction != "LEFT" && direction != "RIGHT")
    {
        return invalidArgument(describeNode(node) + ": attribute 'direction' must be \"LEFT\" or \"RIGHT\", got \""
            + direction + "\"");
    }
    KILN_ASSIGN_OR_RETURN(ITensor * wideX, castTo(ctx, node, x, DataType::kINT64, "_x"));
    KILN_ASSIGN_OR_RETURN(ITensor * wideY, castTo(ctx, node, y, DataType::kINT64, "_y"));
    KILN_ASSIGN_OR_RETURN(ITensor * two, scalarLike(ctx, node, 2.0, DataType::kINT64, wideY->getDimensions().nbDims));
    KILN_ASSIGN_OR_RETURN(ITensor * factor, addElementWise(ctx, node, two, wideY, ElementWiseOperation::kPOW,
        "_factor"));
    // 2^y wraps to 0 for y >= 64, and the kernels give 0 for a division by 0: both match a full shift-out.
    auto const op = direction == "LEFT" ? ElementWiseOperation::kPROD : ElementWiseOperation::kDIV;
    KILN_ASSIGN_OR_RETURN(ITensor * shifted, addElementWise(ctx, node, wideX, factor, op, "_shift"));
    KILN_ASSIGN_OR_RETURN(ITensor * result, castTo(ctx, node, shifted, DataType::kUINT8, "_result"));
    outputs = {OnnxValue(result)};
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> elementwiseImporters()
{
    std::vector<OpImporterEntry> entries{
        {"Add", importBinary<ElementWiseOperation::kSUM>},
        {"Sub", importBinary<ElementWiseOperation::kSUB>},
        {"Mul", importBinary<ElementWiseOperation::kPROD>},
        {"Div", importBinary<ElementWiseOperation::kDIV>},
        {"Pow", importPow},
        {"Mod", importMod},
        {"Max", importVariadic<ElementWiseOperation::kMAX>},
        {"Min", importVariadic<ElementWiseOperation::kMIN>},
        {"Sum", importVariadic<ElementWiseOperation::kSUM>},
        {"Mean", importVariadic<ElementWiseOperation::kSUM, true>},
        {"PRelu", importPRelu},
        {"BitShift", importBitShift},
    };
    for (OpImporterEntry const& entry : comparisonImporters())
    {
        entries.push_back(entry);
    }
    return entries;
}

} // namespace kiln
