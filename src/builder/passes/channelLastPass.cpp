// channelLastPass: on a backend whose capabilities list layer kinds that run channel-last (CUDA: convolution and
// pooling, because cuDNN's tensor-core convolutions read NHWC and transpose NCHW data around every call), stores the
// 4-D FP16/BF16 activations of such nodes in TensorFormat::kHWC8 and marks the nodes (kCHANNEL_LAST_ATTRIBUTE).
// A node qualifies when its activations (data input, fused addition of the output's full shape, output) have a
// channel count that is a multiple of 8 at every profile shape (an ungrouped convolution's data input may have any:
// its kHWC8 copy then carries zero padding channels, which the kernel reads with zero weights) and its
// kernel, created with the attribute, accepts every profile's kMIN/kOPT/kMAX shapes (on CUDA this builds the cuDNN
// plans, which later contexts reuse). Between two qualifying nodes the tensor stays channel-last; a reformat node
// (kIDENTITY, "reformat" = 1) converts where a linear tensor feeds a qualifying node or a qualifying node's output
// feeds anything else (other layers, network outputs). KILN_CHANNEL_LAST=0 turns the pass off.
// Runs after fusionPass (fused nodes carry their additions) and before tacticsPass.
#include "builder/buildContext.h"
#include "builder/planEdit.h"

#include "core/tensorFormat.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace kiln
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::LayerType;
using nvinfer1::TensorFormat;

//! The input slots of `node` that carry activations in its kind's channel-last form; false when the node's inputs
//! have another layout (a convolution kernel or bias given as a tensor).
bool activationSlots(PlanNode const& node, std::vector<size_t>& slots)
{
    slots.clear();
    switch (node.kind)
    {
    case LayerType::kCONVOLUTION:
    {
        bool const fusedAdd = node.attrs.getInt("fuse.add", 0) != 0;
        if (node.inputs.size() != (fusedAdd ? 2U : 1U))
        {
            return false;
        }
        slots.push_back(0);
        if (fusedAdd)
        {
            slots.push_back(1);
        }
        return true;
    }
    case LayerType::kPOOLING:
        if (node.inputs.size() != 1)
        {
            return false;
        }
        slots.push_back(0);
        return true;
    default: return false;
    }
}

//! Extents of tensor `t` given evaluated expression values.
nvinfer1::Dims extents(PlanTensor const& t, std::vector<int64_t> const& values)
{
    nvinfer1::Dims d{};
    d.nbDims = static_cast<int32_t>(t.dims.size());
    for (size_t i = 0; i < t.dims.size() && i < static_cast<size_t>(nvinfer1::Dims::MAX_DIMS); ++i)
    {
        d.d[i] = values[static_cast<size_t>(t.dims[i])];
    }
    return d;
}

class ChannelLastChoice
{
public:
    ChannelLastChoice(BuildContext& ctx, BackendSession& session)
        : mCtx(ctx)
        , mPlan(ctx.plan)
        , mSession(session)
    {
    }

    //! Evaluated expression values of every profile at kMIN, kOPT and kMAX.
    Status evaluateProfiles()
    {
        for (PlanProfile const& profile : mPlan.profiles)
        {
            for (int32_t selector = 0; selector < 3; ++selector)
            {
                KILN_ASSIGN_OR_RETURN(std::vector<int64_t> symbols, profileSymbolValues(mPlan, profile, selector));
                std::vector<int64_t> values;
                KILN_RETURN_IF_ERROR(mPlan.shapes.evaluate(symbols, values));
                mShapeSets.push_back(std::move(values));
            }
        }
        return Status::ok();
    }

