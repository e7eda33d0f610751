// readFusedEpilogue: parses the "fuse.*" attributes of a node (see fusedEpilogue.h).
#include "backends/common/fusedEpilogue.h"

#include <string>

namespace kiln
{

StatusOr<FusedEpilogue> readFusedEpilogue(
    PlanNode const& node, size_t nbOwnInputs, bool residualAllowed, bool gateAllowed)
{
    FusedEpilogue e;
    std::string const label = "node '" + node.name + "'";
    bool const residual = node.attrs.getInt("fuse.residual", 0) != 0;
    if (residual && !residualAllowed)
    {
        return invalidArgument(label + ": a fused residual (fuse.residual) is supported on matrix multiply nodes only");
    }
    if (residual && node.attrs.getInt("fuse.add", 0) == 0)
    {
        return invalidArgument(label + ": a fused residual (fuse.residual) needs a fused addition (fuse.add) before it");
    }
    if (node.attrs.getInt("fuse.add", 0) != 0)
    {
        size_t const extra = residual ? 2 : 1;
        bool present = node.inputs.size() == nbOwnInputs + extra;
        for (size_t i = nbOwnInputs; present && i < node.inputs.size(); ++i)
        {
            present = node.inputs[i] >= 0;
        }
        if (!present)
        {
            return invalidArgument(label + ": fused addition (fuse.add" + (residual ? ", fuse.residual" : "")
                + ") needs exactly " + std::to_string(extra) + " extra input(s) after the " + std::to_string(nbOwnInputs)
                + " inputs of the layer, found " + std::to_string(node.inputs.size()));
        }
        e.hasAdd = true;
        e.addInput = static_cast<int32_t>(nbOwnInputs);
        e.hasResidual = residual;
        e.residualInput = residual ? static_cast<int32_t>(nbOwnInputs + 1) : -1;
    }
    int64_t const act = node.attrs.getInt("fuse.act", 0);
    if (act != 0)
    {
        int64_t const k = act - 1;
        if (k < 0 || k > static_cast<int64_t>(nvinfer1::ActivationType::kGELU_TANH))
        {
            return invalidArgument(label + ": fused activation (fuse.act) " + std::to_string(act) + " is not an activation type");
        }
        e.hasActivation = true;
        e.activation = static_cast<nvinfer1::ActivationType>(k);
        e.alpha = static_cast<float>(node.attrs.getFloat("fuse.alpha", 0.0));
        e.beta = static_cast<float>(node.attrs.getFloat("fuse.beta", 0.0));
    }
    if (node.attrs.getInt("fuse.gate", 0) != 0)
    {
        if (!gateAllowed)
        {
            return invalidArgument(label + ": this kernel does not apply a gated activation (fuse.gate: v * act(v))");
        }
        if (!e.hasActivation)
        {
            return invalidArgument(label + ": a gated activation (fuse.gate) needs a fused activation (fuse.act)");
        }
        e.gated = true;
    }
    return e;
}

} // namespace kiln
