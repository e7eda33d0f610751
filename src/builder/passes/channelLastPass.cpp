// channelLastPass (the region-format pass): on a backend whose capabilities name a region format
// (BackendCapabilities::region: CUDA keeps FP16/BF16 convolution and pooling activations in kHWC8, because cuDNN's
// tensor-core convolutions read NHWC and transpose NCHW data around every call; the CPU keeps FP32 ones in the layout
// oneDNN's convolution picks, kHWC or kCHW16, because oneDNN reorders NCHW data to it and back around every call),
// stores the 4-D activations of such nodes in that format and marks the nodes (kCHANNEL_LAST_ATTRIBUTE and
// kREGION_FORMAT_ATTRIBUTE). A node qualifies when its activations (regionSlots: data input, fused addition of the
// output's full shape, output) have the region's types and, where the region asks for whole vectors, a channel count
// that is a multiple of the format's vector at every profile shape (an ungrouped convolution's data input may have
// any: its copy then carries zero padding channels, which the kernel reads with zero weights), and its kernel,
// created with the formats, accepts every profile's kMIN/kOPT/kMAX shapes (on CUDA this builds the cuDNN plans, which
// later contexts reuse). Format-agnostic layers (region.agnosticKinds: activations, unary and same-shape elementwise
// layers) join a region when all their inputs come from it and no tensor has padding channels (where the backend
// says region.channelBroadcast, an elementwise operand may also be a per-channel [N, C, 1, 1] or [1, C, 1, 1] tensor:
// a squeeze-excitation's scaling); reader layers (region.readerKinds: global-average-pool reductions) read a region
// tensor and write a linear one, or, with region.readerOutputs, an [N, C, 1, 1] output in the format (the same bytes)
// when every reader of it is a region node (kREGION_OUTPUT_ATTRIBUTE).
// Between two region nodes the tensor stays in the format; a reformat node (kIDENTITY, "reformat" = 1) converts
// where a linear tensor feeds a region node or a region node's output feeds anything else (other layers, network
// outputs). KILN_CHANNEL_LAST=0 turns the pass off.
// Runs after fusionPass (fused nodes carry their additions) and before tacticsPass.
#include "builder/buildContext.h"
#include "builder/kernelProbe.h"
#include "builder/planEdit.h"

#include "core/dataType.h"
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

//! "FP16/BF16": the names of the types in a bit mask (bit 1 << DataType).
std::string typeNames(uint32_t types)
{
    std::string names;
    for (uint32_t t = 0; t < 32; ++t)
    {
        if ((types & (1U << t)) != 0)
        {
            names += (names.empty() ? "" : "/") + std::string(dataTypeName(static_cast<DataType>(t)));
        }
    }
    return names;
}

class RegionChoice
{
public:
    RegionChoice(BuildContext& ctx, Backend const& backend)
        : mCtx(ctx)
        , mPlan(ctx.plan)
        , mProbe(ctx)
        , mBackend(backend)
        , mRegion(backend.capabilities().region)
    {
    }

