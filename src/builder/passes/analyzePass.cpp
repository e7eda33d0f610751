// analyzePass: the strict network analysis, plus the checks only a build needs (outputs exist, I/O rules).
#include "builder/buildContext.h"

namespace kiln
{

Status analyzePass(BuildContext& ctx)
{
    NetworkDefinition const& net = ctx.network;
    if (net.outputs().empty())
    {
        return invalidArgument("the network has no outputs (call INetworkDefinition::markOutput)");
    }
    for (Tensor const* out : net.outputs())
    {
        if (out->isInput())
        {
            return invalidArgument("tensor '" + out->name() + "' is both a network input and a network output");
        }
    }
    for (size_t i = 0; i < net.inputs().size(); ++i)
    {
        for (size_t j = 0; j < net.outputs().size(); ++j)
        {
            if (net.inputs()[i]->name() == net.outputs()[j]->name())
            {
                return invalidArgument("network input and output share the name '" + net.inputs()[i]->name() + "'");
            }
        }
    }
    for (size_t i = 0; i < net.outputs().size(); ++i)
    {
        for (size_t j = i + 1; j < net.outputs().size(); ++j)
        {
            if (net.outputs()[i]->name() == net.outputs()[j]->name())
            {
                return invalidArgument("two network outputs are named '" + net.outputs()[i]->name() + "'");
            }
        }
    }
    KILN_ASSIGN_OR_RETURN(ctx.analysis, analyzeNetwork(net, /*strict=*/true));
    return Status::ok();
}

} // namespace kiln
