// readFusedEpilogue: parses the "fuse.*" attributes of a node (see fusedEpilogue.h).
#include "backends/common/fusedEpilogue.h"

#include <string>

namespace kiln
{

StatusOr<FusedEpilogue> readFusedEpilogue(PlanNode const& node, size_t nbOwnInputs)
{
    FusedEpilogue e;
    std::string const label = "node '" + node.name + "'";
    if (node.attrs.getInt("fuse.add", 0) != 0)
    {
        if (node.inputs.size() != nbOwnInputs + 1 || node.inputs[nbOwnInputs] < 0)
        {
            return invalidArgument(label + ": fused addition (fuse.add) needs exactly one extra input after the "
                + std::to_string(nbOwnInputs) + " inputs of the layer, found " + std::to_string(node.inputs.size()));
        }
        e.hasAdd = true;
        e.addInput = static_cast<int32_t>(nbOwnInputs);
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
    return e;
}

} // namespace kiln