    //! Why node `k` cannot run in the region format (empty: it can): the kind's activation layout, the tensors'
    //! ranks, types and channel counts at every profile shape, then the kernel's own answer. nullopt for nodes of
    //! kinds the backend never runs in the format.
    std::optional<std::string> refusal(size_t k)
    {
        PlanNode const& node = mPlan.nodes[k];
        bool const agnostic = RegionFormat::has(mRegion.agnosticKinds, node.kind);
        if (!(RegionFormat::has(mRegion.kinds, node.kind) || agnostic
                || RegionFormat::has(mRegion.readerKinds, node.kind))
            || mProbe.shapeSets().empty())
        {
            return std::nullopt;
        }
        RegionSlots slots;
        if (!regionSlots(node, node.inputs.size(), slots) || node.outputs.size() != 1)
        {
            return std::string(node.kind == LayerType::kCONVOLUTION ? "its kernel or bias is a tensor input"
                                                                    : "its inputs are not all activations");
        }
        std::vector<int32_t> tensors{node.outputs[0]};
        for (size_t s : slots.inputs)
        {
            tensors.push_back(node.inputs[s]);
        }
        for (int32_t t : tensors)
        {
            PlanTensor const& pt = mPlan.tensors[static_cast<size_t>(t)];
            bool const typeOk = static_cast<uint32_t>(pt.type) < 32 && (mRegion.types & (1U << static_cast<uint32_t>(pt.type))) != 0;
            if (t < 0 || pt.dims.size() != 4 || !typeOk || pt.format != TensorFormat::kLINEAR || pt.hasValues
                || pt.hostShapeTensor)
            {
                return "its tensors are not all 4-D linear " + typeNames(mRegion.types) + " activations";
            }
        }
        // Added tensors (a convolution's fused addition, an elementwise layer's operands) must have the output's
        // full shape, or, for elementwise layers on a backend with region.channelBroadcast, be per-channel
        // operands (checked at every profile shape below).
        std::vector<bool> broadcast(tensors.size(), false);
        for (size_t i = 1; i < tensors.size(); ++i)
        {
            bool const added = node.kind == LayerType::kELEMENTWISE || i > 1;
            if (added && mPlan.tensors[static_cast<size_t>(tensors[i])].dims != mPlan.tensors[static_cast<size_t>(tensors[0])].dims)
            {
                if (node.kind != LayerType::kELEMENTWISE || !mRegion.channelBroadcast)
                {
                    return std::string(node.kind == LayerType::kELEMENTWISE ? "it broadcasts" : "its fused addition broadcasts");
                }
                broadcast[i] = true;
            }
        }
        // An ungrouped convolution may read a channel count that the format pads (the stem's 3 channels): its kernel
        // reads the padding channels as zeros. Elsewhere the region may ask for whole vectors; format-agnostic
        // layers always do (they would compute the padding channels).
        int32_t const vector = formatComponents(mRegion.format);
        bool const paddedInput = node.kind == LayerType::kCONVOLUTION && node.attrs.getInt("nbGroups", 1) == 1;
        for (std::vector<int64_t> const& values : mProbe.shapeSets())
        {
            nvinfer1::Dims const out = KernelProbe::extents(mPlan.tensors[static_cast<size_t>(tensors[0])], values);
            for (size_t i = 0; i < tensors.size(); ++i)
            {
                nvinfer1::Dims const d = KernelProbe::extents(mPlan.tensors[static_cast<size_t>(tensors[i])], values);
                bool const perChannel = d.d[1] == out.d[1] && d.d[2] == 1 && d.d[3] == 1
                    && (d.d[0] == out.d[0] || d.d[0] == 1);
                if (broadcast[i] && !perChannel)
                {
                    return std::string("it broadcasts an operand other than a per-channel [N, C, 1, 1] or [1, C, 1, 1] one");
                }
                bool const whole = (mRegion.wholeVectors || agnostic) && !(paddedInput && i == 1);
                if (d.d[1] <= 0 || (whole && d.d[1] % vector != 0))
                {
                    return std::to_string(d.d[1]) + " channels would need " + formatName(mRegion.format)
                        + " padding channels";
                }
            }
        }
        return kernelRefusal(node, slots);
    }

