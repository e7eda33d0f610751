// Plan validation: every structural invariant of a Plan (enum ranges, indices, counts, types, weights sizes, I/O
// order, profile dims, arena placement and liveness, plugin I/O and shape inputs, control flow), checked without
// trusting any field. The engine reader runs it on every decoded Plan, the writer before encoding, and the runtime
// before deriving its tables.
#include "engine/planValidation.h"

#include "core/dataType.h"
#include "engine/controlFlowPlan.h"
#include "engine/engineFormat.h"
#include "engine/tensorLifetimes.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <set>
#include <string>

namespace kiln
{
namespace
{
//! Every arena offset the builder writes is a multiple of this (memoryPass).
constexpr int64_t kARENA_ALIGNMENT = 256;


using namespace engine;

Status corrupt(std::string msg)
{
    return invalidArgument(std::move(msg));
}

template <typename E>
bool enumInRange(E e)
{
    int32_t const v = static_cast<int32_t>(e);
    return v >= 0 && v < nvinfer1::EnumMax<E>();
}

std::string tensorLabel(Plan const& plan, size_t i)
{
    return "tensor " + std::to_string(i) + " (" + printableQuoted(plan.tensors[i].name) + ")";
}

std::string nodeLabel(Plan const& plan, size_t i)
{
    return "node " + std::to_string(i) + " (" + printableQuoted(plan.nodes[i].name) + ")";
}

std::string weightsLabel(size_t i)
{
    return "weights " + std::to_string(i);
}

Status checkWeights(Plan const& plan)
{
    for (size_t i = 0; i < plan.weights.size(); ++i)
    {
        PlanWeights const& w = plan.weights[i];
        if (!enumInRange(w.type))
        {
            return corrupt(weightsLabel(i) + " has the unknown data type " + std::to_string(static_cast<int32_t>(w.type)));
        }
        if (w.count < 0 || w.size < 0)
        {
            return corrupt(weightsLabel(i) + " has a negative count or size");
        }
        // Bytes for w.count elements, computed without overflow.
        int64_t const element = elementSize(w.type);
        bool const packed = element == 0; // INT4/FP4: two per byte
        bool consistent = false;
        if (packed)
        {
            consistent = w.count / 2 + w.count % 2 == w.size;
        }
        else
        {
            consistent = w.count <= std::numeric_limits<int64_t>::max() / element && w.count * element == w.size;
        }
        if (!consistent)
        {
            return corrupt(weightsLabel(i) + " holds " + std::to_string(w.count) + " " + dataTypeName(w.type)
                + " values but " + std::to_string(w.size) + " bytes");
        }
        if (w.size > 0 && w.data == nullptr)
        {
            return corrupt(weightsLabel(i) + " has no data");
        }
    }
    return Status::ok();
}

Status checkShapeRefs(Plan const& plan, std::vector<ExprId> const& ids, std::string const& what)
{
    for (size_t i = 0; i < ids.size(); ++i)
    {
        if (!plan.shapes.isValid(ids[i]))
        {
            return corrupt(what + " " + std::to_string(i) + " refers to shape expression " + std::to_string(ids[i])
                + ", but the shape graph has " + std::to_string(plan.shapes.nodes().size()) + " expressions");
        }
    }
    return Status::ok();
}

//! Symbol bounds: only data-dependent symbols have them, and they refer to existing expressions.
Status checkSymbols(Plan const& plan)
{
    auto const& symbols = plan.shapes.symbols();
    for (size_t s = 0; s < symbols.size(); ++s)
    {
        SymbolInfo const& info = symbols[s];
        std::string const label = "shape symbol " + std::to_string(s) + " (" + printableQuoted(info.name) + ")";
        bool const dataDependent = info.kind == SymbolKind::kDATA_DEPENDENT;
        for (auto const& [what, id] : {std::pair<char const*, ExprId>{"upper bound", info.upper}, {"opt value", info.opt}})
        {
            if (id == kNO_EXPR)
            {
                continue;
            }
            if (!dataDependent)
            {
                return corrupt(label + " has an " + what + ", but only data-dependent symbols have bounds");
            }
            if (!plan.shapes.isValid(id))
            {
                return corrupt(label + ": its " + what + " refers to shape expression " + std::to_string(id)
                    + ", but the shape graph has " + std::to_string(plan.shapes.nodes().size()) + " expressions");
            }
        }
    }
    return Status::ok();
}

//! A size tensor holds the value of a data-dependent symbol: a 0-D INT32/INT64 tensor, one per symbol.
Status checkSizeTensor(Plan const& plan, size_t i, std::vector<int32_t>& sizeTensorOf)
{
    PlanTensor const& t = plan.tensors[i];
    if (t.sizeTensorSymbol == -1)
    {
        return Status::ok();
    }
    std::string const label = tensorLabel(plan, i);
    auto const& symbols = plan.shapes.symbols();
    if (t.sizeTensorSymbol < 0 || static_cast<size_t>(t.sizeTensorSymbol) >= symbols.size())
    {
        return corrupt(label + " is the size tensor of shape symbol " + std::to_string(t.sizeTensorSymbol)
            + ", but the shape graph has " + std::to_string(symbols.size()) + " symbols");
    }
    auto const s = static_cast<size_t>(t.sizeTensorSymbol);
    if (symbols[s].kind != SymbolKind::kDATA_DEPENDENT)
    {
        return corrupt(label + " is the size tensor of shape symbol " + printableQuoted(symbols[s].name)
            + ", which is not data-dependent");
    }
    if (!t.dims.empty() || (t.type != nvinfer1::DataType::kINT32 && t.type != nvinfer1::DataType::kINT64))
    {
        return corrupt(label + " is a size tensor, so it must be a 0-D INT32 or INT64 tensor");
    }
    if (sizeTensorOf[s] != -1)
    {
        return corrupt(label + " and " + tensorLabel(plan, static_cast<size_t>(sizeTensorOf[s]))
            + " are both the size tensor of shape symbol " + printableQuoted(symbols[s].name));
    }
    sizeTensorOf[s] = static_cast<int32_t>(i);
    return Status::ok();
}

Status checkTensors(Plan const& plan)
{
    std::vector<int32_t> sizeTensorOf(plan.shapes.symbols().size(), -1);
    for (size_t i = 0; i < plan.tensors.size(); ++i)
    {
        PlanTensor const& t = plan.tensors[i];
        std::string const label = tensorLabel(plan, i);
        if (!enumInRange(t.type))
        {
            return corrupt(label + " has the unknown data type " + std::to_string(static_cast<int32_t>(t.type)));
        }
        if (!enumInRange(t.format))
        {
            return corrupt(label + " has the unknown format " + std::to_string(static_cast<int32_t>(t.format)));
        }
        if (!enumInRange(t.ioMode))
        {
            return corrupt(label + " has the unknown I/O mode " + std::to_string(static_cast<int32_t>(t.ioMode)));
        }
        if (t.dims.size() > static_cast<size_t>(nvinfer1::Dims::MAX_DIMS))
        {
            return corrupt(label + " has rank " + std::to_string(t.dims.size()) + " (at most "
                + std::to_string(nvinfer1::Dims::MAX_DIMS) + ")");
        }
        KILN_RETURN_IF_ERROR(checkShapeRefs(plan, t.dims, label + ": dimension"));
        KILN_RETURN_IF_ERROR(checkShapeRefs(plan, t.values, label + ": value"));
        if (t.dimNames.size() > t.dims.size())
        {
            return corrupt(label + " has " + std::to_string(t.dimNames.size()) + " dimension names for rank "
                + std::to_string(t.dims.size()));
        }
        if (t.constant < -1 || (t.constant >= 0 && static_cast<size_t>(t.constant) >= plan.weights.size()))
        {
            return corrupt(label + " refers to weights " + std::to_string(t.constant) + ", but the engine has "
                + std::to_string(plan.weights.size()) + " weights");
        }
        if (!(t.scale == -1.0F || (std::isfinite(t.scale) && t.scale > 0.0F)))
        {
            return corrupt(label + " has the INT8 scale " + std::to_string(t.scale)
                + " (a scale must be a finite positive number, or -1 for none)");
        }
        KILN_RETURN_IF_ERROR(checkSizeTensor(plan, i, sizeTensorOf));
    }
    return Status::ok();
}

Status checkIo(Plan const& plan)
{
    std::vector<bool> listed(plan.tensors.size(), false);
    std::set<std::string> names;
    bool seenOutput = false;
    for (size_t i = 0; i < plan.ioTensors.size(); ++i)
    {
        int32_t const t = plan.ioTensors[i];
        if (t < 0 || static_cast<size_t>(t) >= plan.tensors.size())
        {
            return corrupt("I/O tensor " + std::to_string(i) + " refers to tensor " + std::to_string(t)
                + ", but the engine has " + std::to_string(plan.tensors.size()) + " tensors");
        }
        PlanTensor const& tensor = plan.tensors[static_cast<size_t>(t)];
        std::string const label = tensorLabel(plan, static_cast<size_t>(t));
        if (listed[static_cast<size_t>(t)])
        {
            return corrupt(label + " appears twice in the I/O order");
        }
        listed[static_cast<size_t>(t)] = true;
        if (tensor.ioMode == nvinfer1::TensorIOMode::kNONE)
        {
            return corrupt(label + " is in the I/O order but is neither an input nor an output");
        }
        if (tensor.ioMode == nvinfer1::TensorIOMode::kOUTPUT)
        {
            seenOutput = true;
        }
        else if (seenOutput)
        {
            return corrupt("I/O order lists input " + label + " after an output (inputs come first)");
        }
        if (tensor.name.empty() || !names.insert(tensor.name).second)
        {
            return corrupt("I/O " + label + " has an empty or duplicate name");
        }
    }
    for (size_t i = 0; i < plan.tensors.size(); ++i)
    {
        if (plan.tensors[i].ioMode != nvinfer1::TensorIOMode::kNONE && !listed[i])
        {
            return corrupt(tensorLabel(plan, i) + " is marked as network I/O but is missing from the I/O order");
        }
    }
    return Status::ok();
}

Status checkNodes(Plan const& plan)
{
    size_t const nbTensors = plan.tensors.size();
    auto const tensorRef = [&](int32_t t, bool optional) {
        return (optional && t == -1) || (t >= 0 && static_cast<size_t>(t) < nbTensors);
    };
    for (size_t i = 0; i < plan.nodes.size(); ++i)
    {
        PlanNode const& n = plan.nodes[i];
        std::string const label = nodeLabel(plan, i);
        if (!enumInRange(n.kind))
        {
            return corrupt(label + " has the unknown layer type " + std::to_string(static_cast<int32_t>(n.kind)));
        }
        if (!enumInRange(n.precision))
        {
            return corrupt(label + " has the unknown precision " + std::to_string(static_cast<int32_t>(n.precision)));
        }
        for (size_t k = 0; k < n.inputs.size(); ++k)
        {
            if (!tensorRef(n.inputs[k], true))
            {
                return corrupt(label + ": input " + std::to_string(k) + " refers to tensor "
                    + std::to_string(n.inputs[k]) + ", but the engine has " + std::to_string(nbTensors) + " tensors");
            }
        }
        for (size_t k = 0; k < n.outputs.size(); ++k)
        {
            if (!tensorRef(n.outputs[k], false))
            {
                return corrupt(label + ": output " + std::to_string(k) + " refers to tensor "
                    + std::to_string(n.outputs[k]) + ", but the engine has " + std::to_string(nbTensors) + " tensors");
            }
        }
        for (size_t k = 0; k < n.weights.size(); ++k)
        {
            int32_t const w = n.weights[k];
            if (w < -1 || (w >= 0 && static_cast<size_t>(w) >= plan.weights.size()))
            {
                return corrupt(label + ": weights slot " + std::to_string(k) + " refers to weights "
                    + std::to_string(w) + ", but the engine has " + std::to_string(plan.weights.size()) + " weights");
            }
        }
        if (n.attrs.getInt(kADD_IN_PLACE, 0) != 0
            && (n.kind != nvinfer1::LayerType::kCONVOLUTION || !addsInPlace(n)
                || plan.tensors[static_cast<size_t>(n.inputs.back())].type
                    != plan.tensors[static_cast<size_t>(n.outputs[0])].type))
        {
            return corrupt(label + " writes its output in place of its fused addition (" + kADD_IN_PLACE
                + "), which only a convolution with a fused addition of its output's type and one output can");
        }
    }
    return Status::ok();
}

Status checkDims(nvinfer1::Dims const& d, size_t rank, std::string const& what)
{
    if (d.nbDims < 0 || d.nbDims > nvinfer1::Dims::MAX_DIMS || static_cast<size_t>(d.nbDims) != rank)
    {
        return corrupt(what + " has " + std::to_string(d.nbDims) + " dimensions, but the tensor has rank "
            + std::to_string(rank));
    }
    for (int32_t k = 0; k < d.nbDims; ++k)
    {
        if (d.d[k] < 0)
        {
            return corrupt(what + " has the negative extent " + std::to_string(d.d[k]));
        }
    }
    return Status::ok();
}

//! Per-node workspaces of profile `pi`: none at all, or one offset and size per node inside the arena.
Status checkWorkspaces(Plan const& plan, size_t pi)
{
    PlanProfile const& p = plan.profiles[pi];
    std::string const label = "profile " + std::to_string(pi);
    size_t const nbNodes = plan.nodes.size();
    bool const sized = p.workspaceOffsets.size() == nbNodes && p.workspaceSizes.size() == nbNodes;
    bool const empty = p.workspaceOffsets.empty() && p.workspaceSizes.empty();
    if (!sized && !empty)
    {
        return corrupt(label + " has " + std::to_string(p.workspaceOffsets.size()) + " workspace offsets and "
            + std::to_string(p.workspaceSizes.size()) + " workspace sizes for " + std::to_string(nbNodes) + " nodes");
    }
    for (size_t n = 0; n < p.workspaceOffsets.size(); ++n)
    {
        int64_t const offset = p.workspaceOffsets[n];
        int64_t const size = p.workspaceSizes[n];
        bool const valid = size >= 0 && offset >= -1 && (offset >= 0 || size == 0)
            && (offset < 0 || (offset <= p.arenaSize && size <= p.arenaSize - offset));
        if (valid && offset > 0 && offset % kARENA_ALIGNMENT != 0)
        {
            return corrupt(label + ": " + nodeLabel(plan, n) + " has workspace offset " + std::to_string(offset)
                + ", not a multiple of " + std::to_string(kARENA_ALIGNMENT) + " bytes");
        }
        if (!valid)
        {
            return corrupt(label + ": " + nodeLabel(plan, n) + " has workspace offset " + std::to_string(offset)
                + " and size " + std::to_string(size) + ", outside the arena of " + std::to_string(p.arenaSize)
                + " bytes");
        }
    }
    return Status::ok();
}

//! Embedded plugin libraries: unique plain file names (no directories), non-empty contents.
Status checkPluginLibraries(Plan const& plan)
{
    std::set<std::string> names;
    for (size_t i = 0; i < plan.pluginLibraries.size(); ++i)
    {
        PlanPluginLibrary const& lib = plan.pluginLibraries[i];
        std::string const label = "plugin library " + std::to_string(i) + " (" + printableQuoted(lib.fileName) + ")";
        bool plain = !lib.fileName.empty() && lib.fileName.size() <= 255 && lib.fileName != "." && lib.fileName != "..";
        for (char c : lib.fileName)
        {
            plain = plain && c != '/' && c != 0;
        }
        if (!plain)
        {
            return corrupt(label + " needs a plain file name (1 to 255 bytes, no '/' or NUL)");
        }
        if (!names.insert(lib.fileName).second)
        {
            return corrupt(label + " appears twice");
        }
        if (lib.bytes.empty())
        {
            return corrupt(label + " is empty");
        }
    }
    return Status::ok();
}

Status checkProfiles(Plan const& plan)
{
    // lastProfile[t]: the last profile that listed tensor t (one vector for all profiles keeps this linear).
    std::vector<size_t> lastProfile(plan.tensors.size(), std::numeric_limits<size_t>::max());
    for (size_t pi = 0; pi < plan.profiles.size(); ++pi)
    {
        PlanProfile const& p = plan.profiles[pi];
        std::string const label = "profile " + std::to_string(pi);
        for (size_t k = 0; k < p.inputs.size(); ++k)
        {
            PlanProfileInput const& in = p.inputs[k];
            if (in.tensor < 0 || static_cast<size_t>(in.tensor) >= plan.tensors.size())
            {
                return corrupt(label + ": input " + std::to_string(k) + " refers to tensor "
                    + std::to_string(in.tensor) + ", but the engine has " + std::to_string(plan.tensors.size())
                    + " tensors");
            }
            size_t const t = static_cast<size_t>(in.tensor);
            std::string const what = label + ", " + tensorLabel(plan, t);
            if (plan.tensors[t].ioMode != nvinfer1::TensorIOMode::kINPUT)
            {
                return corrupt(what + ": not a network input");
            }
            if (lastProfile[t] == pi)
            {
                return corrupt(what + ": listed twice");
            }
            lastProfile[t] = pi;
            size_t const rank = plan.tensors[t].dims.size();
            KILN_RETURN_IF_ERROR(checkDims(in.min, rank, what + ": min dims"));
            KILN_RETURN_IF_ERROR(checkDims(in.opt, rank, what + ": opt dims"));
            KILN_RETURN_IF_ERROR(checkDims(in.max, rank, what + ": max dims"));
            for (int32_t d = 0; d < in.min.nbDims; ++d)
            {
                if (in.min.d[d] > in.opt.d[d] || in.opt.d[d] > in.max.d[d])
                {
                    return corrupt(what + ": dimension " + std::to_string(d) + " violates min <= opt <= max");
                }
            }
            if (in.minValues.size() != in.optValues.size() || in.optValues.size() != in.maxValues.size())
            {
                return corrupt(what + ": min/opt/max shape values differ in count");
            }
            for (size_t v = 0; v < in.minValues.size(); ++v)
            {
                if (in.minValues[v] > in.optValues[v] || in.optValues[v] > in.maxValues[v])
                {
                    return corrupt(what + ": shape value " + std::to_string(v) + " violates min <= opt <= max");
                }
            }
        }
        if (p.arenaSize < 0)
        {
            return corrupt(label + " has the negative arena size " + std::to_string(p.arenaSize));
        }
        bool const sized = p.tensorOffsets.size() == plan.tensors.size() && p.tensorCapacity.size() == plan.tensors.size();
        bool const empty = p.tensorOffsets.empty() && p.tensorCapacity.empty();
        if (!sized && !empty)
        {
            return corrupt(label + " has " + std::to_string(p.tensorOffsets.size()) + " arena offsets and "
                + std::to_string(p.tensorCapacity.size()) + " capacities for " + std::to_string(plan.tensors.size())
                + " tensors");
        }
        for (size_t t = 0; t < p.tensorOffsets.size(); ++t)
        {
            int64_t const offset = p.tensorOffsets[t];
            int64_t const capacity = p.tensorCapacity[t];
            if (capacity < 0 || offset < -1 || (offset >= 0 && (offset > p.arenaSize || capacity > p.arenaSize - offset)))
            {
                return corrupt(label + ": " + tensorLabel(plan, t) + " has arena offset " + std::to_string(offset)
                    + " and capacity " + std::to_string(capacity) + ", outside the arena of "
                    + std::to_string(p.arenaSize) + " bytes");
            }
            // The builder places every tensor on a 256-byte boundary (memoryPass); kernels rely on the alignment.
            if (offset > 0 && offset % kARENA_ALIGNMENT != 0)
            {
                return corrupt(label + ": " + tensorLabel(plan, t) + " has arena offset " + std::to_string(offset)
                    + ", not a multiple of " + std::to_string(kARENA_ALIGNMENT) + " bytes");
            }
        }
        KILN_RETURN_IF_ERROR(checkWorkspaces(plan, pi));
    }
    return Status::ok();
}

//! Plugin nodes: the runtime gives a plugin its data inputs and keeps the last "plugin.nbShapeInputs" inputs for
//! shape values, so that count decides what enqueue receives. Shape inputs exist only for IPluginV3 and are 1-D
//! INT32/INT64 shape tensors; data inputs are never absent; aliases name data inputs.
Status checkPluginNodes(Plan const& plan)
{
    for (size_t i = 0; i < plan.nodes.size(); ++i)
    {
        PlanNode const& n = plan.nodes[i];
        bool const v3 = n.kind == nvinfer1::LayerType::kPLUGIN_V3;
        if (!v3 && n.kind != nvinfer1::LayerType::kPLUGIN_V2)
        {
            continue;
        }
        std::string const label = nodeLabel(plan, i);
        int64_t const nbShape = n.attrs.getInt("plugin.nbShapeInputs", 0);
        if (nbShape < 0 || static_cast<size_t>(nbShape) > n.inputs.size() || (!v3 && nbShape != 0))
        {
            return corrupt(label + " says its plugin has " + std::to_string(nbShape) + " shape inputs, but it has "
                + std::to_string(n.inputs.size()) + " inputs" + (v3 ? "" : " and only IPluginV3 plugins take shape inputs"));
        }
        size_t const nbData = n.inputs.size() - static_cast<size_t>(nbShape);
        for (size_t k = 0; k < n.inputs.size(); ++k)
        {
            if (n.inputs[k] < 0)
            {
                return corrupt(label + ": plugin input " + std::to_string(k) + " is absent (plugins have no optional inputs)");
            }
            PlanTensor const& t = plan.tensors[static_cast<size_t>(n.inputs[k])];
            bool const shapeTensor = t.dims.size() == 1 && t.hasValues
                && (t.type == nvinfer1::DataType::kINT32 || t.type == nvinfer1::DataType::kINT64);
            if (k >= nbData && !shapeTensor)
            {
                return corrupt(label + ": input " + std::to_string(k) + " is one of the plugin's " + std::to_string(nbShape)
                    + " shape inputs, but " + tensorLabel(plan, static_cast<size_t>(n.inputs[k]))
                    + " is not a 1-D INT32 or INT64 shape tensor");
            }
        }
        if (n.outputs.empty())
        {
            return corrupt(label + ": a plugin node needs at least one output");
        }
        std::vector<int64_t> const aliases = n.attrs.getInts("plugin.aliases");
        if (aliases.size() > n.outputs.size())
        {
            return corrupt(label + " has " + std::to_string(aliases.size()) + " plugin aliases for "
                + std::to_string(n.outputs.size()) + " outputs");
        }
        for (size_t o = 0; o < aliases.size(); ++o)
        {
            if (aliases[o] < -1 || aliases[o] >= static_cast<int64_t>(nbData))
            {
                return corrupt(label + ": output " + std::to_string(o) + " aliases input " + std::to_string(aliases[o])
                    + ", but the plugin has " + std::to_string(nbData) + " data inputs");
            }
        }
    }
    return Status::ok();
}

//! One arena placement to check: a tensor's (or an alias group's) slot, or a plugin workspace.
struct ArenaUse
{
    int32_t first;
    int32_t last;
    int64_t offset;
    int64_t end;
    std::string label;
};

//! Arena liveness of profile `pi`: tensors (alias groups) and workspaces alive at the same node step must not
//! share a byte, with the lifetimes the builder packed the arena with (engine/tensorLifetimes.h). A sweep over
//! steps keeps the live placements ordered by offset, so each new one is compared with its two neighbours only.
Status checkArenaLiveness(Plan const& plan, size_t pi, TensorLifetimes const& life, std::vector<int32_t>& parents)
{
    PlanProfile const& p = plan.profiles[pi];
    std::string const label = "profile " + std::to_string(pi);
    std::vector<ArenaUse> uses;
    std::vector<int32_t> groupUse(plan.tensors.size(), -1);
    for (size_t t = 0; t < p.tensorOffsets.size(); ++t)
    {
        if (p.tensorOffsets[t] < 0 || p.tensorCapacity[t] <= 0)
        {
            continue;
        }
        int32_t const first = life.first[t];
        int32_t const last = std::max(life.last[t], first);
        auto const root = static_cast<size_t>(aliasRoot(parents, static_cast<int32_t>(t)));
        int32_t& use = groupUse[root];
        if (use < 0)
        {
            use = static_cast<int32_t>(uses.size());
            uses.push_back(ArenaUse{first, last, p.tensorOffsets[t], p.tensorOffsets[t] + p.tensorCapacity[t],
                tensorLabel(plan, t)});
            continue;
        }
        ArenaUse& u = uses[static_cast<size_t>(use)];
        if (u.offset != p.tensorOffsets[t] || u.end != p.tensorOffsets[t] + p.tensorCapacity[t])
        {
            return corrupt(label + ": " + tensorLabel(plan, t) + " is a plugin alias of " + u.label
                + ", so it must share its arena slot");
        }
        u.first = std::min(u.first, first);
        u.last = std::max(u.last, last);
    }
    for (size_t n = 0; n < p.workspaceOffsets.size(); ++n)
    {
        if (p.workspaceOffsets[n] >= 0 && p.workspaceSizes[n] > 0)
        {
            auto const step = static_cast<int32_t>(n);
            uses.push_back(ArenaUse{step, step, p.workspaceOffsets[n], p.workspaceOffsets[n] + p.workspaceSizes[n],
                "the workspace of " + nodeLabel(plan, n)});
        }
    }
    std::vector<size_t> order(uses.size());
    for (size_t i = 0; i < order.size(); ++i)
    {
        order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return uses[a].first < uses[b].first; });
    std::map<int64_t, size_t> live; // offset -> use, for the uses alive at the current step
    using Ending = std::pair<int32_t, size_t>;
    std::priority_queue<Ending, std::vector<Ending>, std::greater<Ending>> ending; // (last step, use)
    auto clash = [&](ArenaUse const& a, ArenaUse const& b) {
        return corrupt(label + ": " + a.label + " (arena bytes " + std::to_string(a.offset) + " to "
            + std::to_string(a.end) + ", live at steps " + std::to_string(a.first) + " to " + std::to_string(a.last)
            + ") and " + b.label + " (bytes " + std::to_string(b.offset) + " to " + std::to_string(b.end)
            + ", steps " + std::to_string(b.first) + " to " + std::to_string(b.last)
            + ") are alive at the same time in overlapping arena bytes");
    };
    for (size_t i : order)
    {
        ArenaUse const& u = uses[i];
        while (!ending.empty() && ending.top().first < u.first)
        {
            auto const done = ending.top().second;
            ending.pop();
            auto it = live.find(uses[done].offset);
            if (it != live.end() && it->second == done)
            {
                live.erase(it);
            }
        }
        auto next = live.lower_bound(u.offset);
        if (next != live.end() && next->first < u.end)
        {
            return clash(uses[next->second], u);
        }
        if (next != live.begin() && uses[std::prev(next)->second].end > u.offset)
        {
            return clash(uses[std::prev(next)->second], u);
        }
        live[u.offset] = i;
        ending.emplace(u.last, i);
    }
    // The builder's arena ends where its last slot ends (slots are 256-byte multiples): a larger arena is an edit
    // that would make every context allocate memory that nothing uses.
    int64_t slotsEnd = 0;
    for (ArenaUse const& u : uses)
    {
        slotsEnd = std::max(slotsEnd, (u.end + kARENA_ALIGNMENT - 1) / kARENA_ALIGNMENT * kARENA_ALIGNMENT);
    }
    if (p.arenaSize > slotsEnd)
    {
        return corrupt(label + " declares an arena of " + std::to_string(p.arenaSize)
            + " bytes, but its tensors and workspaces end at byte " + std::to_string(slotsEnd));
    }
    return Status::ok();
}

//! Every profile's arena liveness (after checkNodes and checkProfiles: indices and placements are in range).
Status checkArenas(Plan const& plan)
{
    TensorLifetimes const life = tensorLifetimes(plan);
    std::vector<int32_t> parents = aliasParents(plan);
    for (size_t pi = 0; pi < plan.profiles.size(); ++pi)
    {
        KILN_RETURN_IF_ERROR(checkArenaLiveness(plan, pi, life, parents));
    }
    return Status::ok();
}

} // namespace

