// Importers of the activation ops: Relu, LeakyRelu, Elu, Selu, Celu, Sigmoid, HardSigmoid, HardSwish, Softplus,
// Softsign, Tanh, ThresholdedRelu, Shrink, Clip, Mish, Gelu, and the legacy ScaledTanh and ParametricSoftplus. Most
// map to one IActivationLayer; the others are composed from activation, elementwise and select layers.
#include "onnx/importerHelpers.h"
#include "onnx/importers/elementwiseUtils.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

#include <cmath>

namespace kiln
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

namespace
{

using NodeProto = ::onnx::NodeProto;

Status requireFloatInput(NodeProto const& node, ITensor* x)
{
    if (!isFloatType(x->getType()))
    {
        return unsupported(describeNode(node) + ": input X has type " + elementTypeName(x->getType()) + "; "
            + node.op_type() + " is supported on FP32, FP16 and BF16 (DOUBLE is imported as FP32)");
    }
    return Status::ok();
}

StatusOr<ITensor*> addActivation(ImporterContext& ctx, NodeProto const& node, ITensor* x, ActivationType type,
    float alpha, float beta, std::string const& suffix = "")
{
    nvinfer1::IActivationLayer* layer = ctx.network().addActivation(*x, type);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addActivation", suffix));
    if (!std::isfinite(alpha) || !std::isfinite(beta))
    {
        return invalidArgument(describeNode(node) + ": activation parameters must be finite (got "
            + std::to_string(alpha) + ", " + std::to_string(beta) + ")");
    }
    layer->setAlpha(alpha);
    layer->setBeta(beta);
    return layer->getOutput(0);
}

//! An op that is exactly one activation; `alpha`/`beta` name the ONNX attributes (nullptr: use the default as is).
struct ActivationSpec
{
    ActivationType type;
    char const* alphaName;
    float alphaDefault;
    char const* betaName;
    float betaDefault;
};

Status importActivation(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs,
    ActivationSpec const& spec)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, inputTensor(ctx, node, 0));
    KILN_RETURN_IF_ERROR(requireFloatInput(node, x));
    float const alpha = spec.alphaName != nullptr ? attrFloat(node, spec.alphaName, spec.alphaDefault)
                                                  : spec.alphaDefault;
    float const beta = spec.betaName != nullptr ? attrFloat(node, spec.betaName, spec.betaDefault) : spec.betaDefault;
    KILN_ASSIGN_OR_RETURN(ITensor * result, addActivation(ctx, node, x, spec.type, alpha, beta));
    outputs = {OnnxValue(result)};
    return Status::ok();
}

#define KILN_ACTIVATION_IMPORTER(fn, ...)                                                                              \
    Status fn(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)                            \
    {                                                                                                                  \
        return importActivation(ctx, node, outputs, ActivationSpec{__VA_ARGS__});                                      \
    }

KILN_ACTIVATION_IMPORTER(importSigmoid, ActivationType::kSIGMOID, nullptr, 0.F, nullptr, 0.F)
KILN_ACTIVATION_IMPORTER(importTanh, ActivationType::kTANH, nullptr, 0.F, nullptr, 0.F)
KILN_ACTIVATION_IMPORTER(importLeakyRelu, ActivationType::kLEAKY_RELU, "alpha", 0.01F, nullptr, 0.F)
KILN_ACTIVATION_IMPORTER(importElu, ActivationType::kELU, "alpha", 1.F, nullptr, 0.F)
KILN_ACTIVATION_IMPORTER(importSelu, ActivationType::kSELU, "alpha", 1.67326319217681884765625F, "gamma",
    1.05070102214813232421875F)