    //! True when tensor `t` has extents [N, C, 1, 1] at every profile shape.
    bool pooled(int32_t t)
    {
        for (std::vector<int64_t> const& values : mProbe.shapeSets())
        {
            nvinfer1::Dims const d = KernelProbe::extents(mPlan.tensors[static_cast<size_t>(t)], values);
            if (d.nbDims != 4 || d.d[2] != 1 || d.d[3] != 1)
            {
                return false;
            }
        }
        return true;
    }

private:
    //! Creates the node's kernel with the region's formats and reshapes it at every profile shape; its error, or
    //! empty.
    std::string kernelRefusal(PlanNode const& original, RegionSlots const& slots)
    {
        PlanNode node = original;
        node.attrs.setInt(kCHANNEL_LAST_ATTRIBUTE, 1);
        node.attrs.setInt(kREGION_FORMAT_ATTRIBUTE, static_cast<int64_t>(mRegion.format));
        KernelSetup setup = makeKernelSetup(mPlan, node);
        // The formats the pass is about to give the activations.
        for (size_t s : slots.inputs)
        {
            setup.inputFormats[s] = mRegion.format;
        }
        if (slots.output)
        {
            setup.outputFormats[0] = mRegion.format;
        }
        std::vector<std::string> tactics = mBackend.tactics(setup);
        // The tactics pass's choice: the workspace-free tactic under a kWORKSPACE limit of 0, a forced tactic where
        // the node offers it linear (KILN_CPU_TACTIC=reference keeps the reference kernels, which read kLINEAR).
        BackendCapabilities const& caps = mBackend.capabilities();
        if (caps.workspaceFreeTactic != nullptr
            && mCtx.config.getMemoryPoolLimit(nvinfer1::MemoryPoolType::kWORKSPACE) == 0)
        {
            tactics.erase(std::remove_if(tactics.begin(), tactics.end(),
                              [&](std::string const& t) { return t != caps.workspaceFreeTactic; }),
                tactics.end());
        }
        if (tactics.empty())
        {
            return std::string("the backend has no ") + formatName(mRegion.format) + " implementation for these types";
        }
        char const* forced = caps.forcedTacticVariable != nullptr ? std::getenv(caps.forcedTacticVariable) : nullptr;
        if (forced != nullptr && std::find(tactics.begin(), tactics.end(), forced) == tactics.end())
        {
            std::vector<std::string> const linear = mBackend.tactics(makeKernelSetup(mPlan, original));
            if (std::find(linear.begin(), linear.end(), forced) != linear.end())
            {
                return std::string("the forced tactic '") + forced + "' has no " + formatName(mRegion.format)
                    + " implementation";
            }
        }
        return mProbe.refusal(node, setup, tactics.front());
    }

    BuildContext& mCtx;
    Plan& mPlan;
    KernelProbe mProbe;
    Backend const& mBackend;
    RegionFormat const& mRegion;
};

//! Unchooses region layers none of whose region inputs comes from a region layer and whose output no region layer
//! reads, until none is left (a format-agnostic or reader layer goes too once one of its producers has left); returns
//! how many.
template <typename ReadsRegion>
int32_t dropLoneLayers(Plan const& plan, RegionFormat const& region, std::vector<int32_t> const& producer,
    std::vector<std::vector<std::pair<size_t, size_t>>> const& consumers, std::vector<bool>& chosen,
    std::vector<bool>& writesRegion, ReadsRegion const& readsRegion)
{
    int32_t dropped = 0;
    bool changed = true;
    while (changed)
    {
        changed = false;
        for (size_t k = 0; k < plan.nodes.size(); ++k)
        {
            PlanNode const& node = plan.nodes[k];
            RegionSlots slots;
            if (!chosen[k] || !regionSlots(node, node.inputs.size(), slots))
            {
                continue;
            }
            bool anyFed = false;
            bool allFed = true;
            for (size_t s : slots.inputs)
            {
                int32_t const p = node.inputs[s] >= 0 ? producer[static_cast<size_t>(node.inputs[s])] : -1;
                bool const fed = p >= 0 && chosen[static_cast<size_t>(p)] && writesRegion[static_cast<size_t>(p)];
                anyFed = anyFed || fed;
                allFed = allFed && fed;
            }
            bool feeds = false;
            for (auto const& [reader, slot] : consumers[static_cast<size_t>(node.outputs[0])])
            {
                feeds = feeds || (writesRegion[k] && readsRegion(reader, slot));
            }
            bool const primary = RegionFormat::has(region.kinds, node.kind);
            if ((!anyFed && !feeds) || (!primary && !allFed))
            {
                chosen[k] = false;
                writesRegion[k] = false;
                ++dropped;
                changed = true;
            }
        }
    }
    return dropped;
}

} // namespace

