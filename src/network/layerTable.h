// The per-kind facts the network analysis and the builder need: the inference function, and which input
// slots are shape inputs (their values must be known during shape inference).
#pragma once

#include "core/layerKinds.h"
#include "network/inferContext.h"

namespace kiln
{

using InferFn = Status (*)(InferContext& ctx);

//! nullptr when Kiln does not implement the layer kind yet.
InferFn inferFunction(nvinfer1::LayerType kind);
//! True when input `slot` of a layer of `kind` is a shape input (its values shape the outputs).
bool isShapeInputSlot(nvinfer1::LayerType kind, int32_t slot, nvinfer1::DataType slotType);

// Inference functions, declared for every kind of the list (core/layerKinds.h) as infer<Name>. Each kind Kiln
// infers defines its function in src/network/layers/<name>Layer.cpp; inferFunction (layerTable.cpp) names the
// kinds without one, which are never referenced.
#define KILN_DECLARE_INFER_FUNCTION(kind, name, iface) Status infer##name(InferContext& ctx);
KILN_FOR_EACH_LAYER_KIND(KILN_DECLARE_INFER_FUNCTION)
#undef KILN_DECLARE_INFER_FUNCTION

} // namespace kiln
