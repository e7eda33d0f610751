// Parser, validator and writer of the pointwise programs of fused pointwise nodes (see pointwiseProgram.h).
#include "backends/common/pointwiseProgram.h"

#include "backends/common/elementWiseChecks.h"
#include "core/dataType.h"

namespace kiln
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::UnaryOperation;

bool isPointwiseBinary(ElementWiseOperation op)
{
    switch (op)
    {
    case ElementWiseOperation::kSUM:
    case ElementWiseOperation::kPROD:
    case ElementWiseOperation::kMAX:
    case ElementWiseOperation::kMIN:
    case ElementWiseOperation::kSUB:
    case ElementWiseOperation::kDIV:
    case ElementWiseOperation::kPOW: return true;
    default: return false;
    }
}

bool isPointwiseUnary(UnaryOperation op)
{
    int32_t const v = static_cast<int32_t>(op);
    if (v < 0 || v >= nvinfer1::EnumMax<UnaryOperation>())
    {
        return false;
    }
    return op != UnaryOperation::kNOT && op != UnaryOperation::kISINF && op != UnaryOperation::kISNAN;
}

bool hasPointwiseProgram(PlanNode const& node)
{
    return node.attrs.has("pw.program");
}

StatusOr<PointwiseProgram> readPointwiseProgram(PlanNode const& node)
{
    std::string const label = "fused pointwise node '" + node.name + "'";
    auto const fail = [&](std::string const& msg) { return invalidArgument(label + ": " + msg); };
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> const ints, node.attrs.requireInts("pw.program"));
    PointwiseProgram p;
    if (node.attrs.has("pw.consts"))
    {
        KILN_ASSIGN_OR_RETURN(std::vector<double> const consts, node.attrs.requireFloats("pw.consts"));
        for (double c : consts)
        {
            p.consts.push_back(static_cast<float>(c));
        }
    }
    if (node.inputs.empty() || node.inputs.size() > static_cast<size_t>(kPW_MAX_INPUTS))
    {
        return fail("has " + std::to_string(node.inputs.size()) + " inputs; a program takes 1 to "
            + std::to_string(kPW_MAX_INPUTS));
    }
    for (size_t i = 0; i < node.inputs.size(); ++i)
    {
        if (node.inputs[i] < 0)
        {
            return fail("input " + std::to_string(i) + " is missing");
        }
    }
    if (node.outputs.size() != 1)
    {
        return fail("needs exactly one output, has " + std::to_string(node.outputs.size()));
    }
    if (ints.empty() || ints.size() % kPW_FIELDS != 0
        || ints.size() / kPW_FIELDS > static_cast<size_t>(kPW_MAX_INSTRUCTIONS))
    {
        return fail("pw.program has " + std::to_string(ints.size()) + " values; it needs 1 to "
            + std::to_string(kPW_MAX_INSTRUCTIONS) + " instructions of " + std::to_string(kPW_FIELDS) + " values");
    }
    if (p.consts.size() > static_cast<size_t>(kPW_MAX_CONSTS))
    {
        return fail("pw.consts has " + std::to_string(p.consts.size()) + " values; at most "
            + std::to_string(kPW_MAX_CONSTS) + " are allowed");
    }
    p.nbInputs = static_cast<int32_t>(node.inputs.size());
    int64_t const nbConsts = static_cast<int64_t>(p.consts.size());
    for (size_t i = 0; i * kPW_FIELDS < ints.size(); ++i)
    {
        int64_t const op = ints[i * kPW_FIELDS];
        int64_t const code = ints[i * kPW_FIELDS + 1];
        int64_t const a = ints[i * kPW_FIELDS + 2];
        int64_t const b = ints[i * kPW_FIELDS + 3];
        std::string const at = "instruction " + std::to_string(i);
        int64_t const registers = p.nbInputs + static_cast<int64_t>(i); // readable by instruction i
        auto const operandOk = [&](int64_t x) { return (x >= 0 && x < registers) || (x < 0 && -1 - x < nbConsts); };
        if (!operandOk(a))
        {
            return fail(at + ": operand " + std::to_string(a) + " names neither an input, an earlier result nor a "
                "constant");
        }
        PwInstruction ins;
        ins.code = static_cast<int32_t>(code);
        ins.a = static_cast<int32_t>(a);
        ins.b = static_cast<int32_t>(b);
        switch (op)
        {
        case static_cast<int64_t>(PwOp::kBINARY):
            ins.op = PwOp::kBINARY;
            if (code < 0 || code >= nvinfer1::EnumMax<ElementWiseOperation>()
                || !isPointwiseBinary(static_cast<ElementWiseOperation>(code)))
            {
                return fail(at + ": elementwise operation " + std::to_string(code) + " is not supported in programs");
            }
            if (!operandOk(b))
            {
                return fail(at + ": operand " + std::to_string(b)
                    + " names neither an input, an earlier result nor a constant");
            }
            break;
        case static_cast<int64_t>(PwOp::kUNARY):
            ins.op = PwOp::kUNARY;
            if (code < 0 || code >= nvinfer1::EnumMax<UnaryOperation>()
                || !isPointwiseUnary(static_cast<UnaryOperation>(code)))
            {
                return fail(at + ": unary operation " + std::to_string(code) + " is not supported in programs");
            }
            if (b != -1)
            {
                return fail(at + ": a unary instruction takes no second operand");
            }
            break;
        case static_cast<int64_t>(PwOp::kACTIVATION):
            ins.op = PwOp::kACTIVATION;
            if (code < 0 || code >= nvinfer1::EnumMax<ActivationType>())
            {
                return fail(at + ": activation type " + std::to_string(code) + " is unknown");
            }
            if (b < 0 || b + 1 >= nbConsts)
            {
                return fail(at + ": alpha/beta index " + std::to_string(b) + " is outside pw.consts");
            }
            break;
        case static_cast<int64_t>(PwOp::kROUND):
            ins.op = PwOp::kROUND;
            if (code != static_cast<int64_t>(DataType::kHALF) && code != static_cast<int64_t>(DataType::kBF16))
            {
                return fail(at + ": rounding to data type " + std::to_string(code) + " is not supported");
            }
            if (b != -1)
            {
                return fail(at + ": a rounding instruction takes no second operand");
            }
            break;
        default: return fail(at + ": unknown opcode " + std::to_string(op));
        }
        p.code.push_back(ins);
    }
    return p;
}

