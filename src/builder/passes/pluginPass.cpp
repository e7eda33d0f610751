// pluginPass: builds every plugin node. Per build and per plugin node, in TensorRT's order:
//  1. clone the network's plugin (the builder's copy, destroyed at the end of the node) and refuse plugins that do
//     not opt into the CPU backend (kiln::IPluginCpuSupport);
//  2. getNbOutputs, getOutputDataType(s), getOutputDimensions/getOutputShapes on the builder's copy;
//  3. format/type negotiation (pluginNegotiation.h); a reformat node (kIDENTITY, "reformat" = 1) converts an input
//     whose producer has another type/format, and an output whose consumers or network output need another one;
//     INT8 tensors get PlanTensor::scale from their dynamic range;
//  4. configurePlugin once per optimization profile (min/opt/max of the profile) and getWorkspaceSize, checked
//     against the kWORKSPACE memory pool limit;
//  5. tactics: two or more are timed (pluginTiming.h), one is taken as is;
//  6. IPluginV2 family: initialize, then terminate;
//  7. getAliasedInput per output, serialization, and the PluginRecord in the node's attributes.
// Network I/O tensors whose ITensor::setAllowedFormats excludes kLINEAR get the first allowed format (supported when
// only plugins touch them). Finally, aliased (in-place) outputs get a private copy of their input when the input is a
// network tensor or is read after the plugin, and a private output when they are network outputs; memoryPass gives
// each aliased pair one arena slot.
#include "backends/cpu/kernels/identityReformat.h"
#include "builder/buildContext.h"
#include "builder/dataDependentShapes.h"
#include "builder/pluginNegotiation.h"
#include "builder/pluginTiming.h"
#include "core/dataType.h"
#include "network/layers/pluginLayer.h"
#include "runtime/engineData.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::DynamicPluginTensorDesc;
using nvinfer1::TensorFormat;

namespace
{

struct NodeEntry
{
    PlanNode node;
    std::vector<int64_t> workspace; // per profile (plugin nodes)
};

class PluginPass
{
public:
    explicit PluginPass(BuildContext& ctx)
        : mCtx(ctx)
        , mPlan(ctx.plan)
    {
    }

    Status run()
    {
        KILN_RETURN_IF_ERROR(prepare());
        std::vector<PlanNode> old = std::move(mPlan.nodes);
        mPlan.nodes.clear();
        for (size_t k = 0; k < old.size(); ++k)
        {
            auto it = mCtx.nodePlugins.find(k);
            if (it == mCtx.nodePlugins.end())
            {
                // Non-plugin node: reads the original tensors.
                mEntries.push_back(NodeEntry{std::move(old[k]), {}});
                continue;
            }
            KILN_RETURN_IF_ERROR(buildPluginNode(std::move(old[k]), *it->second));
        }
        KILN_RETURN_IF_ERROR(isolateAliases());
        for (PlanProfile& profile : mPlan.profiles)
        {
            profile.workspaceSizes.assign(mEntries.size(), 0);
            profile.workspaceOffsets.assign(mEntries.size(), -1);
        }
        for (size_t n = 0; n < mEntries.size(); ++n)
        {
            for (size_t p = 0; p < mEntries[n].workspace.size() && p < mPlan.profiles.size(); ++p)
            {
                mPlan.profiles[p].workspaceSizes[n] = mEntries[n].workspace[p];
            }
            mPlan.nodes.push_back(std::move(mEntries[n].node));
        }
        mCtx.nodePlugins.clear();
        return Status::ok();
    }

private:
    Status prepare()
    {
        mOrigin.assign(mPlan.tensors.size(), nullptr);
        for (auto const& [tensor, index] : mCtx.tensorIndex)
        {
            mOrigin[static_cast<size_t>(index)] = tensor;
        }
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
        // Tensors whose type/format must stay as analysed: network outputs and inputs of non-plugin nodes.
        mNeedsOriginal.assign(mPlan.tensors.size(), false);
        for (int32_t io : mPlan.ioTensors)
        {
            mNeedsOriginal[static_cast<size_t>(io)] = true;
        }
        for (size_t k = 0; k < mPlan.nodes.size(); ++k)
        {
            if (mCtx.nodePlugins.count(k) == 0)
            {
                for (int32_t in : mPlan.nodes[k].inputs)
                {
                    if (in >= 0)
                    {
                        mNeedsOriginal[static_cast<size_t>(in)] = true;
                    }
                }
            }
        }
        return chooseIoFormats();
    }

