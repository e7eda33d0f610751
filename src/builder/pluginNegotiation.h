// Format/type negotiation of one plugin node: a depth-first search over positions 0..n-1 (inputs, then outputs)
// that asks supportsFormatCombination(pos, inOut, nbInputs) about candidate (type, format) pairs, with the
// positions after `pos` poisoned (kFLOAT/kLINEAR), and stops at the first full combination. Input types are
// candidates (the producer's first); output types follow from the chosen input types (getOutputDataType(s)); only
// output formats are negotiated. At most formatCombinationLimit() answers may be "true".
#pragma once

#include "core/status.h"
#include "plugin/pluginAdapter.h"

#include <string>
#include <vector>

namespace kiln
{

//! What the negotiation knows about one plugin input or output.
struct NegotiationTensor
{
    std::string name;                //!< tensor name, for messages
    nvinfer1::Dims dims{};           //!< build-time dims (-1 for runtime extents)
    nvinfer1::Dims min{};            //!< extents at optimization profile 0 (DynamicPluginTensorDesc::min/opt/max)
    nvinfer1::Dims opt{};
    nvinfer1::Dims max{};
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};         //!< producer's type (inputs) / fallback (outputs)
    nvinfer1::TensorFormat format{nvinfer1::TensorFormat::kLINEAR}; //!< producer's format (inputs), tried first
    bool int8Candidate{false};       //!< inputs: try kINT8 (BuilderFlag::kINT8 or a dynamic range)
    float int8Scale{-1.0F};          //!< PluginTensorDesc::scale when the tensor is INT8 (-1 when unknown)
};

struct NegotiationResult
{
    std::vector<nvinfer1::DataType> types;     //!< inputs, then outputs
    std::vector<nvinfer1::TensorFormat> formats; //!< inputs, then outputs
    int32_t calls{0};                          //!< supportsFormatCombination calls made
};

//! Candidate formats, in the order the builder tries them (kLINEAR first).
std::vector<nvinfer1::TensorFormat> const& candidateFormats();

//! "FP16/kCHW4".
std::string typeFormatName(nvinfer1::DataType type, nvinfer1::TensorFormat format);

//! Negotiate the node's I/O types and formats. Fails naming the plugin and listing what each position rejected
//! when no combination exists, or when the plugin answers "true" more than formatCombinationLimit() times.
StatusOr<NegotiationResult> negotiateFormats(PluginAdapter& plugin, std::vector<NegotiationTensor> const& inputs,
    std::vector<NegotiationTensor> const& outputs, bool stronglyTyped);

} // namespace kiln
