// Importers of the training op family (domain ai.onnx.preview.training): Adagrad, Adam and Momentum (standard and
// Nesterov), as inference-time compositions of elementwise layers that compute exactly the ONNX update formulas.
// Inputs are R (learning rate, float scalar), T (step count, INT64 scalar), then n tensors per group (X, G, and the
// optimizer states); outputs are the n updated X, then the n updated states per state kind.
#include "onnx/importerHelpers.h"
#include "onnx/importers/compositeUtils.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

namespace kiln
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

constexpr char const* kTrainingDomain = "ai.onnx.preview.training";

//! Helper that builds float arithmetic for one node with generated layer-name suffixes.
class Math
{
public:
    Math(ImporterContext& ctx, ::onnx::NodeProto const& node)
        : mCtx(ctx)
        , mNode(node)
    {
    }

    StatusOr<ITensor*> op(ITensor* a, ITensor* b, ElementWiseOperation o)
    {
        return composite::binary(mCtx, mNode, a, b, o, next());
    }
    StatusOr<ITensor*> op(ITensor* a, double b, ElementWiseOperation o)
    {
        return composite::binaryScalar(mCtx, mNode, a, b, o, next());
    }
    //! value - a
    StatusOr<ITensor*> rsub(double value, ITensor* a)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * v, composite::scalarFor(mCtx, mNode, value, a));
        return composite::binary(mCtx, mNode, v, a, ElementWiseOperation::kSUB, next());
    }
    //! value ^ a
    StatusOr<ITensor*> rpow(double value, ITensor* a)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * v, composite::scalarFor(mCtx, mNode, value, a));
        return composite::binary(mCtx, mNode, v, a, ElementWiseOperation::kPOW, next());
    }
    StatusOr<ITensor*> unary(ITensor* a, nvinfer1::UnaryOperation o)
    {
        return addUnary(mCtx, mNode, a, o, next());
    }
    //! a * x + b * y (the a or b term left out when the factor is 0).
    StatusOr<ITensor*> blend(double a, ITensor* x, double b, ITensor* y)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * ax, op(x, a, ElementWiseOperation::kPROD));
        KILN_ASSIGN_OR_RETURN(ITensor * by, op(y, b, ElementWiseOperation::kPROD));
        return op(ax, by, ElementWiseOperation::kSUM);
    }
    std::string next()
    {
        return "_" + std::to_string(mCount++);
    }

    ImporterContext& mCtx;
    ::onnx::NodeProto const& mNode;
    int32_t mCount{0};
};

//! R and T (T as float), plus the number of tensors per group; an error unless inputs = 2 + groups * n.
struct Common
{
    ITensor* r{nullptr};
    ITensor* t{nullptr};
    int32_t n{0};
};