KILN_ACTIVATION_IMPORTER(importHardSigmoid, ActivationType::kHARD_SIGMOID, "alpha", 0.2F, "beta", 0.5F)
KILN_ACTIVATION_IMPORTER(importSoftplus, ActivationType::kSOFTPLUS, nullptr, 1.F, nullptr, 1.F)
KILN_ACTIVATION_IMPORTER(importSoftsign, ActivationType::kSOFTSIGN, nullptr, 0.F, nullptr, 0.F)
KILN_ACTIVATION_IMPORTER(importThresholdedRelu, ActivationType::kTHRESHOLDED_RELU, "alpha", 1.F, nullptr, 0.F)
KILN_ACTIVATION_IMPORTER(importScaledTanh, ActivationType::kSCALED_TANH, "alpha", 1.F, "beta", 1.F)
KILN_ACTIVATION_IMPORTER(importParametricSoftplus, ActivationType::kSOFTPLUS, "alpha", 1.F, "beta", 1.F)

#undef KILN_ACTIVATION_IMPORTER

//! Relu: an activation on floats, INT32 and INT64; max(x, 0) on INT8.
Status importRelu(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, inputTensor(ctx, node, 0));
    DataType const type = x->getType();
    ITensor* result = nullptr;
    if (isFloatType(type) || type == DataType::kINT32 || type == DataType::kINT64)
    {
        KILN_ASSIGN_OR_RETURN(result, addActivation(ctx, node, x, ActivationType::kRELU, 0.F, 0.F));
    }
    else if (type == DataType::kINT8)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * zero, scalarLike(ctx, node, 0.0, type, x->getDimensions().nbDims));
        KILN_ASSIGN_OR_RETURN(result, addElementWise(ctx, node, x, zero, ElementWiseOperation::kMAX));
    }
    else
    {
        return unsupported(describeNode(node) + ": Relu on inputs of type " + elementTypeName(type)
            + " is not supported");
    }
    outputs = {OnnxValue(result)};
    return Status::ok();
}

//! Celu: alpha * Elu(x / alpha) with Elu's alpha = 1 (the ONNX function body).
Status importCelu(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, inputTensor(ctx, node, 0));
    KILN_RETURN_IF_ERROR(requireFloatInput(node, x));
    float const alpha = attrFloat(node, "alpha", 1.F);
    if (alpha == 0.F || !std::isfinite(alpha))
    {
        return invalidArgument(describeNode(node) + ": attribute 'alpha' must be finite and non-zero, got "
            + std::to_string(alpha));
    }
    if (alpha == 1.F)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * result, addActivation(ctx, node, x, ActivationType::kELU, 1.F, 0.F));
        outputs = {OnnxValue(result)};
        return Status::ok();
    }
    int32_t const rank = x->getDimensions().nbDims;
    KILN_ASSIGN_OR_RETURN(ITensor * scale, scalarLike(ctx, node, alpha, x->getType(), rank));
    KILN_ASSIGN_OR_RETURN(ITensor * scaled, addElementWise(ctx, node, x, scale, ElementWiseOperation::kDIV, "_div"));
    KILN_ASSIGN_OR_RETURN(ITensor * elu, addActivation(ctx, node, scaled, ActivationType::kELU, 1.F, 0.F, "_elu"));
    KILN_ASSIGN_OR_RETURN(ITensor * result, addElementWise(ctx, node, elu, scale, ElementWiseOperation::kPROD));
    outputs = {OnnxValue(result)};
    return Status::ok();
}

//! HardSwish: x * HardSigmoid(x) with alpha = 1/6, beta = 0.5.
Status importHardSwish(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, inputTensor(ctx, node, 0));
    KILN_RETURN_IF_ERROR(requireFloatInput(node, x));
    KILN_ASSIGN_OR_RETURN(ITensor * gate, addActivation(ctx, node, x, ActivationType::kHARD_SIGMOID, 1.F / 6.F, 0.5F,
        "_hardSigmoid"));
    KILN_ASSIGN_OR_RETURN(ITensor * result, addElementWise(ctx, node, x, gate, ElementWiseOperation::kPROD));
    outputs = {OnnxValue(result)};
    return Status::ok();
}

