// Plugin node configuration at build time: see pluginConfigure.h.
#include "builder/pluginConfigure.h"

#include "builder/dataDependentShapes.h"
#include "builder/pluginTiming.h"
#include "core/dataType.h"
#include "core/tensorFormat.h"

#include <string>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::DynamicPluginTensorDesc;

Status PluginConfigurator::evaluateProfiles()
{
    mDataDependent = dataDependentExprs(mPlan.shapes);
    for (PlanProfile const& profile : mPlan.profiles)
    {
        std::array<std::vector<int64_t>, 3> values;
        for (int32_t s = 0; s < 3; ++s)
        {
            KILN_ASSIGN_OR_RETURN(std::vector<int64_t> symbols, profileSymbolValues(mPlan, profile, s));
            KILN_RETURN_IF_ERROR(mPlan.shapes.evaluate(symbols, values[static_cast<size_t>(s)]));
        }
        mValues.push_back(std::move(values));
    }
    return Status::ok();
}

Dims PluginConfigurator::buildDims(PlanTensor const& t) const
{
    Dims d{};
    d.nbDims = static_cast<int32_t>(t.dims.size());
    for (size_t i = 0; i < t.dims.size(); ++i)
    {
        d.d[i] = mPlan.shapes.valueOrUnknown(t.dims[i]);
    }
    return d;
}

Dims PluginConfigurator::evalDims(PlanTensor const& t, size_t profile, int32_t selector) const
{
    std::vector<int64_t> const& values = mValues[profile][static_cast<size_t>(selector)];
    Dims d{};
    d.nbDims = static_cast<int32_t>(t.dims.size());
    for (size_t i = 0; i < t.dims.size(); ++i)
    {
        d.d[i] = values[static_cast<size_t>(t.dims[i])];
    }
    return d;
}

Status PluginConfigurator::queryShapes(PluginAdapter& plugin, PlanNode const& node, int32_t nbIn,
    std::vector<int32_t> const& sources) const
{
    KILN_ASSIGN_OR_RETURN(int32_t nbOutputs, plugin.nbOutputs());
    if (nbOutputs != static_cast<int32_t>(node.outputs.size()))
    {
        return invalidArgument(plugin.label() + ": getNbOutputs returned " + std::to_string(nbOutputs)
            + " for the builder's clone, but the network's plugin has " + std::to_string(node.outputs.size())
            + " outputs (clone() must copy the plugin's state)");
    }
    std::vector<DataType> types;
    for (int32_t t : sources)
    {
        types.push_back(mPlan.tensors[static_cast<size_t>(t)].type);
    }
    KILN_ASSIGN_OR_RETURN(std::vector<DataType> outputTypes, plugin.outputTypes(types));
    (void) outputTypes;
    // Shapes on a scratch copy of the graph: the network's plugin already defined the plan's expressions.
    ShapeGraph scratch = mPlan.shapes;
    std::vector<ShapeExpr> shapes;
    for (int32_t t : sources)
    {
        ShapeExpr s;
        for (ExprId id : mPlan.tensors[static_cast<size_t>(t)].dims)
        {
            s.emplace_back(&scratch, id);
        }
        shapes.push_back(std::move(s));
    }
    std::vector<std::vector<DimExpr>> shapeValues;
    for (size_t i = static_cast<size_t>(nbIn); i < node.inputs.size(); ++i)
    {
        std::vector<DimExpr> v;
        for (ExprId id : mPlan.tensors[static_cast<size_t>(node.inputs[i])].values)
        {
            v.emplace_back(&scratch, id);
        }
        shapeValues.push_back(std::move(v));
    }
    KILN_ASSIGN_OR_RETURN(PluginShapes outputShapes, plugin.outputShapes(scratch, shapes, shapeValues));
    if (outputShapes.outputs.size() != node.outputs.size())
    {
        return invalidArgument(plugin.label() + ": the builder's clone gives shapes for "
            + std::to_string(outputShapes.outputs.size()) + " outputs, expected "
            + std::to_string(node.outputs.size()));
    }
    return Status::ok();
}

