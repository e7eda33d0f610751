// The per-kind facts the network analysis and the builder need: the inference function, and which input
// slots are shape inputs (their values must be known during shape inference).
#pragma once

#include "network/inferContext.h"

namespace kiln
{

using InferFn = Status (*)(InferContext& ctx);

//! nullptr when Kiln does not implement the layer kind yet.
InferFn inferFunction(nvinfer1::LayerType kind);
//! True when input `slot` of a layer of `kind` is a shape input (its values shape the outputs).
bool isShapeInputSlot(nvinfer1::LayerType kind, int32_t slot, nvinfer1::DataType slotType);

// Inference functions, one per layer kind, defined in src/network/layers/<kind>Layer.cpp.
Status inferActivation(InferContext& ctx);
Status inferAssertion(InferContext& ctx);
Status inferCast(InferContext& ctx);
Status inferCondition(InferContext& ctx);
Status inferConditionalInput(InferContext& ctx);
Status inferConditionalOutput(InferContext& ctx);
Status inferConcatenation(InferContext& ctx);
Status inferConstant(InferContext& ctx);
Status inferConvolution(InferContext& ctx);
Status inferCumulative(InferContext& ctx);
Status inferDeconvolution(InferContext& ctx);
Status inferEinsum(InferContext& ctx);
Status inferElementWise(InferContext& ctx);
Status inferFill(InferContext& ctx);
Status inferGather(InferContext& ctx);
Status inferGridSample(InferContext& ctx);
Status inferIdentity(InferContext& ctx);
Status inferIterator(InferContext& ctx);
Status inferLoopOutput(InferContext& ctx);
Status inferLRN(InferContext& ctx);
Status inferMatrixMultiply(InferContext& ctx);
Status inferNMS(InferContext& ctx);
Status inferNonZero(InferContext& ctx);
Status inferNormalization(InferContext& ctx);
Status inferOneHot(InferContext& ctx);
Status inferPadding(InferContext& ctx);
Status inferParametricReLU(InferContext& ctx);
Status inferPooling(InferContext& ctx);
Status inferRecurrence(InferContext& ctx);
Status inferReduce(InferContext& ctx);
Status inferResize(InferContext& ctx);
Status inferReverseSequence(InferContext& ctx);
Status inferScale(InferContext& ctx);
Status inferScatter(InferContext& ctx);
Status inferSelect(InferContext& ctx);
Status inferShape(InferContext& ctx);
Status inferShuffle(InferContext& ctx);
Status inferSlice(InferContext& ctx);
Status inferSoftMax(InferContext& ctx);
Status inferSqueeze(InferContext& ctx);
Status inferTopK(InferContext& ctx);
Status inferTripLimit(InferContext& ctx);
Status inferUnary(InferContext& ctx);
Status inferUnsqueeze(InferContext& ctx);

} // namespace kiln