void writePointwiseProgram(PointwiseProgram const& program, Attributes& attrs)
{
    std::vector<int64_t> ints;
    for (PwInstruction const& ins : program.code)
    {
        ints.push_back(static_cast<int64_t>(ins.op));
        ints.push_back(ins.code);
        ints.push_back(ins.a);
        ints.push_back(ins.b);
    }
    attrs.setInts("pw.program", std::move(ints));
    if (program.consts.empty())
    {
        attrs.erase("pw.consts");
        return;
    }
    std::vector<double> consts(program.consts.begin(), program.consts.end());
    attrs.setFloats("pw.consts", std::move(consts));
}

std::string pointwiseProgramToString(PointwiseProgram const& program)
{
    auto const operand = [&](int32_t x) {
        if (x < 0)
        {
            size_t const c = static_cast<size_t>(-1 - x);
            return c < program.consts.size() ? std::to_string(program.consts[c]) : std::string("c?");
        }
        return x < program.nbInputs ? "in" + std::to_string(x) : "r" + std::to_string(x - program.nbInputs);
    };
    std::string s;
    for (size_t i = 0; i < program.code.size(); ++i)
    {
        PwInstruction const& ins = program.code[i];
        s += (i ? "; r" : "r") + std::to_string(i) + " = ";
        switch (ins.op)
        {
        case PwOp::kBINARY:
            s += "binary" + std::to_string(ins.code) + "(" + operand(ins.a) + ", " + operand(ins.b) + ")";
            break;
        case PwOp::kUNARY: s += "unary" + std::to_string(ins.code) + "(" + operand(ins.a) + ")"; break;
        case PwOp::kACTIVATION: s += "activation" + std::to_string(ins.code) + "(" + operand(ins.a) + ")"; break;
        case PwOp::kROUND:
            s += "round" + std::string(dataTypeName(static_cast<DataType>(ins.code))) + "(" + operand(ins.a) + ")";
            break;
        }
    }
    return s;
}

StatusOr<PointwiseProgram> readPointwiseSetup(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("fused pointwise kernel created without a plan node");
    }
    KILN_ASSIGN_OR_RETURN(PointwiseProgram program, readPointwiseProgram(*setup.node));
    std::string const label = "fused pointwise node '" + setup.node->name + "'";
    if (setup.inputTypes.size() != static_cast<size_t>(program.nbInputs) || setup.outputTypes.size() != 1)
    {
        return invalidArgument(label + ": expected " + std::to_string(program.nbInputs) + " input(s) and 1 output, got "
            + std::to_string(setup.inputTypes.size()) + " and " + std::to_string(setup.outputTypes.size()));
    }
    for (size_t i = 0; i < setup.inputTypes.size(); ++i)
    {
        if ((i < setup.inputPresent.size() && !setup.inputPresent[i]) || !ew::isFloatKernelType(setup.inputTypes[i]))
        {
            return invalidArgument(label + ": input " + std::to_string(i) + " must be a present FLOAT, HALF or BF16 "
                "tensor, got " + dataTypeName(setup.inputTypes[i]));
        }
    }
    if (!ew::isFloatKernelType(setup.outputTypes[0]))
    {
        return invalidArgument(label + ": the output must be FLOAT, HALF or BF16, got "
            + dataTypeName(setup.outputTypes[0]));
    }
    return program;
}

} // namespace kiln