    //! ITensor::setAllowedFormats on network I/O: a mask without kLINEAR selects the first allowed candidate format.
    //! Kiln supports that for I/O tensors that only plugins read or write (they negotiate around it).
    Status chooseIoFormats()
    {
        for (int32_t io : mPlan.ioTensors)
        {
            Tensor const* origin = mOrigin[static_cast<size_t>(io)];
            uint32_t const mask = origin != nullptr ? origin->getAllowedFormats() : ~0U;
            if ((mask & (1U << static_cast<uint32_t>(TensorFormat::kLINEAR))) != 0)
            {
                continue;
            }
            PlanTensor& t = tensor(io);
            std::string const what = std::string(t.ioMode == nvinfer1::TensorIOMode::kINPUT ? "network input '"
                                                                                            : "network output '")
                + t.name + "'";
            TensorFormat chosen = TensorFormat::kLINEAR;
            FormatLayout layout;
            for (TensorFormat f : candidateFormats())
            {
                bool const allowed = (mask & (1U << static_cast<uint32_t>(f))) != 0;
                if (allowed && formatLayout(f, static_cast<int32_t>(t.dims.size()), layout))
                {
                    chosen = f;
                    break;
                }
            }
            if (chosen == TensorFormat::kLINEAR)
            {
                return unsupported(what + ": ITensor::setAllowedFormats allows no format Kiln supports for a tensor of "
                    "rank " + std::to_string(t.dims.size())
                    + " (kLINEAR, kCHW2/4/16/32, kHWC, kHWC8/16, kDHWC, kDHWC8, kCDHW32)");
            }
            bool onlyPlugins = true;
            for (size_t k = 0; k < mPlan.nodes.size(); ++k)
            {
                PlanNode const& n = mPlan.nodes[k];
                bool const touches = std::find(n.inputs.begin(), n.inputs.end(), io) != n.inputs.end()
                    || std::find(n.outputs.begin(), n.outputs.end(), io) != n.outputs.end();
                onlyPlugins = onlyPlugins && (!touches || mCtx.nodePlugins.count(k) != 0);
            }
            if (!onlyPlugins)
            {
                return unsupported(what + ": ITensor::setAllowedFormats excludes kLINEAR; Kiln supports other "
                    "formats at network inputs/outputs only when plugins alone read or write the tensor");
            }
            t.format = chosen;
            mCtx.logger.verbose(what + " uses format " + formatName(chosen) + " (ITensor::setAllowedFormats)");
        }
        return Status::ok();
    }

    PlanTensor& tensor(int32_t t) { return mPlan.tensors[static_cast<size_t>(t)]; }

    Dims buildDims(PlanTensor const& t) const
    {
        Dims d{};
        d.nbDims = static_cast<int32_t>(t.dims.size());
        for (size_t i = 0; i < t.dims.size(); ++i)
        {
            d.d[i] = mPlan.shapes.valueOrUnknown(t.dims[i]);
        }
        return d;
    }

    Dims evalDims(PlanTensor const& t, size_t profile, int32_t selector) const
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

    //! INT8 scale from the dynamic range of the network tensor behind plan tensor `t` (-1 when none is set).
    float rangeScale(int32_t t) const
    {
        Tensor const* origin = mOrigin[static_cast<size_t>(t)];
        if (origin == nullptr || !origin->dynamicRangeIsSet())
        {
            return -1.0F;
        }
        float const range = std::max(std::fabs(origin->getDynamicRangeMin()), std::fabs(origin->getDynamicRangeMax()));
        return range > 0.F ? range / 127.F : -1.0F;
    }

