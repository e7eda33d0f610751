// Format negotiation for the contract checker: chooses one type/format per plugin input and output the way the
// builder does (positions in order, asking supportsFormatCombination(pos) with only positions <= pos decided), and
// checks that the answers never depend on positions > pos (rule format-reads-ahead) by poisoning those positions
// with several different descriptors.
#pragma once

#include "core/status.h"
#include "plugin/checker/checkReport.h"
#include "plugin/checker/checkShapes.h"
#include "plugin/checker/checkSpec.h"
#include "plugin/pluginAdapter.h"

#include <vector>

namespace kiln::checker
{

//! INT8 scale the checker puts in the descriptors of INT8 tensors.
constexpr float kCHECK_INT8_SCALE = 1.0F / 64.0F;

struct Negotiation
{
    bool found{false};
    bool linear{true}; //!< every chosen format is kLINEAR (the checker can only run linear buffers)
    //! The chosen descriptors (inputs first), with build-form dims.
    std::vector<nvinfer1::PluginTensorDesc> io;
    //! Where the plugin gave up: "position 1 (output 0)" and what was tried, for messages.
    std::string failure;
};

//! Negotiate I/O types and formats. Errors of plugin calls (supportsFormatCombination, getOutputDataType(s)) are
//! returned as Status; "no combination" is a Negotiation with found == false.
StatusOr<Negotiation> negotiateFormats(
    PluginAdapter& plugin, ShapeModel const& shapes, CheckSpec const& spec, int32_t nbOutputs);

//! Rule format-reads-ahead over the negotiated combination (and, per position, one rejected candidate).
Status checkFormatReadsAhead(PluginAdapter& plugin, ShapeModel const& shapes, CheckSpec const& spec,
    Negotiation const& negotiation, CheckReport& report);

} // namespace kiln::checker