std::vector<DynamicPluginTensorDesc> PluginConfigurator::profileDescs(std::vector<int32_t> const& tensors,
    size_t profile) const
{
    std::vector<DynamicPluginTensorDesc> descs;
    for (int32_t t : tensors)
    {
        PlanTensor const& pt = mPlan.tensors[static_cast<size_t>(t)];
        DynamicPluginTensorDesc d{};
        d.desc.dims = buildDims(pt);
        d.desc.type = pt.type;
        d.desc.format = pt.format;
        d.desc.scale = pt.type == DataType::kINT8 ? pt.scale : -1.0F;
        d.min = evalDims(pt, profile, 0);
        d.opt = evalDims(pt, profile, 1);
        d.max = evalDims(pt, profile, 2);
        descs.push_back(d);
    }
    return descs;
}

Status PluginConfigurator::configure(PluginAdapter& plugin, std::vector<int32_t> const& ins,
    std::vector<int32_t> const& outs, std::vector<int64_t>& workspace, int32_t& tactic, std::string& tacticName) const
{
    size_t const limit = mCtx.config.getMemoryPoolLimit(nvinfer1::MemoryPoolType::kWORKSPACE);
    for (size_t p = 0; p < mPlan.profiles.size(); ++p)
    {
        std::vector<DynamicPluginTensorDesc> const in = profileDescs(ins, p);
        std::vector<DynamicPluginTensorDesc> const out = profileDescs(outs, p);
        KILN_RETURN_IF_ERROR(plugin.configure(in, out));
        KILN_ASSIGN_OR_RETURN(size_t bytes, plugin.workspaceSize(in, out));
        if (bytes > limit)
        {
            return invalidConfig(plugin.label() + ": getWorkspaceSize asks for " + std::to_string(bytes)
                + " bytes at optimization profile " + std::to_string(p) + ", more than the kWORKSPACE memory pool "
                + "limit of " + std::to_string(limit) + " bytes (IBuilderConfig::setMemoryPoolLimit)");
        }
        workspace.push_back(static_cast<int64_t>(bytes));
    }
    KILN_ASSIGN_OR_RETURN(std::vector<int32_t> tactics, plugin.validTactics());
    tactic = 0;
    tacticName = "plugin";
    if (tactics.empty())
    {
        return Status::ok();
    }
    if (tactics.size() == 1)
    {
        tactic = tactics[0];
    }
    else
    {
        std::string tooLarge; // a tensor whose bytes do not fit in int64_t
        auto timing = [&](std::vector<int32_t> const& tensors) {
            std::vector<TimingTensor> out;
            for (int32_t t : tensors)
            {
                PlanTensor const& pt = mPlan.tensors[static_cast<size_t>(t)];
                TimingTensor tt;
                tt.desc.dims = evalDims(pt, 0, 1);
                tt.desc.type = pt.type;
                tt.desc.format = pt.format;
                tt.desc.scale = pt.type == DataType::kINT8 ? pt.scale : -1.0F;
                // Data-dependent outputs may be written up to their upper bound.
                Dims const size = dependsOnData(mDataDependent, pt.dims) ? evalDims(pt, 0, 2) : tt.desc.dims;
                std::vector<int64_t> const extents(size.d, size.d + size.nbDims);
                tt.bytes = formattedBytes(pt.type, pt.format, extents);
                if (tt.bytes < 0)
                {
                    tooLarge = pt.name;
                    tt.bytes = 0;
                }
                out.push_back(tt);
            }
            return out;
        };
        std::vector<TimingTensor> const timedInputs = timing(ins);
        std::vector<TimingTensor> const timedOutputs = timing(outs);
        if (!tooLarge.empty())
        {
            return invalidArgument("tensor '" + tooLarge + "' has more elements than memory can address at the opt "
                "shapes (plugin tactic timing)");
        }
        KILN_ASSIGN_OR_RETURN(tactic, timePluginTactics(plugin, tactics, timedInputs, timedOutputs,
            workspace.empty() ? 0 : workspace[0], mCtx.backend != nullptr ? *mCtx.backend : cpuBackend(), mCtx.logger));
    }
    KILN_RETURN_IF_ERROR(plugin.setTactic(tactic));
    tacticName = "plugin:" + std::to_string(tactic);
    return Status::ok();
}

} // namespace kiln
