// Engine reader: rebuilds a kiln::Plan from a Kiln engine file. Decoding checks every byte (bounds, counts,
// checksums, enum values) and the decoded Plan then goes through validatePlan (engine/planValidation.h), so that no
// input can crash, hang or exhaust memory.
#pragma once

#include "core/status.h"
#include "engine/engineFormat.h"
#include "engine/plan.h"

#include <cstddef>
#include <memory>

namespace kiln
{

//! Cheap check of the fixed header and the section table (magic, format version, sizes, header checksum,
//! TensorRT API version, section layout). Section contents and their checksums are not examined.
Status checkEngineHeader(void const* data, size_t size);

//! checkEngineHeader, returning what the header says (versions, backend, sections).
StatusOr<engine::EngineHeaderInfo> readEngineHeader(void const* data, size_t size);

//! Read an engine. The bytes are copied once into 64-byte aligned storage kept in Plan::storage; the
//! PlanWeights::data pointers point into that copy. `data` needs no particular alignment.
StatusOr<Plan> readEngine(void const* data, size_t size);

//! Read an engine in place from caller-owned memory (e.g. an mmap'd file) without copying. `bytes` must be
//! 64-byte aligned and stay unchanged; the Plan keeps `bytes` alive in Plan::storage and its weights point into it.
StatusOr<Plan> readEngineShared(std::shared_ptr<void const> bytes, size_t size);

} // namespace kiln
