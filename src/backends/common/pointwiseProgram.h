// Pointwise programs: the node attributes a fused chain of pointwise layers (elementwise, unary, activation) carries,
// and their parser/validator, shared by the fusion pass (builder/passes/fusion/pointwiseChains.cpp) and the CPU and
// CUDA interpreters (backends/cpu/kernels/pointwiseProgram.cpp, backends/cuda/kernels/pointwiseProgram.cu).
//
// A fused node has kind kELEMENTWISE and these attributes:
//   "pw.program" = ints, kPW_FIELDS per instruction: {op, code, a, b}
//   "pw.consts"  = floats (may be absent: no constants)
//   "fuse.names" = the fused layers' names joined with " + "
// Registers: 0 .. nbInputs-1 are the node's inputs (every input broadcasts to the output's shape: same rank, each
// extent equal to the output's or 1), register nbInputs + i is the result of instruction i. The output is the result
// of the last instruction. Every value is a float (inputs are read as float from FLOAT/HALF/BF16 storage, the result
// is stored in the output's type), as the separate layers compute.
// Operand encoding (a, and b of binary instructions): x >= 0 is register x (an input or an earlier instruction);
// x < 0 is the constant pw.consts[-1 - x].
//   op kBINARY:     code = ElementWiseOperation (kSUM, kPROD, kMAX, kMIN, kSUB, kDIV, kPOW); result = a (op) b
//   op kUNARY:      code = UnaryOperation (float-valued ones: not kNOT, kISINF, kISNAN); result = op(a); b = -1
//   op kACTIVATION: code = ActivationType; result = act(a) with alpha = pw.consts[b], beta = pw.consts[b + 1]
//   op kROUND:      code = DataType kHALF or kBF16; result = a rounded to that type (an intermediate tensor of that
//                   type in the unfused network), b = -1
#pragma once

#include "backends/kernel.h"
#include "engine/plan.h"
#include "core/status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

enum class PwOp : int32_t
{
    kBINARY = 0,
    kUNARY = 1,
    kACTIVATION = 2,
    kROUND = 3,
};

constexpr int32_t kPW_FIELDS = 4;           //!< ints per instruction in "pw.program"
constexpr int32_t kPW_MAX_INPUTS = 8;       //!< node inputs of a fused pointwise node
constexpr int32_t kPW_MAX_INSTRUCTIONS = 32;
constexpr int32_t kPW_MAX_CONSTS = 32;

struct PwInstruction
{
    PwOp op{PwOp::kBINARY};
    int32_t code{0};
    int32_t a{0};
    int32_t b{-1};
};

struct PointwiseProgram
{
    int32_t nbInputs{0};
    std::vector<PwInstruction> code;
    std::vector<float> consts;
};

//! The elementwise operations a program computes (float-valued, defined on floats).
bool isPointwiseBinary(nvinfer1::ElementWiseOperation op);
//! The unary operations a program computes (float-valued).
bool isPointwiseUnary(nvinfer1::UnaryOperation op);

//! True when `node` carries a pointwise program ("pw.program" present).
bool hasPointwiseProgram(PlanNode const& node);

//! Parses and validates the node's program against its input count: sizes within the limits above, known opcodes,
//! operands that name inputs, earlier results or existing constants. Messages name the node.
StatusOr<PointwiseProgram> readPointwiseProgram(PlanNode const& node);

//! readPointwiseProgram plus the checks of a kernel's creation (CPU and CUDA): the node has the program's inputs,
//! all present, and one output, all FLOAT, HALF or BF16.
StatusOr<PointwiseProgram> readPointwiseSetup(KernelSetup const& setup);

//! Stores `program` in `attrs` ("pw.program", "pw.consts").
void writePointwiseProgram(PointwiseProgram const& program, Attributes& attrs);

//! Readable form for logs, e.g. "r1 = kPROD(in0, c0); r2 = kERF(r1)".
std::string pointwiseProgramToString(PointwiseProgram const& program);

} // namespace kiln
