// Subgraph import for the control-flow importers (see subgraphImport.h).
#include "onnx/importers/subgraphImport.h"

#include "onnx/importerHelpers.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"
#include "onnx/tensorConversion.h"

#include <map>
#include <optional>

namespace kiln
{
namespace
{

//! Restores the enclosing scope's bindings of every name a subgraph binds, however the import ends.
class ScopeGuard
{
public:
    explicit ScopeGuard(ImporterContextImpl& ctx)
        : mCtx(ctx)
    {
    }
    ScopeGuard(ScopeGuard const&) = delete;
    ScopeGuard& operator=(ScopeGuard const&) = delete;
    ~ScopeGuard()
    {
        for (auto const& [name, previous] : mSaved)
        {
            if (previous.has_value())
            {
                mCtx.bind(name, *previous);
            }
            else
            {
                mCtx.unbind(name);
            }
        }
    }

    //! Remember the current binding of `name` (once) before the subgraph rebinds it.
    void save(std::string const& name)
    {
        if (name.empty() || mSaved.count(name) != 0)
        {
            return;
        }
        std::optional<OnnxValue> previous;
        if (mCtx.isDefined(name))
        {
            auto value = mCtx.lookup(name);
            if (value.isOk())
            {
                previous = *value;
            }
        }
        mSaved.emplace(name, std::move(previous));
    }

private:
    ImporterContextImpl& mCtx;
    std::map<std::string, std::optional<OnnxValue>> mSaved;
};

} // namespace

StatusOr<std::vector<OnnxValue>> importSubgraph(ImporterContextImpl& ctx, ::onnx::GraphProto const& graph,
    std::vector<OnnxValue> const& inputs, std::string const& where, std::string const& prefix)
{
    if (static_cast<size_t>(graph.input_size()) != inputs.size())
    {
        return invalidArgument(where + ": the graph has " + std::to_string(graph.input_size())
            + " inputs but the node supplies " + std::to_string(inputs.size()));
    }
    ScopeGuard scope(ctx);
    for (int32_t i = 0; i < graph.input_size(); ++i)
    {
        auto const& input = graph.input(i);
        if (input.type().has_sequence_type() || input.type().has_map_type() || input.type().has_optional_type())
        {
            return unsupported(where + ": input '" + input.name()
                + "' is not a tensor (sequence, map and optional values are not supported by Kiln)");
        }
        scope.save(input.name());
        ctx.bind(input.name(), inputs[static_cast<size_t>(i)]);
    }
    for (auto const& init : graph.initializer())
    {
        auto value = convertTensorProto(init, nullptr, where + " initializer '" + init.name() + "'");
        if (!value.isOk())
        {
            return value.status();
        }
        OnnxValue v;
        v.constant = ctx.keep(std::move(value).value());
        scope.save(init.name());
        ctx.bind(init.name(), v);
    }
    for (auto const& sub : graph.node())
    {
        for (int32_t j = 0; j < sub.input_size(); ++j)
        {
            if (!sub.input(j).empty() && !ctx.isDefined(sub.input(j)))
            {
                return invalidArgument(where + ": " + describeNode(sub) + ": input '" + sub.input(j)
                    + "' is not defined in the subgraph or an enclosing graph");
            }
        }
        OpImporter importer = findOpImporter(sub.op_type(), sub.domain());
        if (importer == nullptr)
        {
            return unsupported(where + ": " + describeNode(sub) + ": no importer for op '" + sub.op_type()
                + "' (plugins are not looked up inside subgraphs)");
        }
        std::vector<OnnxValue> subOutputs;
        Status const st = importer(ctx, sub, subOutputs);
        if (!st.isOk())
        {
            return Status(st.code(), where + ": " + st.message());
        }
        for (int32_t j = 0; j < sub.output_size(); ++j)
        {
            if (sub.output(j).empty())
            {
                continue;
            }
            OnnxValue const value
                = static_cast<size_t>(j) < subOutputs.size() ? subOutputs[static_cast<size_t>(j)] : OnnxValue();
            if (!value.defined())
            {
                return unsupported(where + ": " + describeNode(sub) + ": output '" + sub.output(j)
                    + "' is not produced by Kiln's importer");
            }
            if (value.tensor != nullptr && ctx.nameOf(value.tensor) == nullptr && !value.tensor->isNetworkInput())
            {
                value.tensor->setName((prefix + sub.output(j)).c_str());
            }
            scope.save(sub.output(j));
            ctx.bind(sub.output(j), value);
        }
    }
    std::vector<OnnxValue> outputs;
    for (auto const& out : graph.output())
    {
        if (out.type().has_sequence_type() || out.type().has_map_type() || out.type().has_optional_type())
        {
            return unsupported(where + ": output '" + out.name()
                + "' is not a tensor (sequence, map and optional values are not supported by Kiln)");
        }
        auto value = ctx.lookup(out.name());
        if (!value.isOk() || !value->defined())
        {
            return invalidArgument(where + ": output '" + out.name() + "' is not produced by the graph");
        }
        outputs.push_back(*value);
    }
    return outputs;
}

std::string namePrefix(::onnx::NodeProto const& node)
{
    if (!node.name().empty())
    {
        return node.name() + "/";
    }
    return (node.output_size() > 0 && !node.output(0).empty() ? node.output(0) : node.op_type()) + "/";
}

StatusOr<nvinfer1::ITensor*> valueTensor(ImporterContextImpl& ctx, OnnxValue const& value, std::string const& hint)
{
    if (value.tensor != nullptr)
    {
        return value.tensor;
    }
    if (value.constant == nullptr)
    {
        return invalidArgument("value '" + hint + "' is an optional value the model left out");
    }
    return ctx.constantTensor(*value.constant, hint);
}

nvinfer1::DataType valueType(OnnxValue const& value)
{
    return value.tensor != nullptr ? value.tensor->getType() : value.constant->type;
}

StatusOr<nvinfer1::ITensor*> scalarFlag(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* t,
    std::string const& suffix)
{
    KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * flag, castTo(ctx, node, t, nvinfer1::DataType::kBOOL, suffix + "_bool"));
    if (flag->getDimensions().nbDims == 0)
    {
        return flag;
    }
    nvinfer1::Dims scalar{};
    scalar.nbDims = 0;
    return reshape(ctx, node, flag, scalar, suffix + "_scalar");
}

