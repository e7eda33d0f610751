// The op importer table: one function per ONNX op, grouped in one file per op family (src/onnx/importers/), all
// registered in opImporterTable.cpp. The parser looks importers up by op_type and domain.
#pragma once

#include "core/status.h"
#include "onnx/importerContext.h"
#include "onnx/onnxConstant.h"

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace kiln
{

//! Converts one node. On success, `outputs` receives one OnnxValue per node output, in order (an undefined OnnxValue
//! for an optional output the importer does not produce; the parser reports it if the model uses that output).
//! On failure, return a Status whose message names the node (describeNode) and the reason; use unsupported(...) for
//! valid ONNX that Kiln cannot import and invalidArgument(...) for malformed nodes.
using OpImporter = Status (*)(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs);

struct OpImporterEntry
{
    char const* opType;
    OpImporter importer;
    char const* domain{""}; //!< "" is the default ONNX domain (also matched by "ai.onnx")
};

// One function per family file (src/onnx/importers/<family>Importers.cpp), each listing its entries.
std::vector<OpImporterEntry> elementwiseImporters();
std::vector<OpImporterEntry> unaryImporters();
std::vector<OpImporterEntry> activationImporters();
std::vector<OpImporterEntry> castImporters();
std::vector<OpImporterEntry> shapeImporters();
std::vector<OpImporterEntry> layoutImporters();
std::vector<OpImporterEntry> indexingImporters();
std::vector<OpImporterEntry> convolutionImporters();
std::vector<OpImporterEntry> poolingImporters();
std::vector<OpImporterEntry> normalizationImporters();
std::vector<OpImporterEntry> matrixImporters();
std::vector<OpImporterEntry> reductionImporters();
std::vector<OpImporterEntry> softmaxImporters();
std::vector<OpImporterEntry> resizeImporters();
std::vector<OpImporterEntry> lossImporters();
std::vector<OpImporterEntry> recurrentImporters();
std::vector<OpImporterEntry> quantizationImporters();
std::vector<OpImporterEntry> miscImporters();
std::vector<OpImporterEntry> layerBackedImporters();
std::vector<OpImporterEntry> dataDependentImporters();
std::vector<OpImporterEntry> generatorImporters();
std::vector<OpImporterEntry> trainingImporters();
std::vector<OpImporterEntry> signalImporters();
std::vector<OpImporterEntry> einsumImporters();
std::vector<OpImporterEntry> gridSampleImporters();
std::vector<OpImporterEntry> pluginBackedImporters();
std::vector<OpImporterEntry> controlFlowImporters();

//! The importer for (opType, domain), or nullptr.
OpImporter findOpImporter(std::string const& opType, std::string const& domain);
//! Every registered op_type (for supportsOperator and documentation).
std::vector<std::string> registeredOpTypes();

} // namespace kiln
