// Shared building blocks of the neural-network importer families (see nnUtils.h).
#include "onnx/importers/nnUtils.h"

#include "onnx/importerHelpers.h"
#include "onnx/onnxAttributes.h"

#include <algorithm>

namespace kiln::nn
{

using nvinfer1::Dims;
using nvinfer1::ITensor;

namespace
{

//! Input `index` as a parse-time constant; an error naming `what` when it is a run-time value.
StatusOr<OnnxConstant const*> requireConstant(
    ImporterContext& ctx, ::onnx::NodeProto const& node, int32_t index, char const* what)
{
    OnnxConstant const* c = ctx.constant(node, index);
    if (c == nullptr)
    {
        return unsupported(describeNode(node) + ": input '" + std::string(what)
            + "' must be a constant (initializer or Constant output); run-time values are not supported");
    }
    return c;
}

} // namespace

StatusOr<std::vector<int64_t>> constantInts(
    ImporterContext& ctx, ::onnx::NodeProto const& node, int32_t index, char const* what)
{
    KILN_ASSIGN_OR_RETURN(OnnxConstant const* c, requireConstant(ctx, node, index, what));
    auto values = c->toInt64();
    if (!values.isOk())
    {
        return invalidArgument(describeNode(node) + ": input '" + std::string(what) + "' must hold integers");
    }
    return values;
}

StatusOr<std::vector<double>> constantDoubles(
    ImporterContext& ctx, ::onnx::NodeProto const& node, int32_t index, char const* what)
{
    KILN_ASSIGN_OR_RETURN(OnnxConstant const* c, requireConstant(ctx, node, index, what));
    return c->toDouble();
}

StatusOr<Dims> nnDims(::onnx::NodeProto const& node, std::vector<int64_t> const& values)
{
    if (values.size() > static_cast<size_t>(Dims::MAX_DIMS))
    {
        return unsupported(describeNode(node) + ": rank " + std::to_string(values.size()) + " exceeds "
            + std::to_string(Dims::MAX_DIMS));
    }
    Dims d{};
    d.nbDims = static_cast<int32_t>(values.size());
    for (size_t i = 0; i < values.size(); ++i)
    {
        d.d[i] = values[i];
    }
    return d;
}

Status checkApplied(::onnx::NodeProto const& node, char const* attribute, Dims const& applied, Dims const& wanted)
{
    bool same = applied.nbDims == wanted.nbDims;
    for (int32_t i = 0; same && i < wanted.nbDims; ++i)
    {
        same = applied.d[i] == wanted.d[i];
    }
    if (same)
    {
        return Status::ok();
    }
    auto text = [](Dims const& d) {
        std::string out = "[";
        for (int32_t i = 0; i < d.nbDims; ++i)
        {
            out += (i == 0 ? "" : ", ") + std::to_string(d.d[i]);
        }
        return out + "]";
    };
    return invalidArgument(describeNode(node) + ": attribute '" + attribute + "' " + text(wanted)
        + " is outside what the layer accepts (it kept " + text(applied) + ")");
}

Dims filledDims(int32_t rank, int64_t value)
{
    Dims d{};
    d.nbDims = rank;
    for (int32_t i = 0; i < rank; ++i)
    {
        d.d[i] = value;
    }
    return d;
}

uint32_t axesMask(std::vector<int32_t> const& axes)
{
    uint32_t mask = 0;
    for (int32_t a : axes)
    {
        mask |= a >= 0 && a < 32 ? 1U << a : 0U; // normalised axes are in [0, rank); the layer checks the mask
    }
    return mask;
}

uint32_t allAxesMask(int32_t rank)
{
    return rank >= 32 ? ~0U : (rank <= 0 ? 0U : (1U << rank) - 1U); // rank -1: unknown, no axes
}

StatusOr<ITensor*> addReduce(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t,
    nvinfer1::ReduceOperation op, uint32_t mask, bool keepDims, std::string const& suffix)
{
    auto* layer = ctx.network().addReduce(*t, op, mask, keepDims);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addReduce", suffix));
    return layer->getOutput(0);
}

StatusOr<ITensor*> withScalar(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t, double value,
    nvinfer1::ElementWiseOperation op, std::string const& suffix)
{
    KILN_ASSIGN_OR_RETURN(ITensor * s, scalarLike(ctx, node, value, t->getType(), rankOf(t)));
    return addElementWise(ctx, node, t, s, op, suffix);
}

StatusOr<ITensor*> liftSpatial1D(
    ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t, std::string const& suffix)
{
    Dims d{};
    d.nbDims = 4;
    d.d[0] = 0;
    d.d[1] = 0;
    d.d[2] = 0;
    d.d[3] = 1;
    return reshape(ctx, node, t, d, suffix);
}

StatusOr<ITensor*> dropSpatial1D(
    ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t, std::string const& suffix)
{
    Dims d{};
    d.nbDims = 3;
    d.d[0] = 0;
    d.d[1] = 0;
    d.d[2] = 0;
    return reshape(ctx, node, t, d, suffix);
}

std::vector<int64_t> appendOne(std::vector<int64_t> v, int64_t fill)
{
    v.push_back(fill);
    return v;
}

StatusOr<WindowAttributes> readWindowAttributes(
    ::onnx::NodeProto const& node, int32_t nbSpatial, std::vector<int64_t> const& kernel)
{
    WindowAttributes w;
    size_t const n = static_cast<size_t>(nbSpatial);
    w.kernel = kernel.empty() ? attrInts(node, "kernel_shape") : kernel;
    if (w.kernel.size() != n)
    {
        return invalidArgument(describeNode(node) + ": attribute 'kernel_shape' has " + std::to_string(w.kernel.size())
            + " entries, expected " + std::to_string(n) + " (one per spatial dimension)");
    }
    w.strides = attrInts(node, "strides", std::vector<int64_t>(n, 1));
    w.dilations = attrInts(node, "dilations", std::vector<int64_t>(n, 1));
    std::vector<int64_t> pads = attrInts(node, "pads", std::vector<int64_t>(2 * n, 0));
    w.autoPad = attrString(node, "auto_pad", "NOTSET");
    if (w.strides.size() != n || w.dilations.size() != n || pads.size() != 2 * n)
    {
        return invalidArgument(describeNode(node) + ": attributes 'strides', 'dilations' and 'pads' need "
            + std::to_string(n) + ", " + std::to_string(n) + " and " + std::to_string(2 * n) + " entries");
    }
    if (w.autoPad != "NOTSET" && w.autoPad != "SAME_UPPER" && w.autoPad != "SAME_LOWER" && w.autoPad != "VALID")
    {
        return invalidArgument(describeNode(node) + ": attribute 'auto_pad' has unknown value '" + w.autoPad + "'");
    }
    for (size_t i = 0; i < n; ++i)
    {
        if (w.kernel[i] < 1 || w.strides[i] < 1 || w.dilations[i] < 1 || pads[i] < 0 || pads[i + n] < 0)
        {
            return invalidArgument(describeNode(node)
                + ": kernel_shape, strides and dilations must be >= 1 and pads >= 0");
        }
    }
    w.padBegin.assign(pads.begin(), pads.begin() + nbSpatial);
    w.padEnd.assign(pads.begin() + nbSpatial, pads.end());
    if (w.autoPad == "VALID")
    {
        std::fill(w.padBegin.begin(), w.padBegin.end(), 0);
        std::fill(w.padEnd.begin(), w.padEnd.end(), 0);
    }
    return w;
}

} // namespace kiln::nn