Status validatePlan(Plan const& plan)
{
    if (plan.backend.empty() || plan.backend.size() >= kBACKEND_FIELD_SIZE)
    {
        return corrupt("the backend name " + printableQuoted(plan.backend) + " must have 1 to "
            + std::to_string(kBACKEND_FIELD_SIZE - 1) + " characters");
    }
    for (char c : plan.backend)
    {
        if (!(c > 0x20 && c < 0x7f))
        {
            return corrupt("the backend name " + printableQuoted(plan.backend) + " must be printable ASCII without spaces");
        }
    }
    if (!enumInRange(plan.profilingVerbosity))
    {
        return corrupt("unknown profiling verbosity " + std::to_string(static_cast<int32_t>(plan.profilingVerbosity)));
    }
    if (!enumInRange(plan.hardwareCompatibility))
    {
        return corrupt("unknown hardware compatibility level "
            + std::to_string(static_cast<int32_t>(plan.hardwareCompatibility)));
    }
    for (size_t i = 0; i < plan.shapes.constraints().size(); ++i)
    {
        if (!plan.shapes.isValid(plan.shapes.constraints()[i].condition))
        {
            return corrupt("shape constraint " + std::to_string(i) + " refers to a missing expression");
        }
    }
    KILN_RETURN_IF_ERROR(checkSymbols(plan));
    KILN_RETURN_IF_ERROR(checkWeights(plan));
    KILN_RETURN_IF_ERROR(checkTensors(plan));
    KILN_RETURN_IF_ERROR(checkIo(plan));
    KILN_RETURN_IF_ERROR(checkNodes(plan));
    KILN_RETURN_IF_ERROR(checkPluginNodes(plan));
    KILN_RETURN_IF_ERROR(checkProfiles(plan));
    KILN_RETURN_IF_ERROR(checkArenas(plan));
    KILN_RETURN_IF_ERROR(checkPluginLibraries(plan));
    if (planHasControlFlow(plan))
    {
        KILN_RETURN_IF_ERROR(parseControlFlow(plan).status()); // loops and conditional branches (cf.* attributes)
    }
    return Status::ok();
}

} // namespace kiln
