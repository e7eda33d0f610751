// Plugin tactic timing at build time: each tactic of a plugin that offers two or more (getValidTactics) runs on
// the build's backend (host or device buffers, synchronised after each run) at the opt shapes of profile 0 with random inputs (onShapeChange + setTactic + enqueue, one
// warm-up and a few timed repetitions); the tactic with the smallest median time wins. Timings are logged at kVERBOSE.
#pragma once

#include "backends/backend.h"
#include "core/logging.h"
#include "core/status.h"
#include "plugin/pluginAdapter.h"

#include <vector>

namespace kiln
{

//! One plugin input or output at the timing shapes.
struct TimingTensor
{
    nvinfer1::PluginTensorDesc desc{};
    int64_t bytes{0}; //!< buffer size (format padding and data-dependent upper bounds included)
};

//! Time `tactics` and return the fastest. A tactic whose setTactic/enqueue fails is skipped with a warning; the
//! build fails (naming the plugin) when every tactic fails.
StatusOr<int32_t> timePluginTactics(PluginAdapter& plugin, std::vector<int32_t> const& tactics,
    std::vector<TimingTensor> const& inputs, std::vector<TimingTensor> const& outputs, int64_t workspaceBytes,
    Backend const& backend, Logger const& logger);

} // namespace kiln