//! Mish: x * tanh(softplus(x)).
Status importMish(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, inputTensor(ctx, node, 0));
    KILN_RETURN_IF_ERROR(requireFloatInput(node, x));
    KILN_ASSIGN_OR_RETURN(ITensor * softplus, addActivation(ctx, node, x, ActivationType::kSOFTPLUS, 1.F, 1.F,
        "_softplus"));
    KILN_ASSIGN_OR_RETURN(ITensor * gate, addActivation(ctx, node, softplus, ActivationType::kTANH, 0.F, 0.F,
        "_tanh"));
    KILN_ASSIGN_OR_RETURN(ITensor * result, addElementWise(ctx, node, x, gate, ElementWiseOperation::kPROD));
    outputs = {OnnxValue(result)};
    return Status::ok();
}

//! Gelu (opset 20): approximate = "none" (erf form) or "tanh".
Status importGelu(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, inputTensor(ctx, node, 0));
    KILN_RETURN_IF_ERROR(requireFloatInput(node, x));
    std::string const approximate = attrString(node, "approximate", "none");
    ActivationType type{};
    if (approximate == "none")
    {
        type = ActivationType::kGELU_ERF;
    }
    else if (approximate == "tanh")
    {
        type = ActivationType::kGELU_TANH;
    }
    else
    {
        return invalidArgument(describeNode(node) + ": attribute 'approximate' must be \"none\" or \"tanh\", got \""
            + approximate + "\"");
    }
    KILN_ASSIGN_OR_RETURN(ITensor * result, addActivation(ctx, node, x, type, 0.F, 0.F));
    outputs = {OnnxValue(result)};
    return Status::ok();
}

//! Shrink: x < -lambd ? x + bias : (x > lambd ? x - bias : 0). Integer inputs are computed in FP32.
Status importShrink(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * input, inputTensor(ctx, node, 0));
    DataType const type = input->getType();
    if (type == DataType::kBOOL)
    {
        return invalidArgument(describeNode(node) + ": Shrink does not take BOOL inputs");
    }
    double const lambd = attrFloat(node, "lambd", 0.5F);
    double const bias = attrFloat(node, "bias", 0.F);
    KILN_ASSIGN_OR_RETURN(ITensor * x, castTo(ctx, node, input, isFloatType(type) ? type : DataType::kFLOAT, "_x"));
    DataType const compute = x->getType();
    int32_t const rank = x->getDimensions().nbDims;
    KILN_ASSIGN_OR_RETURN(ITensor * lower, scalarLike(ctx, node, -lambd, compute, rank));
    KILN_ASSIGN_OR_RETURN(ITensor * upper, scalarLike(ctx, node, lambd, compute, rank));
    KILN_ASSIGN_OR_RETURN(ITensor * biasT, scalarLike(ctx, node, bias, compute, rank));
    KILN_ASSIGN_OR_RETURN(ITensor * zero, scalarLike(ctx, node, 0.0, compute, rank));
    KILN_ASSIGN_OR_RETURN(ITensor * below, addElementWise(ctx, node, x, lower, ElementWiseOperation::kLESS, "_below"));
    KILN_ASSIGN_OR_RETURN(ITensor * above, addElementWise(ctx, node, x, upper, ElementWiseOperation::kGREATER,
        "_above"));
    KILN_ASSIGN_OR_RETURN(ITensor * plus, addElementWise(ctx, node, x, biasT, ElementWiseOperation::kSUM, "_plus"));
    KILN_ASSIGN_OR_RETURN(ITensor * minus, addElementWise(ctx, node, x, biasT, ElementWiseOperation::kSUB, "_minus"));
    KILN_ASSIGN_OR_RETURN(ITensor * upperPart, addWhere(ctx, node, above, minus, zero, "_upper"));
    KILN_ASSIGN_OR_RETURN(ITensor * result, addWhere(ctx, node, below, plus, upperPart, "_select"));
    KILN_ASSIGN_OR_RETURN(result, castTo(ctx, node, result, type, "_result"));
    outputs = {OnnxValue(result)};
    return Status::ok();
}

//! One bound of Clip: the parse-time value when known (`value`), else the runtime tensor (`tensor`).
struct ClipBound
{
    bool present{false};
    bool known{false};
    double value{0.0};
    ITensor* tensor{nullptr};
};

