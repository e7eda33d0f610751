// constantReshapePass: a Shuffle that only reshapes a constant (an ONNX importer's rank alignment of a MatMul weight,
// a reshaped bias) would copy the same bytes on every run. Its output becomes a constant tensor of the same weights
// (PlanTensor::constant: same type and element count, its own dims) and the node goes. Outputs of the network, tensors
// whose values the host computes (shape tensors) and nodes in loops or conditional branches are left alone. Runs after
// pluginPass, whose per-node records are kept aligned by erasePlanNodes.
#include "builder/buildContext.h"
#include "builder/planEdit.h"
#include "engine/tensorLifetimes.h"

namespace kiln
{

Status constantReshapePass(BuildContext& ctx)
{
    Plan& plan = ctx.plan;
    std::vector<bool> erased(plan.nodes.size(), false);
    bool any = false;
    for (size_t n = 0; n < plan.nodes.size(); ++n)
    {
        PlanNode const& node = plan.nodes[n];
        if (!isPureReshape(plan, node) || node.attrs.has("cf.if"))
        {
            continue;
        }
        PlanTensor const& in = plan.tensors[static_cast<size_t>(node.inputs[0])];
        PlanTensor& out = plan.tensors[static_cast<size_t>(node.outputs[0])];
        if (in.constant < 0 || out.ioMode != nvinfer1::TensorIOMode::kNONE || out.hasValues || out.type != in.type
            || out.format != nvinfer1::TensorFormat::kLINEAR)
        {
            continue;
        }
        out.constant = in.constant;
        erased[n] = true;
        any = true;
        ctx.logger.verbose("constant reshape: '" + node.name + "' runs no more; '" + out.name
            + "' is the constant of '" + in.name + "' with its own dimensions");
    }
    if (any)
    {
        erasePlanNodes(plan, erased);
    }
    return Status::ok();
}

} // namespace kiln