    //! Why node `k` cannot run channel-last (empty: it can): the kind's activation layout, the tensors' ranks, types
    //! and channel counts at every profile shape, then the kernel's own answer. nullopt for nodes of kinds the
    //! backend never runs channel-last (no reason is recorded for them).
    std::optional<std::string> refusal(size_t k)
    {
        PlanNode const& node = mPlan.nodes[k];
        std::vector<size_t> slots;
        if (!mCtx.backend->capabilities().runsChannelLast(node.kind) || mShapeSets.empty())
        {
            return std::nullopt;
        }
        if (!activationSlots(node, slots) || node.outputs.size() != 1)
        {
            return std::string("its kernel or bias is a tensor input");
        }
        std::vector<int32_t> tensors{node.outputs[0]};
        for (size_t s : slots)
        {
            tensors.push_back(node.inputs[s]);
        }
        for (int32_t t : tensors)
        {
            PlanTensor const& pt = mPlan.tensors[static_cast<size_t>(t)];
            if (t < 0 || pt.dims.size() != 4 || (pt.type != DataType::kHALF && pt.type != DataType::kBF16)
                || pt.format != TensorFormat::kLINEAR || pt.hasValues || pt.hostShapeTensor)
            {
                return std::string("its tensors are not all 4-D linear FP16/BF16 activations");
            }
        }
        // The fused addition must have the output's full shape (no broadcast in the channel-last plan).
        if (slots.size() > 1 && mPlan.tensors[static_cast<size_t>(tensors[2])].dims != mPlan.tensors[static_cast<size_t>(tensors[0])].dims)
        {
            return std::string("its fused addition broadcasts");
        }
        // An ungrouped convolution may read a channel count that kHWC8 pads (the stem's 3 channels): its kernel reads
        // the padding channels as zeros. Everything else needs whole vectors of 8.
        bool const paddedInput = node.kind == LayerType::kCONVOLUTION && node.attrs.getInt("nbGroups", 1) == 1;
        for (std::vector<int64_t> const& values : mShapeSets)
        {
            for (size_t i = 0; i < tensors.size(); ++i)
            {
                nvinfer1::Dims const d = extents(mPlan.tensors[static_cast<size_t>(tensors[i])], values);
                if (d.d[1] <= 0 || (d.d[1] % 8 != 0 && !(paddedInput && i == 1)))
                {
                    return std::to_string(d.d[1]) + " channels would need kHWC8 padding channels";
                }
            }
        }
        return kernelRefusal(node, slots);
    }

private:
    //! Creates the node's kernel with the attribute and reshapes it at every profile shape; its error, or empty.
    std::string kernelRefusal(PlanNode const& original, std::vector<size_t> const& slots)
    {
        PlanNode node = original;
        node.attrs.setInt(kCHANNEL_LAST_ATTRIBUTE, 1);
        KernelSetup setup = makeKernelSetup(mPlan, node);
        // The formats the pass is about to give the activations.
        for (size_t s : slots)
        {
            setup.inputFormats[s] = TensorFormat::kHWC8;
        }
        setup.outputFormats[0] = TensorFormat::kHWC8;
        std::vector<std::string> const tactics = mCtx.backend->tactics(setup);
        if (tactics.empty())
        {
            return "the backend has no channel-last implementation for these types";
        }
        node.tactic = tactics.front();
        auto kernel = mSession.createKernel(setup);
        std::string why = kernel.isOk() ? std::string() : kernel.status().message();
        for (size_t set = 0; why.empty() && set < mShapeSets.size(); ++set)
        {
            std::vector<TensorView> ins(node.inputs.size());
            for (size_t s : slots)
            {
                PlanTensor const& pt = mPlan.tensors[static_cast<size_t>(node.inputs[s])];
                ins[s].type = pt.type;
                ins[s].dims = extents(pt, mShapeSets[set]);
            }
            std::vector<TensorView> outs(1);
            PlanTensor const& out = mPlan.tensors[static_cast<size_t>(node.outputs[0])];
            outs[0].type = out.type;
            outs[0].dims = extents(out, mShapeSets[set]);
            Status const st = kernel.value()->reshape(ins, outs);
            why = st.isOk() ? std::string() : st.message();
        }
        return why;
    }

    BuildContext& mCtx;
    Plan& mPlan;
    BackendSession& mSession;
    std::vector<std::vector<int64_t>> mShapeSets;
};

} // namespace