StatusOr<Common> readCommon(ImporterContext& ctx, ::onnx::NodeProto const& node, int32_t groups, int32_t outGroups)
{
    int32_t const nbInputs = node.input_size();
    if (nbInputs < 2 + groups || (nbInputs - 2) % groups != 0)
    {
        return invalidArgument(describeNode(node) + ": expects R, T and " + std::to_string(groups)
            + " groups of equally many tensors, got " + std::to_string(nbInputs) + " inputs");
    }
    Common c;
    c.n = (nbInputs - 2) / groups;
    if (node.output_size() > outGroups * c.n)
    {
        return invalidArgument(describeNode(node) + ": has " + std::to_string(node.output_size())
            + " outputs, at most " + std::to_string(outGroups * c.n) + " are defined");
    }
    KILN_ASSIGN_OR_RETURN(c.r, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(c.r, castTo(ctx, node, c.r, DataType::kFLOAT, "_r"));
    KILN_ASSIGN_OR_RETURN(c.t, ctx.tensor(node, 1));
    KILN_ASSIGN_OR_RETURN(c.t, castTo(ctx, node, c.t, DataType::kFLOAT, "_t"));
    return c;
}

StatusOr<ITensor*> floatInput(ImporterContext& ctx, ::onnx::NodeProto const& node, int32_t index)
{
    KILN_ASSIGN_OR_RETURN(ITensor * t, ctx.tensor(node, index));
    if (!isFloatType(t->getType()))
    {
        return invalidArgument(describeNode(node) + ": input " + std::to_string(index)
            + " must be a floating-point tensor");
    }
    return t;
}

//! Input `i` of input group `group` (node input 2 + group * n + i): the tensor as given and its FLOAT cast.
struct Operand
{
    ITensor* original{nullptr};
    ITensor* value{nullptr};
};

StatusOr<Operand> readOperand(Math& m, Common const& c, int32_t group, int32_t i)
{
    Operand o;
    KILN_ASSIGN_OR_RETURN(o.original, floatInput(m.mCtx, m.mNode, 2 + group * c.n + i));
    KILN_ASSIGN_OR_RETURN(o.value, castTo(m.mCtx, m.mNode, o.original, DataType::kFLOAT, m.next()));
    return o;
}

//! G_reg = norm * X + G
StatusOr<ITensor*> regularizedGradient(Math& m, ITensor* x, ITensor* g, double norm)
{
    KILN_ASSIGN_OR_RETURN(ITensor * nx, m.op(x, norm, ElementWiseOperation::kPROD));
    return m.op(nx, g, ElementWiseOperation::kSUM);
}

//! Places `value` at output slot `index`, cast back to the type of `like`.
Status setOutput(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs, size_t index,
    ITensor* value, ITensor* like)
{
    if (index >= outputs.size())
    {
        return Status::ok();
    }
    KILN_ASSIGN_OR_RETURN(value, castTo(ctx, node, value, like->getType(), "_out" + std::to_string(index)));
    outputs[index] = OnnxValue(value);
    return Status::ok();
}

Status importAdagrad(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(Common const c, readCommon(ctx, node, 3, 2));
    double const decay = attrFloat(node, "decay_factor", 0.F);
    double const epsilon = attrFloat(node, "epsilon", 1e-6F); // the schema default
    double const norm = attrFloat(node, "norm_coefficient", 0.F);
    Math m(ctx, node);
    // r = R / (1 + T * decay_factor)
    KILN_ASSIGN_OR_RETURN(ITensor * td, m.op(c.t, decay, ElementWiseOperation::kPROD));
    KILN_ASSIGN_OR_RETURN(ITensor * den, m.op(td, 1.0, ElementWiseOperation::kSUM));
    KILN_ASSIGN_OR_RETURN(ITensor * rate, m.op(c.r, den, ElementWiseOperation::kDIV));
    outputs.assign(static_cast<size_t>(node.output_size()), OnnxValue());
    for (int32_t i = 0; i < c.n; ++i)
    {
        KILN_ASSIGN_OR_RETURN(Operand const x, readOperand(m, c, 0, i));
        KILN_ASSIGN_OR_RETURN(Operand const g, readOperand(m, c, 1, i));
        KILN_ASSIGN_OR_RETURN(Operand const h, readOperand(m, c, 2, i));
        // G_reg = norm * X + G; H_new = H + G_reg^2; X_new = X - r * G_reg / (sqrt(H_new) + epsilon)
        KILN_ASSIGN_OR_RETURN(ITensor * greg, regularizedGradient(m, x.value, g.value, norm));
        KILN_ASSIGN_OR_RETURN(ITensor * g2, m.op(greg, greg, ElementWiseOperation::kPROD));
        KILN_ASSIGN_OR_RETURN(ITensor * hNew, m.op(h.value, g2, ElementWiseOperation::kSUM));
        KILN_ASSIGN_OR_RETURN(ITensor * hs, m.unary(hNew, nvinfer1::UnaryOperation::kSQRT));
        KILN_ASSIGN_OR_RETURN(hs, m.op(hs, epsilon, ElementWiseOperation::kSUM));
        KILN_ASSIGN_OR_RETURN(ITensor * step, m.op(rate, greg, ElementWiseOperation::kPROD));
        KILN_ASSIGN_OR_RETURN(step, m.op(step, hs, ElementWiseOperation::kDIV));
        KILN_ASSIGN_OR_RETURN(ITensor * xNew, m.op(x.value, step, ElementWiseOperation::kSUB));
        KILN_RETURN_IF_ERROR(setOutput(ctx, node, outputs, static_cast<size_t>(i), xNew, x.original));
        KILN_RETURN_IF_ERROR(setOutput(ctx, node, outputs, static_cast<size_t>(c.n + i), hNew, h.original));
    }
    return Status::ok();
}

Status importAdam(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(Common const c, readCommon(ctx, node, 4, 3));
    double const alpha = attrFloat(node, "alpha", 0.9F);
    double const beta = attrFloat(node, "beta", 0.999F);
    double const epsilon = attrFloat(node, "epsilon", 1e-6F); // the schema default
    double const norm = attrFloat(node, "norm_coefficient", 0.F);
    double const normPost = attrFloat(node, "norm_coefficient_post", 0.F);
    Math m(ctx, node);
    // r_adjusted = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R
    KILN_ASSIGN_OR_RETURN(ITensor * betaT, m.rpow(beta, c.t));
    KILN_ASSIGN_OR_RETURN(ITensor * alphaT, m.rpow(alpha, c.t));
    KILN_ASSIGN_OR_RETURN(ITensor * num, m.rsub(1.0, betaT));
    KILN_ASSIGN_OR_RETURN(num, m.unary(num, nvinfer1::UnaryOperation::kSQRT));
    KILN_ASSIGN_OR_RETURN(ITensor * den, m.rsub(1.0, alphaT));
    KILN_ASSIGN_OR_RETURN(ITensor * adjusted, m.op(c.r, num, ElementWiseOperation::kPROD));
    KILN_ASSIGN_OR_RETURN(adjusted, m.op(adjusted, den, ElementWiseOperation::kDIV));
    KILN_ASSIGN_OR_RETURN(ITensor * positive, m.op(c.t, 0.0, ElementWiseOperation::kGREATER));
    KILN_ASSIGN_OR_RETURN(ITensor * rate, composite::select(ctx, node, positive, adjusted, c.r, m.next()));
    outputs.assign(static_cast<size_t>(node.output_size()), OnnxValue());
    for (int32_t i = 0; i < c.n; ++i)
    {
        KILN_ASSIGN_OR_RETURN(Operand const x, readOperand(m, c, 0, i));
        KILN_ASSIGN_OR_RETURN(Operand const g, readOperand(m, c, 1, i));
        KILN_ASSIGN_OR_RETURN(Operand const v, readOperand(m, c, 2, i));
        KILN_ASSIGN_OR_RETURN(Operand const h, readOperand(m, c, 3, i));
        // G_reg = norm * X + G; V_new = alpha V + (1 - alpha) G_reg; H_new = beta H + (1 - beta) G_reg^2
        KILN_ASSIGN_OR_RETURN(ITensor * greg, regularizedGradient(m, x.value, g.value, norm));
        KILN_ASSIGN_OR_RETURN(ITensor * vNew, m.blend(alpha, v.value, 1.0 - alpha, greg));
        KILN_ASSIGN_OR_RETURN(ITensor * g2, m.op(greg, greg, ElementWiseOperation::kPROD));
        KILN_ASSIGN_OR_RETURN(ITensor * hNew, m.blend(beta, h.value, 1.0 - beta, g2));
        // X_new = (1 - norm_post) * (X - r_adjusted * V_new / (sqrt(H_new) + epsilon))
        KILN_ASSIGN_OR_RETURN(ITensor * hs, m.unary(hNew, nvinfer1::UnaryOperation::kSQRT));
        KILN_ASSIGN_OR_RETURN(hs, m.op(hs, epsilon, ElementWiseOperation::kSUM));
        KILN_ASSIGN_OR_RETURN(ITensor * ratio, m.op(vNew, hs, ElementWiseOperation::kDIV));
        KILN_ASSIGN_OR_RETURN(ITensor * step, m.op(rate, ratio, ElementWiseOperation::kPROD));
        KILN_ASSIGN_OR_RETURN(ITensor * xNew, m.op(x.value, step, ElementWiseOperation::kSUB));
        KILN_ASSIGN_OR_RETURN(xNew, m.op(xNew, 1.0 - normPost, ElementWiseOperation::kPROD));
        KILN_RETURN_IF_ERROR(setOutput(ctx, node, outputs, static_cast<size_t>(i), xNew, x.original));
        KILN_RETURN_IF_ERROR(setOutput(ctx, node, outputs, static_cast<size_t>(c.n + i), vNew, v.original));
        KILN_RETURN_IF_ERROR(setOutput(ctx, node, outputs, static_cast<size_t>(2 * c.n + i), hNew, h.original));
    }
    return Status::ok();
}

Status importMomentum(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(Common const c, readCommon(ctx, node, 3, 2));
    KILN_ASSIGN_OR_RETURN(float const alpha, requireAttrFloat(node, "alpha"));
    KILN_ASSIGN_OR_RETURN(float const beta, requireAttrFloat(node, "beta"));
    KILN_ASSIGN_OR_RETURN(float const norm, requireAttrFloat(node, "norm_coefficient"));
    std::string const mode = attrString(node, "mode", "");
    if (mode != "standard" && mode != "nesterov")
    {
        return invalidArgument(describeNode(node) + ": attribute 'mode' must be 'standard' or 'nesterov', got '"
            + mode + "'");
    }
    Math m(ctx, node);
    // beta_adjusted = T > 0 ? beta : 1
    KILN_ASSIGN_OR_RETURN(ITensor * positive, m.op(c.t, 0.0, ElementWiseOperation::kGREATER));
    KILN_ASSIGN_OR_RETURN(ITensor * betaT, composite::scalarFor(ctx, node, beta, c.t));
    KILN_ASSIGN_OR_RETURN(ITensor * oneT, composite::scalarFor(ctx, node, 1.0, c.t));
    KILN_ASSIGN_OR_RETURN(ITensor * betaAdj, composite::select(ctx, node, positive, betaT, oneT, m.next()));
    outputs.assign(static_cast<size_t>(node.output_size()), OnnxValue());
    for (int32_t i = 0; i < c.n; ++i)
    {
        KILN_ASSIGN_OR_RETURN(Operand const x, readOperand(m, c, 0, i));
        KILN_ASSIGN_OR_RETURN(Operand const g, readOperand(m, c, 1, i));
        KILN_ASSIGN_OR_RETURN(Operand const v, readOperand(m, c, 2, i));
        // G_reg = norm * X + G; V_new = alpha V + beta_adjusted G_reg
        KILN_ASSIGN_OR_RETURN(ITensor * greg, regularizedGradient(m, x.value, g.value, norm));
        KILN_ASSIGN_OR_RETURN(ITensor * av, m.op(v.value, alpha, ElementWiseOperation::kPROD));
        KILN_ASSIGN_OR_RETURN(ITensor * bg, m.op(betaAdj, greg, ElementWiseOperation::kPROD));
        KILN_ASSIGN_OR_RETURN(ITensor * vNew, m.op(av, bg, ElementWiseOperation::kSUM));
        // standard: X_new = X - R V_new; nesterov: X_new = X - R (G_reg + alpha V_new)
        ITensor* dir = vNew;
        if (mode == "nesterov")
        {
            KILN_ASSIGN_OR_RETURN(ITensor * avNew, m.op(vNew, alpha, ElementWiseOperation::kPROD));
            KILN_ASSIGN_OR_RETURN(dir, m.op(greg, avNew, ElementWiseOperation::kSUM));
        }
        KILN_ASSIGN_OR_RETURN(ITensor * step, m.op(c.r, dir, ElementWiseOperation::kPROD));
        KILN_ASSIGN_OR_RETURN(ITensor * xNew, m.op(x.value, step, ElementWiseOperation::kSUB));
        KILN_RETURN_IF_ERROR(setOutput(ctx, node, outputs, static_cast<size_t>(i), xNew, x.original));
        KILN_RETURN_IF_ERROR(setOutput(ctx, node, outputs, static_cast<size_t>(c.n + i), vNew, v.original));
    }
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> trainingImporters()
{
    return {
        {"Adagrad", importAdagrad, kTrainingDomain},
        {"Adam", importAdam, kTrainingDomain},
        {"Momentum", importMomentum, kTrainingDomain},
    };
}

} // namespace kiln
