// EngineData: an immutable Plan plus the lookup tables the runtime derives from it once (I/O positions by
// name, producers, profile entries per input, format descriptions). Engines, execution contexts and
// inspectors share it through std::shared_ptr<EngineData const>; nothing in it changes after creation.
#pragma once

#include "core/status.h"
#include "engine/plan.h"
#include "engine/controlFlowPlan.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace kiln
{

class Backend;

struct EngineData
{
    Plan plan;
    Backend const* backend{nullptr}; //!< the backend named by plan.backend (loaded when the engine is created)

    int32_t nbInputs{0};                              // I/O positions [0, nbInputs) are inputs
    std::unordered_map<std::string, int32_t> ioByName; // I/O tensor name -> position in plan.ioTensors
    std::vector<int32_t> ioPosition;                   // per tensor: position in plan.ioTensors, or -1
    std::vector<int32_t> producer;                     // per tensor: index of the node writing it, or -1
    std::vector<bool> consumed;                        // per tensor: read by at least one node
    //! [profile][I/O position] -> index into PlanProfile::inputs, or -1 when the profile does not list it.
    std::vector<std::vector<int32_t>> profileInput;
    //! [profile][I/O position][selector] -> shape values narrowed to int32 (getProfileTensorValues).
    std::vector<std::vector<std::array<std::vector<int32_t>, 3>>> profileValues32;
    std::vector<std::string> formatDesc;        // per I/O position (getTensorFormatDesc)
    std::vector<std::string> symbolBinder;      // per symbol: "input 'x' dimension 0" etc., empty when unbound
    bool hasDataDependentShapes{false};         // some symbol is only known after a layer runs
    // Data-dependent shapes (plugin size tensors). A kDATA_DEPENDENT symbol is bound after the node that produces
    // its size tensor ran; until then shapes are evaluated with the symbol at its upper bound.
    std::vector<int32_t> dataDependentSymbols;       // in binding order (by producing node)
    std::vector<int32_t> symbolSizeTensor;           // per symbol: its size tensor, or -1
    std::vector<int32_t> symbolBinderNode;           // per symbol: the node producing its size tensor, or -1
    std::vector<std::vector<int32_t>> nodeBindsSymbols; // per node: symbols bound once it ran
    //! Per expression: the last node (largest index) binding a data-dependent symbol the expression depends on;
    //! -1 when it depends on none. A dimension is unknown while that node has not run.
    std::vector<int32_t> exprLastBinder;
    std::vector<bool> tensorDependsOnData;           // per tensor: some dimension depends on a data-dependent symbol
    //! Per tensor: some dimension depends on the values of a FLOAT shape-tensor input, which no optimization
    //! profile bounds; such intermediate tensors are not in the arena but get a buffer sized at each run.
    std::vector<bool> tensorSizedAtRun;
    //! The shape graph without the constraints that involve data-dependent symbols: used with symbols at their
    //! upper bounds (the full graph's constraints are checked once every symbol is bound).
    ShapeGraph boundsGraph;
    //! Loops and conditional branches (empty for plans without control flow); parsed once when the engine loads.
    ControlFlowPlan controlFlow;
    std::vector<int32_t> ioAliasedInput; // per I/O position: the input position an output aliases (plugins), or -1
    int64_t maxArenaSize{0};                    // largest PlanProfile::arenaSize
    int64_t totalWeightsSize{0};                // bytes of all weights

    int32_t nbIo() const { return static_cast<int32_t>(plan.ioTensors.size()); }
    PlanTensor const& ioTensor(int32_t position) const
    {
        return plan.tensors[static_cast<size_t>(plan.ioTensors[static_cast<size_t>(position)])];
    }
    //! I/O position of `name`, or -1 (also for nullptr).
    int32_t findIo(char const* name) const;
    //! Arena offset of tensor `t` in `profile`, -1 when it has none.
    int64_t arenaOffset(int32_t profile, int32_t t) const;
    int64_t arenaCapacity(int32_t profile, int32_t t) const;
};

//! Derive the runtime tables. Fails for plans this runtime cannot run at all (a backend not available here, no
//! optimization profile, a shape symbol that no input binds).
StatusOr<std::shared_ptr<EngineData const>> makeEngineData(Plan plan);

} // namespace kiln
