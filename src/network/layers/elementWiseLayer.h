// ElementWiseLayer: Kiln's IElementWiseLayer (binary operation with broadcasting), plus small helpers shared by
// the inference functions of the elementwise family (unary, activation, select, cast, scale ...).
//
// Attributes: "operation" (int, nvinfer1::ElementWiseOperation). No weights. Inputs 0 and 1: the operands.
#pragma once

#include "network/layer.h" // first: inferContext.h needs NvInfer.h
#include "network/inferContext.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln
{

class ElementWiseLayer final : public LayerBase<nvinfer1::IElementWiseLayer>
{
public:
    ElementWiseLayer(NetworkDefinition& network, Tensor* input1, Tensor* input2, nvinfer1::ElementWiseOperation op);

    void setOperation(nvinfer1::ElementWiseOperation op) noexcept override;
    nvinfer1::ElementWiseOperation getOperation() const noexcept override;
};

//! Most elements a shape tensor's symbolic values are tracked for (TensorRT's shape-tensor volume limit).
constexpr int64_t kMAX_SHAPE_VALUES = 64;

//! The types whose elements the CPU backend stores unpacked: FP32, FP16, BF16, INT8, UINT8, INT32, INT64, BOOL.
bool isStorableType(nvinfer1::DataType type);
//! kINT32 or kINT64 (the types of shape tensors).
bool isShapeIntType(nvinfer1::DataType type);

//! Values of `info` broadcast to `outDims`, when both shapes are build-time constants, the ranks agree, the
//! output has at most kMAX_SHAPE_VALUES elements and `info` carries values; otherwise nullopt.
std::optional<std::vector<DimExpr>> broadcastValues(TensorInfo const& info, ShapeExpr const& outDims);

//! Checks a user-supplied Weights argument: count >= 0, values present when count > 0, a storable type.
//! `what` names the argument, e.g. "addScale shift". Returns invalidArgument on failure.
Status checkWeightsArgument(nvinfer1::Weights const& w, std::string const& what);

//! "FP32", "INT64", ... or "DataType(<n>)" for values outside the enumeration.
std::string typeName(nvinfer1::DataType type);

} // namespace kiln
