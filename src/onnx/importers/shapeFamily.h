// Extra entry lists of the shape, layout and indexing families, kept in their own files so that no family file grows
// too long. Each is appended by its family function (shapeImporters, layoutImporters, indexingImporters).
#pragma once

#include "onnx/opImporters.h"

#include <vector>

namespace kiln
{

//! Expand, Tile, ConstantOfShape, Range, EyeLike, Trilu (shapeCreationImporters.cpp).
std::vector<OpImporterEntry> shapeCreationImporters();
//! Slice, Pad (sliceImporters.cpp).
std::vector<OpImporterEntry> sliceImporters();
//! Scatter, ScatterElements, ScatterND (scatterImporters.cpp).
std::vector<OpImporterEntry> scatterImporters();

} // namespace kiln