StatusOr<nvinfer1::ITensor*> selectValue(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* flag,
    nvinfer1::ITensor* a, nvinfer1::ITensor* b, std::string const& suffix)
{
    KILN_ASSIGN_OR_RETURN(auto pair, broadcastPair(ctx, node, a, b));
    int32_t const rank = pair.first->getDimensions().nbDims;
    KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * cond, unsqueezeToRank(ctx, node, flag, rank));
    auto* select = ctx.network().addSelect(*cond, *pair.first, *pair.second);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, select, "addSelect", suffix));
    return select->getOutput(0);
}

StatusOr<nvinfer1::ITensor*> stackTensors(ImporterContext& ctx, ::onnx::NodeProto const& node,
    std::vector<nvinfer1::ITensor*> const& parts, int32_t axis, std::string const& suffix)
{
    std::vector<nvinfer1::ITensor*> expanded;
    for (size_t i = 0; i < parts.size(); ++i)
    {
        KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * u,
            unsqueeze(ctx, node, parts[i], {axis}, suffix + "_unsqueeze" + std::to_string(i)));
        expanded.push_back(u);
    }
    if (expanded.size() == 1)
    {
        return expanded[0];
    }
    auto* concat = ctx.network().addConcatenation(expanded.data(), static_cast<int32_t>(expanded.size()));
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, concat, "addConcatenation", suffix));
    concat->setAxis(axis);
    return concat->getOutput(0);
}

StatusOr<ImporterContextImpl*> implOf(ImporterContext& ctx, ::onnx::NodeProto const& node)
{
    auto* impl = dynamic_cast<ImporterContextImpl*>(&ctx);
    if (impl == nullptr)
    {
        return internalError(describeNode(node) + ": " + node.op_type() + " needs the parser's importer context");
    }
    return impl;
}

StatusOr<::onnx::GraphProto const*> graphAttr(::onnx::NodeProto const& node, char const* name)
{
    auto const* attr = findAttribute(node, name);
    if (attr == nullptr || !attr->has_g())
    {
        return invalidArgument(describeNode(node) + ": graph attribute '" + name + "' is missing");
    }
    return &attr->g();
}

//! Input `index` of `node` as a value (constant or tensor); an undefined value when the input is left out.
StatusOr<OnnxValue> inputValue(ImporterContextImpl& ctx, ::onnx::NodeProto const& node, int32_t index)
{
    if (!ctx.hasInput(node, index))
    {
        return OnnxValue();
    }
    OnnxConstant const* c = ctx.constant(node, index);
    if (c != nullptr)
    {
        OnnxValue v;
        v.constant = ctx.keep(*c);
        return v;
    }
    KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * t, ctx.tensor(node, index));
    return OnnxValue(t);
}


nvinfer1::Dims declaredDims(ImporterContextImpl const& ctx, std::string const& name)
{
    nvinfer1::Dims dims{};
    dims.nbDims = -1;
    ::onnx::GraphProto const* graph = ctx.graph();
    if (graph == nullptr)
    {
        return dims;
    }
    auto fromInfo = [&](::onnx::ValueInfoProto const& info) {
        if (info.name() != name || !info.type().has_tensor_type() || !info.type().tensor_type().has_shape()
            || info.type().tensor_type().shape().dim_size() > nvinfer1::Dims::MAX_DIMS)
        {
            return false;
        }
        auto const& shape = info.type().tensor_type().shape();
        dims.nbDims = shape.dim_size();
        for (int32_t i = 0; i < dims.nbDims; ++i)
        {
            dims.d[i] = shape.dim(i).has_dim_value() ? shape.dim(i).dim_value() : -1;
        }
        return true;
    };
    for (auto const& info : graph->output())
    {
        if (fromInfo(info))
        {
            return dims;
        }
    }
    for (auto const& info : graph->value_info())
    {
        if (fromInfo(info))
        {
            return dims;
        }
    }
    return dims;
}

} // namespace kiln