    //! A new tensor shaped like `source`, with another type/format, produced by a node of the builder.
    int32_t addDerivedTensor(int32_t source, std::string name, DataType type, TensorFormat format, float scale)
    {
        PlanTensor t = tensor(source);
        t.name = std::move(name);
        t.type = type;
        t.format = format;
        t.scale = type == DataType::kINT8 ? scale : -1.0F;
        t.ioMode = nvinfer1::TensorIOMode::kNONE;
        t.hostShapeTensor = false;
        t.constant = -1;
        t.dimNames.clear();
        t.hasValues = false;
        t.values.clear();
        t.sizeTensorSymbol = -1;
        int32_t const index = static_cast<int32_t>(mPlan.tensors.size());
        mPlan.tensors.push_back(std::move(t));
        mOrigin.push_back(mOrigin[static_cast<size_t>(source)]);
        mNeedsOriginal.push_back(false);
        return index;
    }

    PlanNode reformatNode(std::string name, int32_t from, int32_t to)
    {
        PlanNode n;
        n.kind = nvinfer1::LayerType::kIDENTITY;
        n.name = std::move(name);
        n.inputs = {from};
        n.outputs = {to};
        n.attrs.setInt("reformat", 1);
        n.attrs.setInt("inFormat", static_cast<int64_t>(tensor(from).format));
        n.attrs.setInt("outFormat", static_cast<int64_t>(tensor(to).format));
        n.attrs.setFloat("inScale", tensor(from).scale);
        n.attrs.setFloat("outScale", tensor(to).scale);
        return n;
    }

