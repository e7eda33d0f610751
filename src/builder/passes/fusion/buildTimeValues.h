// Values of plan tensors that the build can compute on the host: tensors that depend only on constants (weights),
// shape values known at build time and a few pure layers between them (identity/cast, unary NOT/NEG/ABS,
// element-wise arithmetic and comparisons, select, static slices — Expand included —, shuffles and linspace fills).
// The attention fusion reads exported masks with it (causalMask.cpp): a causal band that an exported model computes
// from Range, comparisons and Where at run time is a build-time constant when the sequence length is static.
#pragma once

#include "builder/passes/fusion/fusion.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace kiln::fusion
{

//! A tensor's values up to broadcasting: along an axis whose `dims` entry is 1 the values do not vary, whatever the
//! tensor's extent there (which may be a run-time extent, such as the batch of an expanded mask); elsewhere `dims`
//! is the tensor's constant extent.
struct BuildTimeValues
{
    std::vector<int64_t> dims;
    std::vector<double> values; //!< row-major over dims, rounded to the tensor's type
};

//! The values of tensor `t` when the build can compute them from constants and known shape values through the
//! layers listed above, with at most `maxElements` values in any tensor on the way; nullopt otherwise.
std::optional<BuildTimeValues> buildTimeValues(Plan const& plan, FusionGraph const& g, int32_t t,
    int64_t maxElements = int64_t{1} << 22);

//! A slice parameter (`slot`, attribute `name`): its input's values where connected (a shape tensor whose every value
//! is a build-time constant, as the ONNX importer's computed starts are), else the attribute (empty when absent);
//! nullopt for a value known only at run time.
std::optional<std::vector<int64_t>> staticSliceParameter(Plan const& plan, PlanNode const& slice, size_t slot,
    char const* name);

} // namespace kiln::fusion
