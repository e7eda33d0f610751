// Reformats around plugin nodes: see pluginReformats.h.
#include "builder/pluginReformats.h"

#include "builder/pluginConfigure.h"
#include "builder/pluginNegotiation.h"
#include "builder/planEdit.h"
#include "core/dataType.h"
#include "core/tensorFormat.h"

#include <algorithm>
#include <cmath>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::TensorFormat;

namespace
{

//! What the negotiation knows about plan tensor `pt` from its shapes, type and format (the INT8 fields unset).
NegotiationTensor negotiationTensor(PlanTensor const& pt, PluginConfigurator const& shapes)
{
    NegotiationTensor n;
    n.name = pt.name;
    n.dims = shapes.buildDims(pt);
    n.min = shapes.evalDims(pt, 0, 0);
    n.opt = shapes.evalDims(pt, 0, 1);
    n.max = shapes.evalDims(pt, 0, 2);
    n.type = pt.type;
    n.format = pt.format;
    return n;
}

} // namespace

Status PluginReformats::prepare()
{
    mOrigin.assign(mPlan.tensors.size(), nullptr);
    for (auto const& [tensor, index] : mCtx.tensorIndex)
    {
        mOrigin[static_cast<size_t>(index)] = tensor;
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
Status PluginReformats::chooseIoFormats()
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

int32_t PluginReformats::pluginSource(int32_t t) const
{
    auto view = mPluginView.find(t);
    return view != mPluginView.end() ? view->second : t;
}

float PluginReformats::rangeScale(int32_t t) const
{
    Tensor const* origin = mOrigin[static_cast<size_t>(t)];
    if (origin == nullptr || !origin->dynamicRangeIsSet())
    {
        return -1.0F;
    }
    float const range = std::max(std::fabs(origin->getDynamicRangeMin()), std::fabs(origin->getDynamicRangeMax()));
    return range > 0.F ? range / 127.F : -1.0F;
}

int32_t PluginReformats::addDerivedTensor(int32_t source, std::string name, DataType type, TensorFormat format,
    float scale)
{
    int32_t const index = kiln::addDerivedTensor(mPlan, source, std::move(name), type, format, scale);
    mOrigin.push_back(mOrigin[static_cast<size_t>(source)]);
    mNeedsOriginal.push_back(false);
    return index;
}

PlanNode PluginReformats::reformatNode(std::string name, int32_t from, int32_t to)
{
    return makeReformatNode(mPlan, std::move(name), from, to);
}

Status PluginReformats::negotiate(PluginAdapter& plugin, PlanNode& node, int32_t nbIn,
    std::vector<int32_t> const& sources, PluginConfigurator const& shapes, std::vector<PlanNode>& pre,
    std::vector<PlanNode>& post)
{
    bool const int8Flag = mCtx.config.getFlag(nvinfer1::BuilderFlag::kINT8);
    std::vector<NegotiationTensor> ins;
    std::vector<NegotiationTensor> outs;
    for (int32_t t : sources)
    {
        PlanTensor const& pt = tensor(t);
        NegotiationTensor n = negotiationTensor(pt, shapes);
        n.int8Scale = pt.type == DataType::kINT8 && pt.scale > 0.F ? pt.scale : rangeScale(t);
        n.int8Candidate = int8Flag || n.int8Scale > 0.F;
        ins.push_back(std::move(n));
    }
    for (int32_t t : node.outputs)
    {
        // The format is kLINEAR, or a network output's format (setAllowedFormats).
        NegotiationTensor n = negotiationTensor(tensor(t), shapes);
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
            pre.push_back(reformatNode("reformat " + srcName + " to " + what, src, to));
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

} // namespace kiln