Status channelLastPass(BuildContext& ctx)
{
    Backend const& backend = ctx.backend != nullptr ? *ctx.backend : cpuBackend();
    char const* env = std::getenv("KILN_CHANNEL_LAST");
    if (backend.capabilities().channelLastKinds == 0 || (env != nullptr && std::string(env) == "0"))
    {
        return Status::ok();
    }
    Plan& plan = ctx.plan;
    KILN_ASSIGN_OR_RETURN(std::unique_ptr<BackendSession> session, backend.createSession());
    ChannelLastChoice choice(ctx, *session);
    KILN_RETURN_IF_ERROR(choice.evaluateProfiles());
    size_t const nodeCount = plan.nodes.size();
    std::vector<bool> chosen(nodeCount, false);
    int32_t chosenCount = 0;
    for (size_t k = 0; k < nodeCount; ++k)
    {
        std::optional<std::string> const why = choice.refusal(k);
        chosen[k] = why.has_value() && why->empty();
        chosenCount += chosen[k] ? 1 : 0;
        if (why.has_value() && !why->empty())
        {
            // The engine inspector shows it with the layer's other attributes.
            plan.nodes[k].attrs.setString(kCHANNEL_LAST_REFUSAL_ATTRIBUTE, *why);
            ctx.logger.verbose("layer '" + plan.nodes[k].name + "' stays linear: " + *why);
        }
    }
    if (chosenCount == 0)
    {
        return Status::ok();
    }
    std::vector<int32_t> producer(plan.tensors.size(), -1);
    std::vector<std::vector<std::pair<size_t, size_t>>> consumers(plan.tensors.size()); // (node, input slot)
    std::vector<bool> isIo(plan.tensors.size(), false);
    for (int32_t io : plan.ioTensors)
    {
        isIo[static_cast<size_t>(io)] = true;
    }
    for (size_t k = 0; k < nodeCount; ++k)
    {
        for (int32_t t : plan.nodes[k].outputs)
        {
            producer[static_cast<size_t>(t)] = static_cast<int32_t>(k);
        }
        for (size_t s = 0; s < plan.nodes[k].inputs.size(); ++s)
        {
            if (plan.nodes[k].inputs[s] >= 0)
            {
                consumers[static_cast<size_t>(plan.nodes[k].inputs[s])].emplace_back(k, s);
            }
        }
    }
    auto readsChannelLast = [&](size_t node, size_t slot) {
        std::vector<size_t> slots;
        return chosen[node] && activationSlots(plan.nodes[node], slots)
            && std::find(slots.begin(), slots.end(), slot) != slots.end();
    };
    std::vector<PlanNode> front;
    std::vector<std::vector<PlanNode>> after(nodeCount);
    int32_t reformats = 0;
    auto addReformat = [&](int32_t from, int32_t to) {
        int32_t const p = producer[static_cast<size_t>(from)];
        PlanNode r = makeReformatNode(plan,
            "reformat " + plan.tensors[static_cast<size_t>(from)].name + " to " + formatName(plan.tensors[static_cast<size_t>(to)].format),
            from, to);
        (p < 0 ? front : after[static_cast<size_t>(p)]).push_back(std::move(r));
        ++reformats;
    };
    // Outputs of chosen nodes: channel-last in place when every reader is a chosen node's activation input; else the
    // node writes a channel-last copy that those readers take, and a reformat restores the linear tensor.
    for (size_t k = 0; k < nodeCount; ++k)
    {
        if (!chosen[k])
        {
            continue;
        }
        plan.nodes[k].attrs.setInt(kCHANNEL_LAST_ATTRIBUTE, 1);
        int32_t const t = plan.nodes[k].outputs[0];
        bool linearNeeded = isIo[static_cast<size_t>(t)];
        for (auto const& [node, slot] : consumers[static_cast<size_t>(t)])
        {
            linearNeeded = linearNeeded || !readsChannelLast(node, slot);
        }
        PlanTensor& pt = plan.tensors[static_cast<size_t>(t)];
        if (!linearNeeded)
        {
            pt.format = TensorFormat::kHWC8;
            continue;
        }
        int32_t const copy = addDerivedTensor(plan, t, pt.name + " (channel-last)", pt.type, TensorFormat::kHWC8, -1.F);
        plan.nodes[k].outputs[0] = copy;
        producer.push_back(static_cast<int32_t>(k));
        for (auto const& [node, slot] : consumers[static_cast<size_t>(t)])
        {
            if (readsChannelLast(node, slot))
            {
                plan.nodes[node].inputs[slot] = copy;
            }
        }
        addReformat(copy, t);
    }
    // Linear tensors read by chosen nodes: one channel-last copy each, made right after the tensor's producer.
    std::vector<int32_t> copies(plan.tensors.size(), -1);
    for (size_t k = 0; k < nodeCount; ++k)
    {
        std::vector<size_t> slots;
        if (!chosen[k] || !activationSlots(plan.nodes[k], slots))
        {
            continue;
        }
        for (size_t s : slots)
        {
            int32_t const t = plan.nodes[k].inputs[s];
            if (plan.tensors[static_cast<size_t>(t)].format == TensorFormat::kHWC8)
            {
                continue;
            }
            if (copies[static_cast<size_t>(t)] < 0)
            {
                PlanTensor const& pt = plan.tensors[static_cast<size_t>(t)];
                int32_t const copy = addDerivedTensor(plan, t, pt.name + " (channel-last)", pt.type, TensorFormat::kHWC8, -1.F);
                copies[static_cast<size_t>(t)] = copy;
                producer.push_back(-1);
                addReformat(t, copy);
            }
            plan.nodes[k].inputs[s] = copies[static_cast<size_t>(t)];
        }
    }
    insertPlanNodes(plan, std::move(front), std::move(after));
    ctx.logger.verbose("channel-last formats: " + std::to_string(chosenCount) + " layers run channel-last (kHWC8), "
        + std::to_string(reformats) + " reformat layers at the boundaries");
    return Status::ok();
}

} // namespace kiln
