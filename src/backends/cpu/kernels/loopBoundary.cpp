// CPU kernels of the control-flow boundary layers. Loops are run by the execution context's loop interpreter
// (src/engine/controlFlowPlan.h): recurrence, iterator, trip limit and loop output nodes only describe the loop,
// so their kernels validate the node (a corrupt engine fails when the context is created) and do nothing.
// A conditional output copies the value of the branch its condition selects.
#include "backends/cpu/kernels/loopBoundary.h"
#include "backends/cpu/kernels/kernelFactories.h"

#include "core/dataType.h"
#include "network/inferContext.h"

#include <cstring>

namespace kiln
{
using nvinfer1::LayerType;

namespace
{

class NoOpKernel final : public Kernel
{
public:
    Status run(std::vector<TensorView> const&, std::vector<TensorView> const&, RunContext const&) override
    {
        return Status::ok();
    }
};

//! reshape: both branch values hold the output's elements in its type; run: copies the chosen branch's value.
class ConditionalOutputKernel final : public Kernel
{
public:
    explicit ConditionalOutputKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mBytes = -1;
        std::string const label = "conditional output '" + mSetup.node->name + "'";
        if (inputs.size() != 3 || outputs.size() != 1)
        {
            return invalidArgument(label + ": needs the true value, the false value and the condition");
        }
        TensorView const& out = outputs[0];
        for (int32_t branch = 0; branch < 2; ++branch)
        {
            TensorView const& in = inputs[static_cast<size_t>(branch)];
            if (in.volume() != out.volume() || in.type != out.type)
            {
                return invalidArgument(label + ": the " + (branch == 0 ? "true" : "false") + " branch's value has "
                    + std::to_string(in.volume()) + " elements but the output has " + std::to_string(out.volume()));
            }
        }
        mBytes = byteSize(out.type, out.volume());
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (mBytes < 0)
        {
            return notReshaped(mSetup, "ConditionalOutput");
        }
        bool const cond = *static_cast<uint8_t const*>(inputs[2].data) != 0;
        TensorView const& in = inputs[cond ? 0 : 1];
        if (mBytes > 0 && in.data != outputs[0].data)
        {
            std::memcpy(outputs[0].data, in.data, static_cast<size_t>(mBytes));
        }
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    int64_t mBytes{-1}; //!< bytes of the output; -1 until a successful reshape
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createLoopBoundaryKernel(KernelSetup const& setup)
{
    PlanNode const& node = *setup.node;
    std::string const label = std::string(layerKindName(node.kind)) + " node '" + node.name + "'";
    if (!node.attrs.has("cf.loop") || node.attrs.getInt("cf.loop") < 0)
    {
        return invalidArgument(label + ": it belongs to no loop (attribute cf.loop is missing)");
    }
    auto const needs = [&](size_t nbInputs, size_t nbOutputs) -> Status {
        if (node.inputs.size() < nbInputs || node.outputs.size() != nbOutputs)
        {
            return invalidArgument(label + ": expected " + std::to_string(nbInputs) + " inputs and "
                + std::to_string(nbOutputs) + " outputs");
        }
        for (size_t i = 0; i < nbInputs; ++i)
        {
            if (node.inputs[i] < 0)
            {
                return invalidArgument(label + ": input " + std::to_string(i) + " is missing");
            }
        }
        return Status::ok();
    };
    switch (node.kind)
    {
    case LayerType::kRECURRENCE:
        KILN_RETURN_IF_ERROR(needs(2, 1));
        if (setup.inputTypes[0] != setup.outputTypes[0] || setup.inputTypes[1] != setup.outputTypes[0])
        {
            return invalidArgument(label + ": initial, next and current values must have one type");
        }
        break;
    case LayerType::kITERATOR:
    {
        KILN_RETURN_IF_ERROR(needs(1, 1));
        int64_t const axis = node.attrs.getInt("axis", -1);
        if (axis < 0 || axis >= setup.inputRanks[0] || setup.outputRanks[0] != setup.inputRanks[0] - 1)
        {
            return invalidArgument(label + ": invalid iterator axis " + std::to_string(axis));
        }
        break;
    }
    case LayerType::kTRIP_LIMIT:
    {
        KILN_RETURN_IF_ERROR(needs(1, 0));
        int64_t const kind = node.attrs.getInt("kind", -1);
        if (kind < 0 || kind > 1 || setup.inputRanks[0] != 0)
        {
            return invalidArgument(label + ": invalid trip limit");
        }
        break;
    }
    case LayerType::kLOOP_OUTPUT:
    {
        KILN_RETURN_IF_ERROR(needs(1, 1));
        int64_t const kind = node.attrs.getInt("kind", -1);
        int64_t const axis = node.attrs.getInt("axis", -1);
        bool const concat = kind == 1 || kind == 2;
        if (kind < 0 || kind > 2 || (concat && (axis < 0 || axis > setup.inputRanks[0]))
            || setup.outputRanks[0] != setup.inputRanks[0] + (concat ? 1 : 0))
        {
            return invalidArgument(label + ": invalid loop output kind or axis");
        }
        break;
    }
    default: return invalidArgument(label + ": not a loop boundary node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<NoOpKernel>());
}

StatusOr<std::unique_ptr<Kernel>> createConditionalOutputKernel(KernelSetup const& setup)
{
    if (setup.inputTypes.size() != 3 || setup.outputTypes.size() != 1 || setup.inputTypes[2] != nvinfer1::DataType::kBOOL
        || setup.inputRanks[2] != 0)
    {
        return invalidArgument("conditional output '" + setup.node->name
            + "': expected inputs (true value, false value, 0-D BOOL condition) and one output");
    }
    return std::unique_ptr<Kernel>(std::make_unique<ConditionalOutputKernel>(setup));
}

} // namespace kiln
