// PluginLayerState and the shape/type inference shared by IPluginV2Layer and IPluginV3Layer.
#include "network/layers/pluginLayer.h"

#include "core/dataType.h"
#include "network/layer.h"
#include "network/networkDefinition.h"
#include "core/runtimeTypeInfo.h"

namespace kiln
{
using nvinfer1::DataType;

PluginLayerState::PluginLayerState(std::unique_ptr<PluginAdapter> plugin, int32_t nbShapeInputs)
    : mPlugin(std::move(plugin))
    , mNbShapeInputs(nbShapeInputs)
{
}

PluginLayerState::~PluginLayerState() = default;

PluginLayerState const* pluginLayerState(Layer const& layer)
{
    return dynamic_cast<PluginLayerState const*>(&layer);
}

int32_t pluginRegularInputs(Layer const& layer, PluginLayerState const& state)
{
    return static_cast<int32_t>(layer.inputs().size()) - state.nbShapeInputs();
}

bool collectPluginInputs(NetworkDefinition& network, char const* api, std::string const& pluginLabel,
    nvinfer1::ITensor* const* tensors, int32_t count, char const* what, std::vector<Tensor*>& out)
{
    if (count < 0 || (count > 0 && tensors == nullptr))
    {
        network.reportError(invalidArgument(std::string(api) + " for " + pluginLabel + ": " + what + " array is "
            + (count < 0 ? "given a negative count (" + std::to_string(count) + ")" : std::string("null"))));
        return false;
    }
    for (int32_t i = 0; i < count; ++i)
    {
        if (tensors[i] == nullptr)
        {
            network.reportError(invalidArgument(std::string(api) + " for " + pluginLabel + ": " + what + " "
                + std::to_string(i) + " is null"));
            return false;
        }
        auto* t = safeDynamicCast<Tensor>(tensors[i]);
        if (t == nullptr || &t->network() != &network)
        {
            network.reportError(invalidArgument(std::string(api) + " for " + pluginLabel + ": " + what + " "
                + std::to_string(i) + " '" + tensors[i]->getName() + "' does not belong to this network"));
            return false;
        }
        out.push_back(t);
    }
    return true;
}

Status inferPluginLayer(Layer const& layer, PluginLayerState const& state, InferContext& ctx,
    std::vector<std::pair<int32_t, int32_t>>& sizeTensors)
{
    PluginAdapter& plugin = state.plugin();
    plugin.setLayerName(layer.name());
    int32_t const nbRegular = ctx.nbInputs() - state.nbShapeInputs();
    std::vector<DataType> inputTypes;
    std::vector<ShapeExpr> inputShapes;
    for (int32_t i = 0; i < nbRegular; ++i)
    {
        if (!ctx.hasInput(i))
        {
            return invalidArgument(plugin.label() + ": input " + std::to_string(i) + " is missing");
        }
        inputTypes.push_back(ctx.input(i).type);
        inputShapes.push_back(ctx.input(i).dims);
    }
    std::vector<std::vector<DimExpr>> shapeValues;
    for (int32_t s = 0; s < state.nbShapeInputs(); ++s)
    {
        int32_t const slot = nbRegular + s;
        if (!ctx.hasInput(slot))
        {
            return invalidArgument(plugin.label() + ": shape input " + std::to_string(s) + " is missing");
        }
        TensorInfo const& t = ctx.input(slot);
        bool const intType = t.type == DataType::kINT32 || t.type == DataType::kINT64;
        if (!intType || t.rank() > 1 || !t.values.has_value())
        {
            return invalidArgument(plugin.label() + ": shape input " + std::to_string(s) + " '" + t.name
                + "' must be a 1-D INT32/INT64 shape tensor whose values are known before execution (computed from "
                  "IShapeLayer, constants or shape-tensor network inputs); it has type "
                + dataTypeName(t.type) + ", rank " + std::to_string(t.rank())
                + (t.values.has_value() ? "" : " and no known values"));
        }
        shapeValues.push_back(*t.values);
    }
    KILN_ASSIGN_OR_RETURN(std::vector<DataType> types, plugin.outputTypes(inputTypes));
    if (static_cast<int32_t>(types.size()) != ctx.nbOutputs())
    {
        return invalidArgument(plugin.label() + ": getOutputDataType(s) gave " + std::to_string(types.size())
            + " types for " + std::to_string(ctx.nbOutputs()) + " outputs");
    }
    KILN_ASSIGN_OR_RETURN(PluginShapes shapes, plugin.outputShapes(ctx.graph(), inputShapes, shapeValues));
    if (static_cast<int32_t>(shapes.outputs.size()) != ctx.nbOutputs())
    {
        return invalidArgument(plugin.label() + ": the output shapes cover " + std::to_string(shapes.outputs.size())
            + " outputs, but the layer has " + std::to_string(ctx.nbOutputs()));
    }
    for (int32_t o = 0; o < ctx.nbOutputs(); ++o)
    {
        TensorInfo& out = ctx.output(o);
        out.type = types[static_cast<size_t>(o)];
        out.dims = shapes.outputs[static_cast<size_t>(o)];
    }
    for (PluginSizeTensor const& st : shapes.sizeTensors)
    {
        if (st.output < 0 || st.output >= ctx.nbOutputs())
        {
            return invalidArgument(plugin.label() + ": declareSizeTensor names output " + std::to_string(st.output)
                + ", but the plugin has " + std::to_string(ctx.nbOutputs()) + " outputs");
        }
        TensorInfo& out = ctx.output(st.output);
        if (out.rank() != 0 || (out.type != DataType::kINT32 && out.type != DataType::kINT64))
        {
            return invalidArgument(plugin.label() + ": size tensor output " + std::to_string(st.output)
                + " must be a 0-D INT32 or INT64 tensor; the plugin declares type " + dataTypeName(out.type)
                + " and rank " + std::to_string(out.rank()));
        }
        ShapeGraph const& g = ctx.graph();
        if (!g.isValid(st.symbol) || g.node(st.symbol).op != ExprOp::kSYMBOL)
        {
            return internalError(plugin.label() + ": size tensor output " + std::to_string(st.output)
                + " has no data-dependent symbol");
        }
        out.values = std::vector<DimExpr>{DimExpr(&ctx.graph(), st.symbol)};
        sizeTensors.emplace_back(st.output, static_cast<int32_t>(g.node(st.symbol).value));
    }
    return Status::ok();
}

} // namespace kiln
