// constantFolding: before the main import, finds the nodes whose inputs are all parse-time constants (initializers,
// Constant outputs, outputs of such nodes), imports them into a scratch network with the same importers, builds and
// runs it once on the CPU with a private builder, and returns the results as constants so that the main network
// has no layers for them. Random ops, nodes with graph attributes and plugin-served nodes are never folded. Any
// failure leaves the model to the normal import (logged at kVERBOSE).
#pragma once

#include "NvInfer.h"
#include "onnx/graphImporter.h"
#include "onnx/modelLoader.h"
#include "onnx/onnxConstant.h"

#include <map>
#include <string>
#include <vector>

namespace kiln
{

struct FoldedConstants
{
    //! Values the folded nodes produce that the rest of the graph (or the graph outputs) uses.
    std::map<std::string, OnnxConstant> values;
    //! Per node: true when it was folded (the main import skips it).
    std::vector<bool> folded;
    int32_t nbFolded{0};
};

//! Fold what can be folded. `base` carries the initializer overrides (and plugin options, to avoid folding nodes
//! a plugin serves). `logger` receives kVERBOSE notes only.
FoldedConstants foldConstants(OnnxModel const& model, GraphImportOptions const& base, nvinfer1::ILogger* logger);

} // namespace kiln
