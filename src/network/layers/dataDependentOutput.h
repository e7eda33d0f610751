// Data-dependent output shapes of built-in layers (INonZeroLayer, INMSLayer). A 0-D INT32/INT64 output becomes the
// size tensor of a new kDATA_DEPENDENT shape symbol, as IExprBuilder::declareSizeTensor does for plugins: the network
// analysis registers outputs whose value is a symbol created by the layer's own inference, the builder keeps tensors
// depending on it out of the activation arena, and the runtime binds the symbol from the size tensor once the layer ran.
#pragma once

#include "network/inferContext.h"

#include <string>

namespace kiln
{

//! Declare output `output` (a 0-D tensor; set its INT32/INT64 type before or after) the size tensor of a new
//! data-dependent symbol with upper bound `upper` and auto-tuning value `opt` (expressions over input symbols only).
//! Returns the symbol, to be used in the dimensions of the other outputs.
inline DimExpr declareLayerSizeTensor(InferContext& ctx, int32_t output, DimExpr upper, DimExpr opt)
{
    ShapeGraph& g = ctx.graph();
    ExprId const symbol = g.symbol(SymbolKind::kDATA_DEPENDENT, ctx.layerName() + ".count");
    g.setSymbolBounds(static_cast<int32_t>(g.node(symbol).value), upper.id(), opt.id());
    DimExpr const count(&g, symbol);
    TensorInfo& out = ctx.output(output);
    out.dims = {};
    out.values = std::vector<DimExpr>{count};
    return count;
}

} // namespace kiln