StatusOr<ClipBound> clipBound(ImporterContext& ctx, NodeProto const& node, int32_t index, char const* name)
{
    ClipBound bound;
    if (ctx.opsetVersion() < 11)
    {
        if (hasAttribute(node, name))
        {
            bound.present = true;
            bound.known = true;
            bound.value = attrFloat(node, name, 0.F);
        }
        return bound;
    }
    if (!ctx.hasInput(node, index))
    {
        return bound;
    }
    bound.present = true;
    if (OnnxConstant const* constant = ctx.constant(node, index))
    {
        KILN_ASSIGN_OR_RETURN(std::vector<double> values, constant->toDouble());
        if (values.size() != 1)
        {
            return invalidArgument(describeNode(node) + ": input '" + name + "' must be a scalar, it has "
                + std::to_string(values.size()) + " elements");
        }
        bound.known = true;
        bound.value = values[0];
        return bound;
    }
    KILN_ASSIGN_OR_RETURN(bound.tensor, ctx.tensor(node, index));
    return bound;
}

//! Clip: bounds from attributes (opset < 11) or optional scalar inputs (opset >= 11), either may be absent. Known
//! finite bounds on floats give one kCLIP activation; otherwise max(x, min) then min(., max), which also yields max
//! everywhere when min > max, as ONNX specifies.
Status importClip(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, inputTensor(ctx, node, 0));
    KILN_ASSIGN_OR_RETURN(ClipBound const low, clipBound(ctx, node, 1, "min"));
    KILN_ASSIGN_OR_RETURN(ClipBound const high, clipBound(ctx, node, 2, "max"));
    DataType const type = x->getType();
    if (type == DataType::kBOOL)
    {
        return invalidArgument(describeNode(node) + ": Clip does not take BOOL inputs");
    }
    if (!low.present && !high.present)
    {
        KILN_ASSIGN_OR_RETURN(OnnxValue value, passThrough(ctx, node, 0));
        outputs = {value};
        return Status::ok();
    }
    bool const finite = (!low.present || std::isfinite(low.value)) && (!high.present || std::isfinite(high.value));
    if (isFloatType(type) && low.present && high.present && low.known && high.known && finite
        && low.value <= high.value && std::abs(low.value) <= 3.4e38 && std::abs(high.value) <= 3.4e38)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * result, addActivation(ctx, node, x, ActivationType::kCLIP,
            static_cast<float>(low.value), static_cast<float>(high.value)));
        outputs = {OnnxValue(result)};
        return Status::ok();
    }
    int32_t const rank = x->getDimensions().nbDims;
    ITensor* result = x;
    ClipBound const* bounds[2] = {&low, &high};
    for (int32_t i = 0; i < 2; ++i)
    {
        ClipBound const& bound = *bounds[i];
        if (!bound.present)
        {
            continue;
        }
        ITensor* limit = bound.tensor;
        if (bound.known)
        {
            KILN_ASSIGN_OR_RETURN(limit, scalarLike(ctx, node, bound.value, type, rank));
        }
        bool const last = i == 1 || !high.present;
        KILN_ASSIGN_OR_RETURN(result, addArithmetic(ctx, node, result, limit,
            i == 0 ? ElementWiseOperation::kMAX : ElementWiseOperation::kMIN, last ? "" : "_min"));
    }
    outputs = {OnnxValue(result)};
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> activationImporters()
{
    return {
        {"Relu", importRelu},
        {"LeakyRelu", importLeakyRelu},
        {"Elu", importElu},
        {"Selu", importSelu},
        {"Celu", importCelu},
        {"Sigmoid", importSigmoid},
        {"HardSigmoid", importHardSigmoid},
        {"HardSwish", importHardSwish},
        {"Softplus", importSoftplus},
        {"Softsign", importSoftsign},
        {"Tanh", importTanh},
        {"ThresholdedRelu", importThresholdedRelu},
        {"Shrink", importShrink},
        {"Clip", importClip},
        {"Mish", importMish},
        {"Gelu", importGelu},
        {"ScaledTanh", importScaledTanh},
        {"ParametricSoftplus", importParametricSoftplus},
    };
}

} // namespace kiln
