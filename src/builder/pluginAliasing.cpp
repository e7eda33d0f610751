// Aliased plugin outputs: see pluginAliasing.h.
#include "builder/pluginAliasing.h"

#include "builder/dataDependentShapes.h"
#include "builder/pluginNegotiation.h"
#include "plugin/pluginAdapter.h"

#include <algorithm>

namespace kiln
{
namespace
{

//! True when a node after `node` reads tensor `t`.
bool readAfter(std::vector<PluginNodeEntry> const& entries, int32_t t, size_t node)
{
    for (size_t n = node + 1; n < entries.size(); ++n)
    {
        auto const& ins = entries[n].node.inputs;
        if (std::find(ins.begin(), ins.end(), t) != ins.end())
        {
            return true;
        }
    }
    return false;
}

} // namespace

Status isolatePluginAliases(BuildContext const& ctx, PluginReformats& reformats,
    std::vector<bool> const& dataDependent, std::vector<PluginNodeEntry>& entries)
{
    auto tensor = [&](int32_t t) -> PlanTensor const& { return ctx.plan.tensors[static_cast<size_t>(t)]; };
    for (size_t n = 0; n < entries.size(); ++n)
    {
        if (entries[n].node.kind != nvinfer1::LayerType::kPLUGIN_V2
            && entries[n].node.kind != nvinfer1::LayerType::kPLUGIN_V3)
        {
            continue;
        }
        KILN_ASSIGN_OR_RETURN(PluginRecord record, loadPluginRecord(entries[n].node.attrs));
        std::string const layer = "layer '" + entries[n].node.name + "'";
        for (size_t o = 0; o < record.aliases.size() && o < entries[n].node.outputs.size(); ++o)
        {
            int64_t const a = record.aliases[o];
            if (a < 0)
            {
                continue;
            }
            std::vector<int32_t> const inputs = entries[n].node.inputs;
            int32_t const in = inputs[static_cast<size_t>(a)];
            int32_t const out = entries[n].node.outputs[o];
            PlanTensor const pi = tensor(in);
            PlanTensor const po = tensor(out);
            std::string const what = "plugin '" + record.name + "' in " + layer + ": output " + std::to_string(o)
                + " aliases input " + std::to_string(a) + " (getAliasedInput)";
            if (pi.type != po.type || pi.format != po.format)
            {
                return invalidArgument(what + ", but their types/formats differ ("
                    + typeFormatName(pi.type, pi.format) + " vs " + typeFormatName(po.type, po.format) + ")");
            }
            if (dependsOnData(dataDependent, pi.dims) || dependsOnData(dataDependent, po.dims))
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
                || uses > 1 || aliasers > 1 || readAfter(entries, in, n);
            if (shared)
            {
                int32_t const copy = reformats.addDerivedTensor(in,
                    pi.name + " (copy updated in place by " + layer + ")", pi.type, pi.format, pi.scale);
                PlanNode copyNode = reformats.reformatNode("copy " + pi.name + " for in-place " + layer, in, copy);
                entries.insert(
                    entries.begin() + static_cast<std::ptrdiff_t>(n), PluginNodeEntry{std::move(copyNode), {}});
                ++n;
                entries[n].node.inputs[static_cast<size_t>(a)] = copy;
                ctx.logger.verbose(what + ": the input is also used elsewhere, so the plugin updates a copy");
            }
            if (po.ioMode != nvinfer1::TensorIOMode::kNONE)
            {
                int32_t const own = reformats.addDerivedTensor(out, po.name + " (in place in " + layer + ")",
                    po.type, po.format, po.scale);
                entries[n].node.outputs[o] = own;
                PlanNode copyNode
                    = reformats.reformatNode("copy in-place result of " + layer + " to " + po.name, own, out);
                entries.insert(
                    entries.begin() + static_cast<std::ptrdiff_t>(n) + 1, PluginNodeEntry{std::move(copyNode), {}});
            }
        }
    }
    return Status::ok();
}

} // namespace kiln
