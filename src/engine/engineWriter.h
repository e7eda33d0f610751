// Engine writer: serializes a kiln::Plan into the Kiln engine file format (docs/engine-format.md).
// The output is deterministic: the same Plan always gives byte-identical bytes.
#pragma once

#include "core/status.h"
#include "engine/engineFormat.h"
#include "engine/plan.h"

#include <cstdint>
#include <vector>

namespace kiln
{

//! Serialize `plan`. Fails (without writing anything) when the plan is inconsistent in a way the reader would
//! reject (see validatePlan in engine/planValidation.h) or cannot be encoded (e.g. a backend name over 31 bytes).
//! Plan::apiVersion / Plan::kilnVersion of 0 are written as the current NV_TENSORRT_VERSION / Kiln version.
StatusOr<std::vector<uint8_t>> writeEngine(Plan const& plan);

//! Encode `plan` without validatePlan, for the structure-aware fuzzer and tests that craft engines the reader must
//! refuse (a file with valid checksums and an invalid structure). Only what cannot be encoded at all fails. Every
//! weights entry must point at `size` readable bytes. Never use it for engines meant to be loaded.
StatusOr<std::vector<uint8_t>> writeEngineUnchecked(Plan const& plan);

} // namespace kiln
