// BuildContext: the state the builder passes share while turning a network into a Plan.
#pragma once

#include "backends/backend.h"
#include "builder/builderConfig.h"
#include "core/logging.h"
#include "engine/plan.h"
#include "network/networkAnalysis.h"
#include "network/networkDefinition.h"

#include <memory>
#include <string>
#include <unordered_map>

namespace kiln
{
class PluginLayerState;

//! The outcome of timing one node's candidate tactics (builder/tacticTiming.h).
struct TimedTactic
{
    std::string tactic;   //!< the chosen tactic
    std::string report;   //!< the candidates' times ("tactic.timing")
    std::string autotune; //!< the chosen tactic's library choices ("autotune")
    std::string layer;    //!< the node that was timed
};

struct BuildContext
{
    NetworkDefinition const& network;
    BuilderConfig const& config;
    Logger& logger;
    //! The backend the engine is built for (chosen from the config before the passes run).
    Backend const* backend{nullptr};
    std::unique_ptr<NetworkAnalysis> analysis;
    Plan plan;
    std::unordered_map<Tensor const*, int32_t> tensorIndex; // network tensor -> plan tensor
    //! Plugin nodes: plan node index -> the layer's plugin (the network's clone). Filled by lowerPass; pluginPass
    //! replaces the plugin nodes' attributes with their engine records and clears this map.
    std::unordered_map<size_t, PluginLayerState const*> nodePlugins;
    //! Timed choices by node signature: a later node that looks the same to the backend (kind, attributes,
    //! candidates, tensor types, formats and extents at the timing shapes) takes the choice without timing again.
    std::unordered_map<std::string, TimedTactic> timedTactics;
};

// The passes, in the order the builder runs them (one file each under src/builder/passes/).
//! Strict network analysis: structure, cycles, shapes and types (fills ctx.analysis).
Status analyzePass(BuildContext& ctx);
//! Rejects flag combinations and networks the CPU backend cannot build (e.g. strong typing + kFP16).
Status checkConfigPass(BuildContext& ctx);
//! Network -> plan tensors/nodes/weights; drops dead layers, binds constants, inserts type conversions.
Status lowerPass(BuildContext& ctx);
//! Checks every optimization profile against the inputs and evaluates shapes at kMIN/kOPT/kMAX.
Status profilesPass(BuildContext& ctx);
//! Plugin nodes: builder's clone, CPU check, format/type negotiation (inserting reformat nodes), configure per
//! profile, workspace, tactic timing, aliasing and the engine record (see pluginPass.cpp).
Status pluginPass(BuildContext& ctx);
//! Pure reshapes of constants become constants of the same weights (no node runs for them; see constantReshapePass.cpp).
Status constantReshapePass(BuildContext& ctx);
//! FP16/BF16 for weakly typed networks with kFP16/kBF16 (CUDA builds, or KILN_PRECISION=1; see precisionPass.cpp).
Status precisionPass(BuildContext& ctx);
//! Fuses conv/deconv/matmul epilogues and pointwise chains (CUDA builds, or KILN_FUSE=1; runs after precisionPass;
//! see fusionPass.cpp).
Status fusionPass(BuildContext& ctx);
//! Channel-last (kHWC8) activations between the layers the backend runs that way, with reformats at the boundaries
//! (see channelLastPass.cpp).
Status channelLastPass(BuildContext& ctx);
//! Chooses an implementation (tactic) per node and checks the backend can create it.
Status tacticsPass(BuildContext& ctx);
//! A convolution's fused residual that dies at the convolution shares the output's memory (backends that add in
//! place; see inPlaceAddPass.cpp).
Status inPlaceAddPass(BuildContext& ctx);
//! Plans the activation arena per profile (offsets and capacities).
Status memoryPass(BuildContext& ctx);

//! Symbol values for one profile selector (0 = kMIN, 1 = kOPT, 2 = kMAX); used by profilesPass/memoryPass.
StatusOr<std::vector<int64_t>> profileSymbolValues(Plan const& plan, PlanProfile const& profile, int32_t selector);

} // namespace kiln
