// Pointwise chain fusion: trees of elementwise (kSUM, kPROD, kMAX, kMIN, kSUB, kDIV, kPOW), unary (float-valued
// operations) and activation layers whose intermediate tensors each feed only the next layer become one
// kELEMENTWISE node carrying a pointwise program (backends/common/pointwiseProgram.h), e.g. BERT's erf-GELU
// x*0.5*(1+erf(x/sqrt2)) or a bias add followed by tanh.
// Conditions: every tensor involved is FLOAT, HALF or BF16; every external input broadcasts to the fused output
// (same rank, each extent equal or 1), so each output element can recompute its whole tree; the layers share their
// precision; the program stays within the limits of pointwiseProgram.h. Single-element constant inputs become
// program constants; intermediates of type HALF/BF16 are rounded to that type as the unfused layers store them.
#include "backends/common/pointwiseProgram.h"
#include "builder/passes/fusion/fusion.h"
#include "builder/planEdit.h"
#include "core/dataType.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>

namespace kiln::fusion
{
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::LayerType;
using nvinfer1::UnaryOperation;

namespace
{

//! True when `node` is a pointwise layer a program can compute, with float tensors only.
bool isCandidate(FusionGraph const& g, Plan const& plan, PlanNode const& node)
{
    if (!g.isFusibleNode(node))
    {
        return false;
    }
    switch (node.kind)
    {
    case LayerType::kELEMENTWISE:
    {
        int64_t const op = node.attrs.getInt("operation", -1);
        if (node.inputs.size() != 2 || op < 0 || op >= nvinfer1::EnumMax<ElementWiseOperation>()
            || !isPointwiseBinary(static_cast<ElementWiseOperation>(op)))
        {
            return false;
        }
        break;
    }
    case LayerType::kUNARY:
    {
        int64_t const op = node.attrs.getInt("operation", -1);
        if (node.inputs.size() != 1 || op < 0 || op >= nvinfer1::EnumMax<UnaryOperation>()
            || !isPointwiseUnary(static_cast<UnaryOperation>(op)))
        {
            return false;
        }
        break;
    }
    case LayerType::kACTIVATION:
    {
        int64_t const type = node.attrs.getInt("type", -1);
        if (node.inputs.size() != 1 || type < 0 || type >= nvinfer1::EnumMax<nvinfer1::ActivationType>())
        {
            return false;
        }
        break;
    }
    default: return false;
    }
    for (int32_t in : node.inputs)
    {
        if (!isFloatTensor(plan, in) || !g.broadcastsTo(in, node.outputs[0]))
        {
            return false;
        }
    }
    return isFloatTensor(plan, node.outputs[0]);
}


//! The fused node of `group` (node indices, ascending; the last one is the root), or nothing when the program
//! would exceed the limits.
std::optional<PlanNode> buildFusedNode(FusionGraph const& g, Plan const& plan, std::vector<int32_t> const& group)
{
    PointwiseProgram program;
    std::vector<int32_t> externals;
    std::map<int32_t, int32_t> regOf; // tensor -> register (externals are numbered after the fact)
    std::map<uint32_t, int32_t> constOf; // by bit pattern (exact, NaN-safe)
    // First pass: external inputs (excluding scalar constants) in order of first use.
    std::map<int32_t, bool> produced;
    for (int32_t n : group)
    {
        produced[plan.nodes[static_cast<size_t>(n)].outputs[0]] = true;
    }
    for (int32_t n : group)
    {
        for (int32_t in : plan.nodes[static_cast<size_t>(n)].inputs)
        {
            if (produced.count(in) == 0 && !constantScalar(g, plan, in).has_value()
                && std::find(externals.begin(), externals.end(), in) == externals.end())
            {
                externals.push_back(in);
            }
        }
    }
    if (externals.empty() || externals.size() > static_cast<size_t>(kPW_MAX_INPUTS))
    {
        return std::nullopt;
    }
    program.nbInputs = static_cast<int32_t>(externals.size());
    for (size_t i = 0; i < externals.size(); ++i)
    {
        regOf[externals[i]] = static_cast<int32_t>(i);
    }
    auto const constant = [&](float v) {
        uint32_t bits = 0;
        std::memcpy(&bits, &v, sizeof(bits));
        auto it = constOf.find(bits);
        if (it != constOf.end())
        {
            return it->second;
        }
        program.consts.push_back(v);
        int32_t const index = static_cast<int32_t>(program.consts.size()) - 1;
        constOf[bits] = index;
        return index;
    };
    auto const operand = [&](int32_t t) -> int32_t {
        auto it = regOf.find(t);
        if (it != regOf.end())
        {
            return it->second;
        }
        return -1 - constant(*constantScalar(g, plan, t));
    };
    auto const emit = [&](PwInstruction ins) {
        program.code.push_back(ins);
        return program.nbInputs + static_cast<int32_t>(program.code.size()) - 1;
    };
    for (int32_t n : group)
    {
        PlanNode const& node = plan.nodes[static_cast<size_t>(n)];
        PwInstruction ins;
        ins.a = operand(node.inputs[0]);
        switch (node.kind)
        {
        case LayerType::kELEMENTWISE:
            ins.op = PwOp::kBINARY;
            ins.code = static_cast<int32_t>(node.attrs.getInt("operation"));
            ins.b = operand(node.inputs[1]);
            break;
        case LayerType::kUNARY:
            ins.op = PwOp::kUNARY;
            ins.code = static_cast<int32_t>(node.attrs.getInt("operation"));
            ins.b = -1;
            break;
        default: // kACTIVATION: alpha and beta as two consecutive constants
            ins.op = PwOp::kACTIVATION;
            ins.code = static_cast<int32_t>(node.attrs.getInt("type"));
            program.consts.push_back(static_cast<float>(node.attrs.getFloat("alpha", 0.0)));
            program.consts.push_back(static_cast<float>(node.attrs.getFloat("beta", 0.0)));
            ins.b = static_cast<int32_t>(program.consts.size()) - 2;
            break;
        }
        int32_t reg = emit(ins);
        int32_t const out = node.outputs[0];
        DataType const type = plan.tensors[static_cast<size_t>(out)].type;
        if (n != group.back() && type != DataType::kFLOAT)
        {
            PwInstruction round;
            round.op = PwOp::kROUND;
            round.code = static_cast<int32_t>(type);
            round.a = reg;
            round.b = -1;
            reg = emit(round);
        }
        regOf[out] = reg;
    }
    if (program.code.size() > static_cast<size_t>(kPW_MAX_INSTRUCTIONS)
        || program.consts.size() > static_cast<size_t>(kPW_MAX_CONSTS))
    {
        return std::nullopt;
    }
    PlanNode const& root = plan.nodes[static_cast<size_t>(group.back())];
    PlanNode fused;
    fused.kind = LayerType::kELEMENTWISE;
    fused.name = joinedNames(plan, group);
    fused.metadata = root.metadata;
    fused.precision = root.precision;
    fused.inputs = externals;
    fused.outputs = {root.outputs[0]};
    fused.attrs.setString("fuse.names", fused.name);
    writePointwiseProgram(program, fused.attrs);
    // The engine reader and the kernels parse it again; a program that does not validate is not emitted.
    if (!readPointwiseProgram(fused).isOk())
    {
        return std::nullopt;
    }
    return fused;
}

} // namespace

int32_t fusePointwiseChains(FusionGraph& g)
{
    Plan& plan = g.plan();
    size_t const nbNodes = plan.nodes.size();
    std::vector<int32_t> groupOf(nbNodes, -1);
    std::vector<std::vector<int32_t>> groups;
    for (size_t n = 0; n < nbNodes; ++n)
    {
        PlanNode const& node = plan.nodes[n];
        if (!isCandidate(g, plan, node))
        {
            continue;
        }
        int32_t const id = static_cast<int32_t>(groups.size());
        groups.push_back({static_cast<int32_t>(n)});
        groupOf[n] = id;
        for (int32_t in : node.inputs)
        {
            if (!g.isInternal(in))
            {
                continue; // also covers an input read twice by this node: one consumer node, merged once below
            }
            int32_t const q = g.producer(in);
            int32_t const other = q >= 0 ? groupOf[static_cast<size_t>(q)] : -1;
            if (other < 0 || other == id || plan.nodes[static_cast<size_t>(q)].precision != node.precision)
            {
                continue;
            }
            // `in` is the other group's output (its only consumer is this node): absorb that group.
            for (int32_t m : groups[static_cast<size_t>(other)])
            {
                groupOf[static_cast<size_t>(m)] = id;
                groups[static_cast<size_t>(id)].push_back(m);
            }
            groups[static_cast<size_t>(other)].clear();
        }
        std::sort(groups[static_cast<size_t>(id)].begin(), groups[static_cast<size_t>(id)].end());
    }
    // Emit every group of two or more layers: the fused node takes the root's place, the other members go.
    std::vector<std::optional<PlanNode>> fusedAtRoot(nbNodes);
    std::vector<bool> erased(nbNodes, false);
    int32_t count = 0;
    for (auto const& group : groups)
    {
        if (group.size() < 2)
        {
            continue;
        }
        std::optional<PlanNode> fused = buildFusedNode(g, plan, group);
        if (!fused.has_value())
        {
            g.ctx().logger.verbose("fusion: not fusing '" + joinedNames(plan, group)
                + "': the pointwise program would exceed its limits");
            continue;
        }
        std::string message = "fusion: fused";
        for (size_t i = 0; i < group.size(); ++i)
        {
            message += (i ? " + '" : " '") + plan.nodes[static_cast<size_t>(group[i])].name + "'";
        }
        PointwiseProgram const program = readPointwiseProgram(*fused).value();
        g.ctx().logger.verbose(message + " into '" + fused->name + "' (pointwise program: "
            + pointwiseProgramToString(program) + ")");
        for (int32_t m : group)
        {
            erased[static_cast<size_t>(m)] = true;
        }
        fusedAtRoot[static_cast<size_t>(group.back())] = std::move(fused);
        ++count;
    }
    if (count == 0)
    {
        return 0;
    }
    for (size_t n = 0; n < nbNodes; ++n)
    {
        if (fusedAtRoot[n].has_value())
        {
            plan.nodes[n] = std::move(*fusedAtRoot[n]);
            erased[n] = false;
        }
    }
    erasePlanNodes(plan, erased);
    g.refresh();
    return count;
}

} // namespace kiln::fusion
