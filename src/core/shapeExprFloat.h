// Internal helpers of ShapeGraph for its float-valued nodes (kTO_FLOAT .. kTO_INT): classification, rounding
// and evaluation of one node. Used by shapeExpr.cpp and shapeExprFloat.cpp only.
#pragma once

#include "core/shapeExpr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::shape_float
{

//! True for kTO_FLOAT .. kTO_INT.
bool isFloatNodeOp(ExprOp op);
//! True when a node of this op produces a double (every float node except kTO_INT).
bool producesFloat(ExprOp op);
//! Round `x` to an integral double with `rounding`.
double roundDouble(double x, ExprRounding rounding);
//! `x` rounded with `rounding` to int64; false for NaN, infinities and values outside int64.
bool doubleToInt(double x, ExprRounding rounding, int64_t& out);
//! Evaluate float node `n` from `values` (one per earlier node). Returns false with `error` set on failure.
bool evaluateFloatNode(ExprNode const& n, std::vector<int64_t> const& values, int64_t& out, std::string& error);
//! Readable operator name of a float binary op, e.g. "+".
char const* floatOpSymbol(ExprOp op);
//! Name of a rounding, e.g. "floor".
char const* roundingName(ExprRounding rounding);

} // namespace kiln::shape_float