    //! Steps 2: the shape and type queries, on the builder's copy, in TensorRT's order.
    Status queryShapes(PluginAdapter& plugin, PlanNode const& node, int32_t nbIn, std::vector<int32_t> const& sources)
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
            types.push_back(tensor(t).type);
        }
        KILN_ASSIGN_OR_RETURN(std::vector<DataType> outputTypes, plugin.outputTypes(types));
        (void) outputTypes;
        // Shapes on a scratch copy of the graph: the network's plugin already defined the plan's expressions.
        ShapeGraph scratch = mPlan.shapes;
        std::vector<ShapeExpr> shapes;
        for (int32_t t : sources)
        {
            ShapeExpr s;
            for (ExprId id : tensor(t).dims)
            {
                s.emplace_back(&scratch, id);
            }
            shapes.push_back(std::move(s));
        }
        std::vector<std::vector<DimExpr>> shapeValues;
        for (size_t i = static_cast<size_t>(nbIn); i < node.inputs.size(); ++i)
        {
            std::vector<DimExpr> v;
            for (ExprId id : tensor(node.inputs[i]).values)
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

    //! Step 3: negotiation and reformat nodes. Fills `post` with the reformats that follow the plugin node.
    Status negotiate(PluginAdapter& plugin, PlanNode& node, int32_t nbIn, std::vector<int32_t> const& sources,
        std::vector<PlanNode>& post)
    {
        bool const int8Flag = mCtx.config.getFlag(nvinfer1::BuilderFlag::kINT8);
        std::vector<NegotiationTensor> ins;
        std::vector<NegotiationTensor> outs;
        for (int32_t t : sources)
        {
            PlanTensor const& pt = tensor(t);
            NegotiationTensor n;
            n.name = pt.name;
            n.dims = buildDims(pt);
            n.min = evalDims(pt, 0, 0);
            n.opt = evalDims(pt, 0, 1);
            n.max = evalDims(pt, 0, 2);
            n.type = pt.type;
            n.format = pt.format;
            n.int8Scale = pt.type == DataType::kINT8 && pt.scale > 0.F ? pt.scale : rangeScale(t);
            n.int8Candidate = int8Flag || n.int8Scale > 0.F;
            ins.push_back(std::move(n));
        }
        for (int32_t t : node.outputs)
        {
            PlanTensor const& pt = tensor(t);
            NegotiationTensor n;
            n.name = pt.name;
            n.dims = buildDims(pt);
            n.min = evalDims(pt, 0, 0);
            n.opt = evalDims(pt, 0, 1);
            n.max = evalDims(pt, 0, 2);
            n.type = pt.type;
            n.format = pt.format; // kLINEAR, or a network output's format (setAllowedFormats)
            n.int8Scale = rangeScale(t);
            outs.push_back(std::move(n));
        }
        KILN_ASSIGN_OR_RETURN(NegotiationResult r, negotiateFormats(plugin, ins, outs, mCtx.network.stronglyTyped()));
        std::string chosen;
        for (size_t p = 0; p < r.types.size(); ++p)
        {
            chosen += (p ? ", " : "") + typeFormatName(r.types[p], r.formats[p]);
        }
        mCtx.logger.verbose(plugin.label() + ": supportsFormatCombination chose (" + chosen + ") after "
            + std::to_string(r.calls) + " calls");

        for (int32_t i = 0; i < nbIn; ++i)
        {
            int32_t const src = sources[static_cast<size_t>(i)];
            DataType const type = r.types[static_cast<size_t>(i)];
            TensorFormat const format = r.formats[static_cast<size_t>(i)];
            float const scale = ins[static_cast<size_t>(i)].int8Scale;
            if (type == DataType::kINT8 && scale <= 0.F)
            {
                return invalidArgument(plugin.label() + ": input " + std::to_string(i) + " '" + tensor(src).name
                    + "' is INT8 (the only type supportsFormatCombination accepted), but the tensor has no dynamic "
                      "range; call ITensor::setDynamicRange on it");
            }
            if (tensor(src).type == type && tensor(src).format == format)
            {
                if (type == DataType::kINT8 && tensor(src).scale <= 0.F)
                {
                    tensor(src).scale = scale;
                }
                node.inputs[static_cast<size_t>(i)] = src;
                continue;
            }
            auto key = std::make_tuple(src, static_cast<int32_t>(type), static_cast<int32_t>(format));
            auto it = mReformats.find(key);
            if (it == mReformats.end())
            {
                std::string const srcName = tensor(src).name;
                std::string const what = typeFormatName(type, format) + " for layer '" + node.name + "'";
                int32_t const to = addDerivedTensor(src, srcName + " (" + what + ")", type, format, scale);
                mEntries.push_back(NodeEntry{reformatNode("reformat " + srcName + " to " + what, src, to), {}});
                it = mReformats.emplace(key, to).first;
            }
            node.inputs[static_cast<size_t>(i)] = it->second;
        }
        for (size_t o = 0; o < node.outputs.size(); ++o)
        {
            int32_t const t = node.outputs[o];
            DataType const type = r.types[static_cast<size_t>(nbIn) + o];
            TensorFormat const format = r.formats[static_cast<size_t>(nbIn) + o];
            float const scale = outs[o].int8Scale;
            if (type == DataType::kINT8 && scale <= 0.F)
            {
                return invalidArgument(plugin.label() + ": output " + std::to_string(o) + " '" + tensor(t).name
                    + "' is INT8, but the tensor has no dynamic range; call ITensor::setDynamicRange on it");
            }
            PlanTensor& pt = tensor(t);
            if ((pt.type == type && pt.format == format) || !mNeedsOriginal[static_cast<size_t>(t)])
            {
                pt.type = type;
                pt.format = format;
                pt.scale = type == DataType::kINT8 ? scale : -1.0F;
                continue;
            }
            // The plugin writes its own tensor; a reformat produces what the consumers / the network output need.
            std::string const name = pt.name + " (" + typeFormatName(type, format) + " from layer '" + node.name + "')";
            int32_t const own = addDerivedTensor(t, name, type, format, scale);
            std::swap(tensor(own).sizeTensorSymbol, tensor(t).sizeTensorSymbol);
            node.outputs[o] = own;
            mPluginView[t] = own;
            auto const back = std::make_tuple(
                own, static_cast<int32_t>(tensor(t).type), static_cast<int32_t>(tensor(t).format));
            mReformats[back] = t;
            post.push_back(reformatNode("reformat " + tensor(own).name + " to "
                    + typeFormatName(tensor(t).type, tensor(t).format),
                own, t));
        }
        return Status::ok();
    }

    std::vector<DynamicPluginTensorDesc> profileDescs(std::vector<int32_t> const& tensors, size_t profile) const
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

    //! Steps 4 and 5: configure per profile, workspace, tactics.
    Status configure(PluginAdapter& plugin, std::vector<int32_t> const& ins, std::vector<int32_t> const& outs,
        std::vector<int64_t>& workspace, int32_t& tactic, std::string& tacticName)
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
                    tt.bytes = byteSize(pt.type, formattedVolume(pt.format, extents));
                    out.push_back(tt);
                }
                return out;
            };
            KILN_ASSIGN_OR_RETURN(tactic, timePluginTactics(plugin, tactics, timing(ins), timing(outs),
                workspace.empty() ? 0 : workspace[0], mCtx.logger));
        }
        KILN_RETURN_IF_ERROR(plugin.setTactic(tactic));
        tacticName = "plugin:" + std::to_string(tactic);
        return Status::ok();
    }

    Status buildPluginNode(PlanNode node, PluginLayerState const& state)
    {
        PluginAdapter& networkPlugin = state.plugin();
        networkPlugin.setLayerName(node.name);
        // 1. The builder's own copy.
        KILN_ASSIGN_OR_RETURN(std::unique_ptr<PluginAdapter> plugin, networkPlugin.clone());
        plugin->setLayerName(node.name);
        if (!plugin->supportsCpu())
        {
            return unsupported(plugin->label() + " does not support the CPU backend: derive it from "
                "kiln::IPluginCpuSupport (include/kiln/KilnPluginCpu.h; see docs/plugins.md) so that its enqueue runs "
                "on host memory");
        }
        int32_t const nbShape = static_cast<int32_t>(node.attrs.getInt("plugin.nbShapeInputs", 0));
        int32_t const nbIn = static_cast<int32_t>(node.inputs.size()) - nbShape;
        std::vector<int32_t> sources;
        for (int32_t i = 0; i < nbIn; ++i)
        {
            int32_t t = node.inputs[static_cast<size_t>(i)];
            auto view = mPluginView.find(t);
            sources.push_back(view != mPluginView.end() ? view->second : t);
        }
        // 2. Shapes and types; 3. negotiation.
        KILN_RETURN_IF_ERROR(queryShapes(*plugin, node, nbIn, sources));
        std::vector<PlanNode> post;
        KILN_RETURN_IF_ERROR(negotiate(*plugin, node, nbIn, sources, post));
        // 4./5. Configure, workspace, tactics.
        std::vector<int32_t> const ins(node.inputs.begin(), node.inputs.begin() + nbIn);
        std::vector<int64_t> workspace;
        int32_t tactic = 0;
        KILN_RETURN_IF_ERROR(configure(*plugin, ins, node.outputs, workspace, tactic, node.tactic));
        // 6. IPluginV2 family: initialize -> terminate (no-ops for IPluginV3).
        KILN_RETURN_IF_ERROR(plugin->initialize());
        plugin->terminate();
        // 7. Aliases and the engine record.
        PluginRecord record;
        record.name = plugin->name();
        record.version = plugin->version();
        record.pluginNamespace = plugin->pluginNamespace();
        record.generation = plugin->generation();
        record.tactic = tactic;
        for (size_t o = 0; o < node.outputs.size(); ++o)
        {
            int32_t const alias = plugin->aliasedInput(static_cast<int32_t>(o));
            if (alias < -1 || alias >= nbIn)
            {
                return invalidArgument(plugin->label() + ": getAliasedInput(" + std::to_string(o) + ") returned "
                    + std::to_string(alias) + ", which is not -1 or an input index in [0, " + std::to_string(nbIn)
                    + ")");
            }
            record.aliases.push_back(alias);
        }
        KILN_ASSIGN_OR_RETURN(record.data, plugin->serialize());
        storePluginRecord(record, node.attrs);
        mEntries.push_back(NodeEntry{std::move(node), std::move(workspace)});
        for (PlanNode& n : post)
        {
            mEntries.push_back(NodeEntry{std::move(n), {}});
        }
        return Status::ok(); // the builder's copy is destroyed here
    }

    bool readAfter(int32_t t, size_t node) const
    {
        for (size_t n = node + 1; n < mEntries.size(); ++n)
        {
            auto const& ins = mEntries[n].node.inputs;
            if (std::find(ins.begin(), ins.end(), t) != ins.end())
            {
                return true;
            }
        }
        return false;
    }

    //! Aliased outputs: give the plugin a private input copy / a private output where sharing would be unsafe.
    Status isolateAliases()
    {
        for (size_t n = 0; n < mEntries.size(); ++n)
        {
            if (mEntries[n].node.kind != nvinfer1::LayerType::kPLUGIN_V2
                && mEntries[n].node.kind != nvinfer1::LayerType::kPLUGIN_V3)
            {
                continue;
            }
            KILN_ASSIGN_OR_RETURN(PluginRecord record, loadPluginRecord(mEntries[n].node.attrs));
            std::string const layer = "layer '" + mEntries[n].node.name + "'";
            for (size_t o = 0; o < record.aliases.size() && o < mEntries[n].node.outputs.size(); ++o)
            {
                int64_t const a = record.aliases[o];
                if (a < 0)
                {
                    continue;
                }
                std::vector<int32_t> const inputs = mEntries[n].node.inputs;
                int32_t const in = inputs[static_cast<size_t>(a)];
                int32_t const out = mEntries[n].node.outputs[o];
                PlanTensor const pi = tensor(in);
                PlanTensor const po = tensor(out);
                std::string const what = "plugin '" + record.name + "' in " + layer + ": output " + std::to_string(o)
                    + " aliases input " + std::to_string(a) + " (getAliasedInput)";
                if (pi.type != po.type || pi.format != po.format)
                {
                    return invalidArgument(what + ", but their types/formats differ ("
                        + typeFormatName(pi.type, pi.format) + " vs " + typeFormatName(po.type, po.format) + ")");
                }
                if (dependsOnData(mDataDependent, pi.dims) || dependsOnData(mDataDependent, po.dims))
                {
                    return unsupported(what + ", but one of them has a data-dependent shape; Kiln cannot alias such "
                                              "tensors");
                }
                size_t const uses = static_cast<size_t>(std::count(inputs.begin(), inputs.end(), in));
                size_t aliasers = 0;
                for (int64_t k : record.aliases)
                {
                    aliasers += k >= 0 && inputs[static_cast<size_t>(k)] == in ? 1 : 0;
                }
                bool const shared = pi.ioMode != nvinfer1::TensorIOMode::kNONE || pi.constant >= 0 || pi.hasValues
                    || uses > 1 || aliasers > 1 || readAfter(in, n);
                if (shared)
                {
                    int32_t const copy = addDerivedTensor(in, pi.name + " (copy updated in place by " + layer + ")",
                        pi.type, pi.format, pi.scale);
                    PlanNode copyNode = reformatNode("copy " + pi.name + " for in-place " + layer, in, copy);
                    mEntries.insert(
                        mEntries.begin() + static_cast<std::ptrdiff_t>(n), NodeEntry{std::move(copyNode), {}});
                    ++n;
                    mEntries[n].node.inputs[static_cast<size_t>(a)] = copy;
                    mCtx.logger.verbose(what + ": the input is also used elsewhere, so the plugin updates a copy");
                }
                if (po.ioMode != nvinfer1::TensorIOMode::kNONE)
                {
                    int32_t const own = addDerivedTensor(out, po.name + " (in place in " + layer + ")", po.type,
                        po.format, po.scale);
                    mEntries[n].node.outputs[o] = own;
                    PlanNode copyNode = reformatNode("copy in-place result of " + layer + " to " + po.name, own, out);
                    mEntries.insert(
                        mEntries.begin() + static_cast<std::ptrdiff_t>(n) + 1, NodeEntry{std::move(copyNode), {}});
                }
            }
        }
        return Status::ok();
    }

    BuildContext& mCtx;
    Plan& mPlan;
    std::vector<NodeEntry> mEntries;
    std::vector<Tensor const*> mOrigin;
    std::vector<bool> mDataDependent;
    std::vector<bool> mNeedsOriginal;
    std::vector<std::array<std::vector<int64_t>, 3>> mValues; // [profile][selector] evaluated expressions
    std::unordered_map<int32_t, int32_t> mPluginView;          // tensor -> the plugin's own output before a reformat
    std::map<std::tuple<int32_t, int32_t, int32_t>, int32_t> mReformats; // (source, type, format) -> tensor
};

} // namespace

Status pluginPass(BuildContext& ctx)
{
    PluginPass pass(ctx);
    return pass.run();
}

} // namespace kiln