Status channelLastPass(BuildContext& ctx)
{
    Backend const& backend = ctx.backend != nullptr ? *ctx.backend : cpuBackend();
    RegionFormat const& region = backend.capabilities().region;
    char const* env = std::getenv("KILN_CHANNEL_LAST");
    if (region.kinds == 0 || region.format == TensorFormat::kLINEAR || (env != nullptr && std::string(env) == "0"))
    {
        return Status::ok();
    }
    Plan& plan = ctx.plan;
    TensorFormat const format = region.format;
    RegionChoice choice(ctx, backend);
    size_t const nodeCount = plan.nodes.size();
    std::vector<int32_t> producer(plan.tensors.size(), -1);
    for (size_t k = 0; k < nodeCount; ++k)
    {
        for (int32_t t : plan.nodes[k].outputs)
        {
            producer[static_cast<size_t>(t)] = static_cast<int32_t>(k);
        }
    }
    // Nodes in plan (topological) order: a format-agnostic or reader node joins only when every activation input
    // comes out of a region node.
    std::vector<bool> chosen(nodeCount, false);
    std::vector<bool> writesRegion(nodeCount, false);
    int32_t chosenCount = 0;
    for (size_t k = 0; k < nodeCount; ++k)
    {
        PlanNode& node = plan.nodes[k];
        bool const primary = RegionFormat::has(region.kinds, node.kind);
        RegionSlots slots;
        if (!primary && regionSlots(node, node.inputs.size(), slots))
        {
            bool fed = true;
            for (size_t s : slots.inputs)
            {
                int32_t const p = node.inputs[s] >= 0 ? producer[static_cast<size_t>(node.inputs[s])] : -1;
                fed = fed && p >= 0 && writesRegion[static_cast<size_t>(p)];
            }
            if (!fed)
            {
                continue;
            }
        }
        // A reader whose [N, C, 1, 1] output may stay in the format is asked with that output first (the readers of
        // the output decide below whether it stays).
        bool const readerOutput = region.readerOutputs && RegionFormat::has(region.readerKinds, node.kind) && !primary
            && node.outputs.size() == 1 && node.outputs[0] >= 0 && choice.pooled(node.outputs[0]);
        if (readerOutput)
        {
            node.attrs.setInt(kREGION_OUTPUT_ATTRIBUTE, 1);
        }
        std::optional<std::string> why = choice.refusal(k);
        if (readerOutput && !(why.has_value() && why->empty()))
        {
            node.attrs.erase(kREGION_OUTPUT_ATTRIBUTE);
            why = choice.refusal(k);
        }
        chosen[k] = why.has_value() && why->empty();
        if (chosen[k])
        {
            ++chosenCount;
            writesRegion[k] = regionSlots(node, node.inputs.size(), slots) && slots.output;
        }
        if (primary && why.has_value() && !why->empty())
        {
            // The engine inspector shows it with the layer's other attributes.
            node.attrs.setString(kCHANNEL_LAST_REFUSAL_ATTRIBUTE, *why);
            ctx.logger.verbose("layer '" + node.name + "' stays linear: " + *why);
        }
    }
    std::vector<std::vector<std::pair<size_t, size_t>>> consumers(plan.tensors.size()); // (node, input slot)
    std::vector<bool> isIo(plan.tensors.size(), false);
    for (int32_t io : plan.ioTensors)
    {
        isIo[static_cast<size_t>(io)] = true;
    }
    for (size_t k = 0; k < nodeCount; ++k)
    {
        for (size_t s = 0; s < plan.nodes[k].inputs.size(); ++s)
        {
            if (plan.nodes[k].inputs[s] >= 0)
            {
                consumers[static_cast<size_t>(plan.nodes[k].inputs[s])].emplace_back(k, s);
            }
        }
    }
    auto readsRegion = [&](size_t node, size_t slot) {
        RegionSlots slots;
        return chosen[node] && regionSlots(plan.nodes[node], plan.nodes[node].inputs.size(), slots)
            && std::find(slots.inputs.begin(), slots.inputs.end(), slot) != slots.inputs.end();
    };
    if (!region.loneLayers)
    {
        chosenCount -= dropLoneLayers(plan, region, producer, consumers, chosen, writesRegion, readsRegion);
    }
    // A reader's output stays in the format only when nothing but region nodes reads it (else it is written linear,
    // and region readers get a copy, as from any linear producer).
    for (size_t k = 0; k < nodeCount; ++k)
    {
        PlanNode& node = plan.nodes[k];
        if (!node.attrs.has(kREGION_OUTPUT_ATTRIBUTE))
        {
            continue;
        }
        int32_t const t = node.outputs[0];
        bool regionOnly = chosen[k] && !isIo[static_cast<size_t>(t)] && !consumers[static_cast<size_t>(t)].empty();
        for (auto const& [reader, slot] : consumers[static_cast<size_t>(t)])
        {
            regionOnly = regionOnly && readsRegion(reader, slot);
        }
        if (!regionOnly)
        {
            node.attrs.erase(kREGION_OUTPUT_ATTRIBUTE);
            writesRegion[k] = false;
        }
    }
    if (chosenCount == 0)
    {
        return Status::ok();
    }
    FormatLayout layout;
    bool const channelLast = formatLayout(format, 4, layout) && layout.channelLast;
    std::string const suffix = channelLast ? std::string(" (channel-last)") : std::string(" (") + formatName(format) + ")";
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
    // Outputs of region nodes: in the format in place when every reader is a region node's activation input; else
    // the node writes a copy in the format that those readers take, and a reformat restores the linear tensor.
    for (size_t k = 0; k < nodeCount; ++k)
    {
        if (!chosen[k])
        {
            continue;
        }
        plan.nodes[k].attrs.setInt(kCHANNEL_LAST_ATTRIBUTE, 1);
        plan.nodes[k].attrs.setInt(kREGION_FORMAT_ATTRIBUTE, static_cast<int64_t>(format));
        if (!writesRegion[k])
        {
            continue;
        }
        int32_t const t = plan.nodes[k].outputs[0];
        bool linearNeeded = isIo[static_cast<size_t>(t)];
        for (auto const& [node, slot] : consumers[static_cast<size_t>(t)])
        {
            linearNeeded = linearNeeded || !readsRegion(node, slot);
        }
        PlanTensor& pt = plan.tensors[static_cast<size_t>(t)];
        if (!linearNeeded)
        {
            pt.format = format;
            continue;
        }
        int32_t const copy = addDerivedTensor(plan, t, pt.name + suffix, pt.type, format, -1.F);
        plan.nodes[k].outputs[0] = copy;
        producer.push_back(static_cast<int32_t>(k));
        for (auto const& [node, slot] : consumers[static_cast<size_t>(t)])
        {
            if (readsRegion(node, slot))
            {
                plan.nodes[node].inputs[slot] = copy;
            }
        }
        addReformat(copy, t);
    }
    // Linear tensors read by region nodes: one copy in the format each, made right after the tensor's producer.
    std::vector<int32_t> copies(plan.tensors.size(), -1);
    for (size_t k = 0; k < nodeCount; ++k)
    {
        RegionSlots slots;
        if (!chosen[k] || !regionSlots(plan.nodes[k], plan.nodes[k].inputs.size(), slots))
        {
            continue;
        }
        for (size_t s : slots.inputs)
        {
            int32_t const t = plan.nodes[k].inputs[s];
            if (plan.tensors[static_cast<size_t>(t)].format == format)
            {
                continue;
            }
            if (copies[static_cast<size_t>(t)] < 0)
            {
                PlanTensor const& pt = plan.tensors[static_cast<size_t>(t)];
                int32_t const copy = addDerivedTensor(plan, t, pt.name + suffix, pt.type, format, -1.F);
                copies[static_cast<size_t>(t)] = copy;
                producer.push_back(-1);
                addReformat(t, copy);
            }
            plan.nodes[k].inputs[s] = copies[static_cast<size_t>(t)];
        }
    }
    insertPlanNodes(plan, std::move(front), std::move(after));
    ctx.logger.verbose("region formats: " + std::to_string(chosenCount) + " layers run in " + formatName(format) + ", "
        + std::to_string(reformats) + " reformat layers at the boundaries");
    return Status::ok();
}

} // namespace kiln
