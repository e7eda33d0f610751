// ControlFlowPlan: the loops and conditional branches of a plan, read from the nodes' "cf.*" attributes (written
// by the builder, see src/builder/passes/loopRegions.h) and validated, so that a corrupt engine fails with a clear
// message. The execution context's node runner (executionContextRun.cpp) interprets it: a loop's node range runs
// once per iteration, and a branch node runs only when its conditional's condition selects its branch.
#pragma once

#include "core/status.h"
#include "engine/plan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

struct LoopPlan
{
    struct Recurrence
    {
        int32_t init{-1};  //!< tensor: initial value (input 0)
        int32_t next{-1};  //!< tensor: next value (input 1)
        int32_t state{-1}; //!< tensor: the current value (output)
    };
    struct Iterator
    {
        int32_t input{-1};
        int32_t output{-1};
        int32_t axis{0};
        bool reverse{false};
    };
    struct Output
    {
        int32_t value{-1};
        int32_t output{-1};
        nvinfer1::LoopOutput kind{nvinfer1::LoopOutput::kLAST_VALUE};
        int32_t axis{0};
        bool fromRecurrence{false}; //!< kLAST_VALUE of a recurrence: the value after the last iteration
    };
    std::string name;
    size_t first{0}; //!< the loop's node range [first, last]
    size_t last{0};
    std::vector<Recurrence> recurrences;
    std::vector<Iterator> iterators;
    std::vector<Output> outputs;
    int32_t countTensor{-1}; //!< kCOUNT trip limit: 0-D INT32/INT64 tensor
    int32_t whileTensor{-1}; //!< kWHILE trip limit: 0-D BOOL tensor
    std::vector<size_t> conditionNodes; //!< body nodes computing the kWHILE condition (run first)
    std::vector<size_t> bodyNodes;      //!< the other body nodes
};

struct ControlFlowPlan
{
    std::vector<LoopPlan> loops;
    std::vector<int32_t> loopAt;          //!< per node: index of the loop whose range starts there, else -1
    std::vector<int32_t> branchCondition; //!< per node: condition tensor of a branch node, else -1
    std::vector<int8_t> branch;           //!< per node: 1 (true branch) / 0 (false branch)
    bool empty() const { return loops.empty() && !hasBranches; }
    bool hasBranches{false};
};

//! True when `plan` has loops or conditional branches (cheap: looks at node kinds and attributes).
bool planHasControlFlow(Plan const& plan);
//! Parse and validate the plan's control flow.
StatusOr<ControlFlowPlan> parseControlFlow(Plan const& plan);

} // namespace kiln
